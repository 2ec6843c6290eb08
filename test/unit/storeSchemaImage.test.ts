// Rule: a new database file starts as a copy of the build's schema image (every migration applied, beside the
// migrations) and ends exactly as one the migrations built; an image of an older version gets the newer migrations,
// and an image that cannot be used (not a database, a version this code does not know, a journal position) is passed
// over for the migrations. Existing files never look at it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'sql.js';
import { silentLog, type Log } from '../../src/core/ports.js';
import { buildSchemaImage } from '../../src/store/buildSchemaImage.js';
import { defaultWasmPath, loadSqlJs } from '../../src/store/loading.js';
import { loadMigrations, SCHEMA_IMAGE, schemaImage } from '../../src/store/migrate.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { withTempDir } from '../fixtures/store/helpers.js';

const realMigrations = join(__dirname, '..', '..', 'src', 'store', 'migrations');
const migrations = loadMigrations(realMigrations);

/** A copy of the migrations in `dir`, the first `upTo` of them (all by default), with `image` as its schema image. */
function migrationsDir(dir: string, image: Uint8Array | null, upTo = migrations.length): string {
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(realMigrations).filter((n) => n.endsWith('.sql')).sort().slice(0, upTo)) copyFileSync(join(realMigrations, f), join(dir, f));
  if (image) writeFileSync(join(dir, SCHEMA_IMAGE), image);
  return dir;
}

/** The schema (every table, index, trigger and view with its SQL) and meta rows of a store's database. */
function schemaOf(store: SqlJsStore): unknown {
  return {
    schema: store.all('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name'),
    meta: store.all("SELECT key, value FROM meta WHERE key <> 'journal_seq' ORDER BY key"),
  };
}

/** An image built by `build` on a fresh sql.js database. */
async function image(build: (db: Database) => void): Promise<Uint8Array> {
  const SQL = await loadSqlJs(defaultWasmPath());
  const db = new SQL.Database();
  try {
    build(db);
    return db.export();
  } finally {
    db.close();
  }
}

test('a new file made from the built image has the schema the migrations make, and is used (its marker is there)', async () => {
  await withTempDir(async (t) => {
    const built = await buildSchemaImage(realMigrations);
    const marked = await image((db) => {
      schemaImage(db, migrations);
      db.run('CREATE TABLE image_marker (x)');
    });
    const plain = await openStore({ path: join(t.dir, 'plain.db'), migrationsDir: migrationsDir(join(t.dir, 'none'), null) });
    const fromImage = await openStore({ path: join(t.dir, 'image.db'), migrationsDir: migrationsDir(join(t.dir, 'built'), built) });
    const fromMarked = await openStore({ path: join(t.dir, 'marked.db'), migrationsDir: migrationsDir(join(t.dir, 'marked'), marked) });
    try {
      assert.deepEqual(schemaOf(fromImage), schemaOf(plain));
      assert.equal(fromMarked.all("SELECT name FROM sqlite_master WHERE name = 'image_marker'").length, 1, 'the copy of the image is the database');
      // Durable like any new file: written, and opened again as it was.
      await fromImage.transaction(() => fromImage.run("INSERT INTO meta (key, value) VALUES ('probe', 'kept')"));
    } finally {
      for (const s of [plain, fromImage, fromMarked]) await s.close();
    }
    const again = await openStore({ path: join(t.dir, 'image.db'), migrationsDir: migrationsDir(join(t.dir, 'built'), built) });
    try {
      assert.deepEqual(again.get("SELECT value FROM meta WHERE key = 'probe'"), { value: 'kept' });
    } finally {
      await again.close();
    }
  });
});

test('an image of an older version gets the newer migrations; an unusable image is passed over for the migrations', async () => {
  await withTempDir(async (t) => {
    const lines: string[] = [];
    const log: Log = { ...silentLog, debug: (m) => lines.push(m) };
    const plain = await openStore({ path: join(t.dir, 'plain.db'), migrationsDir: migrationsDir(join(t.dir, 'none'), null) });
    const expected = schemaOf(plain);
    await plain.close();
    const older = await image((db) => schemaImage(db, migrations.slice(0, 3)));
    const positioned = await image((db) => {
      schemaImage(db, migrations);
      db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('journal_seq', '7')");
    });
    const newer = await image((db) => {
      schemaImage(db, migrations);
      db.run("UPDATE meta SET value = '999' WHERE key = 'schema_version'");
    });
    const cases: Array<[string, Uint8Array]> = [
      ['older', older], ['garbage', Buffer.from('not a database at all, '.repeat(40))], ['positioned', positioned], ['newer', newer],
    ];
    for (const [name, bytes] of cases) {
      const s = await openStore({ path: join(t.dir, `${name}.db`), migrationsDir: migrationsDir(join(t.dir, name), bytes), log });
      try {
        assert.deepEqual(schemaOf(s), expected, name);
      } finally {
        await s.close();
      }
    }
    assert.ok(lines.some((l) => /the schema image in .*garbage cannot be read/.test(l)), lines.join('\n'));
  });
});

test('an existing file never looks at the image', async () => {
  await withTempDir(async (t) => {
    const dir = migrationsDir(join(t.dir, 'm'), null);
    await (await openStore({ path: t.db, migrationsDir: dir })).close();
    writeFileSync(join(dir, SCHEMA_IMAGE), await image((db) => {
      schemaImage(db, migrations);
      db.run('CREATE TABLE image_marker (x)');
    }));
    const s = await openStore({ path: t.db, migrationsDir: dir });
    try {
      assert.equal(s.all("SELECT name FROM sqlite_master WHERE name = 'image_marker'").length, 0);
    } finally {
      await s.close();
    }
  });
});
