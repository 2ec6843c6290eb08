// Loading what is on disk at open: the sql.js runtime, the snapshot, and the journal to replay.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import initSqlJs from 'sql.js';
import type { Database, SqlJsStatic } from 'sql.js';
import { BatonError, errorMessage } from '../core/errors.js';
import type { Log } from '../core/ports.js';
import { FRAME_MAGIC_BYTES, scanJournal, type JournalRecord } from './journal.js';
import { schemaVersion } from './migrate.js';

const runtimes = new Map<string, Promise<SqlJsStatic>>();

/** sql-wasm.wasm next to the bundle if the build put it there, else the one in node_modules. */
export function defaultWasmPath(): string {
  const beside = join(__dirname, 'sql-wasm.wasm');
  // createRequire keeps bundlers from trying to resolve (and warning about) a non-JS asset.
  return existsSync(beside) ? beside : createRequire(__filename).resolve('sql.js/dist/sql-wasm.wasm');
}

/** The sql.js runtime, instantiated once per wasm file (from `compiled` when the caller compiled that file already). */
export function loadSqlJs(wasmPath: string, compiled?: Promise<WebAssembly.Module>): Promise<SqlJsStatic> {
  let runtime = runtimes.get(wasmPath);
  if (!runtime) {
    runtime = compiled ? fromModule(wasmPath, compiled) : initSqlJs({ locateFile: () => wasmPath });
    runtimes.set(wasmPath, runtime);
    runtime.catch(() => runtimes.delete(wasmPath));
  }
  return runtime;
}

/** The part of the WebAssembly API used here (the ES2022 lib without the DOM declares no values of it). */
const wasmApi = (globalThis as unknown as { WebAssembly: { instantiate(module: WebAssembly.Module, imports: object): Promise<object> } }).WebAssembly;

/** sql.js on an already compiled module; a failed compile fails the load (sql.js itself would wait forever). */
function fromModule(wasmPath: string, compiled: Promise<WebAssembly.Module>): Promise<SqlJsStatic> {
  let failed!: (ex: unknown) => void;
  const failure = new Promise<never>((_resolve, reject) => (failed = reject));
  const instantiateWasm = (imports: object, receive: (instance: object) => void) => {
    compiled.then((module) => wasmApi.instantiate(module, imports)).then(receive, (ex: unknown) => failed(new Error(`sql.js: ${wasmPath}: ${String(ex)}`)));
    return {};
  };
  return Promise.race([initSqlJs({ locateFile: () => wasmPath, instantiateWasm } as Parameters<typeof initSqlJs>[0]), failure]);
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

function corruptDb(path: string, why: string): BatonError {
  return new BatonError(
    'store_corrupt',
    `${path} is not a readable Baton database (${why}). Baton left it untouched: move it aside or restore a backup, then start Baton again.`,
    { path },
  );
}

/**
 * Opens the snapshot at `path` (never modifying the file) from `bytes`, the file's content as readSnapshotFile read it,
 * or a new empty database if there is none (null).
 */
export function loadSnapshot(SQL: SqlJsStatic, path: string, bytes: Buffer | null): { db: Database; existed: boolean } {
  if (bytes === null) return { db: new SQL.Database(), existed: false };
  if (bytes.length < 100 || !bytes.subarray(0, 16).equals(SQLITE_HEADER)) {
    throw corruptDb(path, bytes.length === 0 ? 'the file is empty' : 'no SQLite header');
  }
  const db = new SQL.Database(bytes);
  let problem: string | undefined;
  try {
    const damage = damagedPages(db, 5);
    if (damage.length) problem = `its pages are damaged: ${damage.join('; ')}`;
  } catch (ex) {
    problem = errorMessage(ex);
  }
  if (problem !== undefined) {
    db.close();
    throw corruptDb(path, problem);
  }
  return { db, existed: true };
}

/**
 * What SQLite's page check finds wrong in `db` (at most `max` messages; none when it is sound): every page of every
 * b-tree, a refused page being met here, not by some later query, and never copied into the next snapshot by a
 * checkpoint. It runs `PRAGMA quick_check` on each table with its indexes, sqlite_schema first (its check also walks
 * the freelist), rather than once on the whole database, which also has each FTS4 index read every row's text back
 * and tokenize it again to compare (FTS4 does that even for a quick check): 400-520 ms of a 450-660 ms check on a
 * file of 100,000 findings, against 50-60 ms for all its b-trees. The indexes' own pages are checked with their tables
 * (findings_fts_segments and the like); what the whole check adds besides is pages no tree uses ("never used"),
 * wasted space rather than damage.
 */
function damagedPages(db: Database, max: number): string[] {
  const found: string[] = [];
  const check = (table: string) => {
    for (const [message] of db.exec(`PRAGMA quick_check(${quoteName(table)})`)[0]?.values ?? []) {
      // A report starts with a line naming the schema ("*** in database main ***"), which says nothing here.
      if (message !== 'ok') found.push(String(message).replace(/^\*\*\* in database \w+ \*\*\*\n/, ''));
    }
  };
  check('sqlite_schema');
  if (found.length) return found.slice(0, max);
  const tables = db.exec("SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage > 0 ORDER BY rootpage")[0]?.values ?? [];
  for (const [name] of tables) {
    check(String(name));
    if (found.length >= max) break;
  }
  return found.slice(0, max);
}

/** A name as an SQL identifier, quoted. */
function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The snapshot's journal position: records up to this seq are already in it. */
export function snapshotSeq(db: Database): number {
  const hasMeta = db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  if (hasMeta.length === 0) return 0;
  const v = db.exec("SELECT value FROM meta WHERE key = 'journal_seq'")[0]?.values[0]?.[0];
  return v === undefined || v === null ? 0 : Number(v);
}

/**
 * The database's id: a random number its first checkpoint keeps in SQLite's user_version field (in the file's header,
 * outside every table; Baton uses it for nothing else); null in a database no checkpoint of it wrote yet.
 */
export function databaseIdOf(db: Database): number | null {
  const v = db.exec('PRAGMA user_version')[0]?.values[0]?.[0];
  return typeof v === 'number' && v !== 0 ? v : null;
}

/**
 * Refuses a journal whose header names another database than the snapshot beside it: a journal left behind, or a
 * database copied or restored from elsewhere. Its records are that database's writes; replayed here they would mix
 * two databases. A journal or snapshot without an id (an older Baton's) cannot be checked, and is accepted.
 */
export function assertJournalOf(header: JournalRecord | undefined, databaseId: number | null, dbPath: string, journalPath: string): void {
  if (header?.database === undefined || databaseId === null || header.database === databaseId) return;
  throw new BatonError(
    'store_corrupt',
    `${journalPath} is the journal of another database (id ${header.database}), not of ${dbPath} (id ${databaseId}): it was left beside a database copied or restored from elsewhere, and replaying it would write that database's changes into this one. Baton left both files untouched. If ${basename(dbPath)} is the database you want, move the journal aside (what it holds belongs to the other database); if the journal's own database is elsewhere, put the journal back beside it. Then start Baton again.`,
    { path: journalPath, database: dbPath, journalDatabaseId: header.database, databaseId },
  );
}

/**
 * Whether a journal with no whole record is still Baton's: empty, zeros (preallocated, never written), or a first
 * record torn after a prefix of its magic.
 */
function journalStart(buf: Buffer): boolean {
  const magic = FRAME_MAGIC_BYTES;
  let i = 0;
  while (i < Math.min(4, buf.length) && buf[i] === magic[i]) i++;
  for (let j = i; j < buf.length; j++) if (buf[j] !== 0) return i === 4;
  return true;
}

/**
 * Refuses an SQLite database that is not Baton's (tables, but no Baton `meta` table): migrating it would add Baton's
 * tables to another program's database.
 */
export function assertBatonDatabase(db: Database, path: string): void {
  if (schemaVersion(db) !== 0) return;
  const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")[0]?.values.map((v) => String(v[0])) ?? [];
  if (tables.length === 0) return;
  const shown = tables.length > 5 ? `${tables.slice(0, 5).join(', ')}, ...` : tables.join(', ');
  throw new BatonError(
    'store_corrupt',
    `${path} is an SQLite database, but not Baton's (its tables: ${shown}; no Baton meta table). Baton left it untouched: pass another --db.`,
    { path, tables },
  );
}

function readJournalFile(journalPath: string): Buffer {
  try {
    return readFileSync(journalPath);
  } catch (ex) {
    // Reading a folder fails without its path: the system's words alone would not say which file is meant.
    if ((ex as NodeJS.ErrnoException).code !== 'EISDIR') throw ex;
    throw new BatonError(
      'invalid_input',
      `${journalPath} is a folder where Baton keeps the database's journal; move it aside (Baton makes the file itself), then start Baton again.`,
      { path: journalPath },
    );
  }
}

function journalWithoutDatabase(dbPath: string, journalPath: string, records: JournalRecord[]): BatonError {
  return new BatonError(
    'store_corrupt',
    `${dbPath} is missing, but its journal ${journalPath} holds ${records.length} write${records.length === 1 ? '' : 's'} (seq ${records[0]!.seq} to ${records.at(-1)!.seq}): a journal holds only the writes since the database's last checkpoint, so it cannot be replayed alone. Baton left the journal untouched and created no database: restore ${basename(dbPath)} from a backup, or move the journal aside to start with an empty database.`,
    { path: dbPath, journal: journalPath },
  );
}

/** The journal's valid records and where its valid bytes end (a torn tail is reported, not removed). */
export interface JournalOnDisk {
  records: JournalRecord[];
  validEnd: number;
  fileSize: number;
  /** The bytes after validEnd that are not whole records (trailing preallocated zeros left out); null when none. */
  torn: Buffer | null;
  /** The header frame the journal opens with, naming its database; undefined for an older Baton's journal. */
  header?: JournalRecord;
}

/**
 * Reads and checks the journal; a corrupt (not merely torn) journal is refused. `access` 'read' only changes the
 * wording: a reader leaves a torn tail on disk for the next owner to cut. `missingDb`: the database file, when there
 * is none (its journal's records then cannot be replayed).
 */
export function readJournal(journalPath: string, baseSeq: number, log: Log, access: 'own' | 'read' = 'own', missingDb: string | null = null): JournalOnDisk {
  if (!existsSync(journalPath)) return { records: [], validEnd: 0, fileSize: 0, torn: null };
  const buf = readJournalFile(journalPath);
  const scan = scanJournal(buf);
  // A database writes its snapshot before its first journal record: records without one mean the file went missing.
  if (missingDb !== null && scan.records.length > 0) throw journalWithoutDatabase(missingDb, journalPath, scan.records);
  if (scan.ok && scan.records.length === 0 && !journalStart(buf)) {
    // Not even a torn first record: a file of someone else's where this database's journal would be. Cutting it as a
    // torn write would destroy it.
    throw new BatonError(
      'store_corrupt',
      `${journalPath} is not a Baton journal (it does not start with a Baton record). Baton left it untouched: if the file is yours, use another --db name; if it is Baton's, move it aside (losing the writes since the last checkpoint) and start Baton again.`,
      { path: journalPath },
    );
  }
  if (!scan.ok) {
    throw new BatonError(
      'store_corrupt',
      `${journalPath} is damaged at byte ${scan.badOffset} (valid records follow it, up to seq ${scan.laterSeq}). Baton left it untouched: move the journal aside (losing the writes since the last checkpoint) or restore a backup, then start Baton again.`,
      { path: journalPath, offset: scan.badOffset },
    );
  }
  const torn = scan.torn ? withoutTrailingZeros(buf.subarray(scan.validEnd)) : null;
  // An owner cuts the tail after the replay, once a copy of it is kept, and says so then (see openFileStore).
  if (torn && access === 'read') {
    log.warn(`store: ignoring a torn last write of ${torn.length} bytes at the end of ${journalPath} (not known to have been acknowledged); the next owner of the database drops it, keeping a copy beside the journal`);
  }
  let expected = baseSeq + 1;
  for (const r of scan.records) {
    if (r.seq <= baseSeq) continue;
    if (r.seq !== expected) {
      throw new BatonError(
        'store_corrupt',
        `${journalPath} does not continue its database: expected record seq ${expected}, found ${r.seq}. Baton left both files untouched: restore a backup or move the journal aside, then start Baton again.`,
        { path: journalPath },
      );
    }
    expected++;
  }
  return { records: scan.records, validEnd: scan.validEnd, fileSize: buf.length, torn, ...(scan.header ? { header: scan.header } : {}) };
}

/** `bytes` up to their last non-zero byte: what follows is the journal's preallocated space, never written. */
function withoutTrailingZeros(bytes: Buffer): Buffer {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return bytes.subarray(0, end);
}
