// Appends committed transactions to the journal with group commit, and compacts it after a
// checkpoint. A failed write or fdatasync stops all further writes (store_failed).
import { BatonError, errorMessage } from '../core/errors.js';
import type { Log } from '../core/ports.js';
import { commitReplaceSync, TempFile } from './durableFile.js';
import { encodeFrame, encodeHeaderFrame, type JournalFile } from './journal.js';
import { tracePoint } from '../shared/tracePoints.js';

/** A promise with its settle functions. */
export interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(ex: unknown): void;
}

export function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (ex: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** What to do before restarting, by the error that stopped the journal. */
const FIXES: Record<string, string> = {
  ENOSPC: 'Free disk space',
  EDQUOT: 'Free space within your disk quota',
  EFBIG: "Raise the file-size limit (ulimit -f) of Baton's process",
  EACCES: 'Make the journal and its folder writable again',
  EPERM: 'Make the journal and its folder writable again (check chattr/immutable flags)',
  EROFS: 'Remount the file system read-write, or move the database (--db)',
  EIO: 'Check the disk: it reported an I/O error',
};

/**
 * A compaction's copy of the journal's tail: the records after byte `offset` (those after the snapshot's `seq`), of
 * which `copied` bytes are in `temp` (null: none yet). Discard `temp` when the compaction is given up.
 */
export interface TailCopy {
  offset: number;
  seq: number;
  copied: number;
  temp: TempFile | null;
}

/** The most a compaction copies per round on the thread pool, and the most it leaves for its inline copy. */
const COPY_STEP = 8 * 1024 * 1024;
const COPY_INLINE = 64 * 1024;
/** Rounds at most: calls that write faster than the copy runs leave the rest to the inline copy. */
const COPY_ROUNDS = 16;

/** How long a background record may wait for a group to ride with before it is flushed on its own. */
export const BACKGROUND_FLUSH_MS = 1000;

/**
 * The journal of one open store. Group commit: every record queued since the last flush goes out in one
 * write and one fdatasync. A lone record is synced inline (the thread-pool hand-off would cost more than
 * it saves); a group of several, or one that formed while a sync was in flight, is synced on the thread
 * pool so the event loop keeps serving calls, and the next group accumulates behind it. A group is only
 * written once the one before it is on disk, so only the last group in the file can ever be torn.
 *
 * A background record (a write no call waits for: the call log) starts no flush of its own: it goes out with the
 * next group, or after BACKGROUND_FLUSH_MS with its sync on the thread pool. It never costs an inline sync of its own,
 * and it does not make a lone call's group look concurrent.
 */
export class JournalWriter {
  /** Seq of the last committed write transaction (flushed or queued). */
  lastSeq = 0;
  /** Records and bytes in the journal file (flushed only). */
  records = 0;
  bytes = 0;
  failure: BatonError | null = null;
  /**
   * The database's id once its snapshot on disk holds it (see journal.ts): a journal written from empty opens with a
   * header naming it, so that it is never replayed into another database. Null: no header (an older snapshot).
   */
  databaseId: number | null = null;
  private queue: { seq: number; statements: string[] }[] = [];
  /** How many of the queued records are not background ones (a call waits for each). */
  private waited = 0;
  /** The records queued and not yet written. */
  private group: Deferred | null = null;
  /** A flush of `group` is scheduled on the next turn (or follows the sync in flight). */
  private flushQueued = false;
  /** The timer that flushes a group of background records only. */
  private backgroundTimer: NodeJS.Timeout | null = null;
  /** Whether the first call of `group` came while a sync was in flight (the calls are concurrent). */
  private groupBehind = false;
  /** The group whose fdatasync runs on the thread pool. */
  private syncing: Deferred | null = null;
  private closeWhenSynced = false;
  private readonly flushBound = () => this.flush();

  constructor(
    readonly path: string,
    private file: JournalFile,
    private readonly openFile: (path: string) => JournalFile,
    private readonly durability: 'fsync' | 'write',
    private readonly log: Log,
    private readonly onFlushed: () => void,
    /**
     * Whether this process still owns the database (its lock); the failure to give when it does not, and who to tell
     * (once) when it finds it does not.
     */
    private readonly ownership: { held: () => boolean; lost: () => BatonError; onLost?: (failure: BatonError) => void } | null = null,
  ) {}

  /** Whether another process changed the journal file since this one last did (see JournalFile.changedByOthers). */
  changedByOthers(): boolean {
    return this.file.changedByOthers?.() ?? false;
  }

  /**
   * Fails (store_failed, and every write from now on) when this process no longer owns the database: its journal and
   * snapshot are another process's now, and a write or checkpoint of this one would overwrite what that one wrote.
   */
  assertOwned(): void {
    if (!this.failure && this.ownership && !this.ownership.held()) {
      this.failure = this.ownership.lost();
      this.log.error(`store: ${this.failure.message}`);
      this.ownership.onLost?.(this.failure);
    }
    if (this.failure) throw this.failure;
  }

  /**
   * Queues one transaction's statements; resolves once they are on disk. A `background` record waits for the next
   * group (at most BACKGROUND_FLUSH_MS).
   */
  append(statements: string[], background = false): Promise<void> {
    this.lastSeq++;
    this.queue.push({ seq: this.lastSeq, statements });
    this.group ??= deferred();
    if (!background) {
      // The first call in the group decides: one that comes while a sync is in flight is concurrent with it.
      if (this.waited++ === 0) this.groupBehind = this.syncing !== null;
      this.queueFlush();
    } else if (!this.backgroundTimer) {
      this.backgroundTimer = setTimeout(() => {
        this.backgroundTimer = null;
        this.queueFlush();
      }, BACKGROUND_FLUSH_MS); // kept referenced: a process that ends on its own writes the record first
    }
    return this.group.promise;
  }

  /** The promise of every record committed so far that is not yet on disk, if any (a waiting group is flushed now). */
  pending(): Promise<void> | null {
    if (this.group) this.queueFlush();
    return this.group?.promise ?? this.syncing?.promise ?? null;
  }

  /** Flushes the queued group on the next turn; behind a sync in flight, when that sync completes. */
  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    if (!this.syncing) setImmediate(this.flushBound);
  }

  /** Waits for a sync in flight, then flushes what is queued inline: afterwards every committed record is on disk. */
  async drain(): Promise<void> {
    while (this.syncing) await this.syncing.promise.catch(() => undefined);
    this.flush(true);
  }

  /** Writes the queued group and syncs it, inline or (for concurrent calls) on the thread pool. */
  flush(inline = false): void {
    const group = this.group;
    if (!group || this.syncing) return;
    tracePoint?.('flush');
    // Several calls, a call behind a sync in flight, or only background records (nobody waits): the thread pool.
    const concurrent = !inline && (this.waited !== 1 || this.groupBehind);
    const items = this.queue;
    this.dropQueued();
    const first = items[0]!.seq;
    const frames = items.map((i) => encodeFrame(i.seq, first, i.statements));
    const start = this.file.size();
    // An empty journal gets its header in the same write as its first records (an empty one stays empty).
    if (start === 0 && this.databaseId !== null) frames.unshift(encodeHeaderFrame(first - 1, this.databaseId));
    const data = frames.length === 1 ? frames[0]! : Buffer.concat(frames);
    try {
      this.assertOwned();
    } catch (ex) {
      // Nothing written: the file is not cut back either (its end is another process's records now).
      group.reject(ex);
      return;
    }
    try {
      this.file.append(data);
      if (this.durability === 'fsync' && !concurrent) this.file.sync();
    } catch (ex) {
      this.failGroups(group, ex, start);
      return;
    }
    if (this.durability !== 'fsync' || !concurrent) {
      this.flushed(group, items.length, data.length);
      return;
    }
    this.syncing = group;
    this.file.syncAsync((error) => {
      this.syncing = null;
      if (error) this.failGroups(group, error, start);
      if (this.closeWhenSynced) this.file.close();
      if (error) return;
      this.flushed(group, items.length, data.length);
      if (this.flushQueued && !this.closeWhenSynced) this.flush();
    });
  }

  private flushed(group: Deferred, records: number, bytes: number): void {
    this.records += records;
    this.bytes += bytes;
    group.resolve();
    this.onFlushed();
  }

  /**
   * A failed write or sync fails its group and every group queued behind it. The group's bytes are cut from the
   * journal (from `start`), so that a call answered store_failed is not applied at the next open after all.
   */
  private failGroups(group: Deferred, ex: unknown, start: number): void {
    this.unwrite(start);
    const failure = this.fail(ex);
    group.reject(failure);
    this.group?.reject(failure);
    this.dropQueued();
  }

  /** Cuts the journal back to `start`, its end before a group that failed; if that fails too, says what it means. */
  private unwrite(start: number): void {
    try {
      this.file.truncate(start);
      this.file.sync();
    } catch (ex) {
      this.log.warn(`store: the journal ${this.path} could not be cut back after a failed write (${errorMessage(ex)}): the writes answered store_failed may still be applied at the next open`);
    }
  }

  /** Forgets the queued group (taken for a write, or failed) with its flush and background timer. */
  private dropQueued(): void {
    this.group = null;
    this.queue = [];
    this.waited = 0;
    this.flushQueued = false;
    if (this.backgroundTimer) clearTimeout(this.backgroundTimer);
    this.backgroundTimer = null;
  }

  /** Whether the journal file was deleted while open (see JournalFile.unlinked). */
  gone(): boolean {
    return this.file.unlinked?.() ?? false;
  }

  /**
   * Replaces a journal file that was deleted while open with a new, empty one at the same path (call with nothing
   * queued or syncing, see drain). Its records are lost with the old file: the caller writes a snapshot next.
   */
  replaceFile(): void {
    this.file.close();
    this.file = this.openFile(this.path);
    this.file.truncate(0);
    this.records = 0;
    this.bytes = 0;
  }

  /** Logical size of the journal in bytes. */
  size(): number {
    return this.file.size();
  }

  /** Cuts a torn or zero tail found at open. */
  truncateAt(length: number): void {
    this.file.truncate(length);
    this.file.sync();
  }

  /**
   * Starts the compaction that drops the records a durable snapshot now holds (up to `seq`, before byte `offset`):
   * copies the records written since to the temp file that is to replace the journal, on the thread pool, while calls
   * go on writing more. Each round copies what the last one left (at most COPY_STEP bytes), until no more than
   * COPY_INLINE is left for `compact` to copy inline; the copy is then synced. A failure leaves the journal as it was.
   */
  async copyTail(offset: number, seq: number): Promise<TailCopy> {
    const copy: TailCopy = { offset, seq, copied: 0, temp: null };
    try {
      for (let round = 0; round < COPY_ROUNDS; round++) {
        this.assertOwned();
        const from = offset + copy.copied;
        const length = Math.min(this.file.size() - from, COPY_STEP);
        if (length <= COPY_INLINE) break;
        copy.temp ??= this.tailFile(seq);
        const data = this.file.readAsync ? await this.file.readAsync(from, length) : this.file.read(from, length);
        await copy.temp.append(data);
        copy.copied += length;
      }
      await copy.temp?.syncAsync();
    } catch (ex) {
      copy.temp?.discard();
      throw ex;
    }
    return copy;
  }

  /**
   * Ends the compaction `copyTail` started (call with nothing queued or syncing, see drain): copies the last records
   * inline, syncs the temp file and renames it over the journal. Returns the removal of the old journal's blocks, which
   * goes on off the event loop (see commitReplaceSync); null when there is none. A failure before the rename leaves
   * the journal as it was; one after it stops all writes.
   */
  compact(copy: TailCopy): Promise<void> | null {
    const tailLength = this.file.size() - copy.offset;
    if (tailLength < copy.copied) {
      // Only a failed write cuts the journal back, and that stops all writes (assertOwned throws it) before this.
      copy.temp?.discard();
      throw new Error(`journal ${this.path} is shorter than the tail copied from it`);
    }
    let removal: Promise<void> | null = null;
    if (tailLength === 0) {
      // Nothing written since the snapshot (so nothing copied): the journal is emptied in place.
      try {
        this.file.truncate(0);
        this.file.sync();
      } catch (ex) {
        throw this.fail(ex);
      }
    } else {
      let temp: TempFile | null = copy.temp;
      let path: string;
      try {
        temp ??= this.tailFile(copy.seq);
        if (tailLength > copy.copied) temp.appendSync(this.file.read(copy.offset + copy.copied, tailLength - copy.copied));
        path = temp.finishSync();
      } catch (ex) {
        temp?.discard();
        throw ex;
      }
      try {
        this.file.close();
        removal = commitReplaceSync(path, this.path);
        this.file = this.openFile(this.path);
      } catch (ex) {
        throw this.fail(ex);
      }
    }
    this.records = this.lastSeq - copy.seq;
    this.bytes = tailLength;
    return removal;
  }

  /** The temp file of a compacted journal, opened with the header naming the database (see journal.ts). */
  private tailFile(seq: number): TempFile {
    const temp = TempFile.open(this.path);
    try {
      if (this.databaseId !== null) temp.appendSync(encodeHeaderFrame(seq, this.databaseId));
    } catch (ex) {
      temp.discard();
      throw ex;
    }
    return temp;
  }

  /** Closes the file (once a sync in flight completes). */
  close(): void {
    if (this.backgroundTimer) clearTimeout(this.backgroundTimer);
    this.backgroundTimer = null;
    if (this.syncing) this.closeWhenSynced = true;
    else this.file.close();
  }

  private fail(ex: unknown): BatonError {
    const why = errorMessage(ex);
    const code = (ex as NodeJS.ErrnoException).code;
    const fix = FIXES[code ?? ''] ?? 'Mend the cause';
    this.failure ??= new BatonError(
      'store_failed',
      `Baton could not write its journal ${this.path} (${why}), so the database in memory is ahead of the disk and Baton accepts no more writes. ${fix}, then restart Baton (or reopen the store): the journal on disk is intact up to the last acknowledged write.`,
      { path: this.path, code },
    );
    this.log.error(`store: ${this.failure.message}`);
    return this.failure;
  }
}
