// Rule: opening never damages what is on disk — a file that is not a database, or one from a newer
// Baton, is refused and left byte-for-byte untouched, and a refusal names the file at fault and leaves no file of its
// own behind — and migrations bring older files up to date.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import fs, { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatonError } from '../../src/core/errors.js';
import { journalPathOf } from '../../src/store/dbPath.js';
import { defaultWasmPath, loadSqlJs } from '../../src/store/loading.js';
import { loadMigrations } from '../../src/store/migrate.js';
import { openStore, resolveDbPath, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { crashImage, tempDir, withTempDir } from '../fixtures/store/helpers.js';

const realMigrations = join(__dirname, '..', '..', 'src', 'store', 'migrations');
const latest = loadMigrations(realMigrations).at(-1)!.version;

test('a file that is not a SQLite database is refused as store_corrupt and left untouched', async () => {
  await withTempDir(async (t) => {
    for (const content of [Buffer.from('{"not": "a database"}\n'.repeat(20)), Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 0xab)])]) {
      writeFileSync(t.db, content);
      await assert.rejects(openStore({ path: t.db }), (ex: unknown) => {
        assert.ok(BatonError.is(ex, 'store_corrupt'), String(ex));
        assert.ok(ex.message.includes(t.db));
        assert.match(ex.message, /move it aside or restore a backup/);
        return true;
      });
      assert.deepEqual(readFileSync(t.db), content);
      assert.equal(existsSync(`${t.db}.lock`), false, 'the lock is released after a refused open');
    }
  });
});

test('a folder given as the database is refused naming a file to give instead', async () => {
  await withTempDir(async (t) => {
    await assert.rejects(openStore({ path: t.dir }), (ex: unknown) => {
      assert.ok(BatonError.is(ex, 'invalid_input'), String(ex));
      assert.equal(ex.message, `${t.dir} is a folder, not a database file; name a file, such as ${join(t.dir, 'baton.db')}.`);
      return true;
    });
  });
});

test('a snapshot with damaged pages is refused as store_corrupt and left untouched, owned or only read', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db });
    await s.transaction(() => {
      for (let i = 0; i < 400; i++) s.run('INSERT INTO meta (key, value) VALUES (?, ?)', [`k${i}`, 'v'.repeat(500)]);
    });
    await s.close();
    const bytes = readFileSync(t.db);
    // Three pages near the end overwritten with noise (a bad sector, a stray write).
    const page = 4096;
    const at = Math.floor(bytes.length / page - 6) * page;
    for (let i = at; i < at + 3 * page; i++) bytes[i] = (i * 7919) % 251;
    writeFileSync(t.db, bytes);
    for (const access of ['create', 'read'] as const) {
      await assert.rejects(openStore({ path: t.db, access }), (ex: unknown) => {
        assert.ok(BatonError.is(ex, 'store_corrupt'), String(ex));
        assert.match(ex.message, /is not a readable Baton database \(.+\)\. Baton left it untouched: move it aside or restore a backup/);
        return true;
      });
    }
    assert.deepEqual(readFileSync(t.db), bytes);
    assert.equal(existsSync(`${t.db}.lock`), false);
  });
});

/** A database of findings (their full-text index with them) and a freelist, checkpointed and closed; its bytes. */
async function findingsImage(path: string): Promise<Buffer> {
  const s = await openStore({ path });
  await s.transaction(() => {
    for (let i = 0; i < 300; i++) {
      s.run(
        "INSERT INTO findings (finding_id, scope, severity, category, title, description, tags, created_at) VALUES (?, 'project', 'low', 'notes', ?, ?, '[]', 'x')",
        [`f${i}`, `finding ${i}`, `words of finding ${i} `.repeat(40)],
      );
    }
  });
  await s.transaction(() => s.run("DELETE FROM findings WHERE finding_id > 'f1'"));
  await s.checkpoint();
  await s.close();
  return readFileSync(path);
}

test('the page check refuses damage in a full-text index and in the freelist, and passes the intact file', async () => {
  await withTempDir(async (t) => {
    const bytes = await findingsImage(t.db);
    const SQL = await loadSqlJs(defaultWasmPath());
    const db = new SQL.Database(bytes);
    const root = Number(db.exec("SELECT rootpage FROM sqlite_schema WHERE name = 'findings_fts_segdir'")[0]!.values[0]![0]);
    db.close();
    const page = bytes.readUInt16BE(16);
    const trunk = bytes.readUInt32BE(32);
    assert.ok(trunk > 0 && bytes.readUInt32BE(36) > 10, 'the deletes left a freelist');
    // Each damage, and what the refusal says of it.
    const damaged: Array<[string, (b: Buffer) => unknown, RegExp]> = [
      // The b-tree page header of the index's segment directory overwritten (a stray write).
      ['index', (b) => b.fill(0xa5, (root - 1) * page, (root - 1) * page + 16), /\((its pages are damaged: .+|database disk image is malformed)\)/s],
      // The freelist's first trunk page claims more leaves than a page can hold.
      ['freelist', (b) => b.writeUInt32BE(99_999, (trunk - 1) * page + 4), new RegExp(`\\(its pages are damaged: Freelist: freelist leaf count too big on page ${trunk}\\)`)],
    ];
    for (const [what, damage, says] of damaged) {
      const copy = Buffer.from(bytes);
      damage(copy);
      writeFileSync(t.db, copy);
      await assert.rejects(openStore({ path: t.db, access: 'read' }), (ex: unknown) => {
        assert.ok(BatonError.is(ex, 'store_corrupt'), `${what}: ${String(ex)}`);
        assert.match(ex.message, /is not a readable Baton database \(.+\)\. Baton left it untouched/s, what);
        assert.match(ex.message, says, what);
        return true;
      });
      assert.deepEqual(readFileSync(t.db), copy, `${what}: left untouched`);
    }
    writeFileSync(t.db, bytes);
    const intact = await openStore({ path: t.db, access: 'read' });
    assert.equal(intact.get<{ n: number }>("SELECT count(*) AS n FROM findings_fts WHERE findings_fts MATCH 'words'")!.n, 2);
    intact.dispose();
  });
});

test("another program's SQLite database is refused and left untouched, owned or only read", async () => {
  await withTempDir(async (t) => {
    const SQL = await loadSqlJs(defaultWasmPath());
    const other = new SQL.Database();
    other.run('CREATE TABLE app_users (id INTEGER PRIMARY KEY, name TEXT)');
    other.run("INSERT INTO app_users (name) VALUES ('ada')");
    const content = Buffer.from(other.export());
    other.close();
    writeFileSync(t.db, content);
    for (const access of ['create', 'read'] as const) {
      await assert.rejects(openStore({ path: t.db, access }), (ex: unknown) => {
        assert.ok(BatonError.is(ex, 'store_corrupt'), String(ex));
        assert.equal(ex.message, `${t.db} is an SQLite database, but not Baton's (its tables: app_users; no Baton meta table). Baton left it untouched: pass another --db.`);
        return true;
      });
    }
    assert.deepEqual(readFileSync(t.db), content);
    assert.equal(existsSync(`${t.db}.lock`), false);
  });
});

test("a file of someone else's where the journal would be is refused and left untouched; a torn first record is cut", async () => {
  await withTempDir(async (t) => {
    const journal = journalPathOf(t.db);
    const mine = Buffer.from('dear diary\n'.repeat(40));
    writeFileSync(journal, mine);
    await assert.rejects(openStore({ path: t.db }), (ex: unknown) => {
      assert.ok(BatonError.is(ex, 'store_corrupt'), String(ex));
      assert.match(ex.message, /is not a Baton journal \(it does not start with a Baton record\)\. Baton left it untouched: if the file is yours, use another --db name/);
      return true;
    });
    assert.deepEqual(readFileSync(journal), mine);
    // Baton's own: the first bytes of a record's magic, then nothing written (zeros).
    writeFileSync(journal, Buffer.concat([Buffer.from([0x42, 0x52]), Buffer.alloc(30)]));
    const store = await openStore({ path: t.db });
    await store.close();
    assert.equal(readFileSync(journal).length, 0, 'the torn first record was cut');
  });
});

test('a database from a newer Baton is refused as store_newer_version and left untouched', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, idleCheckpointMs: 60_000 });
    await s.transaction(() => s.run("UPDATE meta SET value = '99' WHERE key = 'schema_version'"));
    await s.checkpoint();
    await s.transaction(() => s.run("INSERT INTO meta (key, value) VALUES ('pending', 'in the journal')"));
    const crash = crashImage(t.dir);
    await s.close();
    const dbBytes = readFileSync(crash.db);
    const journalBytes = readFileSync(crash.journal);
    assert.ok(journalBytes.length > 0);
    await assert.rejects(openStore({ path: crash.db }), (ex: unknown) => {
      assert.ok(BatonError.is(ex, 'store_newer_version'), String(ex));
      assert.ok(ex.message.includes(`newer Baton (schema v99, this build knows v${latest}); upgrade Baton or use another --db path`), ex.message);
      return true;
    });
    assert.deepEqual(readFileSync(crash.db), dbBytes);
    assert.deepEqual(readFileSync(crash.journal), journalBytes);
  });
});

test('migrations apply in order, record schema_version, and are durable without a journal', async () => {
  const t = tempDir();
  const dir = mkdtempSync(join(tmpdir(), 'baton-migrations-'));
  try {
    copyFileSync(join(realMigrations, '001_init.sql'), join(dir, '001_init.sql'));
    const s1 = await openStore({ path: t.db, migrationsDir: dir });
    assert.equal(s1.get<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")!.value, '1');
    await s1.close();

    // Numbered past the real migrations, so that the real ones find the database newer than they are (below).
    const past = loadMigrations(realMigrations).at(-1)!.version + 1;
    writeFileSync(join(dir, '002_extra.sql'), 'CREATE TABLE extra (id INTEGER PRIMARY KEY, note TEXT NOT NULL);\n');
    writeFileSync(join(dir, `${String(past).padStart(3, '0')}_more.sql`), "INSERT INTO extra (note) VALUES ('seeded');\n");
    writeFileSync(join(dir, 'README.md'), 'not a migration');
    const s2 = await openStore({ path: t.db, migrationsDir: dir });
    assert.equal(s2.get<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")!.value, String(past));
    s2.dispose(); // no close(): the migration must already be on disk

    const s3 = await openStore({ path: t.db, migrationsDir: dir });
    assert.deepEqual(s3.all('SELECT note FROM extra'), [{ note: 'seeded' }]);
    await s3.close();

    await assert.rejects(openStore({ path: t.db, migrationsDir: realMigrations }), (ex: unknown) => BatonError.is(ex, 'store_newer_version'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    t.cleanup();
  }
});

test('a failing migration leaves the database at the previous version', async () => {
  const t = tempDir();
  const dir = mkdtempSync(join(tmpdir(), 'baton-migrations-'));
  try {
    copyFileSync(join(realMigrations, '001_init.sql'), join(dir, '001_init.sql'));
    await (await openStore({ path: t.db, migrationsDir: dir })).close();
    writeFileSync(join(dir, '002_bad.sql'), 'CREATE TABLE half (id INTEGER);\nINSERT INTO no_such_table VALUES (1);\n');
    await assert.rejects(openStore({ path: t.db, migrationsDir: dir }), /002_bad\.sql failed/);
    rmSync(join(dir, '002_bad.sql'));
    const s = await openStore({ path: t.db, migrationsDir: dir });
    assert.equal(s.get("SELECT name FROM sqlite_master WHERE name = 'half'"), undefined);
    await s.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    t.cleanup();
  }
});

test('the default migrations folder is found from source', async () => {
  const s = await openStore({ path: null });
  assert.ok(s.get("SELECT name FROM sqlite_master WHERE name = 'executions'"));
  await s.close();
});

test('resolveDbPath: --db, then BATON_DB_PATH, then <workspace>/.baton/baton.db', () => {
  assert.equal(resolveDbPath({ db: '/x/y.db', env: { BATON_DB_PATH: '/env.db' } }), '/x/y.db');
  assert.equal(resolveDbPath({ env: { BATON_DB_PATH: '/env/baton.db' }, workspace: '/ws' }), '/env/baton.db');
  assert.equal(resolveDbPath({ env: {}, workspace: '/ws' }), join('/ws', '.baton', 'baton.db'));
  assert.equal(resolveDbPath({ env: {} }), join(process.cwd(), '.baton', 'baton.db'));
});

test('opening creates the folder of a new database', async () => {
  await withTempDir(async (t) => {
    const path = resolveDbPath({ env: {}, workspace: t.dir });
    const s = await openStore({ path });
    assert.ok(existsSync(path));
    await s.close();
  });
});

test('a folder where the lock or the journal goes is refused naming it, and left as it was', async () => {
  await withTempDir(async (t) => {
    await (await openStore({ path: t.db })).close();
    for (const [what, path] of [['lock', `${t.db}.lock`], ['journal', t.journal]] as const) {
      rmSync(path, { force: true });
      mkdirSync(path);
      for (const access of what === 'journal' ? (['create', 'read'] as const) : (['create'] as const)) {
        await assert.rejects(openStore({ path: t.db, access }), (ex: unknown) => {
          assert.ok(BatonError.is(ex, 'invalid_input'), String(ex));
          assert.ok(ex.message.startsWith(`${path} is a folder where Baton keeps`), ex.message);
          assert.match(ex.message, /move it aside \(Baton makes the file itself\), then start Baton again/);
          return true;
        });
      }
      assert.ok(statSync(path).isDirectory());
      rmSync(path, { recursive: true });
    }
  });
});

test('a missing database whose journal holds records is refused saying so, journal untouched and no database made', async () => {
  await withTempDir(async (t) => {
    const put = (s: SqlJsStore, key: string) => s.transaction(() => s.run('INSERT INTO meta (key, value) VALUES (?, ?)', [key, 'v']));
    // From seq 1 (nothing checkpointed since the database was made), and from a later seq (after a checkpoint).
    for (const checkpointFirst of [false, true]) {
      const s = await openStore({ path: t.db, idleCheckpointMs: 60_000 });
      if (checkpointFirst) {
        await put(s, `a${checkpointFirst}`);
        await s.checkpoint();
      }
      await put(s, `b${checkpointFirst}`);
      await put(s, `c${checkpointFirst}`);
      s.dispose(); // a crash: the last writes are only in the journal
      rmSync(t.db);
      const journal = readFileSync(t.journal);
      await assert.rejects(openStore({ path: t.db }), (ex: unknown) => {
        assert.ok(BatonError.is(ex, 'store_corrupt'), String(ex));
        assert.match(ex.message, new RegExp(`^${t.db} is missing, but its journal ${t.journal} holds 2 writes \\(seq \\d+ to \\d+\\)`));
        assert.match(ex.message, /cannot be replayed alone\. Baton left the journal untouched and created no database: restore baton\.db from a backup, or move the journal aside to start with an empty database\.$/);
        return true;
      });
      assert.deepEqual(readFileSync(t.journal), journal);
      assert.equal(existsSync(t.db), false);
      rmSync(t.journal);
    }
  });
});

test('a disk with no room for the first snapshot: a plain store_failed naming the file, and no journal left behind', async () => {
  await withTempDir(async (t) => {
    const statfs = mock.method(fs, 'statfsSync', () => ({ bavail: 10, bsize: 4096 }));
    try {
      await assert.rejects(openStore({ path: t.db }), (ex: unknown) => {
        assert.ok(BatonError.is(ex, 'store_failed'), String(ex));
        assert.match(ex.message, new RegExp(`^Baton could not write ${t.db}: not enough free space beside ${t.db} for its snapshot: \\d+ bytes and 2097152 to spare are needed, 40960 are free\\. Baton created no database: free disk space there \\(or pass another --db\\), then start Baton again\\.$`));
        return true;
      });
    } finally {
      statfs.mock.restore();
    }
    assert.deepEqual(readdirSync(t.dir), [], 'no database, journal, lock or temp file');
  });
});
