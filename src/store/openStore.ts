// Opening a store's file: owning it (creating it or not) with its lock, journal replay, migrations and a first
// checkpoint; or only reading it, which writes nothing at all.
import { existsSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { BatonError, errorMessage } from '../core/errors.js';
import { silentLog, type Log } from '../core/ports.js';
import { followLinks, journalPathOf } from './dbPath.js';
import { openNodeJournalFile, type JournalFile } from './journal.js';
import { JournalWriter } from './journalWriter.js';
import { keepTornTail } from './keepTornTail.js';
import { makeDirs } from './makeDirs.js';
import {
  assertBatonDatabase, assertJournalOf, databaseIdOf, defaultWasmPath, loadSnapshot, loadSqlJs, readJournal, snapshotSeq,
} from './loading.js';
import { acquireLock, lockedError, lockPathOf, readLockOwner, type HeldLock } from './lock.js';
import { applyMigrations, defaultMigrationsDir, loadMigrations, readSchemaImage, schemaVersion } from './migrate.js';
import { readSnapshotFile, type SnapshotRead } from './snapshotRead.js';
import { SqlJsStore, type StoreSettings } from './sqlJsStore.js';

const noop = () => undefined;

/** How to open a store. */
export interface OpenStoreOptions {
  /** The database file; null → in memory, no journal, no lock (unit tests). */
  path: string | null;
  /**
   * How to open the file: 'create' (default) owns it, creating it and its folder if missing; 'existing' owns it
   * but refuses (store_missing) to create one; 'read' reads it without owning it (see `openReadOnly`).
   */
  access?: StoreAccess;
  /** Folder of NNN_name.sql files; default `<this code's dir>/migrations`. */
  migrationsDir?: string;
  /** sql-wasm.wasm; default beside the bundle, else from node_modules. */
  wasmPath?: string;
  /** That file already compiled (or compiling), so opening does not wait for it. */
  wasmModule?: Promise<WebAssembly.Module>;
  /** The database's lock when the caller took it already (access 'create' or 'existing'); released like one taken here. */
  lock?: HeldLock;
  /**
   * The snapshot file, being read since the caller took `lock` (readSnapshotAhead): opening uses those bytes instead
   * of reading the file again when it is the file opened here. Ignored without `lock`.
   */
  snapshot?: SnapshotRead;
  /** Checkpoint after this many journal records (default 1000). */
  checkpointRecords?: number;
  /** Checkpoint after this many journal bytes (default 8 MiB). */
  checkpointBytes?: number;
  /**
   * ...and only once the journal holds this fraction of the database's size (default 0.5): a checkpoint rewrites the
   * whole database, so on a large one it waits for proportionally more journal, and its cost per write stays the same
   * whatever the size. 0: by records and bytes alone.
   */
  checkpointRatio?: number;
  /** Checkpoint after this long without writes (default 5000 ms). */
  idleCheckpointMs?: number;
  /**
   * ...but a database over 8 MiB only once its journal holds this fraction of its size (default 1/32): a checkpoint
   * rewrites the whole database, and an agent that pauses between calls would have it rewritten at every pause for a
   * few records. What waits is replayed at the next open only after a crash (close() checkpoints). 0: at every pause.
   */
  idleCheckpointRatio?: number;
  /**
   * Look at the lock file this often while the store is open (default 1000 ms; 0: only before each flush and around
   * each checkpoint): a lock deleted while the owner is idle is made again before another process can take the
   * database, and an owner whose database another process took meanwhile says so without waiting for a call.
   */
  ownershipCheckMs?: number;
  /** 'fsync' (default): fdatasync each flush; 'write': page cache only (survives kill -9, not power loss). */
  durability?: 'fsync' | 'write';
  log?: Log;
  /** SQL functions journaled statements may call; registered before the journal is replayed. */
  functions?: Record<string, (...args: any[]) => any>;
  /** Test hook: how the journal file is opened (e.g. to simulate a full disk). */
  openJournalFile?: (path: string) => JournalFile;
}

/** How a store opens its file: own it (creating it or not), or only read it. */
export type StoreAccess = 'create' | 'existing' | 'read';

/**
 * Temp files a killed owner left mid-checkpoint beside the database or its journal; only the lock holder writes them,
 * so they are dead.
 */
function removeStaleTemps(...paths: string[]): void {
  for (const path of paths) {
    const dir = dirname(path);
    const prefix = `${basename(path)}.tmp-`;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (ex) {
      if ((ex as NodeJS.ErrnoException).code === 'ENOENT') continue; // a linked journal's folder: opening it says so
      throw ex;
    }
    for (const name of names) {
      if (name.startsWith(prefix)) rmSync(join(dir, name), { force: true });
    }
  }
}

/**
 * The file at `path` as this process last read or wrote it: `changed()` once another file was put in its place (a
 * rename gives it another inode, or the same number with another change time). A file gone is no change: deleted
 * with its folder, the store writes it again (recreateFiles).
 */
function fileMark(path: string): { changed: () => boolean; note: () => void } {
  const statOf = () => statSync(path, { throwIfNoEntry: false });
  let seen = statOf();
  return {
    changed() {
      const st = statOf();
      return st !== undefined && (seen === undefined || st.ino !== seen.ino || st.ctimeMs !== seen.ctimeMs || st.size !== seen.size);
    },
    note() {
      seen = statOf();
    },
  };
}

/** The journal of the database at `path` (links followed: see followLinks). */
const journalOf = (path: string) => followLinks(journalPathOf(path));

/**
 * Opens the database, replays its journal and applies migrations. By default it owns the file (creating it if
 * needed); with access 'read' it only reads it (see `openReadOnly`).
 */
export async function openStore(options: OpenStoreOptions): Promise<SqlJsStore> {
  const log = options.log ?? silentLog;
  const settings = {
    checkpointRecords: options.checkpointRecords ?? 1000,
    checkpointBytes: options.checkpointBytes ?? 8 * 1024 * 1024,
    checkpointRatio: options.checkpointRatio ?? 0.5,
    idleCheckpointMs: options.idleCheckpointMs ?? 5000,
    idleCheckpointRatio: options.idleCheckpointRatio ?? 1 / 32,
    ownershipCheckMs: options.ownershipCheckMs ?? 1000,
    durability: options.durability ?? 'fsync',
    log,
  } as const;
  const SQL = await loadSqlJs(options.wasmPath ?? defaultWasmPath(), options.wasmModule);
  const migrationsDir = options.migrationsDir ?? defaultMigrationsDir();
  const migrations = loadMigrations(migrationsDir);
  const newest = migrations.at(-1)!.version;
  if (options.path === null) {
    const store = new SqlJsStore(new SQL.Database(), null, settings);
    for (const [name, fn] of Object.entries(options.functions ?? {})) store.registerFunction(name, fn);
    applyMigrations(store.database, migrations);
    return store;
  }
  // Links followed once here: the journal, lock and temp files are the real file's, and its replacements land there.
  const path = followLinks(resolve(options.path));
  if (isFolder(path)) {
    throw new BatonError('invalid_input', `${path} is a folder, not a database file; name a file, such as ${join(path, 'baton.db')}.`, { path });
  }
  const access = options.access ?? 'create';
  if (access !== 'create' && !existsSync(path)) {
    // An owner that is creating the database right now holds its lock: callers ask it instead (unless that is us).
    const owner = options.lock ? null : readLockOwner(path);
    if (owner !== null) throw lockedError(path, owner);
    throw missingError(path);
  }
  if (access === 'read') return openReadOnly(SQL, path, newest, options, settings, migrations);
  return openFileStore(SQL, path, newest, options, settings, migrations, migrationsDir);
}

/** This process owned the database, and its lock file was deleted and another process took the database meanwhile. */
function lostLockError(path: string): BatonError {
  const owner = readLockOwner(path);
  return new BatonError(
    'store_failed',
    `${lockPathOf(path)}, the lock by which this process owns ${path}, was deleted while it ran, and ${owner === null ? 'another process has written the database since' : `process ${owner} owns the database now`}: its journal and snapshot are not this process's any more. This process accepts no more writes, so as not to overwrite the other's; what it acknowledged before is in them. Stop this process, then start Baton again. (Never delete the lock file of a running Baton.)`,
    { path, ownerPid: owner },
  );
}

function missingError(path: string): BatonError {
  const folderExists = existsSync(dirname(path));
  return new BatonError(
    'store_missing',
    `no Baton database at ${path} (${folderExists ? 'the folder exists, the file does not' : `the folder ${dirname(path)} does not exist either`})`,
    { path, folderExists },
  );
}

function newerVersionError(path: string, version: number, newest: number): BatonError {
  return new BatonError(
    'store_newer_version',
    `${path} was written by a newer Baton (schema v${version}, this build knows v${newest}); upgrade Baton or use another --db path`,
    { path, version, known: newest },
  );
}

/**
 * A database for a file that does not exist yet: a copy of the build's schema image (every migration applied, see
 * SCHEMA_IMAGE) when there is one of a version this code knows and no journal position, else an empty one that the
 * migrations then build.
 */
function newDatabase(SQL: SqlJsStatic, migrationsDir: string, newest: number, log: Log): { db: Database; existed: false } {
  const image = readSchemaImage(migrationsDir);
  if (image !== null) {
    let db: Database | undefined;
    try {
      db = new SQL.Database(image);
      const version = schemaVersion(db);
      if (version >= 1 && version <= newest && snapshotSeq(db) === 0) return { db, existed: false };
    } catch (ex) {
      log.debug(`store: the schema image in ${migrationsDir} cannot be read (${errorMessage(ex)}); running the migrations instead`);
    }
    db?.close();
  }
  return { db: new SQL.Database(), existed: false };
}

/**
 * Reads a database without owning it: no folder, lock, temp or journal file is created, nothing is truncated,
 * migrated or checkpointed on disk; an older schema is migrated in memory only. A live owner is refused
 * (store_locked) so the caller asks the owner; if one appears mid-read, what was read is still a state the
 * database was in, unless the owner moved the files under it: then store_locked too, never a false corruption.
 */
async function openReadOnly(
  SQL: SqlJsStatic,
  path: string,
  newest: number,
  options: OpenStoreOptions,
  settings: StoreSettings,
  migrations: ReturnType<typeof loadMigrations>,
): Promise<SqlJsStore> {
  const owner = readLockOwner(path);
  if (owner !== null) throw lockedError(path, owner);
  let db: Database | null = null;
  let store: SqlJsStore | null = null;
  try {
    // Read as an owner reads it (snapshotRead.ts): on a resizable buffer, so that a journal's replay that grows the
    // database grows it in place instead of copying it whole.
    db = loadSnapshot(SQL, path, await readSnapshotFile(path)).db;
    assertBatonDatabase(db, path);
    const version = schemaVersion(db);
    if (version > newest) throw newerVersionError(path, version, newest);
    const journalPath = journalOf(path);
    const baseSeq = snapshotSeq(db);
    const onDisk = readJournal(journalPath, baseSeq, settings.log, 'read');
    assertJournalOf(onDisk.header, databaseIdOf(db), path, journalPath);
    store = new SqlJsStore(db, null, settings, path);
    for (const [name, fn] of Object.entries(options.functions ?? {})) store.registerFunction(name, fn);
    store.replay(onDisk.records, baseSeq, journalPath);
    applyMigrations(db, migrations);
    return store;
  } catch (ex) {
    if (store) store.dispose();
    else db?.close();
    const late = readLockOwner(path);
    if (late !== null) throw lockedError(path, late);
    throw ex;
  }
}

async function openFileStore(
  SQL: SqlJsStatic,
  path: string,
  newest: number,
  options: OpenStoreOptions,
  settings: StoreSettings,
  migrations: ReturnType<typeof loadMigrations>,
  migrationsDir: string,
): Promise<SqlJsStore> {
  makeDirs(dirname(path));
  const lock = options.lock ?? acquireLock(path);
  if (!lock.acquired) throw lockedError(path, lock.ownerPid);
  let db: Database | null = null;
  let store: SqlJsStore | null = null;
  let createdJournal: string | null = null;
  try {
    const journalPath = journalOf(path);
    removeStaleTemps(path, journalPath);
    // Read ahead only under the lock the caller took before it began (see readSnapshotAhead), and of this very file.
    const ahead = options.lock && options.snapshot?.path === path ? options.snapshot.bytes : null;
    const bytes = await (ahead ?? readSnapshotFile(path));
    const snapshot = bytes === null ? newDatabase(SQL, migrationsDir, newest, settings.log) : loadSnapshot(SQL, path, bytes);
    db = snapshot.db;
    assertBatonDatabase(db, path);
    const version = schemaVersion(db);
    if (version > newest) throw newerVersionError(path, version, newest);
    const baseSeq = snapshotSeq(db);
    const onDisk = readJournal(journalPath, baseSeq, settings.log, 'own', snapshot.existed ? null : path);
    const databaseId = snapshot.existed ? databaseIdOf(db) : null;
    assertJournalOf(onDisk.header, databaseId, path, journalPath);
    const openJournal = options.openJournalFile ?? openNodeJournalFile;
    if (!existsSync(journalPath)) createdJournal = journalPath;
    const file = openJournal(journalPath);
    let onFlushed: () => void = noop;
    // Another owner that came and went may have left the journal as it was (its last checkpoint emptied it): the
    // database file it put in place tells.
    const snapshotFile = fileMark(path);
    const othersWrote = () => journal.changedByOthers() || snapshotFile.changed();
    const ownership = { held: () => lock.stillHeld(othersWrote), lost: () => lostLockError(path), onLost: (failure: BatonError) => store?.ownershipLost(failure) };
    const journal: JournalWriter = new JournalWriter(journalPath, file, openJournal, settings.durability, settings.log, () => onFlushed(), ownership);
    journal.databaseId = databaseId;
    const relock = () => {
      const again = acquireLock(path);
      if (again.acquired) return again;
      return again.ownerPid === process.pid ? { release: noop } : null; // the lock file was left: still ours
    };
    store = new SqlJsStore(db, { path, journal, release: lock.release, relock, snapshotWritten: snapshotFile.note }, settings);
    const opened = store;
    onFlushed = () => opened.afterFlush();
    for (const [name, fn] of Object.entries(options.functions ?? {})) store.registerFunction(name, fn);
    journal.lastSeq = store.replay(onDisk.records, baseSeq, journalPath);
    // Only once the replay succeeded: cut the torn (or preallocated) tail so appends continue there; a torn one is
    // copied aside first, since nothing proves it was never acknowledged.
    if (onDisk.torn) {
      const kept = keepTornTail(journalPath, onDisk.torn);
      settings.log.warn(
        `store: cutting a torn last write of ${onDisk.torn.length} bytes at the end of ${journalPath} (not whole records, not known to have been acknowledged); its bytes are kept in ${kept}`,
      );
    }
    if (onDisk.validEnd < onDisk.fileSize) journal.truncateAt(onDisk.validEnd);
    journal.records = onDisk.records.length;
    journal.bytes = onDisk.validEnd;
    // Migrations are not journaled: a checkpoint makes them (and a brand-new file) durable before any write.
    if (applyMigrations(db, migrations) > 0 || !snapshot.existed) {
      store.markDirty();
      await store.checkpoint().catch((ex: unknown) => {
        throw noRoomError(path, snapshot.existed, ex) ?? ex;
      });
    }
    return store;
  } catch (ex) {
    // An open that fails leaves no file of its own behind (still under the lock: nobody else may have written it).
    if (createdJournal !== null) removeIfEmpty(createdJournal);
    if (store) {
      store.dispose();
    } else {
      db?.close();
      lock.release();
    }
    throw ex;
  }
}

/** The failure of the checkpoint opening needs, when the disk has no room for it (see assertRoomFor); else null. */
function noRoomError(path: string, existed: boolean, ex: unknown): BatonError | null {
  const code = (ex as NodeJS.ErrnoException).code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return null;
  const left = existed ? `Baton left ${path} as it was` : 'Baton created no database';
  return new BatonError('store_failed', `Baton could not write ${path}: ${errorMessage(ex)}. ${left}: free disk space there (or pass another --db), then start Baton again.`, { path, code });
}

function removeIfEmpty(path: string): void {
  try {
    if (statSync(path).size === 0) unlinkSync(path);
  } catch {
    // gone already, or held open (Windows): an empty journal is harmless
  }
}

/** Whether `path` is a folder (following links); false when it does not exist. */
function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
