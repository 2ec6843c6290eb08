// Rule: concurrent write transactions share fdatasyncs. A lone write syncs inline; several write at once, or one that
// comes while a sync is in flight, sync on the thread pool while the next group forms behind (and is not written
// until the sync before it is done); no write is acknowledged before its own record is on disk; a failed sync fails
// its group and every group queued behind it. A background write (the call log) starts no sync of its own: it rides
// with the next write's, or is synced on the thread pool within BACKGROUND_FLUSH_MS, and never makes a lone write's
// sync leave the event loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BatonError } from '../../src/core/errors.js';
import { scanJournal } from '../../src/store/journal.js';
import { BACKGROUND_FLUSH_MS } from '../../src/store/journalWriter.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { crashImage, journalProbe, withTempDir } from '../fixtures/store/helpers.js';

const noCheckpoints = { idleCheckpointMs: 60_000, checkpointRecords: 1_000_000 };
const put = (s: SqlJsStore, key: string) =>
  s.transaction(() => s.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, key]));
const putLater = (s: SqlJsStore, key: string) =>
  s.transaction(() => s.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, key]), { background: true });
const value = (s: SqlJsStore, key: string) => s.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key])?.value;

/** Tracks whether a promise has settled yet (and keeps its rejection handled). */
function track<T>(p: Promise<T>): { done: boolean; failed: unknown; promise: Promise<T> } {
  const t = { done: false, failed: undefined as unknown, promise: p };
  p.then(() => (t.done = true), (ex: unknown) => ((t.done = true), (t.failed = ex)));
  return t;
}

async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setImmediate(r));
  assert.ok(cond(), `timed out waiting for ${what}`);
}

const turn = () => new Promise((r) => setTimeout(r, 20));

test('a lone write is synced inline, without a thread-pool hand-off', async () => {
  await withTempDir(async (t) => {
    const probe = journalProbe();
    const s = await openStore({ path: t.db, openJournalFile: probe.open, ...noCheckpoints });
    probe.reset();
    for (let i = 0; i < 3; i++) await put(s, `k${i}`);
    assert.deepEqual({ appends: probe.appends, inline: probe.inlineSyncs, pool: probe.poolSyncs }, { appends: 3, inline: 3, pool: 0 });
    await s.close();
  });
});

test('writes committed together sync once on the thread pool and are acknowledged only after that sync', async () => {
  await withTempDir(async (t) => {
    const probe = journalProbe();
    const s = await openStore({ path: t.db, openJournalFile: probe.open, ...noCheckpoints });
    probe.reset();
    probe.hold = true;
    const acks = ['a', 'b', 'c', 'd'].map((k) => track(put(s, k)));
    await until('the group sync', () => probe.waiting === 1);
    await turn();
    assert.ok(acks.every((a) => !a.done), 'no write is acknowledged while its sync is in flight');
    probe.release();
    await Promise.all(acks.map((a) => a.promise));
    assert.deepEqual({ appends: probe.appends, syncs: probe.syncs, pool: probe.poolSyncs }, { appends: 1, syncs: 1, pool: 1 });
    await s.close();
  });
});

test('writes made while a sync is in flight wait behind it and then share one write and one sync', async () => {
  await withTempDir(async (t) => {
    const probe = journalProbe();
    const s = await openStore({ path: t.db, openJournalFile: probe.open, ...noCheckpoints });
    probe.reset();
    probe.hold = true;
    const first = ['a1', 'a2'].map((k) => track(put(s, k)));
    await until('the first sync', () => probe.waiting === 1);
    const second = [track(put(s, 'b1'))];
    await turn();
    second.push(track(put(s, 'b2')));
    await turn();
    assert.equal(probe.appends, 1, 'nothing is written behind a group whose sync is still in flight');
    assert.ok([...first, ...second].every((a) => !a.done));
    // A read that may have seen the unsynced writes waits for them too.
    const read = track(s.transaction(() => value(s, 'b2')));
    await turn();
    assert.equal(read.done, false);
    probe.release();
    await Promise.all(first.map((a) => a.promise));
    assert.ok(second.every((a) => !a.done), 'the group behind is acknowledged only after its own sync');
    await until('the second sync', () => probe.waiting === 1);
    assert.equal(probe.appends, 2);
    probe.release();
    await Promise.all(second.map((a) => a.promise));
    assert.equal(await read.promise, 'b2');
    assert.deepEqual({ appends: probe.appends, pool: probe.poolSyncs, inline: probe.inlineSyncs }, { appends: 2, pool: 2, inline: 0 });
    const scan = scanJournal(readFileSync(t.journal));
    assert.ok(scan.ok);
    const groups = new Map<number, number>();
    for (const r of scan.records.slice(-4)) groups.set(r.group, (groups.get(r.group) ?? 0) + 1);
    assert.deepEqual([...groups.values()], [2, 2], 'two flush groups of two records each');
    await s.close();
  });
});

test('a failed sync fails every write of its group and of the group behind it, and the store stops', async () => {
  await withTempDir(async (t) => {
    const probe = journalProbe();
    const s = await openStore({ path: t.db, openJournalFile: probe.open, ...noCheckpoints });
    await put(s, 'acked');
    probe.hold = true;
    const first = ['a1', 'a2', 'a3'].map((k) => track(put(s, k)));
    await until('the first sync', () => probe.waiting === 1);
    const behind = ['b1', 'b2'].map((k) => track(put(s, k)));
    probe.syncError = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    probe.release();
    for (const a of [...first, ...behind]) {
      await assert.rejects(a.promise, (ex: unknown) => BatonError.is(ex, 'store_failed') && ex.details.code === 'EIO');
    }
    assert.equal(probe.appends, 2, 'the group behind the failed sync is never written');
    await assert.rejects(put(s, 'later'), (ex: unknown) => BatonError.is(ex, 'store_failed'));
    probe.syncError = null;
    await s.close();
    const r = await openStore({ path: t.db });
    assert.equal(value(r, 'acked'), 'acked');
    for (const k of ['b1', 'b2', 'later']) assert.equal(value(r, k), undefined, `${k} was never written`);
    for (const k of ['a1', 'a2', 'a3']) assert.equal(value(r, k), undefined, `${k} was answered store_failed, so its record was cut from the journal`);
    await r.close();
  });
});

test('a checkpoint waits for the sync in flight and keeps every write, the ones behind it included', async () => {
  await withTempDir(async (t) => {
    const probe = journalProbe();
    const s = await openStore({ path: t.db, openJournalFile: probe.open, ...noCheckpoints });
    const checkpoints = s.stats().checkpoints;
    probe.hold = true;
    const first = ['a1', 'a2'].map((k) => track(put(s, k)));
    await until('the first sync', () => probe.waiting === 1);
    const behind = ['b1', 'b2'].map((k) => track(put(s, k)));
    const checkpoint = track(s.checkpoint());
    await turn();
    assert.equal(checkpoint.done, false, 'the checkpoint waits for the sync in flight');
    probe.hold = false;
    probe.release();
    await checkpoint.promise;
    await Promise.all([...first, ...behind].map((a) => a.promise));
    assert.equal(s.stats().checkpoints, checkpoints + 1);
    await put(s, 'c1');
    const crash = crashImage(t.dir);
    await s.close();
    const r = await openStore({ path: crash.db });
    for (const k of ['a1', 'a2', 'b1', 'b2', 'c1']) assert.equal(value(r, k), k);
    await r.close();
  });
});

/** A store in a temp dir whose journal file is probed (counters reset once it is open); closed after `fn`. */
async function withProbedStore(fn: (s: SqlJsStore, probe: ReturnType<typeof journalProbe>, dir: string) => Promise<void>): Promise<void> {
  await withTempDir(async (t) => {
    const probe = journalProbe();
    const s = await openStore({ path: t.db, openJournalFile: probe.open, ...noCheckpoints });
    probe.reset();
    await fn(s, probe, t.dir);
    await s.close();
  });
}

/** What a crash right now would leave of `keys`: a copy of the files, opened. */
async function afterCrash(dir: string, keys: string[]): Promise<Array<string | undefined>> {
  const r = await openStore({ path: crashImage(dir).db });
  const values = keys.map((k) => value(r, k));
  await r.close();
  return values;
}

test('a background write starts no sync of its own and goes to disk with the next write, still synced inline', async () => {
  await withProbedStore(async (s, probe, dir) => {
    const later = track(putLater(s, 'log1'));
    assert.equal(value(s, 'log1'), 'log1', 'the write is in memory at once');
    await turn();
    assert.deepEqual({ appends: probe.appends, syncs: probe.syncs, done: later.done }, { appends: 0, syncs: 0, done: false });
    await put(s, 'call1');
    assert.deepEqual({ appends: probe.appends, inline: probe.inlineSyncs, pool: probe.poolSyncs }, { appends: 1, inline: 1, pool: 0 });
    await later.promise;
    const scan = scanJournal(readFileSync(`${dir}/baton.journal`));
    assert.ok(scan.ok);
    assert.equal(scan.records.length, 2, 'both records went out in the one write');
    assert.deepEqual(await afterCrash(dir, ['log1', 'call1']), ['log1', 'call1']);
  });
});

test('a background write alone is synced on the thread pool within BACKGROUND_FLUSH_MS', async () => {
  await withProbedStore(async (s, probe, dir) => {
    const t0 = Date.now();
    await putLater(s, 'log1');
    const waited = Date.now() - t0;
    assert.ok(waited >= BACKGROUND_FLUSH_MS - 50 && waited < BACKGROUND_FLUSH_MS + 2000, `flushed after ${waited} ms`);
    assert.deepEqual({ appends: probe.appends, inline: probe.inlineSyncs, pool: probe.poolSyncs }, { appends: 1, inline: 0, pool: 1 });
    assert.deepEqual(await afterCrash(dir, ['log1']), ['log1']);
  });
});

test('a read that may have seen a background write waits for it, and has it flushed now', async () => {
  await withProbedStore(async (s, probe) => {
    probe.hold = true;
    const later = track(putLater(s, 'log1'));
    const read = track(s.transaction(() => value(s, 'log1')));
    await until('the flush the read asked for', () => probe.waiting === 1);
    assert.equal(read.done, false, 'the read waits for the write it saw');
    probe.release();
    assert.equal(await read.promise, 'log1');
    await later.promise;
    assert.equal(probe.appends, 1);
  });
});

test('closing the store writes a background write that is still waiting', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...noCheckpoints });
    const later = track(putLater(s, 'log1'));
    await s.close();
    await later.promise;
    const r = await openStore({ path: t.db });
    assert.equal(value(r, 'log1'), 'log1');
    await r.close();
  });
});

test('background writes behind a sync in flight wait for their own flush, not for the sync to end', async () => {
  await withProbedStore(async (s, probe) => {
    probe.hold = true;
    const first = ['a1', 'a2'].map((k) => track(put(s, k)));
    await until('the first sync', () => probe.waiting === 1);
    const later = track(putLater(s, 'log1'));
    probe.hold = false;
    probe.release();
    await Promise.all(first.map((a) => a.promise));
    await turn();
    assert.deepEqual({ appends: probe.appends, done: later.done }, { appends: 1, done: false });
    const call = track(put(s, 'b1'));
    await Promise.all([call.promise, later.promise]);
    assert.equal(probe.appends, 2, 'the background record went out with the next write');
    assert.deepEqual({ inline: probe.inlineSyncs, pool: probe.poolSyncs }, { inline: 1, pool: 1 }, 'the lone call after the sync still syncs inline');
  });
});
