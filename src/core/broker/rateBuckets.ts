// Database-backed token buckets: which buckets a broker call draws from, and their persistence.
import { BatonError } from '../errors.js';
import type { Store } from '../ports.js';
import { UndoWatch } from '../undoWatch.js';
import { takeToken, type Bucket, type RateLimitConfig } from './rateLimiter.js';

/** A bucket drawn from by one call, to be saved with that call's writes. */
export interface DrawnBucket {
  scope: 'task' | 'agent';
  key: string;
  bucket: Bucket;
}

/** How many buckets are kept in memory (the least recently read or saved forgotten first). */
const KNOWN_LIMIT = 4096;

/** Draws one token per scope key or throws `rate_limited` with `retry_after_ms`. */
export class RateBuckets {
  /**
   * Buckets as this process last read or saved them, by scope and key (null: none stored). Only this process writes
   * them (it owns the database), so they are read once, until the store undoes writes (a save among them) or a prune
   * deletes buckets (`forget`). Every call drew from two buckets it read from the database first.
   */
  private readonly known = new Map<string, Bucket | null>();
  private readonly undo: UndoWatch;

  constructor(private readonly store: Store, private readonly config: RateLimitConfig) {
    this.undo = new UndoWatch(store, () => this.known.clear());
  }

  /** Whether limits apply at all. */
  get enabled(): boolean {
    return this.config.enabled;
  }

  /**
   * Takes a token from each key's bucket (without writing); throws if any is empty. The tokens taken count at once
   * for the next draw, before the caller saves them: calls in flight together (a create awaits its preparation between
   * its draw and its save) each drew from a full bucket before, and 30 concurrent creates passed a burst of 10.
   */
  draw(keys: Array<{ scope: 'task' | 'agent'; key: string }>, now: number): DrawnBucket[] {
    if (!this.config.enabled) return [];
    const drawn = keys.map(({ scope, key }) => {
      const r = takeToken(this.stored(scope, key), now, this.config[scope]);
      if (!r.allowed) {
        throw new BatonError('rate_limited', `Rate limit exceeded for ${scope}:${key}; retry after ${r.retry_after_ms} ms.`, {
          retry_after_ms: r.retry_after_ms,
        });
      }
      return { scope, key, bucket: r.bucket };
    });
    // A call whose transaction fails makes the store undo writes, and then every bucket is read again (refunded).
    if (this.undo.holds()) for (const { scope, key, bucket } of drawn) this.remember(`${scope}\n${key}`, { ...bucket });
    return drawn;
  }

  /** Persists drawn buckets (inside the caller's transaction). */
  save(drawn: DrawnBucket[]): void {
    for (const { scope, key, bucket } of drawn) {
      this.store.run(
        `INSERT INTO rate_buckets (scope, scope_key, tokens, last_refill, steady_rps, burst_tokens) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (scope, scope_key) DO UPDATE SET tokens = excluded.tokens, last_refill = excluded.last_refill,
           steady_rps = excluded.steady_rps, burst_tokens = excluded.burst_tokens`,
        [scope, key, bucket.tokens, bucket.last_refill, bucket.steady_rps, bucket.burst_tokens],
      );
      // If this transaction fails, the store counts the undone write and `stored` reads the bucket again.
      if (this.undo.holds()) this.remember(`${scope}\n${key}`, { ...bucket });
    }
  }

  /** Forgets the buckets read or saved (call when buckets were deleted, as a prune does). */
  forget(): void {
    this.known.clear();
  }

  /** The bucket stored for a scope key, if any: from memory when this process read or saved it since the last undo. */
  private stored(scope: 'task' | 'agent', key: string): Bucket | undefined {
    const id = `${scope}\n${key}`;
    const trusted = this.undo.holds();
    const known = trusted ? this.known.get(id) : undefined;
    if (known !== undefined) return known ?? undefined;
    const row = this.store.get<Bucket>(
      'SELECT tokens, last_refill, steady_rps, burst_tokens FROM rate_buckets WHERE scope = ? AND scope_key = ?',
      [scope, key],
    );
    if (trusted) this.remember(id, row ?? null);
    return row;
  }

  private remember(id: string, bucket: Bucket | null): void {
    this.known.delete(id);
    if (this.known.size >= KNOWN_LIMIT) this.known.delete(this.known.keys().next().value!);
    this.known.set(id, bucket);
  }
}
