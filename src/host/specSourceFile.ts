// Headless spec sources: a tasks.md read from disk and its boxes ticked with an atomic write (temp file, flush,
// rename) that refuses when the file no longer holds the text the edits were planned on.
import { open, readFile, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { applyEdits } from '../core/specs/writeBack.js';
import type { ApplyOutcome, SpecSourcePort, TextEdit } from '../core/specTypes.js';

async function readIfThere(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (ex) {
    if ((ex as NodeJS.ErrnoException).code === 'ENOENT' || (ex as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
    throw ex;
  }
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

/** The files on disk as a spec source port. */
export const fileSpecSource: SpecSourcePort = {
  read: (path) => readIfThere(path),
  async realPath(path) {
    try {
      return await realpath(path);
    } catch {
      return undefined;
    }
  },
  async apply(path: string, base: string, edits: TextEdit[]): Promise<ApplyOutcome> {
    const now = await readIfThere(path);
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
