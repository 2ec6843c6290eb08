// Reading the snapshot file: at open, or ahead of it by a caller that holds the database's lock (`baton mcp` reads it
// while the engine loads). Kept apart from loading.ts so that the thin front (dist/cli.js) loads no sql.js for it.
import { closeSync, constants, fstatSync, openSync, read } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { followLinks } from './dbPath.js';

/** The most one read() moves on Linux. */
const MAX_READ = 0x7ffff000;
/** The address space a database file's array may grow into in place (BATON_FILE_MAX in scripts/sqljsPatch.mjs). */
const FILE_MAX = 2 ** 31;

/**
 * The snapshot's bytes, read off the event loop (`baton mcp` keeps answering its client meanwhile); null if none.
 * The file is read in one read() on the thread pool, not in readFile's 512 KB pieces, each of which waits for a turn
 * of the event loop to ask for the next: read ahead while the engine's modules load (a busy event loop), a 50 MB
 * database had been read only once they had. The bytes sit on a resizable buffer, which sql.js's in-memory file keeps
 * (a Buffer's slice is a view) and grows in place (scripts/sqljsPatch.mjs): on a plain one, the first write past the
 * file's end copied the whole database into a new array (a 50 MB one: 135 ms of page faults on this project's VMs).
 */
export function readSnapshotFile(path: string): Promise<Buffer | null> {
  let fd: number;
  let size: number | null;
  try {
    // Not blocking: opening a FIFO (a test's stand-in for a file still being written) would wait here for a writer.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (ex) {
    return (ex as NodeJS.ErrnoException).code === 'ENOENT' ? Promise.resolve(null) : Promise.reject(ex);
  }
  try {
    const stats = fstatSync(fd);
    size = stats.isFile() ? stats.size : null;
  } catch (ex) {
    closeSync(fd);
    return Promise.reject(ex);
  }
  if (size === null) {
    // No regular file (a folder, a FIFO, a device): read as readFile reads, to its end, or refused as it refuses.
    closeSync(fd);
    return readFile(path).catch((ex: NodeJS.ErrnoException) => (ex.code === 'ENOENT' ? null : Promise.reject(ex)));
  }
  return readWhole(fd, size);
}

/** The `size` bytes of the regular file open as `fd` (fewer if it is shorter now), which it then closes. */
function readWhole(fd: number, size: number): Promise<Buffer> {
  const bytes = resizableBuffer(size) ?? Buffer.allocUnsafeSlow(size);
  return new Promise((resolve, reject) => {
    const from = (offset: number): void => {
      if (offset === size) {
        closeSync(fd);
        resolve(bytes);
        return;
      }
      read(fd, bytes, offset, Math.min(size - offset, MAX_READ), offset, (err, n) => {
        if (err) {
          closeSync(fd);
          reject(err);
        } else if (n === 0) {
          closeSync(fd); // shorter than when it was opened
          resolve(bytes.subarray(0, offset));
        } else {
          from(offset + n);
        }
      });
    };
    from(0);
  });
}

/** A Buffer of `size` bytes on a buffer that can grow to FILE_MAX; null past it, or where buffers cannot be resized. */
function resizableBuffer(size: number): Buffer | null {
  if (size > FILE_MAX) return null;
  try {
    const Resizable = ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => ArrayBuffer;
    return Buffer.from(new Resizable(size, { maxByteLength: FILE_MAX }), 0, size);
  } catch {
    return null;
  }
}

/** A snapshot file being read ahead of the open: the file (links followed, as openStore names it) and its bytes. */
export interface SnapshotRead {
  path: string;
  bytes: Promise<Buffer | null>;
}

/**
 * Starts reading the snapshot of the database at `dbPath` for an open that follows. Only under the database's lock,
 * taken before this is called: nobody else replaces the file meanwhile, so the bytes are the file the open would
 * read. A failure is the open's to report (it awaits the same promise); unread, it is dropped.
 */
export function readSnapshotAhead(dbPath: string): SnapshotRead {
  const path = followLinks(dbPath);
  const bytes = readSnapshotFile(path);
  bytes.catch(() => undefined);
  return { path, bytes };
}
