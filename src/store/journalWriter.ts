// Appends committed transactions to the journal with group commit, and compacts it after a
// checkpoint. A failed write or fdatasync stops all further writes (store_failed).
import { BatonError } from '../core/errors.js';
import type { Log } from '../core/ports.js';
import { commitReplaceSync, writeTempSync } from './durableFile.js';
import { encodeFrame, type JournalFile } from './journal.js';

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

/** The journal of one open store. */
export class JournalWriter {
  /** Seq of the last committed write transaction (flushed or queued). */
  lastSeq = 0;
  /** Records and bytes in the journal file (flushed only). */
  records = 0;
  bytes = 0;
  failure: BatonError | null = null;
  private queue: { seq: number; statements: string[] }[] = [];
  private group: Deferred | null = null;
  private readonly flushBound = () => this.flush();

  constructor(
    readonly path: string,
    private file: JournalFile,
    private readonly openFile: (path: string) => JournalFile,
    private readonly durability: 'fsync' | 'write',
    private readonly log: Log,
    private readonly onFlushed: () => void,
  ) {}

  /** Queues one transaction's statements; resolves once they are on disk. */
  append(statements: string[]): Promise<void> {
    this.lastSeq++;
    this.queue.push({ seq: this.lastSeq, statements });
    if (!this.group) {
      this.group = deferred();
      setImmediate(this.flushBound);
    }
    return this.group.promise;
  }

  /** The promise of the records queued but not yet flushed, if any. */
  pending(): Promise<void> | null {
    return this.group?.promise ?? null;
  }

  /** Group commit: every record queued since the last flush goes out in one write + one fdatasync. */
  flush(): void {
    const group = this.group;
    const items = this.queue;
    if (!group) return;
    this.group = null;
    this.queue = [];
    const first = items[0]!.seq;
    const frames = items.map((i) => encodeFrame(i.seq, first, i.statements));
    const data = frames.length === 1 ? frames[0]! : Buffer.concat(frames);
    try {
      this.file.append(data);
      if (this.durability === 'fsync') this.file.sync();
    } catch (ex) {
      group.reject(this.fail(ex));
      return;
    }
    this.records += items.length;
    this.bytes += data.length;
    group.resolve();
    this.onFlushed();
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
   * Drops the records a durable snapshot now holds (up to `seq`, before byte `offset`) and keeps
   * the ones written since. The kept tail goes to a synced temp file renamed over the journal.
   */
  compact(offset: number, seq: number): void {
    const tailLength = this.file.size() - offset;
    if (tailLength === 0) {
      try {
        this.file.truncate(0);
        this.file.sync();
      } catch (ex) {
        throw this.fail(ex);
      }
    } else {
      // A failure here leaves the old journal in place, which is still correct.
      const temp = writeTempSync(this.path, this.file.read(offset, tailLength));
      try {
        this.file.close();
        commitReplaceSync(temp, this.path);
        this.file = this.openFile(this.path);
      } catch (ex) {
        throw this.fail(ex);
      }
    }
    this.records = this.lastSeq - seq;
    this.bytes = tailLength;
  }

  close(): void {
    this.file.close();
  }

  private fail(ex: unknown): BatonError {
    const why = ex instanceof Error ? ex.message : String(ex);
    this.failure ??= new BatonError(
      'store_failed',
      `Baton could not write its journal ${this.path} (${why}), so the database in memory is ahead of the disk and Baton accepts no more writes. Free disk space if needed, then restart Baton (or reopen the store): the journal on disk is intact up to the last acknowledged write.`,
      { path: this.path, code: (ex as NodeJS.ErrnoException).code },
    );
    this.log.error(`store: ${this.failure.message}`);
    return this.failure;
  }
}
