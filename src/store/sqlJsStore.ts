// The Store port on sql.js: an in-memory SQLite made durable by a journal and periodic snapshots
// (DESIGN "Durability: snapshot + journal"). Opening a file (owning it or only reading it) is in openStore.ts.
import { randomInt } from 'node:crypto';
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { BindParams, Database, Statement } from 'sql.js';
import { BatonError, errorMessage } from '../core/errors.js';
import type { CompactResult, Row, SqlParams, Store, TransactionOptions } from '../core/ports.js';
import { replaceFileDurable } from './durableFile.js';
import { bufferSnapshot, memfsSnapshot, type MemfsFileNode, type SnapshotSource } from './fileSnapshot.js';
import { decodeParams, encodeStatement, failedOfTheMoment, type JournalRecord, type JournalStatement } from './journal.js';
import { deferred, type Deferred, type JournalWriter } from './journalWriter.js';
import { databaseIdOf } from './loading.js';
import { makeDirs } from './makeDirs.js';
import type { OpenStoreOptions } from './openStore.js';
import { tracePoint } from '../shared/tracePoints.js';

/** The first wait after a failed automatic checkpoint, and the longest. */
const CHECKPOINT_RETRY_MS = 5_000;
const CHECKPOINT_RETRY_MAX_MS = 300_000;
/** Free space a checkpoint leaves for the journal while its snapshot is written (two of the journal's 1 MiB steps). */
const CHECKPOINT_HEADROOM = 2 * 1024 * 1024;

/**
 * Refuses a checkpoint whose temp snapshot would leave the journal no room: on a nearly full disk the temp file would
 * take the last free space, the journal's next write would fail, and the store would stop taking writes.
 */
export function assertRoomFor(path: string, bytes: number): void {
  let free: number;
  try {
    const fs = statfsSync(dirname(path));
    free = fs.bavail * fs.bsize;
  } catch {
    return; // unknown: the write itself will tell
  }
  if (free < bytes + CHECKPOINT_HEADROOM) {
    // ENOSPC, as the write itself would fail: opening says it plainly (see noRoomError in openStore.ts).
    const ex = new Error(`not enough free space beside ${path} for its snapshot: ${bytes} bytes and ${CHECKPOINT_HEADROOM} to spare are needed, ${free} are free`);
    throw Object.assign(ex, { code: 'ENOSPC' });
  }
}

export { resolveDbPath } from './dbPath.js';
export { openStore, type OpenStoreOptions, type StoreAccess } from './openStore.js';

/** @internal The checkpoint and durability settings of an open store. */
export type StoreSettings = Required<Pick<OpenStoreOptions, 'checkpointRecords' | 'checkpointBytes' | 'checkpointRatio' | 'idleCheckpointMs' | 'idleCheckpointRatio' | 'ownershipCheckMs' | 'durability' | 'log'>>;

/** Journal and checkpoint counters. */
export interface StoreStats {
  journalRecords: number;
  journalBytes: number;
  lastSeq: number;
  checkpoints: number;
  /** Failed transactions that had written, or had a statement fail: each rolled back its batch and redid the others in it. */
  batchRedos: number;
}

const noop = () => undefined;

interface Cached {
  stmt: Statement;
  columns: string[] | null;
}

interface Durable {
  path: string;
  journal: JournalWriter;
  release: () => void;
  /** Takes the database's lock again (after its folder was deleted); false when another live process holds it now. */
  relock?: () => { release: () => void } | null;
  /** This process's checkpoint has just put a new database file in place (the one another owner would replace). */
  snapshotWritten?: () => void;
}

/** A database up to this size is checkpointed at every pause whatever its journal holds (idleCheckpointRatio). */
const IDLE_CHECKPOINT_ANY_SIZE = 8 * 1024 * 1024;

// Dynamic SQL (e.g. IN lists of varying length) must not grow the cache without bound.
const STATEMENT_CACHE_LIMIT = 500;
/**
 * How long a batch of transactions stays open in SQLite before its commit copies its pages into the in-memory file
 * (see `batchTimer`): calls one at a time come every millisecond or two, so a batch takes in a few of them.
 */
export const BATCH_WINDOW_MS = 10;
/**
 * How long a batch's commit gives way to answers still on their way (see `commitBatchBound`): under a steady stream
 * of calls a new answer is always due, so without a bound the batch, and what a lost batch redoes, would grow.
 */
export const BATCH_MAX_MS = 50;

/** The sql.js Store. Reads are synchronous; a transaction's promise resolves once its journal record is on disk. */
export class SqlJsStore implements Store {
  readonly path: string | null;
  /** Opened with access 'read': writes are refused and nothing is ever written to the file. */
  readonly readOnly: boolean;
  private readonly cache = new Map<string, Cached>();
  private readonly functions = new Map<string, (...args: any[]) => any>();
  private depth = 0;
  private pending: string[] = [];
  /**
   * A statement failed in the open transaction: SQLite may have undone more than that statement (SQLITE_FULL,
   * SQLITE_NOMEM, an ON CONFLICT ROLLBACK), so if the transaction fails its batch is rolled back and redone.
   */
  private statementFailed = false;
  /**
   * Writes journaled with their transaction but not yet run in SQLite (see `deferWrites`), in order. They run before
   * anything else touches the database: a read, another write, the next transaction, the batch's commit. Only while
   * a batch is open.
   */
  private deferred: Array<[sql: string, params: SqlParams | undefined]> = [];
  /** The open transaction defers its writes: `deferWrites` was called and nothing has read since. */
  private deferring = false;
  /** Transactions released with deferred writes whose answers have not gone out yet: the batch's commit waits for them. */
  private deferredUnanswered = 0;
  private applySoon: NodeJS.Immediate | null = null;
  private readonly applySoonBound = () => {
    this.applySoon = null;
    if (!this.closed) this.applyDeferred();
  };
  private nestedDone: Deferred | null = null;
  private closing = false;
  private closed = false;
  private dirty = false;
  private checkpoints = 0;
  private batchRedos = 0;
  /** Writes undone so far (see `rollbacks`). */
  private rollbackCount = 0;
  /** Write statements taken so far, run or deferred, but those of `unwatched` transactions (see `changes`). */
  private writeCount = 0;
  /** The open transaction is `unwatched`: its writes are not counted. */
  private unwatched = false;
  /**
   * A checkpoint is scheduled or running. While one runs (its snapshot is written while calls go on), the journal it
   * is about to compact must not look due for another: that one would rewrite the whole database for the few records
   * written meanwhile.
   */
  private checkpointPending = false;
  /** The files are being written again after the journal was found deleted (recreateFiles). */
  private recreating = false;
  private readonly recreatedListeners = new Set<() => void>();
  /** Set once another process took the database (see onOwnershipLost). */
  private lost: BatonError | null = null;
  private readonly lostListeners = new Set<(failure: BatonError) => void>();
  /** After a failed automatic checkpoint, none is tried again before this time (ms), and the wait doubles. */
  private checkpointRetryAt = 0;
  private checkpointBackoffMs = 0;
  private checkpointChain: Promise<void> = Promise.resolve();
  private closePromise: Promise<void> | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  /** Looks at the lock file while no write does (see OpenStoreOptions.ownershipCheckMs). */
  private ownershipTimer: NodeJS.Timeout | null = null;
  /**
   * Group commit into sql.js's in-memory file: the transactions of BATCH_WINDOW_MS from the first run one after another
   * in one SQLite transaction, committed once (`commitBatch`). Durability is the journal's, so this only decides when
   * pages are copied into the in-memory file; pages that several transactions change (page 1, index and table tails)
   * are then copied once per batch instead of once per transaction. A batch is open while its commit is scheduled.
   */
  private batchTimer: NodeJS.Timeout | null = null;
  /** The statements of each transaction released into the open batch, to redo them if SQLite loses the batch. */
  private batchRecords: string[][] = [];
  /** Set when a lost batch could not be redone: the in-memory database lacks acknowledged writes (the journal has them). */
  private failure: BatonError | null = null;
  /** When the open batch began (Date.now()): its commit gives way to answers for BATCH_MAX_MS at most. */
  private batchOpenedAt = 0;
  private readonly commitBatchBound = () => {
    // Not before the answers of the transactions whose deferred writes it would run (the next answer re-arms it), and
    // not later than BATCH_MAX_MS after the batch began: then those writes run ahead of answers still waiting for
    // their sync.
    const age = Date.now() - this.batchOpenedAt;
    if (this.deferredUnanswered > 0 && this.deferred.length && age < BATCH_MAX_MS) {
      this.commitWaits = true;
      this.batchTimer = setTimeout(this.commitBatchBound, BATCH_MAX_MS - age);
    } else this.commitBatch();
  };
  /** The batch's commit waits for an answer (see commitBatchBound); `batchTimer` is its deadline meanwhile. */
  private commitWaits = false;
  /** The look at the journal after its flushes (`afterFlush`), scheduled for the next turn. */
  private afterFlushSoon: NodeJS.Immediate | null = null;
  private readonly afterFlushBound = () => {
    this.afterFlushSoon = null;
    if (!this.closed) this.scheduleCheckpoints();
  };

  /** Use `openStore`. */
  constructor(
    private readonly db: Database,
    private readonly durable: Durable | null,
    private readonly settings: StoreSettings,
    readOnlyPath: string | null = null,
  ) {
    this.path = durable?.path ?? readOnlyPath;
    this.readOnly = readOnlyPath !== null;
    this.applyConnectionSettings();
    if (durable && settings.ownershipCheckMs > 0) {
      this.ownershipTimer = setInterval(this.checkOwnershipBound, settings.ownershipCheckMs);
      this.ownershipTimer.unref();
    }
  }

  /**
   * One stat of the lock file: a deleted one is made again, and a database another process took is reported (logged,
   * and every write from now on refused) as a flush would find it.
   */
  private readonly checkOwnershipBound = () => {
    const j = this.durable?.journal;
    if (!j || this.closing || j.failure) return;
    try {
      j.assertOwned();
    } catch {
      // assertOwned logged it, and every write and checkpoint now fails with it (store_failed)
    }
  };

  /**
   * @internal Called by the journal after each flush. What it decides (whether the journal file is gone, whether a
   * checkpoint is due) waits for the next turn: the answers the flush released go out first (it took 20 µs of each
   * serial call's answer), and the flushes of one turn are looked at once.
   */
  afterFlush(): void {
    this.afterFlushSoon ??= setImmediate(this.afterFlushBound);
  }

  /** Schedules size and idle checkpoints after flushes; recreates the files if the journal was deleted. */
  private scheduleCheckpoints(): void {
    const s = this.settings;
    const j = this.durable!.journal;
    if (!this.recreating && j.gone()) {
      this.recreating = true;
      setImmediate(() => void this.recreateFiles());
    }
    const due = (j.records >= s.checkpointRecords || j.bytes >= s.checkpointBytes) && j.bytes >= s.checkpointRatio * this.databaseBytes();
    if (due && !this.checkpointPending && Date.now() >= this.checkpointRetryAt) {
      this.checkpointPending = true;
      // Never inside the caller's transaction or flush: on the next turn of the event loop.
      setImmediate(() => {
        if (!this.closing) this.autoCheckpoint();
      });
    }
    if (!this.idleTimer) {
      this.idleTimer = setTimeout(() => {
        if (j.records > 0 && !this.closing && !j.failure && Date.now() >= this.checkpointRetryAt && this.idleCheckpointDue()) this.autoCheckpoint();
      }, s.idleCheckpointMs);
      this.idleTimer.unref();
    } else {
      this.idleTimer.refresh();
    }
  }

  all<T = Row>(sql: string, params?: SqlParams): T[] {
    if (this.deferring || this.deferred.length) this.applyDeferred();
    const c = this.prepare(sql);
    const rows: T[] = [];
    try {
      if (params) c.stmt.bind(params as BindParams);
      while (c.stmt.step()) rows.push(this.rowOf(c) as T);
    } catch (ex) {
      this.statementFailed = true;
      throw ex;
    } finally {
      c.stmt.reset();
    }
    return rows;
  }

  get<T = Row>(sql: string, params?: SqlParams): T | undefined {
    if (this.deferring || this.deferred.length) this.applyDeferred();
    const c = this.prepare(sql);
    try {
      if (params) c.stmt.bind(params as BindParams);
      return c.stmt.step() ? (this.rowOf(c) as T) : undefined;
    } catch (ex) {
      this.statementFailed = true;
      throw ex;
    } finally {
      c.stmt.reset();
    }
  }

  run(sql: string, params?: SqlParams): number {
    if (this.depth === 0) throw new Error(`Store.run() called outside transaction(): ${sql}`);
    if (this.readOnly) throw this.readOnlyError();
    if (!this.unwatched) this.writeCount++;
    if (this.deferring) {
      // Journaled now, with the transaction; the parameters are copied, as their encoding is, against later changes.
      this.pending.push(encodeStatement(sql, params, true));
      this.deferred.push([sql, Array.isArray(params) ? [...params] : params ? { ...params } : undefined]);
      return -1;
    }
    if (this.deferred.length) this.applyDeferred();
    // Encode first: a parameter the journal cannot hold must fail before the write happens.
    const record = encodeStatement(sql, params);
    this.exec(sql, params);
    this.pending.push(record);
    return this.db.getRowsModified();
  }

  /**
   * @inheritdoc The deferred writes are journaled with the transaction, so they are on disk before its answer, and run
   * in SQLite on the turn after it (or first thing when anything touches the database sooner), in order. One that
   * fails for a reason its values decide is skipped and logged, here and when the journal is replayed, so both give
   * the same rows.
   */
  deferWrites(): void {
    if (this.depth === 0) throw new Error('Store.deferWrites() called outside transaction()');
    // A nested transaction's writes stay undeferred: its rollback could not take back writes not yet run.
    if (this.depth === 1) this.deferring = true;
  }

  /**
   * Runs the deferred writes. Inside a transaction they are its own (it ran those released before it first), and a
   * failure fails it, as run() would have. Outside one their transaction was released: one that fails for a reason its
   * values decide (a constraint) is skipped (the journal's replay skips it too); any other failure loses the batch,
   * redone from the journal's records.
   */
  private applyDeferred(): void {
    this.deferring = false;
    if (this.deferred.length === 0) return;
    const todo = this.deferred;
    this.deferred = [];
    if (this.depth > 0) {
      for (const [sql, params] of todo) this.exec(sql, params);
      return;
    }
    for (const [sql, params] of todo) {
      try {
        this.exec(sql, params);
      } catch (ex) {
        if (!this.skippable(ex)) {
          this.loseBatch();
          return;
        }
        this.skippedDeferred(sql, ex);
      }
    }
  }

  /**
   * Whether a deferred write's failure can be skipped: its values and the rows it met decided it (a replay meets it
   * again), and SQLite kept the transaction it ran in (a RAISE(ROLLBACK) would not: BEGIN then succeeds).
   */
  private skippable(ex: unknown): boolean {
    if (failedOfTheMoment(ex)) return false;
    try {
      this.db.exec('BEGIN');
    } catch {
      return true;
    }
    this.db.exec('ROLLBACK');
    return false;
  }

  private skippedDeferred(sql: string, ex: unknown): void {
    this.settings.log.error(`store: a write deferred past its answer failed and was skipped (${errorMessage(ex)}): ${sql.replace(/\s+/g, ' ').slice(0, 120)}`);
  }

  transaction<T>(fn: () => T, options?: TransactionOptions): Promise<T> {
    if (this.depth > 0) return this.nested(fn);
    if (this.closing) return Promise.reject(new Error('store is closed'));
    const journal = this.durable?.journal;
    if (journal?.failure) return Promise.reject(journal.failure);
    if (this.deferred.length) this.applyDeferred();
    if (this.failure) return Promise.reject(this.failure);
    if (!this.batchTimer) {
      this.exec('BEGIN');
      this.batchTimer = setTimeout(this.commitBatchBound, BATCH_WINDOW_MS);
      this.batchOpenedAt = Date.now();
    }
    // No savepoint of its own: under one, SQLite copies every page the transaction first changes into a statement
    // journal (and RELEASE frees it), 5-10% of the engine's CPU per call. A failure that may have changed anything
    // rolls the batch back and redoes the transactions released into it (`abort`); most change nothing.
    this.depth = 1;
    this.unwatched = options?.unwatched === true;
    this.statementFailed = false;
    let result: T;
    tracePoint?.('transaction');
    try {
      result = fn();
      tracePoint?.('transaction-end');
      if (isThenable(result)) throw new Error('transaction() needs a synchronous function; its writes must not span an await');
    } catch (ex) {
      this.abort(ex);
      return Promise.reject(ex);
    }
    this.depth = 0;
    this.unwatched = false;
    this.deferring = false;
    const statements = this.pending;
    this.pending = [];
    if (statements.length > 0) this.batchRecords.push(statements);
    // A read-only transaction still waits for queued writes it may have read.
    const done = !journal ? null : statements.length > 0 ? journal.append(statements, options?.background) : journal.pending();
    this.settleNested(done);
    if (this.deferred.length) {
      this.deferredUnanswered++;
      // On the turn after the answer: it goes out in the promise reactions of `done`, before any immediate.
      const soon = () => {
        this.deferredUnanswered--;
        this.applySoon ??= setImmediate(this.applySoonBound);
        if (this.commitWaits && this.batchTimer) {
          clearTimeout(this.batchTimer);
          this.batchTimer = setTimeout(this.commitBatchBound, 0);
        }
        this.commitWaits = false;
      };
      if (done) done.then(soon, soon);
      else soon();
    }
    return done ? done.then(() => result) : Promise.resolve(result);
  }

  /** Registers a SQL function; it survives checkpoints. */
  registerFunction(name: string, fn: (...args: any[]) => any): void {
    this.functions.set(name, fn);
    this.db.create_function(name, fn);
  }

  /** Writes a snapshot and empties the journal (no-op in memory or when nothing changed). */
  checkpoint(): Promise<void> {
    return this.afterCheckpoints(() => this.checkpointNow());
  }

  /**
   * Gives the pages of deleted rows back (VACUUM), in memory and, through a checkpoint, on disk. VACUUM is not
   * journaled: until its snapshot lands, the old snapshot and the journal replay to the same rows, rowids included
   * (VACUUM keeps those of a table with an INTEGER PRIMARY KEY or an index, as every table here has).
   */
  compact(): Promise<CompactResult> {
    if (this.closing) return Promise.reject(new Error('store is closed'));
    if (this.readOnly) return Promise.reject(this.readOnlyError());
    if (this.depth > 0) return Promise.reject(new Error('compact() cannot run inside a transaction'));
    return this.afterCheckpoints(() => this.compactNow());
  }

  private async compactNow(): Promise<CompactResult> {
    if (this.closed) throw new Error('store is closed');
    const journal = this.durable?.journal;
    if (journal?.failure) throw journal.failure;
    // VACUUM cannot run inside the open batch's transaction.
    this.commitBatch();
    if (this.failure) throw this.failure;
    const beforeBytes = this.databaseBytes();
    this.vacuum();
    const afterBytes = this.databaseBytes();
    if (this.durable) {
      this.dirty = true;
      await this.checkpointNow();
    }
    return { beforeBytes, afterBytes };
  }

  /**
   * VACUUM with its rollback journal and its temp copy in sql.js's in-memory files, which are freed afterwards,
   * instead of SQLite's heap: the wasm heap never shrinks, and would keep about twice the compacted size for good.
   * (Changing temp_store drops TEMP tables; Baton has none.)
   */
  private vacuum(): void {
    this.db.exec('PRAGMA journal_mode = TRUNCATE; PRAGMA temp_store = FILE');
    try {
      this.db.exec('VACUUM');
    } finally {
      this.applyConnectionSettings();
    }
  }

  /** Runs `fn` once the checkpoints (and file rewrites) queued before it are done; the next ones wait for it. */
  private afterCheckpoints<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.checkpointChain.then(fn);
    this.checkpointChain = run.then(noop, noop);
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
      if (this.durable && !this.durable.journal.failure) {
        // A checkpoint that fails here loses nothing: the journal is replayed at the next open.
        await this.checkpoint().catch((ex: unknown) => this.checkpointFailed(ex, 'it is replayed at the next open'));
      }
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
    if (this.ownershipTimer) clearInterval(this.ownershipTimer);
    this.cancelBatchCommit();
    if (this.afterFlushSoon) clearImmediate(this.afterFlushSoon);
    if (this.applySoon) clearImmediate(this.applySoon);
    // Deferred writes not run yet are in the journal: the next open replays them.
    this.deferred = [];
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

  /** @inheritdoc */
  rollbacks(): number {
    return this.rollbackCount;
  }

  /** @inheritdoc Every undo counts, whatever it undid. */
  changes(): number {
    return this.writeCount + this.rollbackCount;
  }

  stats(): StoreStats {
    const j = this.durable?.journal;
    return { journalRecords: j?.records ?? 0, journalBytes: j?.bytes ?? 0, lastSeq: j?.lastSeq ?? 0, checkpoints: this.checkpoints, batchRedos: this.batchRedos };
  }

  /** @internal Replays journal records at open (before any caller can see the store); returns the last seq. */
  replay(records: readonly JournalRecord[], baseSeq: number, journalPath: string): number {
    let last = baseSeq;
    const todo = records.filter((r) => r.seq > baseSeq);
    if (todo.length === 0) return last;
    try {
      this.inTransaction(() => {
        for (const r of todo) {
          for (const s of r.statements) this.redo(s);
          last = r.seq;
        }
      });
    } catch (ex) {
      throw new BatonError(
        'store_corrupt',
        `${journalPath}: record seq ${last + 1} cannot be replayed onto ${this.path} (${errorMessage(ex)}). Baton left both files untouched: restore a backup or move the journal aside.`,
        { path: journalPath },
      );
    }
    return last;
  }

  private readOnlyError(): BatonError {
    return new BatonError(
      'store_read_only',
      `${this.path} is open read-only here; a change goes through the process that owns it (baton mcp, baton serve or the editor)`,
      { path: this.path },
    );
  }

  /** @internal Marks the database as changed outside the journal (migrations), so the next checkpoint writes it. */
  markDirty(): void {
    this.dirty = true;
  }

  /** @internal The raw database, for migrations at open. */
  get database(): Database {
    this.writeCount++; // whoever takes it may write
    this.commitBatch();
    return this.db;
  }

  private prepare(sql: string): Cached {
    let c = this.cache.get(sql);
    if (!c) {
      if (this.closed) throw new Error('store is closed');
      if (this.cache.size >= STATEMENT_CACHE_LIMIT) this.evictOldestStatement();
      c = { stmt: this.db.prepare(sql), columns: null };
      this.cache.set(sql, c);
    }
    return c;
  }

  private evictOldestStatement(): void {
    const [oldest, c] = this.cache.entries().next().value as [string, Cached];
    c.stmt.free();
    this.cache.delete(oldest);
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
    } catch (ex) {
      this.statementFailed = true;
      throw ex;
    } finally {
      stmt.reset();
    }
  }

  private nested<T>(fn: () => T): Promise<T> {
    // The deferred writes run first: a rollback to the savepoint must not take back their records but not them.
    if (this.deferring || this.deferred.length) this.applyDeferred();
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
      this.rollbackCount++;
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

  private settleNested(done: Promise<void> | null, failed?: { error: unknown }): void {
    const nd = this.nestedDone;
    if (!nd) return;
    this.nestedDone = null;
    if (failed) nd.reject(failed.error);
    else if (done) done.then(nd.resolve, nd.reject);
    else nd.resolve();
  }

  /**
   * Undoes a failed transaction. One that wrote nothing (its nested transactions' writes count while they stand) and
   * whose statements all succeeded left SQLite as it found it. Otherwise the batch is rolled back and the
   * transactions released into it are redone from their records: the failed one's writes are gone, theirs stand.
   */
  private abort(ex: unknown): void {
    // Its deferred writes never ran: their records go with the rest of its writes. They were undone all the same, for
    // anyone who took them as made (a cache of rows seen to exist, see rollbacks()).
    const ran = this.pending.length - this.deferred.length;
    if (this.deferred.length) this.rollbackCount++;
    this.deferred = [];
    this.deferring = false;
    if (ran > 0 || this.statementFailed) {
      this.batchRedos++;
      this.loseBatch();
    }
    this.depth = 0;
    this.unwatched = false;
    this.pending = [];
    this.settleNested(null, { error: ex });
  }

  /** Commits the open batch into the in-memory file: when its window ends, or first before a snapshot or export. */
  private commitBatch(): void {
    if (!this.batchTimer) return;
    this.commitWaits = false;
    if (this.deferred.length && !this.closed) {
      this.applyDeferred();
      // A failure there lost the batch and redid it, committed: nothing is open any more.
      if (!this.batchTimer) return;
    }
    this.cancelBatchCommit();
    if (this.closed) return;
    try {
      this.exec('COMMIT');
      this.batchRecords = [];
    } catch {
      this.loseBatch();
    }
  }

  /** Drops the batch's scheduled commit. */
  private cancelBatchCommit(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
  }

  private loseBatch(): void {
    // The redo runs every record of the batch, the deferred writes' included.
    this.commitWaits = false;
    this.deferred = [];
    this.rollbackCount++;
    this.cancelBatchCommit();
    this.rollbackQuietly();
    this.redoBatch();
  }

  /**
   * The batch's transactions were released and their records queued for the journal, so callers will hear they are
   * done: when SQLite loses the batch they are redone from those records (what a replay at open would do). If that
   * fails too, the store refuses further transactions; reopening replays the journal.
   */
  private redoBatch(): void {
    const records = this.batchRecords;
    this.batchRecords = [];
    if (records.length === 0) return;
    try {
      this.inTransaction(() => {
        for (const statements of records) {
          for (const s of statements) this.redo(JSON.parse(s) as JournalStatement);
        }
      });
    } catch (ex) {
      this.failure = new BatonError(
        'store_failed',
        `${this.path ?? 'the in-memory database'} lost ${records.length} committed transaction${records.length === 1 ? '' : 's'} it could not redo (${errorMessage(ex)}); restart Baton: its journal holds every acknowledged write.`,
        { path: this.path },
      );
      this.settings.log.error(`store: ${this.failure.message}`);
    }
  }

  /** Runs a journaled statement again (a replay, a lost batch's redo); a deferred one is skipped as it was live. */
  private redo([sql, params, deferred]: JournalStatement): void {
    try {
      this.exec(sql, decodeParams(params));
    } catch (ex) {
      if (deferred !== 1 || !this.skippable(ex)) throw ex;
      this.skippedDeferred(sql, ex);
    }
  }

  /** Runs `fn` in one SQLite transaction of its own (no batch is open); on failure rolls it back and rethrows. */
  private inTransaction(fn: () => void): void {
    this.exec('BEGIN');
    try {
      fn();
      this.exec('COMMIT');
    } catch (ex) {
      this.rollbackQuietly();
      throw ex;
    }
  }

  private rollbackQuietly(): void {
    try {
      this.exec('ROLLBACK');
    } catch {
      // SQLite already rolled back (e.g. after SQLITE_FULL); nothing left to undo
    }
  }

  /** Calls `listener` each time the store wrote its files again after they were deleted (the owner republishes). */
  onRecreated(listener: () => void): () => void {
    this.recreatedListeners.add(listener);
    return () => this.recreatedListeners.delete(listener);
  }

  /**
   * Calls `listener` once (on a later turn) when this process finds that another process took its database: every
   * write and checkpoint is refused from then on, and what the store holds in memory is no longer what is on disk, so
   * the owner stops serving it. At once when that happened already.
   */
  onOwnershipLost(listener: (failure: BatonError) => void): () => void {
    this.lostListeners.add(listener);
    const lost = this.lost;
    if (lost) setImmediate(() => this.lostListeners.has(listener) && listener(lost));
    return () => this.lostListeners.delete(listener);
  }

  /** @internal The journal (or a rewrite of the files) found the database taken by another process. */
  ownershipLost(failure: BatonError): void {
    if (this.lost) return;
    this.lost = failure;
    // Not inside the write or checkpoint that found it: the listeners close this store.
    setImmediate(() => {
      for (const l of this.lostListeners) l(failure);
    });
  }

  /**
   * The journal was deleted while open (someone removed the .baton folder): what is written to it is lost, and so is
   * the snapshot. The database in memory still holds every write, so the folder, the lock, a new journal and a
   * snapshot of it all are written again. Only a crash in the moment between a flush and this could lose the last
   * writes; if another process took the database meanwhile, writes stop (store_failed).
   */
  private recreateFiles(): Promise<void> {
    const d = this.durable!;
    return this.afterCheckpoints(async () => {
      if (this.closed || !d.journal.gone()) return;
      await d.journal.drain();
      makeDirs(dirname(d.path));
      const lock = d.relock?.();
      if (lock === null) {
        const taken = new BatonError('store_failed', `${d.path} was deleted while Baton ran, and another Baton process owns a new database there now; restart this one.`, { path: d.path });
        this.ownershipLost(taken);
        throw taken;
      }
      if (lock) {
        const before = d.release;
        d.release = () => {
          lock.release();
          before();
        };
      }
      d.journal.replaceFile();
      this.dirty = true;
      await this.checkpointOnce();
      this.settings.log.warn(`store: the folder or files of ${d.path} were deleted while Baton ran; Baton wrote the database again from memory, and nothing is lost`);
      for (const l of this.recreatedListeners) l();
    })
      .catch((ex: unknown) => {
        if (BatonError.is(ex, 'store_failed')) this.failure ??= ex;
        this.settings.log.error(`store: could not write ${d.path} again after its files were deleted: ${errorMessage(ex)}`);
      })
      .finally(() => {
        this.recreating = false;
      });
  }

  /** A checkpoint the store decided on (size, idle); after a failure the next waits 5 s, doubling up to 5 minutes. */
  private autoCheckpoint(): void {
    this.checkpoint().then(
      () => {
        this.checkpointBackoffMs = 0;
        this.checkpointRetryAt = 0;
      },
      (ex: unknown) => {
        this.checkpointBackoffMs = Math.min(Math.max(this.checkpointBackoffMs * 2, CHECKPOINT_RETRY_MS), CHECKPOINT_RETRY_MAX_MS);
        this.checkpointRetryAt = Date.now() + this.checkpointBackoffMs;
        this.checkpointFailed(ex, `the next try is in ${Math.round(this.checkpointBackoffMs / 1000)} s`);
      },
    );
  }

  private checkpointFailed(ex: unknown, next: string): void {
    if (BatonError.is(ex, 'store_failed')) return; // already reported to every writer
    const why = errorMessage(ex);
    this.settings.log.error(`store: checkpoint of ${this.path} failed (${why}); the journal still holds every write, and ${next}`);
  }

  private async checkpointNow(): Promise<void> {
    this.checkpointPending = true;
    try {
      await this.checkpointOnce();
    } finally {
      this.checkpointPending = false;
    }
  }

  private async checkpointOnce(): Promise<void> {
    const d = this.durable;
    if (!d || this.closed) return;
    const j = d.journal;
    if (j.failure) throw j.failure;
    if (this.depth > 0) throw new Error('checkpoint() cannot run inside a transaction');
    await j.drain();
    j.assertOwned();
    if (j.records === 0 && !this.dirty) return;
    // Everything up to `seq` is in memory and in the journal; the snapshot taken now holds exactly that.
    this.commitBatch();
    if (this.failure) throw this.failure;
    const seq = j.lastSeq;
    const journalOffset = j.size();
    // Not counted in changes(): the mark is in meta, which no read ahead of a call reads, and the rows stay as they are.
    this.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('journal_seq', ?)", [String(seq)]);
    // Not journaled, like journal_seq: the snapshot is where the id lives (journal headers name it once it is there).
    let databaseId = databaseIdOf(this.db);
    if (databaseId === null) {
      databaseId = randomInt(1, 2 ** 31);
      this.db.exec(`PRAGMA user_version = ${databaseId}`);
    }
    // Disposed meanwhile (its lock released: another process may own the files now): the checkpoint stops, its temp
    // files go, and nothing is renamed.
    const assertOpen = () => {
      if (this.closed) throw new Error(`store ${d.path} was closed while its checkpoint was being written`);
    };
    // Taken now, before any other call can write: the database exactly as of `seq`, however long the write takes.
    const snapshot = this.snapshot();
    this.dirty = false;
    try {
      assertRoomFor(d.path, snapshot.size);
      await replaceFileDurable(d.path, {
        size: snapshot.size,
        read: (offset, length) => {
          assertOpen();
          j.assertOwned(); // up to the last chunk, written just before the rename
          return snapshot.read(offset, length);
        },
        close: () => snapshot.close(),
      }, () => d.snapshotWritten?.());
    } catch (ex) {
      this.dirty = true;
      throw ex;
    } finally {
      snapshot.close();
    }
    j.databaseId = databaseId;
    // Writes made while the snapshot was written are past `journalOffset`: most are copied to the next journal file
    // off the event loop, calls going on; then the last of them are flushed and copied inline.
    const tail = await j.copyTail(journalOffset, seq);
    try {
      assertOpen();
      await j.drain();
      j.assertOwned(); // the journal must stay exactly as it was acknowledged
    } catch (ex) {
      tail.temp?.discard();
      throw ex;
    }
    // Nothing awaits between the drain and here, so no sync is in flight on the file compaction replaces.
    const removal = j.compact(tail);
    this.checkpoints++;
    // The old journal's blocks are freed on the thread pool; the checkpoint is done once they are (calls go on).
    await removal;
  }

  /** The patched sql.js's in-memory database file (scripts/sqljsPatch.mjs), if the build patched it in. */
  private fileNode(): MemfsFileNode | null {
    const patched = this.db as Database & { batonFileNode?: () => MemfsFileNode };
    return patched.batonFileNode ? patched.batonFileNode() : null;
  }

  /** Whether a pause is worth a checkpoint: the database is small, or its journal holds idleCheckpointRatio of it. */
  private idleCheckpointDue(): boolean {
    const bytes = this.databaseBytes();
    return bytes <= IDLE_CHECKPOINT_ANY_SIZE || this.durable!.journal.bytes >= this.settings.idleCheckpointRatio * bytes;
  }

  /** The database's size in bytes (what a checkpoint writes). */
  private databaseBytes(): number {
    const node = this.fileNode();
    if (node) return node.Wa;
    return this.get<{ n: number }>('SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()')?.n ?? 0;
  }

  /**
   * The committed database, outside any transaction: copy-on-write over sql.js's in-memory file where the build
   * patched that in, else a copy from db.export().
   */
  private snapshot(): SnapshotSource {
    const node = this.fileNode();
    return node ? memfsSnapshot(node) : bufferSnapshot(this.exportDb());
  }

  /** db.export(), then restore what older sql.js versions lose in it (statements, functions, pragmas). */
  private exportDb(): Uint8Array {
    this.commitBatch();
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
    // This connection is the only one to its in-memory file, so it keeps its lock (no file-header
    // check before every statement: about 8 µs each) and skips the no-op syncs.
    this.db.exec('PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY; PRAGMA locking_mode = EXCLUSIVE; PRAGMA synchronous = OFF');
    for (const [name, fn] of this.functions) this.db.create_function(name, fn);
  }
}

function isThenable(v: unknown): boolean {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
}
