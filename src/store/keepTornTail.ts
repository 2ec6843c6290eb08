// What opening cuts from the end of a journal is copied aside first: a torn last write is most likely one that was
// never acknowledged, but nothing proves it (a damaged record amid an intact flush group looks the same).
import { closeSync, fsyncSync, openSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { BatonError, errorMessage } from '../core/errors.js';
import { fsyncDirSync } from './durableFile.js';

/** How many copies of cut tails are kept beside a journal; older ones are removed. */
export const TORN_COPIES_KEPT = 5;

/**
 * Writes `bytes` (the tail about to be cut from `journalPath`) to a new synced `<journal>.torn-<time>` beside it and
 * returns its path; removes all but the newest TORN_COPIES_KEPT such files. A copy that cannot be made is refused
 * (store_failed): the tail is then not cut either.
 */
export function keepTornTail(journalPath: string, bytes: Uint8Array): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let path = `${journalPath}.torn-${stamp}`;
  try {
    let fd: number | null = null;
    for (let n = 2; fd === null; n++) {
      try {
        fd = openSync(path, 'wx', 0o600);
      } catch (ex) {
        if ((ex as NodeJS.ErrnoException).code !== 'EEXIST' || n > 100) throw ex;
        path = `${journalPath}.torn-${stamp}-${n}`;
      }
    }
    try {
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    fsyncDirSync(dirname(path));
  } catch (ex) {
    throw new BatonError(
      'store_failed',
      `${journalPath} ends in ${bytes.length} bytes that are not whole records (a write torn by a crash), and Baton could not keep a copy of them before cutting them (${errorMessage(ex)}). Baton left the journal as it was: mend the cause, or move the journal aside, then start Baton again.`,
      { path: journalPath },
    );
  }
  pruneCopies(journalPath);
  return path;
}

/** Removes all but the newest TORN_COPIES_KEPT copies (their names sort by time). */
function pruneCopies(journalPath: string): void {
  const prefix = `${basename(journalPath)}.torn-`;
  const dir = dirname(journalPath);
  const copies = readdirSync(dir).filter((name) => name.startsWith(prefix)).sort();
  for (const name of copies.slice(0, Math.max(0, copies.length - TORN_COPIES_KEPT))) {
    try {
      unlinkSync(join(dir, name));
    } catch {
      // another copy's removal failing loses nothing new
    }
  }
}
