// The spec's FileContextProvider: a team's context as human-readable files under its context directory (default
// `.workflow/<instance>/`):
//   channel.md            the channel, append-only (encoding: src/core/worker/channelMarkdown.ts)
//   notes.md              the entry-point document; every other file under the directory is a document too
//   .baton-inbox.json     read cursors { agent: ISO timestamp }, replaced atomically (write + rename)
//   .baton-lock           held (with the holder's pid) while appending or moving a cursor, so that several
//                         processes share one context; a lock whose process is gone is taken over
// Appends happen under the lock (so timestamps increase across processes) as one O_APPEND write of a whole entry
// (so entries never interleave). Document paths are checked twice: as text (no `..`, not absolute: core rules) and
// on disk (realpath inside the directory, so a symlink cannot lead out).
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, readFile, realpath, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { BatonError } from '../../core/errors.js';
import type { Clock } from '../../core/ports.js';
import { utf8Length } from '../../core/utf8.js';
import { channelWindow, nextTimestamp } from '../../core/worker/channel.js';
import { formatChannelEntry, lastChannelTimestamp, parseChannelMarkdown } from '../../core/worker/channelMarkdown.js';
import { checkDocumentSize, checkMessage, checkSender, CONTEXT_LIMITS, normalizeDocumentPath } from '../../core/worker/contextLimits.js';
import { advanceCursor, deriveInbox, extractMentions, normalizeTimestamp } from '../../core/worker/mentions.js';
import { entryDocument, existingDocument, missingDocument, tooManyDocuments, type ContextProviderOptions } from '../../core/worker/memoryContextProvider.js';
import type { ChannelEntry, ContextProvider, InboxMessage } from '../../core/worker/types.js';
import { isPidAlive } from '../../store/lock.js';

/** Options of the file provider: the context directory and its file names (the spec's `context.config`). */
export interface FileContextOptions extends ContextProviderOptions {
  /** The context directory (created when missing). */
  dir: string;
  /** The channel file; `channel.md` unless set. */
  channel?: string;
  /** A directory under the context directory for further documents (created when missing). */
  documentsDir?: string;
}

const CURSORS = '.baton-inbox.json';
const LOCK = '.baton-lock';
/** A lock older than this is taken over (its holder hung); one whose process is gone is taken over at once. */
const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 20_000;
/** How much of the channel's end is read to find the newest timestamp (an entry is at most ~64 KB). */
const TAIL_BYTES = 256 * 1024;

/** A context in files. */
export class FileContextProvider implements ContextProvider {
  /** The channel as last parsed, with the file's size and mtime then. */
  private cache: { size: number; mtimeMs: number; entries: ChannelEntry[] } | undefined;

  private constructor(
    /** The context directory, real path. */
    readonly root: string,
    private readonly channel: string,
    private readonly entry: string,
    private readonly agents: readonly string[],
    private readonly clock: Clock,
  ) {}

  /** Opens (and creates) the context directory, the channel file and the listed documents. */
  static async open(options: FileContextOptions): Promise<FileContextProvider> {
    await mkdir(options.dir, { recursive: true });
    const root = await realpath(options.dir);
    const channel = normalizeDocumentPath(options.channel ?? 'channel.md');
    const entry = normalizeDocumentPath(options.document ?? 'notes.md', [channel]);
    const p = new FileContextProvider(root, channel, entry, options.agents, options.clock ?? { now: () => Date.now() });
    await mkdir(dirname(join(root, channel)), { recursive: true });
    await writeFile(join(root, channel), '', { flag: 'a' });
    if (options.documentsDir) await mkdir(await p.resolve(options.documentsDir, true), { recursive: true });
    for (const d of options.documents ?? []) {
      const path = await p.resolve(d, true);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, '', { flag: 'a' });
    }
    return p;
  }

  /** The channel file's absolute path. */
  get channelPath(): string {
    return join(this.root, this.channel);
  }

  async appendChannel(from: string, message: string): Promise<ChannelEntry> {
    checkSender(from);
    checkMessage(message);
    return this.locked(async () => {
      const timestamp = nextTimestamp(this.clock.now(), await this.newest());
      const handle = await open(this.channelPath, 'a');
      try {
        await handle.write(formatChannelEntry({ timestamp, from, message }));
      } finally {
        await handle.close();
      }
      return { timestamp, from, message, mentions: extractMentions(message, this.agents) };
    });
  }

  async readChannel(since?: string, limit?: number): Promise<ChannelEntry[]> {
    return channelWindow(await this.entries(), since, limit);
  }

  async getInbox(agent: string): Promise<InboxMessage[]> {
    return deriveInbox(await this.entries(), agent, (await this.cursors())[agent]);
  }

  async ackInbox(agent: string, until: string): Promise<void> {
    const at = normalizeTimestamp(until);
    await this.locked(async () => {
      const cursors = await this.cursors();
      const next = advanceCursor(cursors[agent], at, await this.newest());
      if (next === undefined || next === cursors[agent]) return;
      cursors[agent] = next;
      const tmp = join(this.root, `${CURSORS}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
      await writeFile(tmp, `${JSON.stringify(cursors, null, 2)}\n`);
      await rename(tmp, join(this.root, CURSORS));
    });
  }

  async peekInbox(agent: string): Promise<InboxMessage[]> {
    return this.getInbox(agent);
  }

  async readDocument(file?: string): Promise<string> {
    const rel = this.rel(file);
    const path = await this.resolve(rel);
    try {
      return await readFile(path, 'utf8');
    } catch (ex) {
      if ((ex as NodeJS.ErrnoException).code !== 'ENOENT') throw ex;
      if (rel === this.entry) return '';
      throw missingDocument(rel, await this.listDocuments());
    }
  }

  async writeDocument(content: string, file?: string): Promise<void> {
    const rel = this.rel(file);
    checkDocumentSize(content, rel);
    const path = await this.resolve(rel, true);
    if (!(await exists(path))) await this.checkRoom();
    await mkdir(dirname(path), { recursive: true });
    const tmp = join(this.root, `.baton-write.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    await writeFile(tmp, content);
    await rename(tmp, path);
  }

  async appendDocument(content: string, file?: string): Promise<void> {
    const rel = this.rel(file);
    const path = await this.resolve(rel, true);
    const size = (await exists(path)) ? (await stat(path)).size : (await this.checkRoom(), 0);
    checkDocumentSize(size + utf8Length(content), rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content, { flag: 'a' });
  }

  async listDocuments(): Promise<string[]> {
    const found = new Set<string>([this.entry]);
    const walk = async (dir: string): Promise<void> => {
      for (const d of await readdir(dir, { withFileTypes: true })) {
        if (d.name.startsWith('.baton-')) continue;
        const full = join(dir, d.name);
        const rel = relative(this.root, full).split(sep).join('/');
        if (d.isDirectory()) await walk(full);
        else if (d.isFile() && rel !== this.channel) found.add(rel);
      }
    };
    await walk(this.root);
    return [...found].sort();
  }

  async createDocument(file: string, content: string): Promise<void> {
    const rel = this.rel(file);
    checkDocumentSize(content, rel);
    const path = await this.resolve(rel, true);
    await this.checkRoom();
    await mkdir(dirname(path), { recursive: true });
    try {
      await writeFile(path, content, { flag: 'wx' });
    } catch (ex) {
      if ((ex as NodeJS.ErrnoException).code === 'EEXIST') throw existingDocument(rel);
      throw ex;
    }
  }

  async deleteDocument(file: string): Promise<void> {
    const rel = this.rel(file);
    if (rel === this.entry) throw entryDocument(rel);
    const path = await this.resolve(rel);
    try {
      await unlink(path);
    } catch (ex) {
      if ((ex as NodeJS.ErrnoException).code === 'ENOENT') throw missingDocument(rel, await this.listDocuments());
      throw ex;
    }
  }

  /**
   * The entries of the channel file. Parsed entries are kept; a file that only grew is parsed from where the last
   * parse ended (appends add whole entries). Reading a changed file takes the lock, so it never sees half an append.
   */
  private async entries(): Promise<ChannelEntry[]> {
    const before = await stat(this.channelPath);
    if (this.cache && this.cache.size === before.size && this.cache.mtimeMs === before.mtimeMs) return this.cache.entries;
    return this.locked(async () => {
      const handle = await open(this.channelPath, 'r');
      try {
        const now = await handle.stat();
        const grown = this.cache !== undefined && now.size > this.cache.size;
        const start = grown ? this.cache!.size : 0;
        const buffer = Buffer.alloc(now.size - start);
        await handle.read(buffer, 0, buffer.length, start);
        const parsed = parseChannelMarkdown(buffer.toString('utf8'), this.agents);
        const entries = grown ? [...this.cache!.entries, ...parsed] : parsed;
        this.cache = { size: now.size, mtimeMs: now.mtimeMs, entries };
        return entries;
      } finally {
        await handle.close();
      }
    });
  }

  /** The newest entry's timestamp, from the end of the channel file. */
  private async newest(): Promise<string | undefined> {
    const handle = await open(this.channelPath, 'r');
    try {
      const { size } = await handle.stat();
      // Most entries are short: look at the last few KB first, then at a tail that holds any entry, then everywhere.
      for (const tail of [8 * 1024, TAIL_BYTES, size]) {
        const start = Math.max(0, size - tail);
        const buffer = Buffer.alloc(size - start);
        await handle.read(buffer, 0, buffer.length, start);
        const found = lastChannelTimestamp(buffer.toString('utf8'));
        if (found || start === 0) return found;
      }
      return undefined;
    } finally {
      await handle.close();
    }
  }

  private async cursors(): Promise<Record<string, string>> {
    try {
      const parsed = JSON.parse(await readFile(join(this.root, CURSORS), 'utf8')) as unknown;
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
    } catch (ex) {
      if ((ex as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new BatonError('invalid_state', `the read cursors in ${join(this.root, CURSORS)} are unreadable (${(ex as Error).message}); delete the file to mark every message unread`);
    }
  }

  private rel(file: string | undefined): string {
    return file === undefined ? this.entry : normalizeDocumentPath(file, [this.channel]);
  }

  /** The absolute path of a document, after checking on disk that it (or, when `forWrite`, its nearest existing ancestor) stays inside. */
  private async resolve(file: string, forWrite = false): Promise<string> {
    const rel = normalizeDocumentPath(file, [this.channel]);
    const path = resolve(this.root, rel);
    let probe = path;
    for (;;) {
      const info = await lstat(probe).catch(() => undefined);
      if (info) break;
      if (!forWrite && probe === path) return path;
      probe = dirname(probe);
    }
    const real = await realpath(probe).catch(() => undefined);
    if (!real || (real !== this.root && !real.startsWith(this.root + sep))) {
      throw new BatonError('invalid_input', `document path ${JSON.stringify(rel)} leads out of the context directory (through a symbolic link); use a path relative to the context directory, such as notes.md or findings/auth.md.`);
    }
    return path;
  }

  private async checkRoom(): Promise<void> {
    if ((await this.listDocuments()).length >= CONTEXT_LIMITS.documents) throw tooManyDocuments();
  }

  /** Runs `fn` holding the context's lock file (created exclusively; taken over when older than LOCK_STALE_MS). */
  private async locked<T>(fn: () => Promise<T>): Promise<T> {
    const lock = join(this.root, LOCK);
    const started = Date.now();
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      try {
        await writeFile(lock, `${process.pid}\n`, { flag: 'wx' });
        break;
      } catch (ex) {
        if ((ex as NodeJS.ErrnoException).code !== 'EEXIST') throw ex;
        const age = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0);
        if (age > LOCK_STALE_MS || (await holderGone(lock))) await rm(lock, { force: true });
        else if (Date.now() - started > LOCK_WAIT_MS) {
          throw new BatonError('invalid_state', `the context ${this.root} stayed locked for ${LOCK_WAIT_MS / 1000} s (${lock}); if no team is running there, delete that file`);
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    }
    try {
      return await fn();
    } finally {
      await rm(lock, { force: true });
    }
  }
}

/** Whether the process that wrote the lock file (its pid) has ended, e.g. killed while holding it. */
async function holderGone(lock: string): Promise<boolean> {
  const pid = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
  // A lock without a readable pid is left to the age rule.
  return Number.isInteger(pid) && pid > 0 && !isPidAlive(pid);
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(() => true, () => false);
}
