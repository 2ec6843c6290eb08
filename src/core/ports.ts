// The small interfaces through which every side effect reaches the pure core.
import type { SpecSourcePort } from './specTypes.js';

/** A value that can be bound to a SQL parameter. */
export type SqlValue = string | number | null | Uint8Array;
/** Positional (`?`) or named (`$name`) parameters. */
export type SqlParams = readonly SqlValue[] | Readonly<Record<string, SqlValue>>;
/** A row as returned by a query. */
export type Row = Record<string, SqlValue>;

/** The database. Reads are synchronous; writes happen inside `transaction`. */
export interface Store {
  /** All rows of a read-only query. */
  all<T = Row>(sql: string, params?: SqlParams): T[];
  /** The first row of a read-only query, if any. */
  get<T = Row>(sql: string, params?: SqlParams): T | undefined;
  /**
   * Runs one write statement; only valid inside `transaction`. Returns the number of changed rows, or -1 for a write
   * deferred by `deferWrites` (not run yet).
   */
  run(sql: string, params?: SqlParams): number;
  /**
   * Lets the open transaction's writes from here on reach the database after its answer, as the last thing it does:
   * they are journaled with it (on disk before the answer, as every write is) and run on the turn after, or as soon as
   * anything reads or writes, in order, so no reader sees the database without them. A read inside the transaction
   * runs them at once and ends the deferral. For writes whose changed-row count nobody needs and whose values cannot
   * break a constraint: one that fails later is skipped (and logged), here and when the journal is replayed, where
   * inside the transaction it would have failed it. No-op in a nested transaction; stores without it run writes at once.
   */
  deferWrites?(): void;
  /**
   * Runs `fn` atomically (all its writes or none) and journals its writes. The in-memory state
   * changes synchronously; the promise resolves once the writes are durable on disk.
   */
  transaction<T>(fn: () => T, options?: TransactionOptions): Promise<T>;
  /**
   * Gives the space of deleted rows back (SQLite VACUUM) and writes the smaller database to disk; stores that keep
   * nothing on disk or cannot shrink leave it out. Never inside `transaction`.
   */
  compact?(): Promise<CompactResult>;
  /**
   * How many times the store undid writes it had already made (a failed transaction that wrote, a nested transaction's
   * rollback, a batch SQLite lost). A cache of rows seen to exist holds only while this stays the same. Stores that
   * leave it out are never trusted by such a cache.
   */
  rollbacks?(): number;
  /**
   * How many writes the store has taken so far: each write statement (run or deferred) and each undo. Reads leave it
   * as it is, so rows read when it stood at one count are still what a read would give while it stays there (see
   * ExecutionRepo.speculate). Writes in a transaction marked `unwatched` are not counted. Stores that leave it out are
   * never read ahead.
   */
  changes?(): number;
}

/** What `Store.compact` did: the database's size before and after, in bytes. */
export interface CompactResult {
  beforeBytes: number;
  afterBytes: number;
}

/** How a transaction's writes reach the disk. */
export interface TransactionOptions {
  /**
   * No call waits for these writes (the call log): they go to disk with the next call's writes, or within about a
   * second on their own, instead of costing a disk sync of their own right away.
   */
  background?: boolean;
  /**
   * Its writes go to tables nothing reads ahead of a call (the call log): `changes()` does not count them, so they do
   * not throw away what was read ahead.
   */
  unwatched?: boolean;
}

/** Time, injected so tests can move it by hand. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** Identifier source (UUIDs), injected so replay and tests are deterministic. */
export interface Ids {
  /** A new random UUID: the ids people see, shorten and type (executions, tasks, findings, runs). */
  uuid(): string;
  /**
   * A new UUID, as unique and unguessable, for the rows written on every call (events, step-token nonces, artifacts,
   * memory entries, the call log): the node port's are time-ordered (version 7) so their unique indexes grow at the
   * right edge. Not for ids people shorten: ids made in the same minute share their first eight characters.
   */
  orderedUuid(): string;
}

/** Cryptographic primitives. */
export interface Crypto {
  /** HMAC-SHA256 of `data` under `key`, base64url encoded. */
  hmacSha256(key: string, data: string): string;
  /** `n` random bytes, hex encoded. */
  randomHex(n: number): string;
  /** Constant-time comparison of two strings. */
  timingSafeEqual(a: string, b: string): boolean;
  /** SHA-256 of `data`, hex encoded. */
  sha256(data: string): string;
}

/** Diagnostics; never stdout (stdout belongs to JSON-RPC). */
export interface Log {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}

/** A file found under a content directory. */
export interface FileEntry {
  /** Path relative to the listed directory, with `/` separators. */
  relativePath: string;
  /** Absolute path, for messages. */
  absolutePath: string;
}

/** Read-only file access for content loading. */
export interface FileSystem {
  /** Files (recursively) under `dir`; empty when `dir` does not exist. */
  list(dir: string): Promise<FileEntry[]>;
  /** The UTF-8 text of a file. */
  readText(path: string): Promise<string>;
  /** Whether a path exists. */
  exists(path: string): Promise<boolean>;
  /** Whether a path is a file (or a link to one); a file system without it takes every path as a folder. */
  isFile?(path: string): Promise<boolean>;
}

/** Everything the core needs from its host. */
export interface CorePorts {
  store: Store;
  clock: Clock;
  ids: Ids;
  crypto: Crypto;
  log: Log;
  fs: FileSystem;
  /** Where spec workflows read their tasks.md and tick its boxes (the files, or the editor's documents); none: spec workflows cannot start. */
  specSource?: SpecSourcePort;
}

/** A log that drops everything, for tests. */
export const silentLog: Log = { debug() {}, info() {}, warn() {}, error() {} };
