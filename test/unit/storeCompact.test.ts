// Rule: compact() gives the space of deleted rows back in memory and on disk without losing or changing a row —
// also for writes made while it runs and across a crash before or after its snapshot lands — and is refused where
// it cannot run (read-only, closed, inside a transaction).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleLikeDist } from '../../scripts/sqljsPatch.mjs';
import { BatonError } from '../../src/core/errors.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { assertUnchanged, crashImage, filesOf, withTempDir } from '../fixtures/store/helpers.js';

const quiet = { idleCheckpointMs: 60_000, checkpointRecords: 1_000_000, checkpointBytes: 1 << 30 };
const put = (s: SqlJsStore, key: string, value: string) =>
  s.transaction(() => s.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, value]));
/** Every row of meta but the checkpoint's own, with its rowid (VACUUM must keep those too). */
const rows = (s: SqlJsStore) =>
  s.all<{ rowid: number; key: string; value: string }>("SELECT rowid, key, value FROM meta WHERE key <> 'journal_seq' ORDER BY key");
const turn = () => new Promise((r) => setImmediate(r));

/** Writes `n` rows of 10 KB, checkpoints, then deletes all but every tenth; returns the snapshot's size on disk. */
async function mostlyDeleted(s: SqlJsStore, n: number): Promise<number> {
  await s.transaction(() => {
    for (let i = 0; i < n; i++) s.run('INSERT INTO meta (key, value) VALUES (?, ?)', [`row${String(i).padStart(4, '0')}`, `${i}:${'v'.repeat(10_000)}`]);
  });
  await s.checkpoint();
  const onDisk = s.path ? statSync(s.path).size : 0;
  await s.transaction(() => s.run("DELETE FROM meta WHERE key LIKE 'row%' AND CAST(substr(key, 4) AS INTEGER) % 10 <> 0"));
  return onDisk;
}

test('compact gives the deleted rows’ space back on disk, keeps the rows left, and leaves an empty journal', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...quiet });
    const diskBefore = await mostlyDeleted(s, 600);
    const kept = rows(s);
    assert.equal(kept.filter((r) => r.key.startsWith('row')).length, 60);
    const result = await s.compact();
    assert.ok(result.afterBytes < result.beforeBytes / 5, `compacted ${result.beforeBytes} → ${result.afterBytes} bytes`);
    assert.ok(result.beforeBytes >= diskBefore, 'deleting freed pages, it did not shrink the file');
    assert.ok(statSync(t.db).size < diskBefore / 5, `the snapshot shrank from ${diskBefore} to ${statSync(t.db).size} bytes`);
    assert.equal(statSync(t.journal).size, 0, 'the journal went into the smaller snapshot');
    assert.deepEqual(rows(s), kept, 'every row left, with its rowid');
    assert.equal(s.get<{ integrity_check: string }>('PRAGMA integrity_check')!.integrity_check, 'ok');
    await s.close();
    const r = await openStore({ path: t.db });
    assert.deepEqual(rows(r), kept);
    await r.close();
  });
});

test('after compact the connection keeps its settings and cached statements, and writes go on', async () => {
  const s = await openStore({ path: null });
  await mostlyDeleted(s, 200);
  await put(s, 'cached', 'before'); // the INSERT is in the statement cache now
  const result = await s.compact();
  assert.ok(result.afterBytes < result.beforeBytes, `in memory too: ${result.beforeBytes} → ${result.afterBytes} bytes`);
  const pragma = (name: string) => Object.values(s.get(`PRAGMA ${name}`)!)[0];
  assert.deepEqual(
    ['journal_mode', 'locking_mode', 'temp_store', 'synchronous'].map(pragma),
    ['memory', 'exclusive', 2, 0],
    'the settings VACUUM ran with are undone',
  );
  await put(s, 'cached', 'after');
  assert.equal(s.get<{ value: string }>("SELECT value FROM meta WHERE key = 'cached'")!.value, 'after');
  assert.equal(rows(s).filter((r) => r.key.startsWith('row')).length, 20);
  await s.close();
});

test('reopening after compact, and after writes that follow it, gives the same rows', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...quiet });
    await mostlyDeleted(s, 300);
    await s.compact();
    const justAfter = crashImage(t.dir);
    const compacted = rows(s);
    for (let i = 0; i < 40; i++) await put(s, `later${i}`, 'x'.repeat(i * 100));
    await s.transaction(() => s.run("DELETE FROM meta WHERE key IN ('row0000', 'later3')"));
    await put(s, 'row0010', 'changed');
    assert.ok(statSync(t.journal).size > 0, 'the later writes are in the journal only');
    const later = crashImage(t.dir);
    const expected = rows(s);
    await s.close();
    for (const [image, want] of [[justAfter, compacted], [later, expected]] as const) {
      const r = await openStore({ path: image.db });
      assert.deepEqual(rows(r), want, image.dir);
      await r.close();
    }
  });
});

test('a crash while compact writes its snapshot leaves the old snapshot and a journal that replay to the same rows', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...quiet });
    // Large enough that the compacted snapshot takes several turns to write (1 MiB per turn).
    await s.transaction(() => {
      for (let i = 0; i < 40; i++) s.run('INSERT INTO meta (key, value) VALUES (?, ?)', [`big${i}`, `${i}`.repeat(200_000)]);
    });
    await mostlyDeleted(s, 400);
    let settled = false;
    const compact = s.compact().finally(() => (settled = true));
    const acked: string[] = [];
    let i = 0;
    while (!readdirSync(t.dir).some((f) => f.startsWith('baton.db.tmp-'))) {
      assert.ok(!settled, 'compact ended before its snapshot was seen being written');
      const key = `during${i++}`;
      void put(s, key, String(i)).then(() => acked.push(key));
      await turn();
    }
    const midway = crashImage(t.dir); // the old snapshot is still in place: what a crash now leaves
    const ackedThen = [...acked];
    const { afterBytes } = await compact;
    assert.ok(statSync(midway.db).size > afterBytes + 3_000_000, 'the crash left the snapshot from before compact, with the deleted rows');
    const r = await openStore({ path: midway.db });
    const keys = new Set(rows(r).map((row) => row.key));
    for (const key of ackedThen) assert.ok(keys.has(key), `${key} was acknowledged before the crash`);
    const live = new Map(rows(s).map((row) => [row.key, row]));
    for (const row of rows(r)) assert.deepEqual(row, live.get(row.key), `${row.key} replays to the row the store holds`);
    assert.equal(rows(r).filter((row) => row.key.startsWith('row')).length, 40);
    await r.close();
    await s.close();
  });
});

test('writes made just before, during and after compact are all kept, in memory and after a crash', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...quiet });
    await mostlyDeleted(s, 300);
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) writes.push(put(s, `before${i}`, String(i))); // in the batch compact commits
    const compact = s.compact();
    for (let i = 0; i < 20; i++) writes.push(put(s, `same-turn${i}`, String(i)));
    for (let i = 0; i < 20; i++) {
      await turn();
      writes.push(put(s, `during${i}`, String(i)));
    }
    const result = await compact;
    for (let i = 0; i < 20; i++) writes.push(put(s, `after${i}`, String(i)));
    await Promise.all(writes);
    assert.ok(result.afterBytes < result.beforeBytes);
    const expected = rows(s);
    assert.equal(expected.filter((r) => r.key !== 'schema_version').length, 30 + 80, 'the 30 rows left and the 80 written');
    const crash = crashImage(t.dir);
    await s.close();
    for (const path of [crash.db, t.db]) {
      const r = await openStore({ path });
      assert.deepEqual(rows(r), expected, path);
      await r.close();
    }
  });
});

test('compact with nothing to give back still succeeds and changes no row', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...quiet });
    await put(s, 'a', '1');
    const before = rows(s);
    const first = await s.compact();
    assert.ok(first.afterBytes > 0 && first.afterBytes <= first.beforeBytes, JSON.stringify(first));
    const second = await s.compact();
    assert.equal(second.afterBytes, second.beforeBytes, 'a second compact finds nothing free');
    assert.deepEqual(rows(s), before);
    assert.equal(before.find((r) => r.key === 'a')?.value, '1');
    await s.close();
  });
});

test('a read-only store refuses to compact and leaves the files untouched', async () => {
  await withTempDir(async (t) => {
    const owner = await openStore({ path: t.db });
    await mostlyDeleted(owner, 50);
    await owner.close();
    const before = filesOf(t.dir);
    const r = await openStore({ path: t.db, access: 'read' });
    await assert.rejects(r.compact(), (ex: unknown) => {
      assert.ok(BatonError.is(ex, 'store_read_only'));
      assert.match(ex.message, /is open read-only here; a change goes through the process that owns it/);
      return true;
    });
    await r.close();
    assertUnchanged(t.dir, before);
  });
});

test('compact is refused on a closed or closing store and inside a transaction', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...quiet });
    let inside: Promise<unknown> | undefined;
    await s.transaction(() => {
      inside = s.compact();
    });
    await assert.rejects(inside!, /cannot run inside a transaction/);
    const closing = s.close();
    await assert.rejects(s.compact(), /store is closed/);
    await closing;
    await assert.rejects(s.compact(), /store is closed/);
  });
});

test('every rowid table of the schema keeps its rowids through VACUUM (an INTEGER PRIMARY KEY or an index)', async () => {
  // VACUUM renumbers a rowid table with neither; a journaled statement that reads its rowids could then replay
  // differently onto the snapshot from before compact. sqlite_sequence's rowids are never read.
  const s = await openStore({ path: null });
  const tables = s.all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name <> 'sqlite_sequence'");
  assert.ok(tables.length > 20, `the whole schema (${tables.length} tables)`);
  for (const { name, sql } of tables) {
    if (/^CREATE VIRTUAL TABLE|WITHOUT ROWID\s*$/i.test(sql)) continue;
    const pk = s.all<{ type: string }>('SELECT type FROM pragma_table_info(?) WHERE pk > 0', [name]);
    const integerKey = pk.length === 1 && pk[0]!.type.toUpperCase() === 'INTEGER';
    const indexed = s.all('SELECT name FROM pragma_index_list(?)', [name]).length > 0;
    assert.ok(integerKey || indexed, `${name} has neither an INTEGER PRIMARY KEY nor an index`);
  }
  await s.close();
});

test("with the bundle's patched sql.js, compact shrinks the in-memory file's buffer and the snapshot, not into SQLite's heap", async () => {
  await withTempDir(async (t) => {
    const entry = join(t.dir, 'compactChild.ts');
    writeFileSync(entry, childSource(join(__dirname, '..', '..', 'src', 'store', 'sqlJsStore.ts')));
    const bundle = await bundleLikeDist(entry, t.dir);
    const child = spawnSync(process.execPath, [bundle, t.db], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    const got = JSON.parse(child.stdout) as ChildReport;
    assert.ok(got.patched, 'the bundled store runs on the patched sql.js (its file node is there)');
    assert.ok(got.result.afterBytes < got.result.beforeBytes / 2.5, JSON.stringify(got.result));
    assert.equal(got.after.fileBytes, got.result.afterBytes);
    assert.ok(got.after.bufferBytes < got.before.bufferBytes / 2.5, `the file's memory shrank: ${got.before.bufferBytes} → ${got.after.bufferBytes} bytes`);
    assert.ok(got.after.disk < got.before.disk / 2.5, `the snapshot shrank: ${got.before.disk} → ${got.after.disk} bytes`);
    assert.deepEqual(got.reopened, got.live, 'reopened, the database holds what the store held');
    assert.equal(got.reopened.integrity, 'ok');
  });
});

interface ChildReport {
  patched: boolean;
  result: { beforeBytes: number; afterBytes: number };
  before: { fileBytes: number; bufferBytes: number; disk: number };
  after: { fileBytes: number; bufferBytes: number; disk: number };
  live: { n: number; sum: number; integrity: string };
  reopened: { n: number; sum: number; integrity: string };
}

/**
 * A script for the bundle: deletes two thirds of 30 MB, compacts with SQLite's heap limited to less than the compacted
 * database, writes more, closes and reopens; prints a ChildReport.
 */
function childSource(storeModule: string): string {
  return `import { openStore } from ${JSON.stringify(storeModule)};
async function main() {
  const path = process.argv[2];
  const s = await openStore({ path, idleCheckpointMs: 60000 });
  await s.transaction(() => s.run('CREATE TABLE bulk (k INTEGER PRIMARY KEY, v TEXT)'));
  for (let b = 0; b < 3000; b += 200) {
    await s.transaction(() => { for (let i = b; i < b + 200; i++) s.run('INSERT INTO bulk (k, v) VALUES (?, ?)', [i, i + 'v'.repeat(10000)]); });
  }
  await s.checkpoint();
  await s.transaction(() => s.run('DELETE FROM bulk WHERE k % 3 <> 0'));
  // SQLite's heap (wasm memory, which never shrinks) may not hold the compacted database (10 MB) once, let alone twice.
  s.get('PRAGMA hard_heap_limit = 8000000');
  const node = () => s.database.batonFileNode?.();
  const measure = () => ({ fileBytes: node().Wa, bufferBytes: node().Ua.buffer.byteLength, disk: require('node:fs').statSync(path).size });
  const patched = Boolean(node());
  const before = measure();
  const result = await s.compact();
  const after = measure();
  await s.transaction(() => { for (let i = 3000; i < 3100; i++) s.run('INSERT INTO bulk (k, v) VALUES (?, ?)', [i, 'w'.repeat(5000)]); });
  const content = (db) => ({ ...db.get('SELECT count(*) AS n, sum(length(v) + k) AS sum FROM bulk'), integrity: db.get('PRAGMA integrity_check').integrity_check });
  const live = content(s);
  await s.close();
  const r = await openStore({ path });
  const reopened = content(r);
  await r.close();
  process.stdout.write(JSON.stringify({ patched, result, before, after, live, reopened }));
}
main().catch((ex) => { console.error(ex); process.exit(1); });
`;
}
