// Rule: every acknowledged write survives a crash (journal replay), a torn last record is dropped,
// a damaged middle record is refused, and a failed journal write stops the store instead of lying.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { BatonError } from '../../src/core/errors.js';
import type { Log } from '../../src/core/ports.js';
import { openNodeJournalFile, scanJournal, type JournalFile } from '../../src/store/journal.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { crashImage, journalProbe, runToEnd, spawnTs, storeChildScript, withTempDir } from '../fixtures/store/helpers.js';

const noCheckpoints = { idleCheckpointMs: 60_000, checkpointRecords: 1_000_000 };
const put = (s: SqlJsStore, key: string, value: string) =>
  s.transaction(() => s.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, value]));
const value = (s: SqlJsStore, key: string) => s.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key])?.value;

function recordingLog(): Log & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} };
}

test('a child that exits without close() loses no acknowledged write', async () => {
  await withTempDir(async (t) => {
    const child = spawnTs(storeChildScript, ['crash', t.db, '25']);
    const result = await runToEnd(child);
    assert.match(result.stdout, /acked 25/, result.stderr);
    assert.ok(statSync(t.journal).size > 0, 'the writes are in the journal, not yet in a snapshot');
    const s = await openStore({ path: t.db });
    for (let i = 1; i <= 25; i++) assert.equal(value(s, `child-${i}`), String(i));
    await s.close();
  });
});

test('replay restores blobs, named parameters and non-finite numbers exactly', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...noCheckpoints });
    const blob = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
    await s.transaction(() => s.run('CREATE TABLE b (k TEXT PRIMARY KEY, v BLOB, r REAL)'));
    await s.transaction(() => {
      s.run('INSERT INTO b VALUES ($k, $v, $r)', { $k: 'blob', $v: blob, $r: 1.5 });
      s.run('INSERT INTO b VALUES (?, ?, ?)', ['inf', null, Number.POSITIVE_INFINITY]);
    });
    const crash = crashImage(t.dir);
    await s.close();
    const r = await openStore({ path: crash.db });
    assert.deepEqual(r.get('SELECT v, r FROM b WHERE k = ?', ['blob']), { v: blob, r: 1.5 });
    assert.equal(r.get<{ r: number }>("SELECT r FROM b WHERE k = 'inf'")!.r, Number.POSITIVE_INFINITY);
    await r.close();
  });
});

test('one record per write transaction; read-only transactions append nothing', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...noCheckpoints });
    const before = s.stats().lastSeq;
    await s.transaction(() => s.get('SELECT 1'));
    assert.equal(s.stats().lastSeq, before);
    await put(s, 'a', '1');
    await s.transaction(() => {
      s.run("INSERT INTO meta (key, value) VALUES ('b', '2')");
      s.run("INSERT INTO meta (key, value) VALUES ('c', '3')");
    });
    const scan = scanJournal(readFileSync(t.journal));
    assert.ok(scan.ok);
    assert.deepEqual(scan.records.map((r) => r.statements.length), [1, 2]);
    assert.deepEqual(scan.records.map((r) => r.seq), [before + 1, before + 2]);
    await s.close();
  });
});

test('the preallocated zeros after the last record are not a torn write', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...noCheckpoints });
    await put(s, 'a', '1');
    const crash = crashImage(t.dir);
    await s.close();
    const bytes = readFileSync(crash.journal);
    const end = scanJournal(bytes).records.at(-1)!;
    assert.ok(bytes.length > end.offset + end.length, 'the journal is grown ahead of its records');
    const log = recordingLog();
    const r = await openStore({ path: crash.db, log });
    assert.equal(value(r, 'a'), '1');
    assert.deepEqual(log.warnings, []);
    await r.close();
  });
});

test('a journal file reads on the thread pool; closed with a read in flight, the read completes and later ones are refused', async () => {
  await withTempDir(async (t) => {
    const f = openNodeJournalFile(t.journal);
    const bytes = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE(i, i);
    f.append(bytes);
    assert.ok((await f.readAsync!(4096, 1_000_000)).equals(bytes.subarray(4096, 1_004_096)));
    const inFlight = f.readAsync!(0, bytes.length);
    f.close(); // its fd stays open until the read is done, so that no other file gets its number meanwhile
    assert.ok((await inFlight).equals(bytes));
    await assert.rejects(f.readAsync!(0, 10), /journal .* is closed/);
    const again = openNodeJournalFile(t.journal);
    try {
      // Past the file's end, its preallocated zeros included.
      await assert.rejects(again.readAsync!(statSync(t.journal).size, 10), /unexpected end of file/);
    } finally {
      again.close();
    }
  });
});

test('transactions committed in the same tick share one write and one fdatasync', async () => {
  await withTempDir(async (t) => {
    const probe = journalProbe();
    const s = await openStore({ path: t.db, openJournalFile: probe.open, ...noCheckpoints });
    probe.reset();
    const acks = [1, 2, 3, 4, 5].map((i) => put(s, `k${i}`, String(i)));
    await Promise.all(acks);
    assert.deepEqual({ appends: probe.appends, syncs: probe.syncs }, { appends: 1, syncs: 1 });
    const scan = scanJournal(readFileSync(t.journal));
    assert.ok(scan.ok);
    assert.equal(scan.records.length, 5);
    await s.close();
  });
});

test("durability 'write' skips the fdatasync but still writes every record before acknowledging it", async () => {
  await withTempDir(async (t) => {
    const probe = journalProbe();
    const s = await openStore({ path: t.db, durability: 'write', openJournalFile: probe.open, ...noCheckpoints });
    probe.reset();
    for (let i = 0; i < 5; i++) await put(s, `k${i}`, String(i));
    await Promise.all([5, 6, 7].map((i) => put(s, `k${i}`, String(i))));
    assert.equal(probe.syncs, 0);
    const crash = crashImage(t.dir);
    await s.close();
    const r = await openStore({ path: crash.db });
    assert.equal(value(r, 'k4'), '4');
    await r.close();
  });
});

test('a torn last record is dropped with a warning and the journal truncated there', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...noCheckpoints });
    for (let i = 0; i < 5; i++) await put(s, `k${i}`, String(i));
    const crash = crashImage(t.dir);
    await s.close();
    const last = scanJournal(readFileSync(crash.journal)).records.at(-1)!;
    const lastStart = last.offset;
    truncateSync(crash.journal, last.offset + last.length - 3);
    const log = recordingLog();
    const r = await openStore({ path: crash.db, log, ...noCheckpoints });
    assert.equal(value(r, 'k3'), '3');
    assert.equal(value(r, 'k4'), undefined);
    assert.equal(statSync(crash.journal).size, lastStart);
    assert.equal(log.warnings.length, 1);
    assert.match(log.warnings[0]!, /torn/);
    // Writes continue after the truncated tail and survive another crash.
    await put(r, 'after', 'yes');
    const again = crashImage(crash.dir);
    await r.close();
    const r2 = await openStore({ path: again.db });
    assert.equal(value(r2, 'after'), 'yes');
    assert.equal(value(r2, 'k3'), '3');
    await r2.close();
  });
});

test('a last record with a bad checksum is torn too', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...noCheckpoints });
    for (let i = 0; i < 3; i++) await put(s, `k${i}`, String(i));
    const crash = crashImage(t.dir);
    await s.close();
    const bytes = readFileSync(crash.journal);
    const last = scanJournal(bytes).records.at(-1)!;
    const at = last.offset + last.length - 2;
    bytes.writeUInt8(bytes.readUInt8(at) ^ 0xff, at);
    writeFileSync(crash.journal, bytes);
    const r = await openStore({ path: crash.db, log: recordingLog() });
    assert.equal(value(r, 'k1'), '1');
    assert.equal(value(r, 'k2'), undefined);
    await r.close();
  });
});

test('a damaged record followed by valid ones is corruption: refused, files untouched', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...noCheckpoints });
    for (let i = 0; i < 5; i++) await put(s, `k${i}`, String(i));
    const crash = crashImage(t.dir);
    await s.close();
    const bytes = readFileSync(crash.journal);
    const middle = scanJournal(bytes).records[2]!;
    const at = middle.offset + middle.length - 2;
    bytes.writeUInt8(bytes.readUInt8(at) ^ 0xff, at);
    writeFileSync(crash.journal, bytes);
    const dbBefore = readFileSync(crash.db);
    await assert.rejects(openStore({ path: crash.db }), (ex: unknown) => {
      assert.ok(BatonError.is(ex, 'store_corrupt'), String(ex));
      assert.ok(ex.message.includes(crash.journal));
      return true;
    });
    assert.deepEqual(readFileSync(crash.journal), bytes);
    assert.deepEqual(readFileSync(crash.db), dbBefore);
  });
});

test('a journal with a missing record is refused rather than replayed with a gap', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...noCheckpoints });
    for (let i = 0; i < 4; i++) await put(s, `k${i}`, String(i));
    const crash = crashImage(t.dir);
    await s.close();
    const bytes = readFileSync(crash.journal);
    const gone = scanJournal(bytes).records[1]!;
    writeFileSync(crash.journal, Buffer.concat([bytes.subarray(0, gone.offset), bytes.subarray(gone.offset + gone.length)]));
    await assert.rejects(openStore({ path: crash.db }), (ex: unknown) => BatonError.is(ex, 'store_corrupt') && /expected record seq 2, found 3/.test(ex.message));
  });
});

/**
 * Real journal files whose appends fail with `code` while `failing` is set: 'before' writing anything (a full disk),
 * or 'after' the record is written whole (the space ahead of it could not be taken).
 */
function failingJournal(when: 'before' | 'after', code: string, message: string): { open: (path: string) => JournalFile; failing: boolean } {
  const control = {
    failing: false,
    open: (path: string): JournalFile => {
      const f = openNodeJournalFile(path);
      const fail = () => {
        if (control.failing) throw Object.assign(new Error(message), { code });
      };
      return {
        ...f,
        append(d) {
          if (when === 'before') fail();
          f.append(d);
          if (when === 'after') fail();
        },
      };
    },
  };
  return control;
}

test('a journal write failure puts the store in store_failed; acknowledged writes survive', async () => {
  await withTempDir(async (t) => {
    const journal = failingJournal('before', 'ENOSPC', 'ENOSPC: no space left on device, write');
    const s = await openStore({ path: t.db, openJournalFile: journal.open, ...noCheckpoints });
    await put(s, 'acked', '1');
    journal.failing = true;
    const a = put(s, 'lost-a', '1');
    const b = put(s, 'lost-b', '1');
    for (const p of [a, b]) {
      await assert.rejects(p, (ex: unknown) => {
        assert.ok(BatonError.is(ex, 'store_failed'), String(ex));
        assert.match(ex.message, /Free disk space, then restart Baton/);
        assert.match(ex.message, /intact up to the last acknowledged write/);
        return true;
      });
    }
    journal.failing = false;
    await assert.rejects(put(s, 'later', '1'), (ex: unknown) => BatonError.is(ex, 'store_failed'));
    await assert.rejects(s.checkpoint(), (ex: unknown) => BatonError.is(ex, 'store_failed'));
    const dbBefore = readFileSync(t.db);
    await s.close();
    assert.deepEqual(readFileSync(t.db), dbBefore, 'a failed store writes no snapshot');
    const r = await openStore({ path: t.db });
    assert.equal(value(r, 'acked'), '1');
    assert.equal(value(r, 'lost-a'), undefined);
    await r.close();
  });
});

test('an fdatasync failure is a store failure too', async () => {
  await withTempDir(async (t) => {
    const probe = journalProbe();
    const s = await openStore({ path: t.db, openJournalFile: probe.open, ...noCheckpoints });
    await put(s, 'acked', '1');
    probe.syncError = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    await assert.rejects(put(s, 'x', '1'), (ex: unknown) => BatonError.is(ex, 'store_failed') && ex.details.code === 'EIO');
    probe.syncError = null;
    await s.close();
    const r = await openStore({ path: t.db });
    assert.equal(value(r, 'acked'), '1');
    assert.equal(value(r, 'x'), undefined, 'a write answered store_failed is cut from the journal, not applied at the next open');
    await r.close();
  });
});

test('a record written whole before its write failed (the space ahead of it could not be taken) is not applied at the next open', async () => {
  await withTempDir(async (t) => {
    const journal = failingJournal('after', 'EFBIG', 'EFBIG: file too large, write');
    const s = await openStore({ path: t.db, openJournalFile: journal.open, ...noCheckpoints });
    await put(s, 'acked', '1');
    journal.failing = true;
    await assert.rejects(put(s, 'refused', '1'), (ex: unknown) => BatonError.is(ex, 'store_failed'));
    await s.close();
    const r = await openStore({ path: t.db });
    assert.equal(value(r, 'acked'), '1');
    assert.equal(value(r, 'refused'), undefined);
    await r.close();
  });
});
