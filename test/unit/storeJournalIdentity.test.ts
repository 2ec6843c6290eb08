// Rule: a journal names the database it belongs to (a header frame with the id kept in the database file), and a
// journal of another database beside a database (a database copied or restored from elsewhere, a journal left behind)
// is refused, naming both files and the fix, with both left untouched, rather than replayed into the wrong database.
// Files of an older Baton (a journal without a header, a database without an id) open as before, and the header is
// a record an older Baton skips (an empty one at its snapshot's seq).
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { decodeFrameAt, scanJournal } from '../../src/store/journal.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { assertUnchanged, checkpointWithWritesDuring, crashImage, filesOf, withTempDir } from '../fixtures/store/helpers.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const noAutoCheckpoints = { idleCheckpointMs: 60_000, checkpointRecords: 1_000_000, checkpointBytes: 1 << 30, log: quiet };
const put = (s: SqlJsStore, key: string) => s.transaction(() => s.run('INSERT INTO meta (key, value) VALUES (?, ?)', [key, 'v']));
const keys = (s: SqlJsStore) => s.all<{ key: string }>("SELECT key FROM meta WHERE key LIKE 'k-%' ORDER BY key").map((r) => r.key);
const userVersion = (s: SqlJsStore) => s.get<{ user_version: number }>('PRAGMA user_version')!.user_version;

/**
 * A crash image of a database named `name`: three writes and a checkpoint (snapshot at seq 3), then `late` written to
 * its journal only. Two such databases have snapshots at the same seq, so each one's journal continues the other's.
 */
async function crashedDatabase(root: string, name: string, late: string) {
  const dir = join(root, name);
  const db = join(dir, 'baton.db');
  const s = await openStore({ path: db, ...noAutoCheckpoints });
  for (let i = 0; i < 3; i++) await put(s, `k-${name}-${i}`);
  await s.checkpoint();
  await put(s, late);
  const id = userVersion(s);
  const crash = crashImage(dir);
  await s.close();
  return { ...crash, id };
}

test("a journal of another database beside a database is refused, naming both, and both files are left as they were", async () => {
  await withTempDir(async (t) => {
    const a = await crashedDatabase(t.dir, 'a', 'k-a-late');
    const b = await crashedDatabase(t.dir, 'b', 'k-b-late');
    assert.notEqual(a.id, b.id, 'each database has an id of its own');
    const header = scanJournal(readFileSync(b.journal)).header;
    assert.equal(header?.database, b.id, "the journal's header names its database");

    // a's database restored beside b's journal (or b's journal left where a's now is).
    copyFileSync(b.journal, a.journal);
    const before = filesOf(a.dir);
    for (const access of ['existing', 'read'] as const) {
      await assert.rejects(openStore({ path: a.db, access, log: quiet }), (ex: unknown) => {
        assert.ok(BatonError.is(ex, 'store_corrupt'), String(ex));
        assert.ok(ex.message.startsWith(`${a.journal} is the journal of another database (id ${b.id}), not of ${a.db} (id ${a.id})`), ex.message);
        assert.match(ex.message, /Baton left both files untouched\. If baton\.db is the database you want, move the journal aside/);
        return true;
      });
      assertUnchanged(a.dir, before);
    }
  });
});

test("a database's own journal replays as before, and one without a header (an older Baton's) does too", async () => {
  await withTempDir(async (t) => {
    const a = await crashedDatabase(t.dir, 'a', 'k-a-late');
    const bytes = readFileSync(a.journal);
    const header = decodeFrameAt(bytes, 0)!;
    assert.equal(header.database, a.id);
    // What an older Baton reads: an empty record at the snapshot's seq, which it skips (only later seqs replay).
    assert.deepEqual({ seq: header.seq, group: header.group, statements: header.statements }, { seq: 3, group: 3, statements: [] });

    const own = crashImage(join(t.dir, 'a'));
    const s = await openStore({ path: own.db, log: quiet });
    assert.deepEqual(keys(s), ['k-a-0', 'k-a-1', 'k-a-2', 'k-a-late']);
    await s.close();

    writeFileSync(a.journal, bytes.subarray(header.length)); // the records alone, as an older Baton writes them
    const old = await openStore({ path: a.db, log: quiet });
    assert.deepEqual(keys(old), ['k-a-0', 'k-a-1', 'k-a-2', 'k-a-late']);
    await old.close();
  });
});

test("a database without an id (an older Baton's) opens with any journal, and its next checkpoint gives it one", async () => {
  await withTempDir(async (t) => {
    const a = await crashedDatabase(t.dir, 'a', 'k-a-late');
    const file = readFileSync(a.db);
    file.writeInt32BE(0, 60); // SQLite's user_version, where the id is kept: as an older Baton's file has it
    writeFileSync(a.db, file);
    const s = await openStore({ path: a.db, ...noAutoCheckpoints });
    assert.deepEqual(keys(s), ['k-a-0', 'k-a-1', 'k-a-2', 'k-a-late']);
    assert.equal(userVersion(s), 0);
    await s.checkpoint();
    const id = userVersion(s);
    assert.ok(id > 0, 'the checkpoint gave it an id');
    await put(s, 'k-a-next');
    assert.equal(scanJournal(readFileSync(a.journal)).header?.database, id, 'which its journal names from then on');
    await s.close();
  });
});

test('a journal that keeps writes made during a checkpoint opens with the header of the snapshot just written', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...noAutoCheckpoints });
    await checkpointWithWritesDuring(s, 10);
    const scan = scanJournal(readFileSync(t.journal));
    assert.ok(scan.records.length > 0, 'some writes came after the snapshot was taken');
    assert.equal(scan.header?.database, userVersion(s));
    assert.equal(scan.records[0]!.seq, scan.header!.seq + 1, 'its records continue the seq the header names');
    const crash = crashImage(t.dir);
    await s.close();
    const again = await openStore({ path: crash.db, log: quiet });
    assert.equal(again.all("SELECT key FROM meta WHERE key LIKE 'k__'").length, 10);
    await again.close();
  });
});
