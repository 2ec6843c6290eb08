// Rule: the no-database error goes on after its full stop with a sentence that starts with a capital, whatever its
// caller passes, and names where the path came from and how to start a database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { missingDatabase } from '../../src/cli/common.js';

test('the consequence a caller passes starts with a capital', () => {
  const message = missingDatabase('/nowhere/x/baton.db', { db: '/nowhere/x/baton.db' }, 'there is no run r1 to resume.').message;
  assert.match(message, /^no Baton database at \/nowhere\/x\/baton\.db \(given by --db; the folder \/nowhere\/x does not exist either\)\. There is no run r1 to resume\.\n/);
  assert.match(message, /\nTo start one, run "baton mcp" or "baton serve"/);
});
