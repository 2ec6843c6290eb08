// Rule: exactly one live process owns a database; a second opener is told the owner's pid, and the
// lock of a dead process (or a garbage lock file) is taken over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { BatonError } from '../../src/core/errors.js';
import { acquireLock, readLockOwner } from '../../src/store/lock.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { runToEnd, spawnTs, storeChildScript, tempDir, withTempDir, waitForLine } from '../fixtures/store/helpers.js';

/** The pid of a process that has already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  assert.ok(r.pid && r.pid > 0);
  return r.pid;
}

test('a second process cannot open a database another live process owns', async () => {
  await withTempDir(async (t) => {
    const child = spawnTs(storeChildScript, ['hold', t.db]);
    const ended = runToEnd(child);
    await waitForLine(child, /^ready$/);
    assert.equal(readLockOwner(t.db), child.pid);
    await assert.rejects(openStore({ path: t.db }), (ex: unknown) => {
      assert.ok(BatonError.is(ex, 'store_locked'), String(ex));
      assert.equal(ex.details.ownerPid, child.pid);
      assert.match(ex.message, new RegExp(`owned by Baton process ${child.pid}; connect to it`));
      return true;
    });
    child.stdin?.end();
    const result = await ended;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(readLockOwner(t.db), null);
    const s = await openStore({ path: t.db });
    assert.equal(readLockOwner(t.db), process.pid);
    await s.close();
  });
});

test('the same process cannot own a database twice', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db });
    await assert.rejects(openStore({ path: t.db }), (ex: unknown) => BatonError.is(ex, 'store_locked') && ex.details.ownerPid === process.pid);
    await s.close();
  });
});

test('processes racing for a stale lock: exactly one wins, the others name it', async () => {
  await withTempDir(async (t) => {
    writeFileSync(`${t.db}.lock`, `${deadPid()}\n`);
    const at = Date.now() + 1500;
    const racers = [0, 1, 2, 3].map(() => spawnTs(storeChildScript, ['lock', t.db, String(at)]));
    const ends = racers.map(runToEnd);
    const lines = await Promise.all(racers.map((r) => waitForLine(r, /^(acquired|refused \d+)$/)));
    for (const r of racers) r.stdin!.end();
    const results = await Promise.all(ends);
    const winners = racers.filter((_, i) => lines[i] === 'acquired');
    assert.equal(winners.length, 1, `${lines.join(' | ')} ${results.map((r) => r.stderr).join('')}`);
    for (const line of lines.filter((l) => l !== 'acquired')) assert.equal(line, `refused ${winners[0]!.pid}`);
  });
});

test('the lock of a dead process is taken over', async () => {
  await withTempDir(async (t) => {
    const dead = deadPid();
    writeFileSync(`${t.db}.lock`, `${dead}\n`);
    assert.equal(readLockOwner(t.db), null);
    const s = await openStore({ path: t.db });
    assert.equal(readFileSync(`${t.db}.lock`, 'utf8').trim(), String(process.pid));
    await s.close();
    assert.equal(existsSync(`${t.db}.lock`), false);
  });
});

test('an empty or garbage lock file is taken over', () => {
  const t = tempDir();
  try {
    for (const junk of ['', 'not a pid', '-5', '0']) {
      writeFileSync(`${t.db}.lock`, junk);
      const lock = acquireLock(t.db);
      assert.ok(lock.acquired, `took over ${JSON.stringify(junk)}`);
      assert.equal(readLockOwner(t.db), process.pid);
      const second = acquireLock(t.db);
      assert.deepEqual(second, { acquired: false, ownerPid: process.pid });
      lock.release();
      assert.equal(existsSync(`${t.db}.lock`), false);
    }
  } finally {
    t.cleanup();
  }
});

test('release() leaves a lock that someone else now holds alone', () => {
  const t = tempDir();
  try {
    const lock = acquireLock(t.db);
    assert.ok(lock.acquired);
    writeFileSync(`${t.db}.lock`, `${process.ppid}\n`);
    lock.release();
    assert.equal(readFileSync(`${t.db}.lock`, 'utf8').trim(), String(process.ppid));
  } finally {
    t.cleanup();
  }
});
