// Rule: a command waiting for the process that holds a database names it by its command line as a terminal can show
// it: the words of /proc/PID/cmdline (of ps where there is no /proc), ASCII only, cut at 100 characters; nothing when
// the system does not say.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { ownerCommand, runPs, type PsRunner } from '../../src/host/silentOwner.js';

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

test('without /proc (macOS, the BSDs) the command line comes from ps: a real process\'s, cut and ASCII; nothing from a ps that fails', { skip: process.platform === 'win32' }, async () => {
  const calls: string[][] = [];
  const ps: PsRunner = (args) => (calls.push(args), runPs(args));
  const noProc = () => { throw new Error('no /proc on darwin'); };
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'caf\u00e9', 'x'.repeat(200)], { stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const words = ownerCommand(child.pid!, noProc, 'darwin', ps);
    assert.ok(words.startsWith(`${process.execPath} -e setInterval(() => {}, 1000) caf`), words);
    assert.match(words, /^[\x20-\x7e]{97}\.\.\.$/, words);
    assert.deepEqual(calls[0], ['-o', 'args=', '-p', String(child.pid)]);
  } finally {
    child.kill('SIGKILL');
  }
  await exited;
  assert.equal(ownerCommand(child.pid!, noProc, 'darwin', ps), '', 'a process that is gone');
  assert.equal(ownerCommand(42, noProc, 'freebsd', () => { throw new Error('ENOENT'); }), '');
  assert.equal(ownerCommand(42, noProc, 'darwin', () => 'node cli.js caf\xe9\x1b[2J\n'), 'node cli.js caf??[2J');
  assert.equal(ownerCommand(42, () => 'node\0cli.js', 'win32', () => assert.fail('ps was run')), '');
});
