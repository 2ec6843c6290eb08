// The Store port on sql.js: an in-memory SQLite made durable by a journal and periodic snapshots
// (DESIGN "Durability: snapshot + journal").
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { BindParams, Database, SqlJsStatic, Statement } from 'sql.js';
import { BatonError } from '../core/errors.js';
import { silentLog, type Log, type Row, type SqlParams, type Store } from '../core/ports.js';
import { journalPathOf } from './dbPath.js';
import { commitReplaceSync, replaceFileDurable, writeTempSync } from './durableFile.js';
import { decodeParams, encodeFrame, encodeStatement, openNodeJournalFile, type JournalFile, type JournalRecord } from './journal.js';
import { defaultWasmPath, loadSnapshot, loadSqlJs, readJournal, snapshotSeq } from './loading.js';
import { acquireLock } from './lock.js';
import { applyMigrations, defaultMigrationsDir, loadMigrations, schemaVersion } from './migrate.js';

export { resolveDbPath } from './dbPath.js';

/** How to open a store. */
export interface OpenStoreOptions {
  /** The database file; null → in memory, no journal, no lock (unit tests). */
  path: string | null;
  /** Folder of NNN_name.sql files; default `<this code's dir>/migrations`. */
  migrationsDir?: string;
  /** sql-wasm.wasm; default beside the bundle, else from node_modules. */
  wasmPath?: string;
  /** Checkpoint after this many journal records (default 1000). */
  checkpointRecords?: number;
  /** Checkpoint after this many journal bytes (default 8 MiB). */
  checkpointBytes?: number;
  /** Checkpoint after this long without writes (default 5000 ms). */
  idleCheckpointMs?: number;
  /** 'fsync' (default): fdatasync each flush; 'write': page cache only (survives kill -9, not power loss). */
  durability?: 'fsync' | 'write';
  log?: Log;
  /** SQL functions journaled statements may call; registered before the journal is replayed. */
  functions?: Record<string, (...args: any[]) => any>;
  /** Test hook: how the journal file is opened (e.g. to simulate a full disk). */
  openJournalFile?: (path: string) => JournalFile;
}

/** Journal and checkpoint counters. */
export interface StoreStats {
  journalRecords: number;
  journalBytes: number;
  lastSeq: number;
  checkpoints: number;
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(ex: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (ex: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const noop = () => undefined;

interface Cached {
  stmt: Statement;
  columns: string[] | null;
}

interface Durable {
  path: string;
  journalPath: string;
  journal: JournalFile;
  openJournal: (path: string) => JournalFile;
  release: () => void;
}

/** The sql.js Store. Reads are synchronous; a transaction's promise resolves once its journal record is on disk. */
export class SqlJsStore implements Store {
  readonly path: string | null;
  private readonly cache = new Map<string, Cached>();
  private readonly functions = new Map<string, (...args: any[]) => any>();
  private depth = 0;
  private pending: string[] = [];
  private nestedDone: Deferred | null = null;
  private queue: { seq: number; statements: string[] }[] = [];
  private group: Deferred | null = null;
  private failure: BatonError | null = null;
  private closing = false;
  private closed = false;
  private dirty = false;
  private lastSeq = 0;
  private journalRecords = 0;
  private journalBytes = 0;
  private checkpoints = 0;
  private checkpointRunning = false;
  private checkpointChain: Promise<void> = Promise.resolve();
  private closePromise: Promise<void> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly flushBound = () => this.flush();

  /** Use `openStore`. */
  constructor(
    private readonly db: Database,
    private readonly durable: Durable | null,
    private readonly settings: Required<Pick<OpenStoreOptions, 'checkpointRecords' | 'checkpointBytes' | 'idleCheckpointMs' | 'durability' | 'log'>>,
  ) {
    this.path = durable?.path ?? null;
    this.applyConnectionSettings();
  }

  all<T = Row>(sql: string, params?: SqlParams): T[] {
    const c = this.prepare(sql);
    const rows: T[] = [];
    try {
      if (params) c.stmt.bind(params as BindParams);
      while (c.stmt.step()) rows.push(this.rowOf(c) as T);
    } finally {
      c.stmt.reset();
    }
    return rows;
  }

  get<T = Row>(sql: string, params?: SqlParams): T | undefined {
    const c = this.prepare(sql);
    try {
      if (params) c.stmt.bind(params as BindParams);
      return c.stmt.step() ? (this.rowOf(c) as T) : undefined;
    } finally {
      c.stmt.reset();
    }
  }

  run(sql: string, params?: SqlParams): number {
    if (this.depth === 0) throw new Error(`Store.run() called outside transaction(): ${sql}`);
    this.exec(sql, params);
    this.pending.push(encodeStatement(sql, params));
    return this.db.getRowsModified();
  }

  transaction<T>(fn: () => T): Promise<T> {
    if (this.closing) return Promise.reject(new Error('store is closed'));
    if (this.failure) return Promise.reject(this.failure);
    if (this.depth > 0) return this.nested(fn);
    this.exec('BEGIN');
    this.depth = 1;
    let result: T;
    try {
      result = fn();
      if (isThenable(result)) throw new Error('transaction() needs a synchronous function; its writes must not span an await');
      this.exec('COMMIT');
    } catch (ex) {
      this.abort(ex);
      return Promise.reject(ex);
    }
    this.depth = 0;
    const statements = this.pending;
    this.pending = [];
    const done = statements.length > 0 ? this.enqueue(statements) : this.group ? this.group.promise : null;
    this.settleNested(done);
    return done ? done.then(() => result) : Promise.resolve(result);
  }

  /** Registers a SQL function; it survives checkpoints. */
  registerFunction(name: string, fn: (...args: any[]) => any): void {
    this.functions.set(name, fn);
    this.db.create_function(name, fn);
  }

  /** Writes a snapshot and empties the journal (no-op in memory or when nothing changed). */
  checkpoint(): Promise<void> {
    const run = this.checkpointChain.then(() => this.checkpointNow());
    this.checkpointChain = run.catch(noop);
    return run;
  }

  /** Checkpoints, then releases the database and its lock. */
  close(): Promise<void> {
    this.closePromise ??= this.closeNow();
    return this.closePromise;
  }

  private async closeNow(): Promise<void> {
    this.closing = true;
    try {
      await this.checkpointChain;
      if (!this.failure && this.durable) await this.checkpoint();
    } finally {
      this.dispose();
    }
  }

  /** @internal Releases everything without writing (also used when opening fails). */
  dispose(): void {
    if (this.closed) return;
    this.closing = true;
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.dropStatements();
    this.db.close();
    if (this.durable) {
      try {
        this.durable.journal.close();
      } finally {
        this.durable.release();
      }
    }
  }

  stats(): StoreStats {
    return { journalRecords: this.journalRecords, journalBytes: this.journalBytes, lastSeq: this.lastSeq, checkpoints: this.checkpoints };
  }

  /** @internal Replays journal records at open (before any caller can see the store). */
  replay(records: readonly JournalRecord[], baseSeq: number, journalPath: string): void {
    this.lastSeq = baseSeq;
    const todo = records.filter((r) => r.seq > baseSeq);
    if (todo.length === 0) return;
    this.exec('BEGIN');
    try {
      for (const r of todo) {
        for (const [sql, params] of r.statements) this.exec(sql, decodeParams(params));
        this.lastSeq = r.seq;
      }
      this.exec('COMMIT');
    } catch (ex) {
      this.rollbackQuietly();
      throw new BatonError(
        'store_corrupt',
        `${journalPath}: record seq ${this.lastSeq + 1} cannot be replayed onto ${this.path} (${ex instanceof Error ? ex.message : String(ex)}). Baton left both files untouched: restore a backup or move the journal aside.`,
        { path: journalPath },
      );
    }
  }

  /** @internal Sets the journal counters found at open. */
  setJournalState(records: number, bytes: number, lastSeq: number): void {
    this.journalRecords = records;
    this.journalBytes = bytes;
    this.lastSeq = Math.max(this.lastSeq, lastSeq);
  }

  /** @internal Marks the database as changed outside the journal (migrations), so the next checkpoint writes it. */
  markDirty(): void {
    this.dirty = true;
  }

  /** @internal The raw database, for migrations at open. */
  get database(): Database {
    return this.db;
  }

  private prepare(sql: string): Cached {
    let c = this.cache.get(sql);
    if (!c) {
      if (this.closed) throw new Error('store is closed');
      c = { stmt: this.db.prepare(sql), columns: null };
      this.cache.set(sql, c);
    }
    return c;
  }

  private rowOf(c: Cached): Row {
    const values = c.stmt.get();
    const columns = (c.columns ??= c.stmt.getColumnNames());
    const row: Row = {};
    for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i] ?? null;
    return row;
  }

  private exec(sql: string, params?: SqlParams | null): void {
    const { stmt } = this.prepare(sql);
    try {
      if (params) stmt.bind(params as BindParams);
      stmt.step();
    } finally {
      stmt.reset();
    }
  }

  private nested<T>(fn: () => T): Promise<T> {
    const mark = this.pending.length;
    const savepoint = `baton_sp_${this.depth}`;
    this.exec(`SAVEPOINT ${savepoint}`);
    this.depth++;
    let result: T;
    try {
      result = fn();
    } catch (ex) {
      // Inline semantics: the inner writes are undone and the error reaches the outer fn.
      this.depth--;
      this.exec(`ROLLBACK TO ${savepoint}`);
      this.exec(`RELEASE ${savepoint}`);
      this.pending.length = mark;
      throw ex;
    }
    this.depth--;
    this.exec(`RELEASE ${savepoint}`);
    this.nestedDone ??= deferred();
    const p = this.nestedDone.promise.then(() => result);
    p.catch(noop); // the outer transaction's promise carries any failure to its caller
    return p;
  }

  private settleNested(done: Promise<void> | null, error?: unknown): void {
    const nd = this.nestedDone;
    if (!nd) return;
    this.nestedDone = null;
    if (error !== undefined) nd.reject(error);
    else if (done) done.then(nd.resolve, nd.reject);
    else nd.resolve();
  }

  private abort(ex: unknown): void {
    this.rollbackQuietly();
    this.depth = 0;
    this.pending = [];
    this.settleNested(null, ex);
  }

  private rollbackQuietly(): void {
    try {
      this.exec('ROLLBACK');
    } catch {
      // SQLite already rolled back (e.g. after SQLITE_FULL); nothing left to undo
    }
  }

  private enqueue(statements: string[]): Promise<void> {
    if (!this.durable) return Promise.resolve();
    this.lastSeq++;
    this.queue.push({ seq: this.lastSeq, statements });
    if (!this.group) {
      this.group = deferred();
      setImmediate(this.flushBound);
    }
    return this.group.promise;
  }

  /** Group commit: every record queued since the last flush goes out in one write + one fdatasync. */
  private flush(): void {
    const group = this.group;
    const items = this.queue;
    if (!group || !this.durable) return;
    this.group = null;
    this.queue = [];
    const first = items[0]!.seq;
    const frames = items.map((i) => encodeFrame(i.seq, first, i.statements));
    const data = frames.length === 1 ? frames[0]! : Buffer.concat(frames);
    try {
      this.durable.journal.append(data);
      if (this.settings.durability === 'fsync') this.durable.journal.sync();
    } catch (ex) {
      this.fail(ex);
      group.reject(this.failure);
      return;
    }
    this.journalRecords += items.length;
    this.journalBytes += data.length;
    group.resolve();
    this.afterFlush();
  }

  private afterFlush(): void {
    const s = this.settings;
    if (this.journalRecords >= s.checkpointRecords || this.journalBytes >= s.checkpointBytes) {
      if (!this.checkpointRunning) {
        this.checkpointRunning = true;
        setImmediate(() => {
          if (this.closing) return;
          void this.checkpoint().catch((ex) => this.checkpointFailed(ex));
        });
      }
    }
    if (!this.idleTimer) {
      this.idleTimer = setTimeout(() => {
        if (this.journalRecords > 0 && !this.closing) void this.checkpoint().catch((ex) => this.checkpointFailed(ex));
      }, s.idleCheckpointMs);
      this.idleTimer.unref();
    } else {
      this.idleTimer.refresh();
    }
  }

  private checkpointFailed(ex: unknown): void {
    if (BatonError.is(ex, 'store_failed')) return; // already reported to every writer
    this.settings.log.error(`store: checkpoint of ${this.path} failed; the journal still holds every write: ${String(ex)}`);
  }

  private fail(ex: unknown): void {
    const why = ex instanceof Error ? ex.message : String(ex);
    this.failure = new BatonError(
      'store_failed',
      `Baton could not write its journal ${this.durable?.journalPath} (${why}), so the database in memory is ahead of the disk and Baton accepts no more writes. Free disk space if needed, then restart Baton (or reopen the store): the journal on disk is intact up to the last acknowledged write.`,
      { path: this.durable?.journalPath, code: (ex as NodeJS.ErrnoException).code },
    );
    this.settings.log.error(`store: ${this.failure.message}`);
    if (this.idleTimer) clearTimeout(this.idleTimer);
  }

  private async checkpointNow(): Promise<void> {
    const d = this.durable;
    try {
      if (!d || this.closed) return;
      if (this.failure) throw this.failure;
      if (this.depth > 0) throw new Error('checkpoint() cannot run inside a transaction');
      this.flush();
      if (this.failure) throw this.failure;
      if (this.journalRecords === 0 && !this.dirty) return;
      // Everything up to `seq` is in memory and in the journal; the snapshot taken now holds exactly that.
      const seq = this.lastSeq;
      const journalOffset = d.journal.size();
      this.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('journal_seq', ?)", [String(seq)]);
      const bytes = this.exportDb();
      this.dirty = false;
      try {
        await replaceFileDurable(d.path, bytes);
      } catch (ex) {
        this.dirty = true;
        throw ex;
      }
      if (this.failure) return; // the journal must stay exactly as it was acknowledged
      this.flush();
      if (this.failure) return;
      this.compactJournal(d, journalOffset, seq);
      this.checkpoints++;
    } finally {
      this.checkpointRunning = false;
    }
  }

  /** Drops the records now in the snapshot (up to `seq`, before `offset`), keeping any written since. */
  private compactJournal(d: Durable, offset: number, seq: number): void {
    const tailLength = d.journal.size() - offset;
    if (tailLength === 0) {
      try {
        d.journal.truncate(0);
        d.journal.sync();
      } catch (ex) {
        this.fail(ex);
        throw this.failure;
      }
    } else {
      const temp = writeTempSync(d.journalPath, d.journal.read(offset, tailLength));
      try {
        d.journal.close();
        commitReplaceSync(temp, d.journalPath);
        d.journal = d.openJournal(d.journalPath);
      } catch (ex) {
        this.fail(ex);
        throw this.failure;
      }
    }
    this.journalRecords = this.lastSeq - seq;
    this.journalBytes = tailLength;
  }

  /** db.export(), then restore what older sql.js versions lose in it (statements, functions, pragmas). */
  private exportDb(): Uint8Array {
    this.dropStatements();
    const bytes = this.db.export();
    this.applyConnectionSettings();
    return bytes;
  }

  private dropStatements(): void {
    for (const c of this.cache.values()) c.stmt.free();
    this.cache.clear();
  }

  private applyConnectionSettings(): void {
    // Durability comes from our journal; SQLite's own rollback journal only needs to support ROLLBACK.
    this.db.exec('PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY');
    for (const [name, fn] of this.functions) this.db.create_function(name, fn);
  }
}

function isThenable(v: unknown): boolean {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
}

/** Opens (creating if needed) the database, replays its journal and applies migrations. */
export async function openStore(options: OpenStoreOptions): Promise<SqlJsStore> {
  const log = options.log ?? silentLog;
  const settings = {
    checkpointRecords: options.checkpointRecords ?? 1000,
    checkpointBytes: options.checkpointBytes ?? 8 * 1024 * 1024,
    idleCheckpointMs: options.idleCheckpointMs ?? 5000,
    durability: options.durability ?? 'fsync',
    log,
  } as const;
  const SQL = await loadSqlJs(options.wasmPath ?? defaultWasmPath());
  const migrations = loadMigrations(options.migrationsDir ?? defaultMigrationsDir());
  const newest = migrations.at(-1)!.version;
  if (options.path === null) {
    const store = new SqlJsStore(new SQL.Database(), null, settings);
    for (const [name, fn] of Object.entries(options.functions ?? {})) store.registerFunction(name, fn);
    applyMigrations(store.database, migrations);
    return store;
  }
  return openFileStore(SQL, resolve(options.path), newest, options, settings, migrations);
}

async function openFileStore(
  SQL: SqlJsStatic,
  path: string,
  newest: number,
  options: OpenStoreOptions,
  settings: ConstructorParameters<typeof SqlJsStore>[2],
  migrations: ReturnType<typeof loadMigrations>,
): Promise<SqlJsStore> {
  mkdirSync(dirname(path), { recursive: true });
  const lock = acquireLock(path);
  if (!lock.acquired) {
    throw new BatonError(
      'store_locked',
      `${path} is owned by Baton process ${lock.ownerPid}; connect to it (it serves MCP, see server.json) or stop it`,
      { ownerPid: lock.ownerPid, path },
    );
  }
  let db: Database | null = null;
  let store: SqlJsStore | null = null;
  try {
    const snapshot = loadSnapshot(SQL, path);
    db = snapshot.db;
    const version = schemaVersion(db);
    if (version > newest) {
      throw new BatonError(
        'store_newer_version',
        `${path} was written by a newer Baton (schema v${version}, this build knows v${newest}); upgrade Baton or use another --db path`,
        { path, version, known: newest },
      );
    }
    const journalPath = journalPathOf(path);
    const baseSeq = snapshotSeq(db);
    const onDisk = readJournal(journalPath, baseSeq, settings.log);
    const openJournal = options.openJournalFile ?? openNodeJournalFile;
    const journal = openJournal(journalPath);
    const durable: Durable = { path, journalPath, journal, openJournal, release: lock.release };
    store = new SqlJsStore(db, durable, settings);
    for (const [name, fn] of Object.entries(options.functions ?? {})) store.registerFunction(name, fn);
    if (onDisk.validEnd < onDisk.fileSize) {
      journal.truncate(onDisk.validEnd);
      journal.sync();
    }
    store.replay(onDisk.records, baseSeq, journalPath);
    store.setJournalState(onDisk.records.length, onDisk.validEnd, onDisk.records.at(-1)?.seq ?? baseSeq);
    // Migrations are not journaled: a checkpoint makes them (and a brand-new file) durable before any write.
    if (applyMigrations(db, migrations) > 0 || !snapshot.existed) {
      store.markDirty();
      await store.checkpoint();
    }
    return store;
  } catch (ex) {
    if (store) {
      store.dispose();
    } else {
      db?.close();
      lock.release();
    }
    throw ex;
  }
}
