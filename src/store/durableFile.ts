// Crash-safe file replacement: write a temp file in the same folder, fsync it, rename it over the
// target, fsync the folder.
import { closeSync, fchmodSync, fdatasync, fsync, fsyncSync, linkSync, openSync, renameSync, statSync, unlinkSync, write, writeSync } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import { promisify } from 'node:util';
import { dirname } from 'node:path';
import { SNAPSHOT_CHUNK, type SnapshotSource } from './fileSnapshot.js';

// Windows cannot open or fsync a directory; its renames are durable enough once the file is flushed.
const dirSyncUnsupported = (code: string | undefined) =>
  process.platform === 'win32' || code === 'EISDIR' || code === 'EINVAL' || code === 'EPERM';

/** fsyncs a directory so a rename inside it survives power loss. */
export function fsyncDirSync(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch (ex) {
    if (dirSyncUnsupported((ex as NodeJS.ErrnoException).code)) return;
    throw ex;
  }
  try {
    fsyncSync(fd);
  } catch (ex) {
    if (!dirSyncUnsupported((ex as NodeJS.ErrnoException).code)) throw ex;
  } finally {
    closeSync(fd);
  }
}

const fsyncAsync = promisify(fsync);
const fdatasyncAsync = promisify(fdatasync);
/**
 * A snapshot is synced every this many bytes as it is written, not only at its end: the journal's syncs (each call's)
 * then wait behind at most this much of it, not behind the whole file's writeback.
 */
const SYNC_EVERY = 16 * SNAPSHOT_CHUNK;
const writeAsync = promisify(write);

let tempCounter = 0;
const tempPathOf = (path: string) => `${path}.tmp-${process.pid}-${++tempCounter}`;

/**
 * Opens the temp file that will replace `path`, with `path`'s permission bits (a user's 0640 or 0444 stays as it
 * was); 0600 for a new file.
 */
function openTempFor(path: string, temp: string): number {
  let mode = 0o600;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    // no file yet: a new database is the user's alone
  }
  const fd = openSync(temp, 'w', 0o600);
  try {
    if (mode !== 0o600) fchmodSync(fd, mode);
  } catch (ex) {
    closeSync(fd);
    removeQuietly(temp); // made here: not left for the next open
    throw ex;
  }
  return fd;
}

/** Writes all of `data` at byte `at` of `fd`, inline. */
export function writeFullySync(fd: number, data: Uint8Array, at: number): void {
  for (let done = 0; done < data.length; ) done += writeSync(fd, data, done, data.length - done, at + done);
}

/** Writes all of `data` at byte `at` of `fd`, on the thread pool. */
async function writeFully(fd: number, data: Uint8Array, at: number): Promise<void> {
  for (let done = 0; done < data.length; ) done += (await writeAsync(fd, data, done, data.length - done, at + done)).bytesWritten;
}

/**
 * Atomically and durably replaces `path` with the snapshot `source` (multi-MB databases). The chunks are written
 * and synced on the thread pool; the event loop only reads each chunk from `source`. `renamed` is called as soon as
 * the new file is at `path`, before its folder is synced.
 */
export async function replaceFileDurable(path: string, source: SnapshotSource, renamed: () => void = () => undefined): Promise<void> {
  const temp = tempPathOf(path);
  let fd: number | null = null;
  try {
    fd = openTempFor(path, temp);
    for (let offset = 0; offset < source.size; ) {
      const chunk = source.read(offset, Math.min(SNAPSHOT_CHUNK, source.size - offset));
      await writeFully(fd, chunk, offset);
      offset += chunk.length;
      if (offset % SYNC_EVERY === 0 && offset < source.size) await fdatasyncAsync(fd);
    }
    await fsyncAsync(fd);
    const opened = fd;
    fd = null;
    closeSync(opened);
    await rename(temp, path);
  } catch (ex) {
    if (fd !== null) closeSync(fd);
    await unlink(temp).catch(() => undefined);
    throw ex;
  }
  renamed();
  fsyncDirSync(dirname(path));
}

/**
 * A temp file beside `target` that is to replace it (commitReplaceSync), written in pieces at its end: on the thread
 * pool while the caller's calls go on, then the last piece inline. On any failure the caller discards it.
 */
export class TempFile {
  private written = 0;

  private constructor(
    readonly path: string,
    private fd: number | null,
  ) {}

  /** Opens a new temp file for `target`, with `target`'s permission bits (see openTempFor). */
  static open(target: string): TempFile {
    const temp = tempPathOf(target);
    return new TempFile(temp, openTempFor(target, temp));
  }

  /** Appends `data` on the thread pool. */
  async append(data: Uint8Array): Promise<void> {
    await writeFully(this.openFd(), data, this.written);
    this.written += data.length;
  }

  /** Appends `data` inline. */
  appendSync(data: Uint8Array): void {
    writeFullySync(this.openFd(), data, this.written);
    this.written += data.length;
  }

  /** fdatasync on the thread pool: what is written so far is on disk, and the inline sync at the end waits less. */
  async syncAsync(): Promise<void> {
    await fdatasyncAsync(this.openFd());
  }

  /** fsyncs and closes the file inline; returns its path for commitReplaceSync. */
  finishSync(): string {
    const fd = this.openFd();
    fsyncSync(fd);
    this.fd = null;
    closeSync(fd);
    return this.path;
  }

  /** Closes the file if open and removes it if it can (one left behind is removed by the next open). */
  discard(): void {
    if (this.fd !== null) {
      const fd = this.fd;
      this.fd = null;
      try {
        closeSync(fd);
      } catch {
        // the error that made the caller discard it is the one it reports
      }
    }
    removeQuietly(this.path);
  }

  private openFd(): number {
    if (this.fd === null) throw new Error(`temp file ${this.path} is closed`);
    return this.fd;
  }
}

/**
 * Renames a finished temp file (TempFile.finishSync) over `path` and syncs the folder. A rename over a file's last
 * name frees its blocks before it returns, on the caller's thread (100 ms for 300 MB on ext4: the journal a checkpoint
 * compacts is most of that size on a large database), so the file it replaces gets a second name first (a hard link,
 * where the file system has them) and the rename only drops a name. Returns the removal of that second name, on the
 * thread pool, which always resolves (a name it could not remove is a temp the next open removes); null where none was
 * made.
 */
export function commitReplaceSync(temp: string, path: string): Promise<void> | null {
  const aside = tempPathOf(path);
  let linked = false;
  try {
    linkSync(path, aside);
    linked = true;
  } catch {
    // No hard links on this file system (or no file yet): the rename frees the old file itself.
  }
  try {
    renameSync(temp, path);
    fsyncDirSync(dirname(path));
  } catch (ex) {
    if (linked) removeQuietly(aside);
    throw ex;
  }
  return linked ? unlink(aside).catch(() => undefined) : null;
}

/** Removes the temp `path` if it can; one left behind is removed by the next open. */
function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // see above
  }
}
