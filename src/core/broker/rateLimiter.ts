// Token buckets per task and per agent, so a looping agent cannot hammer the broker. Pure: the caller persists buckets.

/** One bucket's settings. */
export interface BucketConfig {
  steady_rps: number;
  burst_tokens: number;
}

/** Rate-limit settings for the broker. */
export interface RateLimitConfig {
  enabled: boolean;
  task: BucketConfig;
  agent: BucketConfig;
}

/** The spec's limits: per task 0.5 rps / burst 3, per agent 2 rps / burst 10. */
export const DEFAULT_RATE_LIMITS: RateLimitConfig = Object.freeze({
  enabled: true,
  task: Object.freeze({ steady_rps: 0.5, burst_tokens: 3 }),
  agent: Object.freeze({ steady_rps: 2, burst_tokens: 10 }),
});

/** A stored bucket (`workflow_rate_limit_buckets` row without its key). */
export interface Bucket {
  tokens: number;
  last_refill: number;
  steady_rps: number;
  burst_tokens: number;
}

/**
 * Refills `bucket` linearly up to its burst, then takes one token if at least one is there.
 * A missing bucket starts full; a bucket stored under other settings adopts `config`.
 * Throws a plain Error for a non-positive rate or burst (a configuration bug).
 */
export function takeToken(bucket: Bucket | undefined, now: number, config: BucketConfig): { bucket: Bucket; allowed: boolean; retry_after_ms: number } {
  const { steady_rps, burst_tokens } = config;
  if (!(steady_rps > 0) || !(burst_tokens > 0) || !Number.isFinite(steady_rps) || !Number.isFinite(burst_tokens)) {
    throw new Error(`invalid rate-limit bucket config: steady_rps=${steady_rps} burst_tokens=${burst_tokens}`);
  }
  const start = bucket ?? { tokens: burst_tokens, last_refill: now, steady_rps, burst_tokens };
  // A clock that steps backwards must not drain or double-refill the bucket.
  const elapsedSeconds = Math.max(0, now - start.last_refill) / 1000;
  const tokens = Math.min(burst_tokens, Math.max(0, start.tokens) + elapsedSeconds * steady_rps);
  const next: Bucket = { tokens, last_refill: Math.max(now, start.last_refill), steady_rps, burst_tokens };
  if (tokens >= 1) {
    next.tokens = tokens - 1;
    return { bucket: next, allowed: true, retry_after_ms: 0 };
  }
  return { bucket: next, allowed: false, retry_after_ms: Math.ceil(((1 - tokens) / steady_rps) * 1000) };
}
