// Rule: the no-database error goes on after its full stop with a sentence that starts with a capital, whatever its
// caller passes, and names where the path came from and how to start a database: that database, with the --db and
// --workspace the command was given (the editor only where it would make that one, a workspace's default).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { missingDatabase } from '../../src/cli/common.js';

const saved = process.env.BATON_DB_PATH;
before(() => delete process.env.BATON_DB_PATH);
after(() => (saved === undefined ? delete process.env.BATON_DB_PATH : (process.env.BATON_DB_PATH = saved)));

test('the consequence a caller passes starts with a capital', () => {
  const message = missingDatabase('/nowhere/x/baton.db', { db: '/nowhere/x/baton.db' }, 'there is no run r1 to resume.').message;
  assert.match(message, /^no Baton database at \/nowhere\/x\/baton\.db \(given by --db; the folder \/nowhere\/x does not exist either\)\. There is no run r1 to resume\.\n/);
  assert.match(message, /\nTo start it, run "baton mcp --db \/nowhere\/x\/baton\.db" or "baton serve --db \/nowhere\/x\/baton\.db"\.\n/);
});

test('the way to start the database names the --workspace it is the default of; no flag for the current folder\'s', () => {
  const ws = '/nowhere/ws';
  const message = missingDatabase(join(ws, '.baton', 'baton.db'), { workspace: ws }, 'nothing was created.').message;
  assert.match(message, /\nTo start it, run "baton mcp --workspace \/nowhere\/ws" or "baton serve --workspace \/nowhere\/ws", or open that workspace in the editor/);
  const here = missingDatabase(join(process.cwd(), '.baton', 'baton.db'), {}, 'nothing was created.').message;
  assert.match(here, /\nTo start one, run "baton mcp" or "baton serve" in the workspace folder, or open that folder in the editor/);
});
