// Headless spec sources: a tasks.md read from disk and its boxes ticked with an atomic write (temp file, flush,
// rename) that refuses when the file no longer holds the text the edits were planned on.
import { open, readFile, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { BatonError } from '../core/errors.js';
import { applyEdits } from '../core/specs/writeBack.js';
import type { ApplyOutcome, SpecSourcePort, TextEdit } from '../core/specTypes.js';

/**
 * The file's text, or undefined when there is none; `stripBom` drops a byte-order mark (as an editor's buffer does).
 * A file that is not UTF-8 is refused (`source_parse_failed`, naming the line): its text could not be written back
 * without changing the bytes that are not UTF-8.
 */
export async function readIfThere(path: string, stripBom = false): Promise<string | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (ex) {
    if ((ex as NodeJS.ErrnoException).code === 'ENOENT' || (ex as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
    throw ex;
  }
  const text = utf8Text(bytes, path);
  return stripBom && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** `bytes` as text when they are UTF-8; otherwise a `source_parse_failed` naming the first line that is not. */
export function utf8Text(bytes: Buffer, path: string): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  // A newline byte is never part of a multi-byte sequence, so each line can be checked alone.
  let line = 1;
  for (let start = 0; start <= bytes.length; line++) {
    const end = bytes.indexOf(0x0a, start);
    const stop = end < 0 ? bytes.length : end;
    if (!isUtf8(bytes.subarray(start, stop))) break;
    start = stop + 1;
  }
  const problem = `is not UTF-8 text (line ${line} has bytes that are not UTF-8); save it as UTF-8 and try again`;
  throw new BatonError(
    'source_parse_failed',
    `${path} ${problem}: Baton ticks its boxes by editing its text, which would change those bytes.`,
    { path, file: path, line, problem: `it ${problem}` },
  );
}

/** Writes `text` to `path` atomically: a temp file beside it (same mode), flushed, then renamed over it. */
async function writeAtomic(path: string, text: string): Promise<void> {
  const mode = (await stat(path)).mode & 0o777;
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.baton-tmp`);
  const fh = await open(tmp, 'wx', mode);
  try {
    await fh.writeFile(text, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, path);
  } catch (ex) {
    await unlink(tmp).catch(() => undefined);
    throw ex;
  }
}

/** The real path of `path`, or undefined when it does not resolve. */
export async function realPathOrNone(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

/** The files on disk as a spec source port. */
export const fileSpecSource: SpecSourcePort = {
  read: (path) => readIfThere(path),
  realPath: realPathOrNone,
  async apply(path: string, base: string, edits: TextEdit[]): Promise<ApplyOutcome> {
    let now: string | undefined;
    try {
      now = await readIfThere(path);
    } catch (ex) {
      if (ex instanceof BatonError) return { applied: false, reason: `${ex.message} Nothing was written.` };
      throw ex;
    }
    if (now === undefined) return { applied: false, reason: `${path} no longer exists` };
    if (now !== base) return { applied: false, reason: `${path} changed since it was read; nothing was written` };
    const target = await realpath(path);
    const next = applyEdits(base, edits);
    // The last look before the rename narrows the window in which another writer's change could be lost.
    if ((await readIfThere(target)) !== base) return { applied: false, reason: `${path} changed while it was being written; nothing was written` };
    await writeAtomic(target, next);
    return { applied: true };
  },
};
