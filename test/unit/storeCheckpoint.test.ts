// Rule: a checkpoint moves the journal into the snapshot without losing a write — including
// writes that arrive while the snapshot is being written — and runs on size, on idle and on close.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertRoomFor, openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { checkpointWithWritesDuring, crashImage, journalProbe, withTempDir } from '../fixtures/store/helpers.js';

const put = (s: SqlJsStore, key: string, value: string) =>
  s.transaction(() => s.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, value]));
/** Waits (up to 5 s) for a condition that background work makes true. */
async function until(cond: () => boolean, what: () => string): Promise<void> {
  for (const start = Date.now(); !cond(); await sleep(10)) {
    if (Date.now() - start > 5000) assert.fail(`timed out waiting: ${what()}`);
  }
}
/** Writes `rows` rows of `bytes` each in one transaction and checkpoints; returns the database file's size, over `atLeast`. */
async function largeDatabase(s: SqlJsStore, dbPath: string, rows: number, bytes: number, atLeast: number): Promise<number> {
  await s.transaction(() => {
    for (let i = 0; i < rows; i++) s.run('INSERT INTO meta (key, value) VALUES (?, ?)', [`bulk${i}`, 'b'.repeat(bytes)]);
  });
  await s.checkpoint();
  const dbBytes = statSync(dbPath).size;
  assert.ok(dbBytes > atLeast, `a database of ${dbBytes} bytes`);
  return dbBytes;
}
const keys = (s: SqlJsStore) => s.all<{ key: string }>("SELECT key FROM meta WHERE key LIKE 'k%' ORDER BY key").map((r) => r.key);

test('checkpoint() empties the journal and the snapshot alone holds the data', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, idleCheckpointMs: 60_000 });
    for (let i = 0; i < 20; i++) await put(s, `k${String(i).padStart(2, '0')}`, String(i));
    assert.ok(statSync(t.journal).size > 0);
    await s.checkpoint();
    assert.equal(statSync(t.journal).size, 0);
    assert.deepEqual({ ...s.stats(), checkpoints: undefined }, { journalRecords: 0, journalBytes: 0, lastSeq: 20, checkpoints: undefined, batchRedos: 0 });
    const crash = crashImage(t.dir);
    rmSync(crash.journal);
    await s.close();
    const r = await openStore({ path: crash.db });
    assert.equal(keys(r).length, 20);
    await r.close();
    assert.deepEqual(readdirSync(t.dir).filter((f) => f.includes('.tmp')), [], 'no temp files left behind');
  });
});

test('writes that arrive during a checkpoint stay in the journal and survive a crash', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, idleCheckpointMs: 60_000 });
    await checkpointWithWritesDuring(s, 30);
    assert.ok(s.stats().journalRecords > 0, 'some writes landed after the snapshot was taken');
    const crash = crashImage(t.dir);
    await s.close();
    const r = await openStore({ path: crash.db });
    assert.equal(keys(r).length, 30);
    await r.close();
  });
});

test('a checkpoint that keeps writes made during it replaces the journal, and once it resolves the old one has no name left', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, idleCheckpointMs: 60_000 });
    await put(s, 'before', '1');
    const old = openSync(t.journal, 'r');
    try {
      await checkpointWithWritesDuring(s, 30);
      assert.ok(s.stats().journalRecords > 0, 'some writes landed after the snapshot was taken');
      assert.notEqual(statSync(t.journal).ino, fstatSync(old).ino, 'a new journal file holds the kept tail');
      assert.equal(fstatSync(old).nlink, 0, 'the old journal, and its second name, removed');
      assert.deepEqual(readdirSync(t.dir).filter((f) => f.includes('.tmp')), [], 'no temp file left');
    } finally {
      closeSync(old);
    }
    const crash = crashImage(t.dir);
    await s.close();
    const r = await openStore({ path: crash.db });
    assert.equal(keys(r).length, 30);
    assert.equal(r.get<{ value: string }>("SELECT value FROM meta WHERE key = 'before'")?.value, '1');
    await r.close();
  });
});

/** The next key in written order, added to `written`. */
function nextKey(written: string[]): string {
  const key = `k${String(written.length).padStart(4, '0')}`;
  written.push(key);
  return key;
}

/**
 * Checkpoints a store with a 16 MB snapshot while 100 KB records are written, one per turn, until the compaction's copy
 * of the journal's tail (held by `probe.holdReads`) has started; returns the checkpoint and the keys written.
 */
async function checkpointUntilTailCopy(s: SqlJsStore, dbPath: string, probe: ReturnType<typeof journalProbe>): Promise<{ checkpoint: Promise<void>; written: string[] }> {
  await largeDatabase(s, dbPath, 16, 1_000_000, 16_000_000);
  probe.holdReads = true;
  let settled = false;
  const checkpoint = s.checkpoint().finally(() => (settled = true));
  checkpoint.catch(() => undefined);
  const written: string[] = [];
  const writes: Promise<unknown>[] = [];
  while (probe.readsWaiting === 0) {
    assert.ok(!settled, 'the checkpoint ended without copying the tail on the thread pool');
    writes.push(put(s, nextKey(written), 'v'.repeat(100_000)));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(writes);
  return { checkpoint, written };
}

test('a large kept tail is copied to the next journal on the thread pool while writes go on; the rest inline; nothing is lost', async () => {
  await withTempDir(async (t) => {
    const probe = journalProbe();
    const s = await openStore({ path: t.db, openJournalFile: probe.open, idleCheckpointMs: 60_000 });
    const old = openSync(t.journal, 'r');
    try {
      const { checkpoint, written } = await checkpointUntilTailCopy(s, t.db, probe);
      const write = (bytes: number) => put(s, nextKey(written), 'w'.repeat(bytes));
      // The copy's first round waits, and writes are still answered meanwhile: they go to the old journal.
      await write(100_000);
      // Its next round, for what came meanwhile (over 64 KiB), waits too; what comes during that one (under 64 KiB in
      // all) is left to the inline copy.
      probe.releaseReads();
      probe.holdReads = true;
      await until(() => probe.readsWaiting === 1, () => 'the copy did not start a second round');
      for (let i = 0; i < 3; i++) await write(15_000);
      assert.equal(statSync(t.journal).ino, fstatSync(old).ino, 'the journal is not replaced before the copy is done');
      assert.ok(readdirSync(t.dir).some((f) => f.startsWith('baton.journal.tmp-')), "the next journal's temp file is open");
      probe.releaseReads();
      await checkpoint;
      assert.notEqual(statSync(t.journal).ino, fstatSync(old).ino, 'a new journal file holds the kept tail');
      assert.equal(fstatSync(old).nlink, 0, 'the old journal has no name left');
      assert.deepEqual(readdirSync(t.dir).filter((f) => f.includes('.tmp')), [], 'no temp file left');
      const crash = crashImage(t.dir);
      await s.close();
      const r = await openStore({ path: crash.db });
      assert.deepEqual(keys(r), written);
      const lengths = r.all<{ n: number }>("SELECT length(value) AS n FROM meta WHERE key LIKE 'k%' ORDER BY key").map((row) => row.n);
      assert.deepEqual(lengths, written.map((_, i) => (i < written.length - 3 ? 100_000 : 15_000)));
      await r.close();
    } finally {
      closeSync(old);
    }
  });
});

test("a store disposed while its journal's tail is copied keeps the old journal whole and leaves no temp file", async () => {
  await withTempDir(async (t) => {
    const probe = journalProbe();
    const s = await openStore({ path: t.db, openJournalFile: probe.open, idleCheckpointMs: 60_000 });
    const { checkpoint, written } = await checkpointUntilTailCopy(s, t.db, probe);
    s.dispose();
    probe.releaseReads();
    await assert.rejects(checkpoint, /closed/);
    assert.deepEqual(readdirSync(t.dir).filter((f) => f.includes('.tmp')), [], 'no temp file left');
    // The new snapshot is in place; the old journal still holds the writes made while it was written.
    const r = await openStore({ path: t.db });
    assert.deepEqual(keys(r), written);
    await r.close();
  });
});

test('a checkpoint runs by itself after checkpointRecords records and when idle', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, checkpointRecords: 10, checkpointRatio: 0, idleCheckpointMs: 100 });
    const before = s.stats().checkpoints;
    for (let i = 0; i < 25; i++) await put(s, `k${i}`, String(i));
    await until(() => s.stats().checkpoints >= before + 2, () => `checkpoints: ${JSON.stringify(s.stats())}`);
    await until(() => s.stats().journalRecords === 0, () => 'the idle checkpoint empties the journal');
    assert.equal(statSync(t.journal).size, 0);
    await s.close();
  });
});

test('a checkpoint runs after checkpointBytes bytes of journal', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, checkpointBytes: 50_000, checkpointRatio: 0, idleCheckpointMs: 60_000 });
    const before = s.stats().checkpoints;
    await put(s, 'k-big', 'y'.repeat(60_000));
    await until(() => s.stats().checkpoints === before + 1, () => JSON.stringify(s.stats()));
    assert.equal(s.stats().journalBytes, 0);
    await s.close();
  });
});

test('on a large database a checkpoint waits until the journal holds checkpointRatio of its size', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, checkpointRecords: 10, checkpointRatio: 0.5, idleCheckpointMs: 60_000 });
    const dbBytes = await largeDatabase(s, t.db, 40, 50_000, 2_000_000);
    const before = s.stats().checkpoints;
    // Far more than checkpointRecords records, well under half the database's size: no checkpoint yet.
    for (let i = 0; i < 40; i++) await put(s, `k${i}`, 'x'.repeat(10_000));
    await new Promise((r) => setImmediate(r));
    assert.equal(s.stats().checkpoints, before, `no checkpoint at ${s.stats().journalBytes} journal bytes`);
    // Past half its size (which the big row itself grows): the next flush schedules one.
    await put(s, 'big', 'z'.repeat(dbBytes));
    await until(() => s.stats().checkpoints === before + 1, () => JSON.stringify(s.stats()));
    assert.equal(s.stats().journalBytes, 0);
    await s.close();
  });
});

test('with checkpointRatio 0 a large database checkpoints by records alone', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, checkpointRecords: 10, checkpointRatio: 0, idleCheckpointMs: 60_000 });
    await s.transaction(() => s.run('INSERT INTO meta (key, value) VALUES (?, ?)', ['bulk', 'b'.repeat(3_000_000)]));
    await s.checkpoint();
    const before = s.stats().checkpoints;
    for (let i = 0; i < 12; i++) await put(s, `k${i}`, String(i));
    await until(() => s.stats().checkpoints === before + 1, () => JSON.stringify(s.stats()));
    await s.close();
  });
});

test('idle, a database over 8 MiB is checkpointed only once its journal holds idleCheckpointRatio of its size', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, checkpointRecords: 1_000_000, checkpointBytes: 1 << 30, idleCheckpointMs: 20, idleCheckpointRatio: 1 / 32 });
    const dbBytes = await largeDatabase(s, t.db, 9, 1_000_000, 8 * 1024 * 1024);
    await sleep(100); // the idle checkpoint the bulk write armed has come and found nothing to do
    const before = s.stats().checkpoints;
    // A few records, then pauses far longer than idleCheckpointMs: the large database is not rewritten for them.
    for (let i = 0; i < 3; i++) await put(s, `k${i}`, 'x'.repeat(1000));
    await sleep(200);
    assert.equal(s.stats().checkpoints, before, `no idle checkpoint for ${s.stats().journalBytes} journal bytes`);
    assert.equal(s.stats().journalRecords, 3);
    // The journal past 1/32 of the database (which the row itself grows): the next pause checkpoints.
    await put(s, 'k-big', 'y'.repeat(Math.ceil(dbBytes / 16)));
    await until(() => s.stats().checkpoints === before + 1, () => JSON.stringify(s.stats()));
    assert.equal(s.stats().journalBytes, 0);
    // A crash now loses nothing: the snapshot alone holds every key.
    const reopened = await openStore({ path: crashImage(t.dir).db });
    assert.deepEqual(keys(reopened), ['k-big', 'k0', 'k1', 'k2']);
    await reopened.close();
    await s.close();
  });
});

test('writes while a checkpoint runs do not queue another one for the few records written meanwhile', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, checkpointRecords: 20, checkpointRatio: 0, idleCheckpointMs: 60_000 });
    for (let i = 0; i < 19; i++) await put(s, `before-${i}`, 'x'); // one short of due
    const before = s.stats().checkpoints;
    let running = true;
    const done = s.checkpoint().finally(() => (running = false));
    // The first of these makes the journal (not yet compacted) look due while the checkpoint runs.
    let during = 0;
    do await put(s, `during-${during++}`, 'x');
    while (running && during < 10);
    await done;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(s.stats().checkpoints, before + 1, `one checkpoint, not one more for the ${during} records written during it`);
    assert.ok(s.stats().journalRecords >= 1 && s.stats().journalRecords < 20, JSON.stringify(s.stats()));
    await s.close();
  });
});

test('a store disposed while its checkpoint is written leaves the database file as it was, and no temp file', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, idleCheckpointMs: 60_000 });
    await s.checkpoint();
    const before = readFileSync(t.db);
    await s.transaction(() => {
      for (let i = 0; i < 16; i++) s.run('INSERT INTO meta (key, value) VALUES (?, ?)', [`bulk${i}`, 'b'.repeat(1_000_000)]);
    });
    let settled = false;
    const checkpoint = s.checkpoint().finally(() => (settled = true));
    checkpoint.catch(() => undefined);
    // Once the snapshot is being written (its temp file is there), in 1 MiB chunks, one per turn of the event loop:
    while (!readdirSync(t.dir).some((f) => f.startsWith('baton.db.tmp-'))) {
      assert.ok(!settled, 'the checkpoint ended before its temp file was seen');
      await new Promise((resolve) => setImmediate(resolve));
    }
    s.dispose(); // as a failed open or a crash test does: the lock goes at once
    await assert.rejects(checkpoint, /closed while its checkpoint was being written/);
    assert.ok(readFileSync(t.db).equals(before), 'the old snapshot stays');
    assert.deepEqual(readdirSync(t.dir).filter((f) => f.includes('.tmp')), []);
  });
});

test('temp files left by a checkpoint that was killed are removed at open', async () => {
  await withTempDir(async (t) => {
    await (await openStore({ path: t.db })).close();
    writeFileSync(`${t.db}.tmp-99999-1`, 'half a snapshot');
    writeFileSync(`${t.journal}.tmp-99999-2`, 'half a journal');
    writeFileSync(`${t.dir}/unrelated.tmp-1`, 'not ours');
    const s = await openStore({ path: t.db });
    assert.deepEqual(readdirSync(t.dir).filter((f) => f.includes('.tmp')).sort(), ['unrelated.tmp-1']);
    await s.close();
  });
});

test('close() checkpoints, so a closed database has an empty journal', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, idleCheckpointMs: 60_000 });
    await put(s, 'k1', '1');
    await s.close();
    assert.equal(statSync(t.journal).size, 0);
    assert.equal(existsSync(`${t.db}.lock`), false, 'close() released the lock');
    await assert.rejects(put(s, 'k2', '2'), /closed/);
    const r = await openStore({ path: t.db });
    assert.deepEqual(keys(r), ['k1']);
    await r.close();
  });
});

test("a checkpoint keeps the database's and the journal's permission bits; a new database is 0600", { skip: process.platform === 'win32' ? 'no POSIX modes' : false }, async () => {
  await withTempDir(async (t) => {
    const mode = (path: string) => statSync(path).mode & 0o777;
    const s = await openStore({ path: t.db, idleCheckpointMs: 60_000 });
    await put(s, 'first', '0');
    await s.checkpoint();
    assert.equal(mode(t.db).toString(8), '600', 'a new database is for its owner only');
    chmodSync(t.db, 0o640);
    chmodSync(t.journal, 0o640);
    // Writes land while the snapshot is written, so the journal keeps a tail and is replaced too.
    await checkpointWithWritesDuring(s, 20);
    assert.ok(statSync(t.journal).size > 0, 'the journal kept the writes made during the checkpoint');
    assert.equal(mode(t.db).toString(8), '640');
    assert.equal(mode(t.journal).toString(8), '640');
    await s.close();
    assert.equal(mode(t.db).toString(8), '640', 'and after the checkpoint at close');
  });
});

test('a checkpoint that fails is tried again after a wait that doubles, not at every write; close still ends, the journal kept', async () => {
  await withTempDir(async (t) => {
    const errors: string[] = [];
    const log = { debug() {}, info() {}, warn() {}, error: (m: string) => void errors.push(m) };
    const s = await openStore({ path: t.db, checkpointRecords: 3, checkpointRatio: 0, idleCheckpointMs: 60_000, log });
    // Every checkpoint's rename now fails: a folder that is not empty sits where the database file goes.
    rmSync(t.db);
    mkdirSync(t.db);
    writeFileSync(join(t.db, 'in-the-way'), '');
    for (let i = 0; i < 30; i++) {
      await put(s, `k${String(i).padStart(2, '0')}`, String(i));
      await new Promise((r) => setImmediate(r));
    }
    await sleep(50);
    const failed = errors.filter((m) => m.includes('checkpoint of'));
    assert.equal(failed.length, 1, `one try in 30 writes, then a wait: ${failed.join('\n')}`);
    assert.match(failed[0]!, /failed \(.*\); the journal still holds every write, and the next try is in 5 s$/);
    await s.close();
    assert.match(errors.at(-1)!, /the journal still holds every write, and it is replayed at the next open$/);
    assert.ok(statSync(t.journal).size > 0, 'the journal was kept');
  });
});

test('assertRoomFor refuses a snapshot the disk has no room for, with the sizes', () => {
  assert.throws(() => assertRoomFor(join(tmpdir(), 'baton.db'), Number.MAX_SAFE_INTEGER), /not enough free space beside .*baton\.db for its snapshot: \d+ bytes and 2097152 to spare are needed, \d+ are free/);
  assertRoomFor(join(tmpdir(), 'baton.db'), 1);
});

test('a write is answered before the store looks at its journal after the flush, and a store closed meanwhile does not look', async () => {
  await withTempDir(async (t) => {
    const probe = journalProbe();
    const s = await openStore({ path: t.db, openJournalFile: probe.open, idleCheckpointMs: 60_000 });
    await put(s, 'k1', 'v1');
    await sleep(5);
    const before = probe.unlinkedChecks;
    await put(s, 'k2', 'v2');
    assert.equal(probe.unlinkedChecks, before, 'the write was answered first');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(probe.unlinkedChecks, before + 1, 'then, on the next turn, the journal was looked at');
    await put(s, 'k3', 'v3');
    s.dispose();
    await sleep(5);
    assert.equal(probe.unlinkedChecks, before + 1, 'not once the store was closed (its journal with it)');
    const r = await openStore({ path: t.db });
    assert.equal(keys(r).length, 3, 'every answered write is there');
    await r.close();
  });
});

test('its folder deleted while open: the store writes the folder, lock, journal and database again from memory, and nothing is lost', async () => {
  await withTempDir(async (t) => {
    const warnings: string[] = [];
    const log = { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error: (m: string) => void warnings.push(m) };
    const s = await openStore({ path: t.db, idleCheckpointMs: 60_000, log });
    let recreated = 0;
    s.onRecreated(() => recreated++);
    await put(s, 'k00', 'before');
    rmSync(t.dir, { recursive: true, force: true });
    for (let i = 1; i < 10; i++) await put(s, `k${String(i).padStart(2, '0')}`, String(i));
    for (const start = Date.now(); recreated === 0; await sleep(10)) assert.ok(Date.now() - start < 5000, 'the files were written again');
    assert.ok(existsSync(t.db) && existsSync(t.journal) && existsSync(`${t.db}.lock`), 'database, journal and lock are back');
    assert.match(warnings.join('\n'), /were deleted while Baton ran; Baton wrote the database again from memory, and nothing is lost/);
    for (let i = 10; i < 15; i++) await put(s, `k${String(i).padStart(2, '0')}`, String(i));
    // What a crash now would leave: every write, the ones made after the deletion included.
    const crash = crashImage(t.dir);
    await s.close();
    assert.equal(existsSync(`${t.db}.lock`), false, 'the lock is released at close');
    const r = await openStore({ path: crash.db });
    assert.equal(keys(r).length, 15);
    await r.close();
    assert.equal(recreated, 1);
  });
});
