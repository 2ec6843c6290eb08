// Rule: an error of the file system or the network that the user can act on is one plain sentence naming what was
// refused and why (never an internal error's stack); anything else is left to the caller.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { systemErrorText } from '../../src/cli/systemError.js';
import { acquireLock } from '../../src/store/lock.js';

test('a folder where a file is needed, and a path through a file', () => {
  const dir = mkdtempSync(`${tmpdir()}/baton-syserr-`);
  const caught = (fn: () => unknown) => {
    try {
      fn();
    } catch (ex) {
      return ex;
    }
    throw new Error('no error');
  };
  assert.equal(systemErrorText(caught(() => readFileSync(dir))), 'cannot read: it is a folder where a file is needed (EISDIR). Check the path (--db, --workspace, BATON_DB_PATH) and its permissions.');
  assert.match(systemErrorText(caught(() => readFileSync(`${__filename}/x`)))!, /^cannot open .*systemError\.test\.ts\/x: a part of the path is a file, not a folder \(ENOTDIR\)/);
  assert.equal(systemErrorText(new Error('plain')), null);
  assert.equal(systemErrorText(Object.assign(new Error('x'), { code: 'ESOMETHINGELSE' })), null);
});

test('a port in use', async () => {
  const first = createServer();
  await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
  const port = (first.address() as { port: number }).port;
  const second = createServer();
  const ex = await new Promise<unknown>((resolve) => second.once('error', resolve).listen(port, '127.0.0.1'));
  first.close();
  assert.equal(systemErrorText(ex), `port ${port} on 127.0.0.1 is in use by another program; pass another --port, or leave --port out for a free one`);
});

test('a lock file the folder refuses is named as the database\'s lock, never as the temp file it is made from', (t) => {
  if (process.platform !== 'linux') return t.skip('needs /proc, which takes no new files');
  let caught: unknown;
  try {
    acquireLock('/proc/baton-x.db');
  } catch (ex) {
    caught = ex;
  }
  assert.ok(caught instanceof Error, 'acquireLock refused');
  assert.equal((caught as NodeJS.ErrnoException).path, '/proc/baton-x.db.lock');
  assert.equal(
    systemErrorText(caught),
    'cannot create /proc/baton-x.db.lock, the lock file of the database /proc/baton-x.db: the folder /proc is not writable, or its file system ' +
      'refuses new files there (ENOENT: no such file or folder). Use another --db (or BATON_DB_PATH) in a folder you can write to.',
  );
});
