// The write-ahead journal: one checksummed, length-prefixed record per committed write transaction.
//
// Frame: magic u32 'BJR1' | payload length u32 | crc32(payload) u32 | payload (UTF-8 JSON).
// Payload: {"s": seq, "g": first seq of its flush group, "q": [[sql, params], ...]}; a statement written after its
// transaction's answer (Store.deferWrites) is [sql, params, 1].
// Blobs are tagged {"$b": base64}; non-finite numbers {"$n": "Infinity"}.
// A journal written since it was last empty opens with a header frame: {"s": the snapshot's seq, "g": the same,
// "q": [], "db": the database's id (see databaseIdOf)}. A Baton that knows no header reads it as an empty record at or
// before its snapshot's seq, which it skips; a journal without one (older Baton wrote it) has no identity to check.
import { closeSync, constants, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, openSync, read, readSync, statSync } from 'node:fs';
import { promisify } from 'node:util';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import type { SqlParams, SqlValue } from '../core/ports.js';
import { fsyncDirSync, writeFullySync } from './durableFile.js';

const readAsync = promisify(read);

export const FRAME_MAGIC = 0x314a5242; // 'BJR1' little-endian
export const FRAME_HEADER = 12;
const MAX_PAYLOAD = 0x7fff_ffff;

/**
 * One journaled statement: SQL, its (encoded) parameters, and 1 when it was deferred (applied after its transaction
 * was answered, see `Store.deferWrites`): one that fails for a reason its values decide is skipped, live and at replay.
 */
export type JournalStatement = [sql: string, params: unknown, deferred?: 1];

/** A decoded journal record. */
export interface JournalRecord {
  seq: number;
  group: number;
  statements: JournalStatement[];
  /** Byte offset of the frame in the file. */
  offset: number;
  /** Byte length of the whole frame. */
  length: number;
  /** The header frame's database id (see the file comment); undefined for a record. */
  database?: number;
}

/** The journal file as the store writes it; injectable so tests can simulate a full disk. */
export interface JournalFile {
  /** Current size in bytes. */
  size(): number;
  /** Appends all of `data` at the end. */
  append(data: Uint8Array): void;
  /** fdatasync. */
  sync(): void;
  /** fdatasync on the thread pool, so the event loop works on while the disk flushes. */
  syncAsync(done: (error: Error | null) => void): void;
  truncate(length: number): void;
  read(offset: number, length: number): Buffer;
  /** Reads on the thread pool; close() waits for the reads in flight. Absent: the writer reads inline. */
  readAsync?(offset: number, length: number): Promise<Buffer>;
  close(): void;
  /** Whether the file was deleted while open (its folder removed, say): what is written to it then is lost. */
  unlinked?(): boolean;
  /** Whether another process changed it since this one last did: its size, or another file put in its place. */
  changedByOthers?(): boolean;
}

// The file is grown in zero-filled chunks ahead of the records: an fdatasync that does not change
// the file's size needs no metadata commit, which makes each flush about a third cheaper.
const PREALLOCATE = 1024 * 1024;
let zeros: Buffer | null = null;

/**
 * Opens (creating if needed) a journal file; records are written at its logical end. A journal it creates has its
 * folder synced before it is used: each flush syncs the file's data, not the name that leads to it, so a power cut
 * could otherwise lose the new file with every record acknowledged in it until the next checkpoint syncs the folder.
 */
export function openNodeJournalFile(path: string): JournalFile {
  const fd = openOrCreate(path);
  let end = fstatSync(fd).size;
  let allocated = end;
  /** Reads in flight on the thread pool, and whether the file is to be closed once they are done. */
  let reading = 0;
  let closed = false;
  return {
    size: () => end,
    append(data) {
      writeFullySync(fd, data, end);
      end += data.length;
      if (end > allocated) {
        zeros ??= Buffer.alloc(PREALLOCATE);
        try {
          writeFullySync(fd, zeros, end);
          allocated = end + zeros.length;
        } catch {
          // Only a saving: a full disk or a file-size limit fails the next record's own write, not this one's.
          ftruncateSync(fd, end);
          allocated = end;
        }
      }
    },
    sync: () => fdatasyncSync(fd),
    unlinked: () => fstatSync(fd).nlink === 0,
    changedByOthers() {
      const st = fstatSync(fd);
      if (st.size !== allocated) return true;
      const atPath = statSync(path, { throwIfNoEntry: false });
      return atPath !== undefined && atPath.ino !== st.ino; // none: deleted (see unlinked)
    },
    syncAsync: (done) => fdatasync(fd, done),
    truncate(length) {
      ftruncateSync(fd, length);
      end = allocated = length;
    },
    read(offset, length) {
      const buf = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const n = readSync(fd, buf, done, length - done, offset + done);
        if (n === 0) throw new Error(`journal ${path}: unexpected end of file at ${offset + done}`);
        done += n;
      }
      return buf;
    },
    async readAsync(offset, length) {
      if (closed) throw new Error(`journal ${path} is closed`);
      reading++;
      try {
        const buf = Buffer.allocUnsafe(length);
        for (let done = 0; done < length; ) {
          const n = (await readAsync(fd, buf, done, length - done, offset + done)).bytesRead;
          if (n === 0) throw new Error(`journal ${path}: unexpected end of file at ${offset + done}`);
          done += n;
        }
        return buf;
      } finally {
        if (--reading === 0 && closed) closeSync(fd);
      }
    },
    close() {
      closed = true;
      if (reading === 0) closeSync(fd); // else the last read in flight closes it: its fd must not be reused meanwhile
    },
  };
}

/** Opens `path` read-write; a file this call creates is made durable by name (its folder synced) first. */
function openOrCreate(path: string): number {
  try {
    return openSync(path, constants.O_RDWR);
  } catch (ex) {
    if ((ex as NodeJS.ErrnoException).code !== 'ENOENT') throw ex;
  }
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (ex) {
    // Made between the two opens: its maker syncs its name.
    if ((ex as NodeJS.ErrnoException).code === 'EEXIST') return openSync(path, constants.O_RDWR);
    throw ex;
  }
  try {
    fsyncDirSync(dirname(path));
  } catch (ex) {
    closeSync(fd);
    throw ex;
  }
  return fd;
}

function encodeValue(v: SqlValue): unknown {
  if (v instanceof Uint8Array) return { $b: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') };
  if (typeof v === 'number' && !Number.isFinite(v)) return { $n: String(v) };
  return v;
}

function decodeValue(v: unknown): SqlValue {
  if (v !== null && typeof v === 'object') {
    const o = v as { $b?: string; $n?: string };
    if (typeof o.$b === 'string') return new Uint8Array(Buffer.from(o.$b, 'base64'));
    if (typeof o.$n === 'string') return Number(o.$n);
  }
  return v as SqlValue;
}

/**
 * The JSON text of each statement's SQL, which repeats from call to call: escaping a few hundred characters of SQL
 * again for every statement of every call was a third of the journal's encoding.
 */
const sqlJson = new Map<string, string>();
const SQL_JSON_LIMIT = 1000;

/**
 * Encodes one statement as a JSON fragment; done at run() time so later mutation of params can't diverge. `deferred`
 * marks a statement applied after its transaction was answered (see JournalStatement).
 */
export function encodeStatement(sql: string, params: SqlParams | undefined, deferred = false): string {
  let p: unknown = null;
  if (Array.isArray(params)) {
    p = params.map(encodeValue);
  } else if (params) {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(params as Record<string, SqlValue>)) o[k] = encodeValue(v);
    p = o;
  }
  let text = sqlJson.get(sql);
  if (text === undefined) {
    // Dynamic SQL (IN lists of varying length) must not grow the map without bound.
    if (sqlJson.size >= SQL_JSON_LIMIT) sqlJson.clear();
    text = JSON.stringify(sql);
    sqlJson.set(sql, text);
  }
  return deferred ? `[${text},${JSON.stringify(p)},1]` : `[${text},${JSON.stringify(p)}]`;
}

/**
 * Whether a statement failed for a reason of the moment (memory, the disk, an interruption, a lock) rather than one
 * its values and the rows it met decide, which a replay of the journal meets again. A deferred write that fails for
 * the second kind is skipped, live and at replay alike (see JournalStatement).
 */
export function failedOfTheMoment(ex: unknown): boolean {
  return !(ex instanceof Error) || /out of memory|disk is full|disk i\/o error|interrupted|is locked/i.test(ex.message);
}

/** Decodes a statement's parameters back to bindable values. */
export function decodeParams(p: unknown): SqlValue[] | Record<string, SqlValue> | undefined {
  if (p === null || p === undefined) return undefined;
  if (Array.isArray(p)) return p.map(decodeValue);
  const o: Record<string, SqlValue> = {};
  for (const [k, v] of Object.entries(p as Record<string, unknown>)) o[k] = decodeValue(v);
  return o;
}

/** Frames one record whose statements are already-encoded JSON fragments. */
export function encodeFrame(seq: number, group: number, statements: readonly string[]): Buffer {
  // Each statement is encoded straight into the frame: joining them first copied the whole record once more.
  const head = `{"s":${seq},"g":${group},"q":[`;
  let len = head.length + 2 + Math.max(0, statements.length - 1);
  for (const s of statements) len += Buffer.byteLength(s, 'utf8');
  const frame = Buffer.allocUnsafe(FRAME_HEADER + len);
  let at = FRAME_HEADER + frame.write(head, FRAME_HEADER, 'latin1');
  statements.forEach((s, i) => {
    if (i > 0) frame[at++] = 0x2c; // ','
    at += frame.write(s, at, 'utf8');
  });
  frame.write(']}', at, 'latin1');
  return sealed(frame);
}

/** The header frame that opens a journal of the database `databaseId` whose records continue the snapshot at `seq`. */
export function encodeHeaderFrame(seq: number, databaseId: number): Buffer {
  const payload = `{"s":${seq},"g":${seq},"q":[],"db":${databaseId}}`; // digits and ASCII: one byte per character
  const frame = Buffer.allocUnsafe(FRAME_HEADER + payload.length);
  frame.write(payload, FRAME_HEADER, 'latin1');
  return sealed(frame);
}

/** `frame` (its payload written after FRAME_HEADER bytes) with its header: the magic, the payload's length, its crc. */
function sealed(frame: Buffer): Buffer {
  frame.writeUInt32LE(FRAME_MAGIC, 0);
  frame.writeUInt32LE(frame.length - FRAME_HEADER, 4);
  frame.writeUInt32LE(crc32(frame.subarray(FRAME_HEADER)), 8);
  return frame;
}

/** Decodes the frame at `offset`, or null if it is incomplete, mis-framed or fails its checksum. */
export function decodeFrameAt(buf: Buffer, offset: number): JournalRecord | null {
  if (offset + FRAME_HEADER > buf.length) return null;
  if (buf.readUInt32LE(offset) !== FRAME_MAGIC) return null;
  const len = buf.readUInt32LE(offset + 4);
  if (len < 2 || len > MAX_PAYLOAD || offset + FRAME_HEADER + len > buf.length) return null;
  const payload = buf.subarray(offset + FRAME_HEADER, offset + FRAME_HEADER + len);
  if (crc32(payload) !== buf.readUInt32LE(offset + 8)) return null;
  let parsed: { s?: unknown; g?: unknown; q?: unknown; db?: unknown };
  try {
    parsed = JSON.parse(payload.toString('utf8')) as typeof parsed;
  } catch {
    return null;
  }
  if (typeof parsed.s !== 'number' || typeof parsed.g !== 'number' || !Array.isArray(parsed.q)) return null;
  const record: JournalRecord = { seq: parsed.s, group: parsed.g, statements: parsed.q as JournalStatement[], offset, length: FRAME_HEADER + len };
  if (typeof parsed.db === 'number' && parsed.q.length === 0) record.database = parsed.db;
  return record;
}

/** What a scan of the journal found: its records, and the header frame it opens with (if any) apart. */
export type JournalScan =
  | { ok: true; records: JournalRecord[]; validEnd: number; torn: boolean; header?: JournalRecord }
  | { ok: false; records: JournalRecord[]; badOffset: number; laterSeq: number; header?: JournalRecord };

/**
 * Reads every valid record. A bad record is a torn write when every valid record after it belongs
 * to its own flush group (only the last group can be torn: each flush is synced before the next
 * is written); a bad record followed by a record of a later group was once durable: corruption.
 */
export function scanJournal(buf: Buffer): JournalScan {
  const records: JournalRecord[] = [];
  let offset = 0;
  while (offset < buf.length) {
    const rec = decodeFrameAt(buf, offset);
    if (!rec) break;
    records.push(rec);
    offset += rec.length;
  }
  const header = records[0]?.database !== undefined ? records.shift() : undefined;
  const withHeader = header ? { header } : {};
  // Only zeros after the last record: the preallocated, never-written part of the file.
  if (offset >= buf.length || isZero(buf, offset)) return { ok: true, records, validEnd: offset, torn: false, ...withHeader };
  const later = framesAfter(buf, offset);
  const first = later[0];
  if (first) {
    const lastGood = (records.at(-1) ?? header)?.seq;
    const g = first.group;
    const sameGroup =
      later.every((r) => r.group === g && r.seq > g) && (lastGood === undefined || g <= lastGood + 1);
    if (!sameGroup) return { ok: false, records, badOffset: offset, laterSeq: first.seq, ...withHeader };
  }
  return { ok: true, records, validEnd: offset, torn: true, ...withHeader };
}

function isZero(buf: Buffer, from: number): boolean {
  for (let i = from; i < buf.length; i++) if (buf[i] !== 0) return false;
  return true;
}

/** FRAME_MAGIC as the four bytes that open every record. */
export const FRAME_MAGIC_BYTES: Readonly<Buffer> = (() => {
  const magic = Buffer.alloc(4);
  magic.writeUInt32LE(FRAME_MAGIC, 0);
  return magic;
})();

function framesAfter(buf: Buffer, offset: number): JournalRecord[] {
  const magic = FRAME_MAGIC_BYTES;
  const out: JournalRecord[] = [];
  let at = buf.indexOf(magic, offset + 1);
  while (at !== -1) {
    const rec = decodeFrameAt(buf, at);
    if (rec) out.push(rec);
    at = buf.indexOf(magic, rec ? at + rec.length : at + 1);
  }
  return out;
}
