// Rule: the bundle's patched sql.js stores exactly the bytes the unpatched one does (the patches only change
// how strings are encoded and how the in-memory file grows and shrinks), its database file node holds exactly the
// committed database (what a snapshot is written from), and the patches still apply to the installed sql.js.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SqlJsStatic } from 'sql.js';
import { patchSqlJs } from '../../scripts/sqljsPatch.mjs';
import { readSnapshotFile } from '../../src/store/snapshotRead.js';
import { loadSqlJs, patchedSqlJs, sqlJsFile } from '../helpers/sqlJs.js';

const samples = [
  '',
  'plain ascii',
  'é ü ß — “quotes” 中文 日本語',
  'emoji 🎉👩‍💻 and astral 𝄞',
  'embedded \u0000 NUL and after',
  'x'.repeat(70_000), // past the patch's exact-length threshold
  `mixed ${'é中🎉'.repeat(5_000)}`,
  `mixed past the threshold ${'é中🎉 text'.repeat(12_000)}`,
];

test('the patch applies to the installed sql.js', () => {
  const { applied, code } = patchSqlJs(readFileSync(sqlJsFile, 'utf8'));
  assert.ok(applied, 'scripts/sqljsPatch.mjs no longer matches node_modules/sql.js: update its patterns');
  assert.match(code, /encodeInto/);
  assert.ok(code.includes('m>=g||batonGrow(a,g);') && !code.includes('1.125'), 'a growing in-memory database file grows in place');
  assert.match(code, /prototype\.batonFileNode=/);
  assert.ok(code.includes('a.batonBeforeWrite&&a.batonBeforeWrite(e,c)'), 'MEMFS writes call the snapshot hook first');
  assert.ok(code.includes('a.batonBeforeResize&&a.batonBeforeResize(b),batonResize(a,b)'), 'MEMFS resizes call the snapshot hook first, then resize in place');
});

test('a database grown past several megabytes by the patched sql.js is byte-identical to the unpatched one', async () => {
  const grow = (SQL: SqlJsStatic) => {
    const db = new SQL.Database();
    try {
      db.run('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
      for (let i = 0; i < 600; i++) db.run('INSERT INTO t (v) VALUES (?)', [`${i}:${'row text '.repeat(1200)}`]);
      db.run('DELETE FROM t WHERE k % 3 = 0');
      return db.export();
    } finally {
      db.close();
    }
  };
  const [plain, patched] = [grow(await loadSqlJs()), grow(await patchedSqlJs())];
  assert.ok(plain.length > 4 * 1024 * 1024, `the database grew past 4 MB (${plain.length} bytes)`);
  assert.ok(Buffer.from(patched).equals(Buffer.from(plain)));
});

test('a database shrunk by VACUUM gives its memory back in place and grows in place again, with the bytes of the unpatched one', async () => {
  type Node = { Ua: Uint8Array; Wa: number };
  const shrinkAndGrow = (SQL: SqlJsStatic) => {
    const db = new SQL.Database() as InstanceType<SqlJsStatic['Database']> & { batonFileNode?(): Node };
    const buffer = () => db.batonFileNode?.().Ua.buffer as (ArrayBuffer & { resizable?: boolean }) | undefined;
    try {
      db.exec('PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY; PRAGMA locking_mode = EXCLUSIVE; PRAGMA synchronous = OFF');
      db.run('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
      db.run('BEGIN');
      for (let i = 0; i < 600; i++) db.run('INSERT INTO t (v) VALUES (?)', [`${i}:${'row text '.repeat(1200)}`]);
      db.run('COMMIT');
      db.run('DELETE FROM t WHERE k % 3 <> 0');
      const grown = buffer();
      // As SqlJsStore.compact runs it: its rollback journal is a second MEMFS file, grown, then truncated to nothing.
      db.exec('PRAGMA journal_mode = TRUNCATE; PRAGMA temp_store = FILE; VACUUM; PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY');
      const shrunk = { buffer: buffer(), bytes: buffer()?.byteLength, fileBytes: db.batonFileNode?.().Wa };
      for (let i = 0; i < 300; i++) db.run('INSERT INTO t (v) VALUES (?)', [`${i}:${'grown again '.repeat(1000)}`]);
      return { bytes: db.export(), grown, shrunk, regrown: buffer() };
    } finally {
      db.close();
    }
  };
  const [plain, patched] = [shrinkAndGrow(await loadSqlJs()), shrinkAndGrow(await patchedSqlJs())];
  assert.ok(Buffer.from(patched.bytes).equals(Buffer.from(plain.bytes)));
  assert.ok(patched.grown?.resizable && patched.shrunk.buffer === patched.grown, 'VACUUM shrank the same resizable buffer');
  assert.ok(patched.shrunk.bytes! < 3 * 1024 * 1024 && patched.shrunk.bytes === patched.shrunk.fileBytes, `the buffer is no larger than the file: ${patched.shrunk.bytes} bytes`);
  assert.equal(patched.regrown, patched.grown, 'and grew in place again');
});

test('a database opened from a file read onto a resizable buffer keeps that buffer, grows and shrinks it in place, with the bytes of the unpatched one', async () => {
  type Node = { Ua: Uint8Array; Wa: number };
  const dir = mkdtempSync(join(tmpdir(), 'baton-sqljs-file-'));
  try {
    const file = join(dir, 'baton.db');
    const seed = new (await loadSqlJs()).Database();
    seed.run('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
    for (let i = 0; i < 300; i++) seed.run('INSERT INTO t (v) VALUES (?)', [`${i}:${'row text '.repeat(1200)}`]);
    writeFileSync(file, seed.export());
    seed.close();
    const reopenGrowShrink = async (SQL: SqlJsStatic) => {
      const bytes = (await readSnapshotFile(file))!;
      const db = new SQL.Database(bytes) as InstanceType<SqlJsStatic['Database']> & { batonFileNode?(): Node };
      const node = () => db.batonFileNode?.();
      try {
        db.exec('PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY; PRAGMA locking_mode = EXCLUSIVE; PRAGMA synchronous = OFF');
        const opened = node()?.Ua.buffer;
        db.run('BEGIN');
        for (let i = 0; i < 300; i++) db.run('INSERT INTO t (v) VALUES (?)', [`more ${i}:${'row text '.repeat(1200)}`]);
        db.run('COMMIT');
        const grown = { buffer: node()?.Ua.buffer, length: node()?.Ua.length };
        db.run('DELETE FROM t WHERE k % 3 <> 0');
        db.exec('PRAGMA journal_mode = TRUNCATE; PRAGMA temp_store = FILE; VACUUM; PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY');
        const shrunk = { buffer: node()?.Ua.buffer, length: node()?.Ua.length, fileBytes: node()?.Wa };
        for (let i = 0; i < 200; i++) db.run('INSERT INTO t (v) VALUES (?)', [`again ${i}:${'grown again '.repeat(1000)}`]);
        return { read: bytes.buffer, opened, grown, shrunk, regrown: node()?.Ua.buffer, check: db.exec('PRAGMA integrity_check')[0]!.values[0]![0], bytes: db.export() };
      } finally {
        db.close();
      }
    };
    const [plain, patched] = [await reopenGrowShrink(await loadSqlJs()), await reopenGrowShrink(await patchedSqlJs())];
    assert.equal((patched.read as ArrayBuffer & { resizable?: boolean }).resizable, true, 'readSnapshotFile reads onto a resizable buffer');
    assert.equal(patched.opened, patched.read, 'the in-memory file is the bytes read, not a copy');
    assert.ok(patched.grown.buffer === patched.read && patched.grown.length! > readFileSync(file).length, 'it grew in place');
    assert.ok(patched.shrunk.buffer === patched.read && patched.shrunk.length === patched.shrunk.fileBytes, 'VACUUM shrank it in place, to the file');
    assert.equal(patched.regrown, patched.read, 'and it grew in place again');
    assert.equal(patched.check, 'ok');
    assert.ok(Buffer.from(patched.bytes).equals(Buffer.from(plain.bytes)), 'the same bytes as the unpatched sql.js');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('patched and unpatched sql.js store the same bytes for every bound string', async () => {
  const [plain, patched] = [await loadSqlJs(), await patchedSqlJs()];
  const roundTrip = (SQL: SqlJsStatic, text: string) => {
    const db = new SQL.Database();
    try {
      db.run('CREATE TABLE t (v TEXT)');
      db.run('INSERT INTO t VALUES (?)', [text]);
      const [row] = db.exec('SELECT v, hex(v), length(CAST(v AS BLOB)) FROM t')[0]!.values;
      return row;
    } finally {
      db.close();
    }
  };
  for (const text of samples) {
    const label = JSON.stringify(text.slice(0, 30));
    const expected = roundTrip(plain, text);
    assert.deepEqual(roundTrip(patched, text), expected, label);
    assert.equal(expected![2], Buffer.byteLength(text), label);
    assert.equal(expected![0], text, label);
  }
  // A lone surrogate is not valid UTF-8: both read back U+FFFD for it, in a short string and past the threshold
  // (where the copy is sized by the exact count, which must count it as U+FFFD's three bytes, as it is written).
  assert.equal(roundTrip(patched, 'a\ud800b')![0], 'a\ufffdb');
  const long = `${'a\ud800b\udc00'.repeat(20_000)}\ud83c`;
  assert.deepEqual(roundTrip(patched, long), [long.replace(/[\ud800-\udfff]/g, '\ufffd'), Buffer.from(long).toString('hex').toUpperCase(), Buffer.byteLength(long)]);
});

test("with the store's connection settings, the patched file node holds exactly the committed database", async () => {
  const SQL = await patchedSqlJs();
  const db = new SQL.Database() as InstanceType<SqlJsStatic['Database']> & { batonFileNode(): { Ua: Uint8Array; Wa: number } };
  const rows = (d: { exec(sql: string): Array<{ values: unknown[][] }> }) => d.exec('SELECT k, v FROM t ORDER BY k')[0]!.values;
  try {
    db.exec('PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY; PRAGMA locking_mode = EXCLUSIVE; PRAGMA synchronous = OFF');
    db.run('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
    db.run('BEGIN');
    for (let i = 0; i < 500; i++) db.run('INSERT INTO t (v) VALUES (?)', [`${i} ${'é text '.repeat(400)}`]);
    db.run('COMMIT');
    db.run('DELETE FROM t WHERE k % 4 = 0');
    db.run("UPDATE t SET v = 'short' WHERE k % 3 = 0");
    db.run('BEGIN');
    db.run("INSERT INTO t (v) VALUES ('rolled back')");
    db.run('ROLLBACK');
    const node = db.batonFileNode();
    const view = node.Ua.subarray(0, node.Wa);
    assert.ok(view.length > 1024 * 1024 && view.length === db.export().length, `a whole database file (${view.length} bytes)`);
    assert.deepEqual([view[18], view[19]], [1, 1], 'a rollback-journal (not WAL) file, as export() writes it');
    assert.equal((node.Ua.buffer as ArrayBuffer & { resizable?: boolean }).resizable, true, 'the file grew in place, on a resizable buffer');
    const reopened = new SQL.Database(view.slice());
    try {
      assert.equal(reopened.exec('PRAGMA integrity_check')[0]!.values[0]![0], 'ok');
      assert.deepEqual(rows(reopened), rows(db));
      assert.equal(reopened.exec("SELECT count(*) FROM t WHERE v = 'rolled back'")[0]!.values[0]![0], 0);
    } finally {
      reopened.close();
    }
  } finally {
    db.close();
  }
});
