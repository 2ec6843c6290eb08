// Rule: an owner whose lock file was deleted while it ran, and whose database another process took since (still
// running, or gone again), accepts no more writes and writes no checkpoint: it would write over the other's journal
// records and snapshot. What each acknowledged stays. A lock file deleted with nobody taking the database meanwhile is
// made again, and the owner goes on; an idle owner looks at its lock every second, so it makes a deleted one again
// before another process takes the database, and says so without a call when one took it all the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { BatonError } from '../../src/core/errors.js';
import { lockPathOf } from '../../src/store/lock.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { runToEnd, spawnTs, storeChildScript, waitForLine, withTempDir } from '../fixtures/store/helpers.js';
import { until } from '../helpers/until.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
// The owner looks at its lock only when it writes: another process gets the time to take the database.
const noCheckpoints = { idleCheckpointMs: 60_000, checkpointRecords: 1_000_000, ownershipCheckMs: 0, log: quiet };
const put = (s: SqlJsStore, key: string) => s.transaction(() => s.run('INSERT INTO meta (key, value) VALUES (?, ?)', [key, 'v']));
const keys = (s: SqlJsStore) => s.all<{ key: string }>("SELECT key FROM meta WHERE key LIKE 'k%' OR key LIKE 'child-%' ORDER BY key").map((r) => r.key);
const lostLock = (ex: unknown) => BatonError.is(ex, 'store_failed') && /was deleted while it ran/.test(ex.message);

/** Another process opens the database (its lock file gone), acknowledges three writes and dies without a checkpoint. */
async function anotherOwnerCameAndWent(db: string): Promise<void> {
  const r = await runToEnd(spawnTs(storeChildScript, ['crash', db, '3']));
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /acked 3/);
}

test('a write after another process owned the database meanwhile is refused, and the other\'s writes survive', async () => {
  await withTempDir(async (t) => {
    const a = await openStore({ path: t.db, ...noCheckpoints });
    await put(a, 'k1');
    unlinkSync(lockPathOf(t.db));
    await anotherOwnerCameAndWent(t.db);
    await assert.rejects(put(a, 'k2'), lostLock);
    await assert.rejects(put(a, 'k3'), lostLock, 'and every write after it');
    await a.close();
    const b = await openStore({ path: t.db, ...noCheckpoints });
    assert.deepEqual(keys(b), ['child-1', 'child-2', 'child-3', 'k1']);
    await b.close();
  });
});

test('a write after another process owned the database meanwhile and closed it in order is refused too', async () => {
  // Its last checkpoint emptied the journal again: only the database file it wrote tells that it was there.
  await withTempDir(async (t) => {
    const a = await openStore({ path: t.db, ...noCheckpoints });
    await put(a, 'k1');
    await a.checkpoint();
    unlinkSync(lockPathOf(t.db));
    const r = await runToEnd(spawnTs(storeChildScript, ['write', t.db, '3']));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /closed 3/);
    await assert.rejects(put(a, 'k2'), lostLock);
    await assert.rejects(a.checkpoint(), lostLock, 'nor is its snapshot written over');
    await a.close();
    const b = await openStore({ path: t.db, ...noCheckpoints });
    assert.deepEqual(keys(b), ['child-1', 'child-2', 'child-3', 'k1']);
    await b.close();
  });
});

test('a checkpoint after another process owned the database meanwhile is refused: its snapshot is not overwritten', async () => {
  await withTempDir(async (t) => {
    const a = await openStore({ path: t.db, ...noCheckpoints });
    await put(a, 'k1');
    unlinkSync(lockPathOf(t.db));
    await anotherOwnerCameAndWent(t.db);
    await assert.rejects(a.checkpoint(), lostLock);
    await a.close();
    const b = await openStore({ path: t.db, ...noCheckpoints });
    assert.deepEqual(keys(b), ['child-1', 'child-2', 'child-3', 'k1']);
    await b.close();
  });
});

test('a write while another live process owns the database is refused, naming it', async () => {
  await withTempDir(async (t) => {
    const a = await openStore({ path: t.db, ...noCheckpoints });
    await put(a, 'k1');
    unlinkSync(lockPathOf(t.db));
    const child = spawnTs(storeChildScript, ['hold', t.db]);
    const ended = runToEnd(child);
    await waitForLine(child, /^ready$/);
    await assert.rejects(put(a, 'k2'), (ex: unknown) => lostLock(ex) && (ex as Error).message.includes(`process ${child.pid} owns the database now`));
    assert.equal(readFileSync(lockPathOf(t.db), 'utf8').trim(), String(child.pid), 'its lock is left alone');
    await a.close();
    assert.equal(readFileSync(lockPathOf(t.db), 'utf8').trim(), String(child.pid), 'closing leaves it alone too');
    child.stdin?.end();
    assert.equal((await ended).code, 0);
    const b = await openStore({ path: t.db, ...noCheckpoints });
    assert.deepEqual(keys(b), ['k1']);
    await b.close();
  });
});

test('a lock file deleted with nobody taking the database meanwhile is made again, and writes go on', async () => {
  await withTempDir(async (t) => {
    const a = await openStore({ path: t.db, ...noCheckpoints });
    await put(a, 'k1');
    unlinkSync(lockPathOf(t.db));
    await put(a, 'k2');
    assert.equal(readFileSync(lockPathOf(t.db), 'utf8').trim(), String(process.pid), 'the lock is back');
    await a.checkpoint();
    await put(a, 'k3');
    await a.close();
    assert.equal(existsSync(lockPathOf(t.db)), false);
    const b = await openStore({ path: t.db, ...noCheckpoints });
    assert.deepEqual(keys(b), ['k1', 'k2', 'k3']);
    await b.close();
  });
});

test('an idle owner makes its deleted lock file again within a second, and another process cannot take the database', async () => {
  await withTempDir(async (t) => {
    const a = await openStore({ path: t.db, ...noCheckpoints, ownershipCheckMs: 100 });
    await put(a, 'k1');
    await a.checkpoint();
    unlinkSync(lockPathOf(t.db));
    await until('the lock file made again without a call', () => existsSync(lockPathOf(t.db)), 5_000);
    assert.equal(readFileSync(lockPathOf(t.db), 'utf8').trim(), String(process.pid), 'the lock is back, ours');
    const r = await runToEnd(spawnTs(storeChildScript, ['write', t.db, '1']));
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, new RegExp(`owned by Baton process ${process.pid}`));
    await put(a, 'k2');
    await a.close();
    const b = await openStore({ path: t.db, ...noCheckpoints });
    assert.deepEqual(keys(b), ['k1', 'k2']);
    await b.close();
  });
});

test('an idle owner whose lock another live process took says so without a call, and refuses the next write', async () => {
  await withTempDir(async (t) => {
    const errors: string[] = [];
    const log = { ...quiet, error: (m: string) => void errors.push(m) };
    const a = await openStore({ path: t.db, ...noCheckpoints, ownershipCheckMs: 100, log });
    await put(a, 'k1');
    // A live Node.js process that is not this one: as a second owner's lock file names it.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      const temp = `${lockPathOf(t.db)}.other`;
      writeFileSync(temp, `${other.pid}\n`);
      renameSync(temp, lockPathOf(t.db));
      await until('the loss reported without a call', () => errors.length > 0, 5_000);
      await new Promise((resolve) => setTimeout(resolve, 300)); // a few more looks at the lock
      assert.equal(errors.length, 1, 'reported once');
      assert.match(errors[0]!, new RegExp(`process ${other.pid} owns the database now.*Stop this process, then start Baton again`));
      await assert.rejects(put(a, 'k2'), lostLock);
      await a.close();
      assert.equal(readFileSync(lockPathOf(t.db), 'utf8').trim(), String(other.pid), 'its lock is left alone');
    } finally {
      other.kill();
    }
  });
});
