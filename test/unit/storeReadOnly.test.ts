// Rule: a store opened to read ('read') never writes: no folder, lock, temp or journal file is created, nothing on
// disk changes (bytes and mtimes), an older schema is migrated in memory only, writes are refused, a live owner is
// refused, and an owner appearing mid-read never turns into a false corruption; a missing file is never created
// by 'read' or 'existing'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatonError } from '../../src/core/errors.js';
import { loadMigrations } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { assertUnchanged, crashImage, filesOf, withTempDir } from '../fixtures/store/helpers.js';

const realMigrations = join(__dirname, '..', '..', 'src', 'store', 'migrations');
const latest = loadMigrations(realMigrations).at(-1)!.version;

const countOf = (s: Awaited<ReturnType<typeof openStore>>) => s.get<{ n: number }>("SELECT count(*) AS n FROM meta WHERE key LIKE 'row-%'")!.n;

test("'read' and 'existing' refuse a missing database as store_missing and create nothing", async () => {
  await withTempDir(async (t) => {
    for (const access of ['read', 'existing'] as const) {
      const deep = join(t.dir, 'no', 'such', 'x.db');
      await assert.rejects(openStore({ path: deep, access }), (ex: unknown) => {
        assert.ok(BatonError.is(ex, 'store_missing'), String(ex));
        assert.equal(ex.details.path, deep);
        assert.equal(ex.details.folderExists, false);
        assert.ok(ex.message.includes(deep));
        return true;
      });
      await assert.rejects(openStore({ path: t.db, access }), (ex: unknown) => BatonError.is(ex, 'store_missing') && ex.details.folderExists === true);
      assert.deepEqual(readdirSync(t.dir), [], `${access}: nothing created`);
    }
  });
});

test("'read' replays the journal in memory, refuses writes, and leaves every file as it was", async () => {
  await withTempDir(async (t) => {
    const owner = await openStore({ path: t.db, idleCheckpointMs: 60_000 });
    for (let i = 0; i < 5; i++) await owner.transaction(() => owner.run('INSERT INTO meta (key, value) VALUES (?, ?)', [`row-${i}`, 'v']));
    const crash = crashImage(t.dir); // the owner's state after kill -9: five records only in the journal
    await owner.close();
    writeFileSync(`${crash.db}.lock`, '999999999\n'); // the dead owner's lock stays where it was
    const before = filesOf(crash.dir);
    assert.ok(before.get('baton.journal')!.bytes.length > 0);

    const reader = await openStore({ path: crash.db, access: 'read' });
    assert.equal(reader.readOnly, true);
    assert.equal(countOf(reader), 5);
    await assert.rejects(reader.transaction(() => reader.run("INSERT INTO meta (key, value) VALUES ('x', 'y')")), (ex: unknown) => {
      assert.ok(BatonError.is(ex, 'store_read_only'), String(ex));
      assert.match(ex.message, /open read-only here; a change goes through the process that owns it/);
      return true;
    });
    assert.equal(countOf(reader), 5, 'the refused write left nothing behind, even in memory');
    await reader.checkpoint();
    await reader.close();
    assertUnchanged(crash.dir, before);
  });
});

test("'read' ignores a torn journal tail without cutting it (an owner's open cuts it)", async () => {
  await withTempDir(async (t) => {
    const owner = await openStore({ path: t.db, idleCheckpointMs: 60_000 });
    for (let i = 0; i < 3; i++) await owner.transaction(() => owner.run('INSERT INTO meta (key, value) VALUES (?, ?)', [`row-${i}`, 'v']));
    const crash = crashImage(t.dir);
    await owner.close();
    const journal = readFileSync(crash.journal);
    const end = journal.indexOf(Buffer.alloc(64)); // where the preallocated zeros begin
    truncateSync(crash.journal, end - 5); // the last record loses its last bytes
    const before = filesOf(crash.dir);
    const warnings: string[] = [];
    const log = { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} };

    const reader = await openStore({ path: crash.db, access: 'read', log });
    assert.equal(countOf(reader), 2);
    await reader.close();
    assertUnchanged(crash.dir, before);
    assert.match(warnings.join('\n'), /ignoring a torn last write .*; the next owner of the database drops it/);

    const next = await openStore({ path: crash.db });
    assert.equal(countOf(next), 2);
    await next.close();
    assert.ok(statSync(crash.journal).size < end - 5, 'the owner cut the torn tail');
  });
});

test("'read' migrates an older schema in memory only", async () => {
  await withTempDir(async (t) => {
    const v1 = mkdtempSync(join(t.dir, 'v1-'));
    copyFileSync(join(realMigrations, '001_init.sql'), join(v1, '001_init.sql'));
    const dir = mkdtempSync(join(t.dir, 'db-'));
    const db = join(dir, 'baton.db');
    const old = await openStore({ path: db, migrationsDir: v1 });
    await old.close();
    const before = filesOf(dir);

    const reader = await openStore({ path: db, access: 'read' });
    assert.equal(reader.get<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")!.value, String(latest));
    assert.ok(reader.get("SELECT name FROM sqlite_master WHERE name = 'findings_fts'"), 'v2 tables exist in memory');
    await reader.close();
    assertUnchanged(dir, before);
    const again = await openStore({ path: db, access: 'read', migrationsDir: v1 });
    assert.equal(again.get<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")!.value, '1', 'still v1 on disk');
    await again.close();
  });
});

test("'read' refuses a database with a live owner (store_locked) and one from a newer Baton", async () => {
  await withTempDir(async (t) => {
    const owner = await openStore({ path: t.db });
    await assert.rejects(openStore({ path: t.db, access: 'read' }), (ex: unknown) => BatonError.is(ex, 'store_locked') && ex.details.ownerPid === process.pid);
    await owner.transaction(() => owner.run("UPDATE meta SET value = '99' WHERE key = 'schema_version'"));
    await owner.close();
    const before = filesOf(t.dir);
    await assert.rejects(openStore({ path: t.db, access: 'read' }), (ex: unknown) => BatonError.is(ex, 'store_newer_version'));
    assertUnchanged(t.dir, before);
  });
});

// Takes the place of an owner that appears while a reader reads: it opens the FIFO the reader reads the snapshot
// from (so the reader has passed its lock check), takes the lock, replaces the journal with one from a later
// checkpoint, and only then hands the reader the older snapshot.
const LATE_OWNER = `
const fs = require('node:fs');
const [fifo, lock, journal, laterJournal, olderSnapshot] = process.argv.slice(1);
const fd = fs.openSync(fifo, 'w');
fs.writeFileSync(lock, process.pid + '\\n');
fs.copyFileSync(laterJournal, journal);
fs.writeSync(fd, fs.readFileSync(olderSnapshot));
fs.closeSync(fd);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

test("an owner that appears mid-read and moves the files makes 'read' answer store_locked, not store_corrupt", async () => {
  await withTempDir(async (t) => {
    const owner = await openStore({ path: t.db, idleCheckpointMs: 60_000 });
    const older = join(t.dir, 'older.db');
    copyFileSync(t.db, older); // snapshot at journal seq 0
    for (let i = 0; i < 3; i++) await owner.transaction(() => owner.run('INSERT INTO meta (key, value) VALUES (?, ?)', [`row-${i}`, 'v']));
    await owner.checkpoint();
    for (let i = 3; i < 5; i++) await owner.transaction(() => owner.run('INSERT INTO meta (key, value) VALUES (?, ?)', [`row-${i}`, 'v']));
    const later = join(t.dir, 'later.journal');
    copyFileSync(t.journal, later); // records 4 and 5 only: it does not continue the older snapshot
    await owner.close();

    const dir = mkdtempSync(join(t.dir, 'race-'));
    const db = join(dir, 'baton.db');
    execFileSync('mkfifo', [db]);
    const child = spawn(process.execPath, ['-e', LATE_OWNER, db, `${db}.lock`, join(dir, 'baton.journal'), later, older], { stdio: ['pipe', 'ignore', 'pipe'] });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      await assert.rejects(openStore({ path: db, access: 'read' }), (ex: unknown) => {
        assert.ok(BatonError.is(ex, 'store_locked'), String(ex));
        assert.equal(ex.details.ownerPid, child.pid);
        return true;
      });
      assert.deepEqual(readdirSync(dir).sort(), ['baton.db', 'baton.db.lock', 'baton.journal'], 'the reader created nothing');
      assert.ok(readFileSync(join(dir, 'baton.journal')).equals(readFileSync(later)), 'the reader left the journal as it was');
    } finally {
      child.stdin!.end();
      await exited;
    }
  });
});

test("'read' of a folder or a non-SQLite file in the database's place refuses it, and leaves it as it was", async () => {
  await withTempDir(async (t) => {
    mkdirSync(t.db);
    await assert.rejects(openStore({ path: t.db, access: 'read' }), (ex: unknown) => (ex as Error).message.includes('is a folder, not a database file'));
    assert.deepEqual(readdirSync(t.dir), ['baton.db'], 'nothing created beside it');
    rmdirSync(t.db);
    writeFileSync(t.db, 'not a database, but long enough to be read as one: '.repeat(4));
    const before = filesOf(t.dir);
    await assert.rejects(openStore({ path: t.db, access: 'read' }), (ex: unknown) => BatonError.is(ex, 'store_corrupt') && ex.message.includes(t.db));
    assertUnchanged(t.dir, before);
  });
});
