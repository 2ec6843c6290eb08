// Rule: a command waiting for the process that holds a database names it by its command line as a terminal can show
// it: the words of /proc/PID/cmdline, ASCII only, cut at 100 characters; nothing when the system does not say.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ownerCommand } from '../../src/host/silentOwner.js';

const linux = process.platform === 'linux';

test('the command line is its words joined by spaces, control and non-ASCII bytes shown as ?', () => {
  const read = () => 'node\0/opt/baton/dist/cli.js\0mcp\0--db\0caf\xe9\x1b[2J.db\0';
  assert.equal(ownerCommand(42, read), linux ? 'node /opt/baton/dist/cli.js mcp --db caf??[2J.db' : '');
});

test('a long command line is cut to 100 characters; one that cannot be read is said as nothing', () => {
  const long = ownerCommand(42, () => `node\0${'x'.repeat(200)}`);
  assert.equal(long, linux ? `node ${'x'.repeat(92)}...` : '');
  assert.equal(long.length, linux ? 100 : 0);
  assert.equal(ownerCommand(42, () => { throw new Error('ENOENT'); }), '');
});

test('this process\'s own command line is read from the system', () => {
  assert.equal(ownerCommand(process.pid).startsWith(linux ? process.execPath : ''), true);
});
