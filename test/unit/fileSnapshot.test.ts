// Rule: a copy-on-write snapshot of the patched sql.js's in-memory file is the database exactly as it was when the
// snapshot began, whatever is written, grown, shrunk or rolled back while it is read; and it stops preserving pages
// once closed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Database } from 'sql.js';
import { bufferSnapshot, memfsSnapshot, SNAPSHOT_CHUNK, type MemfsFileNode, type SnapshotSource } from '../../src/store/fileSnapshot.js';
import { patchedSqlJs } from '../helpers/sqlJs.js';

type PatchedDb = Database & { batonFileNode(): MemfsFileNode };

/** A copy of the database file's bytes now (export() would reopen the connection). */
const fileBytes = (db: PatchedDb) => {
  const node = db.batonFileNode();
  return Buffer.from(node.Ua!.subarray(0, node.Wa));
};

/** Reads the whole source front to back in `chunk`-sized reads, calling `between` after each read. */
function readAll(source: SnapshotSource, chunk: number, between: (i: number) => void): Buffer {
  const parts: Buffer[] = [];
  for (let offset = 0, i = 0; offset < source.size; i++) {
    const part = source.read(offset, Math.min(chunk, source.size - offset));
    parts.push(Buffer.from(part)); // the source reuses its buffer
    offset += part.length;
    between(i);
  }
  return Buffer.concat(parts);
}

function fill(db: Database, rows: number, text: string): void {
  db.run('BEGIN');
  for (let i = 0; i < rows; i++) db.run('INSERT INTO t (v) VALUES (?)', [`${i} ${text}`]);
  db.run('COMMIT');
}

test('the snapshot is the database as it was when it began while writes, growth, deletes and rollbacks go on', async () => {
  const SQL = await patchedSqlJs();
  const db = new SQL.Database() as PatchedDb;
  try {
    db.exec('PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY; PRAGMA locking_mode = EXCLUSIVE; PRAGMA synchronous = OFF');
    db.run('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
    fill(db, 800, 'before '.repeat(300));
    const expected = fileBytes(db);
    const source = memfsSnapshot(db.batonFileNode());
    assert.equal(source.size, expected.length);
    const got = readAll(source, 64 * 1024, (i) => {
      // Between reads: change pages behind and ahead of the read position, grow the file, free pages, roll back.
      db.run('UPDATE t SET v = ? WHERE k % 7 = ?', [`changed ${i} `.repeat(50), i % 7]);
      if (i % 3 === 0) fill(db, 40, `grown ${i} `.repeat(200));
      if (i % 4 === 1) db.run('DELETE FROM t WHERE k % 11 = ?', [i % 11]);
      db.run('BEGIN');
      db.run("INSERT INTO t (v) VALUES ('rolled back')");
      db.run('ROLLBACK');
    });
    source.close();
    assert.ok(got.equals(expected), 'the snapshot holds the bytes of the database when it began');
    const reopened = new SQL.Database(got);
    try {
      assert.equal(reopened.exec('PRAGMA integrity_check')[0]!.values[0]![0], 'ok');
      assert.equal(reopened.exec("SELECT count(*) FROM t WHERE v LIKE 'changed%' OR v LIKE '%grown%'")[0]!.values[0]![0], 0);
    } finally {
      reopened.close();
    }
  } finally {
    db.close();
  }
});

test('a database opened from a Buffer (a snapshot read from disk) is preserved by copy, not by a view of it', async () => {
  const SQL = await patchedSqlJs();
  const seed = new SQL.Database();
  seed.run('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
  fill(seed, 300, 'seed '.repeat(100));
  const onDisk = Buffer.from(seed.export());
  seed.close();
  const db = new SQL.Database(onDisk) as PatchedDb; // sql.js keeps this Buffer as the file's array
  try {
    db.exec('PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE; PRAGMA synchronous = OFF');
    const expected = fileBytes(db);
    const source = memfsSnapshot(db.batonFileNode());
    const got = readAll(source, 16 * 1024, (i) => {
      db.run('UPDATE t SET v = ? WHERE k % 5 = ?', [`after ${i}`, i % 5]);
      if (i === 2) fill(db, 300, 'grown past the Buffer '.repeat(40)); // the file moves to a growable array
    });
    source.close();
    assert.ok(got.equals(expected));
    assert.ok(db.batonFileNode().Wa > expected.length, 'the file grew while its snapshot was read');
  } finally {
    db.close();
  }
});

test('a database that shrinks (VACUUM) while its snapshot is read still gives the bytes it had', async () => {
  const SQL = await patchedSqlJs();
  const db = new SQL.Database() as PatchedDb;
  try {
    db.exec('PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE; PRAGMA synchronous = OFF');
    db.run('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
    fill(db, 600, 'x'.repeat(3000));
    db.run('DELETE FROM t WHERE k > 50');
    const expected = fileBytes(db);
    const source = memfsSnapshot(db.batonFileNode());
    const got = readAll(source, SNAPSHOT_CHUNK, (i) => {
      if (i === 0) {
        db.run('VACUUM');
        assert.ok(db.batonFileNode().Wa < expected.length, 'VACUUM shrank the file');
      }
    });
    source.close();
    assert.ok(got.equals(expected));
  } finally {
    db.close();
  }
});

test('once closed, a snapshot no longer copies pages, and a second one can begin', async () => {
  const SQL = await patchedSqlJs();
  const db = new SQL.Database() as PatchedDb;
  try {
    db.run('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
    fill(db, 10, 'y');
    const node = db.batonFileNode();
    const first = memfsSnapshot(node);
    assert.throws(() => memfsSnapshot(node), /already being written/);
    assert.throws(() => first.read(4096, 10), /front to back/);
    first.close();
    assert.equal(node.batonBeforeWrite, undefined);
    assert.equal(node.batonBeforeResize, undefined);
    const second = memfsSnapshot(node);
    second.close();
  } finally {
    db.close();
  }
});

test('a buffer snapshot reads the bytes it was given', () => {
  const bytes = Uint8Array.from({ length: 10_000 }, (_, i) => i % 251);
  const got = readAll(bufferSnapshot(bytes), 4096, () => undefined);
  assert.ok(got.equals(Buffer.from(bytes)));
});
