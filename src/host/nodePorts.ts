// Node implementations of the core's ports.
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { BatonError } from '../core/errors.js';
import type { Clock, Crypto, FileEntry, FileSystem, Ids, Log } from '../core/ports.js';

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Random UUIDs. */
export const randomIds: Ids = { uuid: () => randomUUID() };

/** node:crypto. */
export const nodeCrypto: Crypto = {
  hmacSha256: (key, data) => createHmac('sha256', key).update(data).digest('base64url'),
  randomHex: (n) => randomBytes(n).toString('hex'),
  timingSafeEqual: (a, b) => {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  },
  sha256: (data) => createHash('sha256').update(data).digest('hex'),
};

/** Content files on disk. */
export const nodeFileSystem: FileSystem = {
  async list(dir) {
    const out: FileEntry[] = [];
    let entries;
    try {
      entries = await readdir(dir, { recursive: true, withFileTypes: true });
    } catch (ex) {
      if ((ex as NodeJS.ErrnoException).code === 'ENOENT') return out;
      throw ex;
    }
    for (const e of entries) {
      const abs = join(e.parentPath ?? (e as unknown as { path: string }).path, e.name);
      // A link to a file is that file (a workflow kept elsewhere and linked in); a broken link or a loop is skipped.
      if (!e.isFile() && !(e.isSymbolicLink() && (await isFileBehind(abs)))) continue;
      out.push({ relativePath: relative(dir, abs).split(sep).join('/'), absolutePath: abs });
    }
    return out.sort((a, b) => a.relativePath.localeCompare(b.relativePath));
  },
  readText: (path) => readFile(path, 'utf8'),
  async exists(path) {
    try {
      await stat(path);
      return true;
    } catch {
      return false;
    }
  },
};

/** Whether a symbolic link leads to a file. */
async function isFileBehind(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Levels in increasing order. */
const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** A log that writes to stderr (stdout belongs to JSON-RPC). */
export function stderrLog(minLevel: (typeof LEVELS)[number] = 'info'): Log {
  const min = LEVELS.indexOf(minLevel);
  const write = (level: (typeof LEVELS)[number]) => (message: string, ...args: unknown[]) => {
    if (LEVELS.indexOf(level) < min) return;
    // An expected failure (a BatonError) is its message, which says what to do; only an unexpected one needs its stack.
    const extra = args.length ? ' ' + args.map((a) => (BatonError.is(a) ? a.message : a instanceof Error ? a.stack ?? a.message : JSON.stringify(a))).join(' ') : '';
    process.stderr.write(`[baton] ${level}: ${message}${extra}\n`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
