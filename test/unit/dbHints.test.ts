// Rule: a refusal the core or an owner words (it cannot know the command's --db) gets the database the command was
// given after each backticked `baton ...` command that names none, shell-quoted, so the command works pasted; a
// command that names its database already, `baton blueprint` (which opens none) and the default database are left.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { dbPathIn, withDbFlag } from '../../src/cli/common.js';

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
