// Database-backed token buckets: which buckets a broker call draws from, and their persistence.
import { BatonError } from '../errors.js';
import type { Store } from '../ports.js';
import { takeToken, type Bucket, type RateLimitConfig } from './rateLimiter.js';

/** A bucket drawn from by one call, to be saved with that call's writes. */
export interface DrawnBucket {
  scope: 'task' | 'agent';
  key: string;
  bucket: Bucket;
}

/** Draws one token per scope key or throws `rate_limited` with `retry_after_ms`. */
export class RateBuckets {
  constructor(private readonly store: Store, private readonly config: RateLimitConfig) {}

  /** Whether limits apply at all. */
  get enabled(): boolean {
    return this.config.enabled;
  }

  /** Takes a token from each key's bucket (without writing); throws if any is empty. */
  draw(keys: Array<{ scope: 'task' | 'agent'; key: string }>, now: number): DrawnBucket[] {
    if (!this.config.enabled) return [];
    return keys.map(({ scope, key }) => {
      const stored = this.store.get<Bucket>(
        'SELECT tokens, last_refill, steady_rps, burst_tokens FROM rate_buckets WHERE scope = ? AND scope_key = ?',
        [scope, key],
      );
      const r = takeToken(stored, now, this.config[scope]);
      if (!r.allowed) {
        throw new BatonError('rate_limited', `Rate limit exceeded for ${scope}:${key}; retry after ${r.retry_after_ms} ms.`, {
          retry_after_ms: r.retry_after_ms,
        });
      }
      return { scope, key, bucket: r.bucket };
    });
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
    }
  }
}
