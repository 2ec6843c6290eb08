// Rule: a refusal the core or an owner words (it cannot know the command's --db) gets the database the command was
// given after each backticked `baton ...` command that names none, shell-quoted, so the command works pasted; a
// command that names its database already, `baton blueprint` (which opens none) and the default database are left. A
// command that reads the workspace (spec start, start, run, new, pipeline run|list, blueprint) gets the --workspace
// the command had instead, since a FILE is read from the current folder and --db alone leaves the workspace there.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { dbPathIn, flagsFor, withDbFlag, workspaceIn } from '../../src/cli/common.js';

const saved = process.env.BATON_DB_PATH;
before(() => delete process.env.BATON_DB_PATH);
after(() => (saved === undefined ? delete process.env.BATON_DB_PATH : (process.env.BATON_DB_PATH = saved)));

test('each backticked baton command without a database gets --db; the rest of the text is left as it is', () => {
  const text = 'No run "x"; list runs with `baton pipeline list`, or stop it with `baton stop @pr-1` (see baton status).';
  assert.equal(withDbFlag(text, '/srv/state/b.db'),
    'No run "x"; list runs with `baton pipeline list --db /srv/state/b.db`, or stop it with `baton stop @pr-1 --db /srv/state/b.db` (see baton status).');
  assert.equal(withDbFlag('see `baton status`', '/srv/my state/b.db'), "see `baton status --db '/srv/my state/b.db'`");
  assert.equal(withDbFlag('see `baton status --db /a.db` or `baton status --workspace w`', '/srv/b.db'),
    'see `baton status --db /a.db` or `baton status --workspace w`');
  assert.equal(withDbFlag('make one with `baton blueprint new NAME --from X`', '/srv/b.db'), 'make one with `baton blueprint new NAME --from X`');
  assert.equal(withDbFlag('see `baton status`', join(process.cwd(), '.baton', 'baton.db')), 'see `baton status`', 'the default needs none');
});

test('dbPathIn reads --db and --workspace among a command\'s other flags and words, as the command does', () => {
  assert.equal(dbPathIn(['resume', 'r1', '--budget-tokens', '9', '--db', '/srv/b.db']), '/srv/b.db');
  assert.equal(dbPathIn(['x', '--db=/srv/c.db', '--json']), '/srv/c.db');
  assert.equal(dbPathIn(['x', '--workspace', '/srv/ws']), '/srv/ws/.baton/baton.db');
  assert.equal(dbPathIn(['x', '--step', 'NAME']), join(process.cwd(), '.baton', 'baton.db'));
});

test('a command that reads the workspace gets --workspace (and --db only when it is not that workspace\'s default)', () => {
  const text = 'start one with `baton spec start <tasks.md>`, and see the latest with `baton spec status`.';
  assert.equal(withDbFlag(text, '/srv/ws/.baton/baton.db', '/srv/ws'),
    'start one with `baton spec start <tasks.md> --workspace /srv/ws`, and see the latest with `baton spec status --db /srv/ws/.baton/baton.db`.');
  assert.equal(withDbFlag('again with `baton start FILE --instance x`', '/srv/state/b.db', '/srv/ws'),
    'again with `baton start FILE --instance x --workspace /srv/ws --db /srv/state/b.db`');
  assert.equal(withDbFlag('Create one with `baton blueprint new NAME --from BLUEPRINT`.', '/srv/ws/.baton/baton.db', '/srv/my ws'),
    "Create one with `baton blueprint new NAME --from BLUEPRINT --workspace '/srv/my ws'`.");
  assert.equal(flagsFor('baton pipeline run', join(process.cwd(), 'ws', '.baton', 'baton.db'), 'ws'), ` --workspace ${join(process.cwd(), 'ws')}`,
    'a relative one made absolute');
  assert.equal(flagsFor('baton run', '/srv/b.db', undefined), ' --db /srv/b.db', 'no --workspace given: --db as before');
  const here = join(process.cwd(), '.baton', 'baton.db');
  assert.equal(withDbFlag('see `baton spec start F`', here, '.'), 'see `baton spec start F`', '--workspace naming the current folder needs none');
  assert.equal(flagsFor('baton approve', '/srv/ws/.baton/baton.db', '/srv/ws'), ' --db /srv/ws/.baton/baton.db', 'a decision needs only the database');
});

test('workspaceIn reads --workspace among a command\'s other flags and words', () => {
  assert.equal(workspaceIn(['new', 'NAME', '--workspace=/srv/ws', '--json']), '/srv/ws');
  assert.equal(workspaceIn(['new', 'NAME', '--db', '/srv/b.db']), undefined);
});
