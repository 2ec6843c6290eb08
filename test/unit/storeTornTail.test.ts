// Rule: what opening cuts from the end of a journal (a torn last write, or a flush group damaged after its first
// record) is first kept, byte for byte and synced, in a copy beside the journal (only the newest few are kept), and
// the warning says the write is not known to have been acknowledged, and where its bytes are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Log } from '../../src/core/ports.js';
import { encodeFrame, scanJournal } from '../../src/store/journal.js';
import { TORN_COPIES_KEPT } from '../../src/store/keepTornTail.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { crashImage, withTempDir } from '../fixtures/store/helpers.js';

const noCheckpoints = { idleCheckpointMs: 60_000, checkpointRecords: 1_000_000 };
const put = (s: SqlJsStore, key: string) => s.transaction(() => s.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, 'v']));
const has = (s: SqlJsStore, key: string) => s.get('SELECT 1 AS one FROM meta WHERE key = ?', [key]) !== undefined;

function recordingLog(): Log & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} };
}

/** A crash image of a store that wrote k0..k(n-1), one record each; the journal keeps its preallocated zeros. */
async function crashedAfter(dir: string, db: string, n: number) {
  const s = await openStore({ path: db, ...noCheckpoints });
  for (let i = 0; i < n; i++) await put(s, `k${i}`);
  const crash = crashImage(dir);
  await s.close();
  return crash;
}

const tornCopies = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('baton.journal.torn-')).sort();

test('a torn last record is copied aside before it is cut, its preallocated zeros left out, and the warning says where', async () => {
  await withTempDir(async (t) => {
    const crash = await crashedAfter(t.dir, t.db, 5);
    const bytes = readFileSync(crash.journal);
    const last = scanJournal(bytes).records.at(-1)!;
    bytes[last.offset + last.length - 2]! ^= 0xff;
    writeFileSync(crash.journal, bytes);
    assert.ok(bytes.length > last.offset + last.length, 'zeros follow the last record');
    const log = recordingLog();
    const r = await openStore({ path: crash.db, log, ...noCheckpoints });
    assert.ok(has(r, 'k3') && !has(r, 'k4'));
    assert.equal(statSync(crash.journal).size, last.offset, 'the tail was cut');
    const copies = tornCopies(crash.dir);
    assert.equal(copies.length, 1);
    assert.deepEqual(readFileSync(join(crash.dir, copies[0]!)), bytes.subarray(last.offset, last.offset + last.length), 'the cut bytes, exactly');
    assert.equal(log.warnings.length, 1);
    assert.match(log.warnings[0]!, /torn last write of \d+ bytes .*not known to have been acknowledged/);
    assert.ok(log.warnings[0]!.endsWith(`its bytes are kept in ${join(crash.dir, copies[0]!)}`), log.warnings[0]);
    assert.doesNotMatch(log.warnings[0]!, /never acknowledged/);
    await r.close();
  });
});

test('a last flush group damaged in its second record: the intact records after it are in the copy', async () => {
  await withTempDir(async (t) => {
    const crash = await crashedAfter(t.dir, t.db, 8);
    // The last four records rewritten as one flush group (as four concurrent calls write them), its second damaged.
    const records = scanJournal(readFileSync(crash.journal)).records;
    const group = records.at(-4)!.seq;
    const frames = records.map((r) => encodeFrame(r.seq, r.seq >= group ? group : r.group, r.statements.map((q) => JSON.stringify(q))));
    frames.at(-3)![20]! ^= 0x01;
    writeFileSync(crash.journal, Buffer.concat(frames));
    const cutAt = frames.slice(0, -3).reduce((n, f) => n + f.length, 0);
    const log = recordingLog();
    const r = await openStore({ path: crash.db, log, ...noCheckpoints });
    assert.ok(has(r, 'k4') && !has(r, 'k5') && !has(r, 'k7'), 'the group is applied up to its damaged record');
    const copies = tornCopies(crash.dir);
    const kept = readFileSync(join(crash.dir, copies[0]!));
    assert.deepEqual(kept, Buffer.concat(frames.slice(-3)));
    assert.equal(statSync(crash.journal).size, cutAt);
    assert.match(log.warnings.join('\n'), /not known to have been acknowledged/);
    await r.close();
  });
});

test(`only the newest ${TORN_COPIES_KEPT} copies are kept`, async () => {
  await withTempDir(async (t) => {
    const crash = await crashedAfter(t.dir, t.db, 2);
    for (let i = 0; i < TORN_COPIES_KEPT + 2; i++) writeFileSync(join(crash.dir, `baton.journal.torn-2001-01-0${i + 1}T00-00-00-000Z`), 'old');
    const bytes = readFileSync(crash.journal);
    const last = scanJournal(bytes).records.at(-1)!;
    writeFileSync(crash.journal, bytes.subarray(0, last.offset + last.length - 3));
    const r = await openStore({ path: crash.db, log: recordingLog(), ...noCheckpoints });
    await r.close();
    const copies = tornCopies(crash.dir);
    assert.equal(copies.length, TORN_COPIES_KEPT);
    assert.ok(!copies[TORN_COPIES_KEPT - 1]!.startsWith('baton.journal.torn-2001-'), 'the new copy is kept');
    assert.deepEqual(copies.slice(0, -1), [4, 5, 6, 7].map((d) => `baton.journal.torn-2001-01-0${d}T00-00-00-000Z`), 'the oldest went');
  });
});
