// Node implementations of the core's ports.
import { createHash, hash, randomBytes, randomFillSync, randomUUID, timingSafeEqual } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join, relative, sep } from 'node:path';
import { BatonError } from '../core/errors.js';
import { HEX_BYTES } from '../core/hex.js';
import type { Clock, Crypto, FileEntry, FileSystem, Ids, Log } from '../core/ports.js';

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Random bytes drawn 4 KiB at a time (as node's randomUUID does): one system call per 409 ids, not one each. */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolAt = POOL_BYTES;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits. Ids made later sort later, so the
 * unique indexes on ids (events, artifacts, step tokens, the call log) grow at their right edge instead of taking a
 * random page of the b-tree each, which made every insert slower as the database grew.
 */
export function uuidV7(now = Date.now()): string {
  if (poolAt + 10 > POOL_BYTES) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const r = poolAt;
  poolAt += 10;
  const hi = Math.floor(now / 0x10000); // the top 32 of the 48 bits
  const t = HEX_BYTES[(hi >>> 24) & 0xff]! + HEX_BYTES[(hi >>> 16) & 0xff]! + HEX_BYTES[(hi >>> 8) & 0xff]! + HEX_BYTES[hi & 0xff]!;
  const lo = HEX_BYTES[(now >>> 8) & 0xff]! + HEX_BYTES[now & 0xff]!;
  const ver = HEX_BYTES[0x70 | (pool[r]! & 0x0f)]! + HEX_BYTES[pool[r + 1]!]!;
  const variant = HEX_BYTES[0x80 | (pool[r + 2]! & 0x3f)]! + HEX_BYTES[pool[r + 3]!]!;
  let node = '';
  for (let i = r + 4; i < r + 10; i++) node += HEX_BYTES[pool[i]!]!;
  return `${t}-${lo}-${ver}-${variant}-${node}`;
}

/** Who decides, as a decision records it: the face a person used and their OS user ("cli:ada", "vscode:ada"). */
export function deciderOn(face: string): string {
  return `${face}:${process.env.USER || osUser() || 'user'}`;
}

/** The OS user's name where USER is not set (a container, a service); undefined when it has none (no passwd entry). */
function osUser(): string | undefined {
  try {
    return userInfo().username || undefined;
  } catch {
    return undefined; // a uid without a name: the placeholder it is
  }
}

/** Random UUIDs (version 4), and time-ordered ones (version 7) for the rows written on every call. */
export const randomIds: Ids = { uuid: () => randomUUID(), orderedUuid: () => uuidV7() };

/**
 * HMAC-SHA256 (RFC 2104) as two one-shot hashes over the key's padded blocks, kept for the last key: every call signs
 * and checks a step token under the same per-database secret. In `baton serve` under 16 HTTP clients, createHmac with
 * a key object took 28-29 µs at the median and this 19, the builds' calls alternating in one process: createHmac's
 * objects cost more than the hashing. The inner block and the message are written into one buffer, kept for messages
 * up to HMAC_SCRATCH bytes (a step token's body is about 220).
 */
class HmacSha256 {
  private readonly inner: Buffer;
  /** The outer block followed by the inner hash. */
  private readonly outer = Buffer.alloc(64 + 32);
  private scratch: Buffer | null = null;

  constructor(readonly keyText: string) {
    let key = Buffer.from(keyText, 'utf8');
    if (key.length > 64) key = hash('sha256', key, 'buffer');
    this.inner = Buffer.alloc(64, 0x36);
    this.outer.fill(0x5c, 0, 64);
    for (let i = 0; i < key.length; i++) {
      this.inner[i]! ^= key[i]!;
      this.outer[i]! ^= key[i]!;
    }
  }

  digest(data: string): string {
    const most = 64 + 3 * data.length; // UTF-8 takes at most 3 bytes per UTF-16 unit
    let message: Buffer;
    if (most <= HMAC_SCRATCH) {
      if (!this.scratch) {
        this.scratch = Buffer.allocUnsafe(HMAC_SCRATCH);
        this.inner.copy(this.scratch);
      }
      message = this.scratch.subarray(0, 64 + this.scratch.write(data, 64, 'utf8'));
    } else {
      message = Buffer.concat([this.inner, Buffer.from(data, 'utf8')]);
    }
    hash('sha256', message, 'buffer').copy(this.outer, 64);
    return hash('sha256', this.outer, 'base64url');
  }
}

const HMAC_SCRATCH = 4096;
let lastHmac: HmacSha256 | undefined;

/** node:crypto. */
export const nodeCrypto: Crypto = {
  hmacSha256: (key, data) => (lastHmac?.keyText === key ? lastHmac : (lastHmac = new HmacSha256(key))).digest(data),
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
  async isFile(path) {
    try {
      return (await stat(path)).isFile();
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
