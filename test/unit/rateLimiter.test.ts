// Rule: the broker's token buckets start full, refill linearly up to the burst, and deny with an exact retry_after_ms when empty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RATE_LIMITS, takeToken, type Bucket, type BucketConfig } from '../../src/core/broker/rateLimiter.js';

const task: BucketConfig = { steady_rps: 0.5, burst_tokens: 3 };

/** Runs calls at the given times against one bucket; returns [allowed, retry_after_ms, tokens after]. */
function run(config: BucketConfig, times: number[], start?: Bucket): Array<[boolean, number, number]> {
  let bucket = start;
  return times.map((t) => {
    const r = takeToken(bucket, t, config);
    bucket = r.bucket;
    return [r.allowed, r.retry_after_ms, Number(r.bucket.tokens.toFixed(6))];
  });
}

test('defaults are the spec limits', () => {
  assert.deepEqual(DEFAULT_RATE_LIMITS, {
    enabled: true,
    task: { steady_rps: 0.5, burst_tokens: 3 },
    agent: { steady_rps: 2, burst_tokens: 10 },
  });
});

test('per-task bucket: burst of 3, then one every 2 s', () => {
  assert.deepEqual(run(task, [0, 0, 0, 0, 1_000, 1_999, 2_000, 2_000]), [
    [true, 0, 2],
    [true, 0, 1],
    [true, 0, 0],
    [false, 2_000, 0], // needs 1 token at 0.5/s
    [false, 1_000, 0.5],
    [false, 1, 0.9995], // ceil(0.0005 / 0.5 * 1000) = 1
    [true, 0, 0],
    [false, 2_000, 0],
  ]);
});

test('retry_after_ms is honest: waiting exactly that long is allowed', () => {
  let bucket: Bucket | undefined;
  for (const t of [0, 0, 0, 0]) bucket = takeToken(bucket, t, task).bucket;
  const denied = takeToken(bucket, 1_999, task);
  assert.equal(denied.allowed, false);
  const retry = denied.retry_after_ms;
  assert.equal(takeToken(bucket, 1_999 + retry, task).allowed, true);
  assert.equal(takeToken(bucket, 1_999 + retry - 1, task).allowed, false);
});

test('per-agent bucket: burst of 10, then one every 0.5 s', () => {
  const times = Array.from({ length: 11 }, () => 0);
  const results = run(DEFAULT_RATE_LIMITS.agent, [...times, 500]);
  assert.equal(results.slice(0, 10).every(([ok]) => ok), true);
  assert.deepEqual(results[10], [false, 500, 0]);
  assert.deepEqual(results[11], [true, 0, 0]);
});

test('refill is capped at the burst', () => {
  const start: Bucket = { tokens: 0, last_refill: 0, ...task };
  assert.deepEqual(run(task, [3_600_000], start), [[true, 0, 2]]);
});

test('a new bucket starts full at now', () => {
  const r = takeToken(undefined, 5_000, task);
  assert.deepEqual(r, { bucket: { tokens: 2, last_refill: 5_000, steady_rps: 0.5, burst_tokens: 3 }, allowed: true, retry_after_ms: 0 });
});

test('changed config is adopted: new rate and burst', () => {
  const stored: Bucket = { tokens: 8, last_refill: 0, steady_rps: 2, burst_tokens: 10 };
  const r = takeToken(stored, 0, task);
  assert.deepEqual(r.bucket, { tokens: 2, last_refill: 0, steady_rps: 0.5, burst_tokens: 3 }, 'capped at the new burst of 3');
  const empty: Bucket = { tokens: 0, last_refill: 0, steady_rps: 0.5, burst_tokens: 3 };
  const faster = takeToken(empty, 100, { steady_rps: 10, burst_tokens: 3 });
  assert.equal(faster.allowed, true, '100 ms at the new 10 rps refills one token');
});

test('does not mutate the stored bucket', () => {
  const stored: Bucket = { tokens: 3, last_refill: 0, ...task };
  takeToken(stored, 1_000, task);
  assert.deepEqual(stored, { tokens: 3, last_refill: 0, ...task });
});

test('a clock stepping backwards neither refills nor moves last_refill back', () => {
  const stored: Bucket = { tokens: 0.5, last_refill: 10_000, ...task };
  const r = takeToken(stored, 4_000, task);
  assert.deepEqual(r, { bucket: { tokens: 0.5, last_refill: 10_000, ...task }, allowed: false, retry_after_ms: 1_000 });
});

test('invalid config is a bug', () => {
  assert.throws(() => takeToken(undefined, 0, { steady_rps: 0, burst_tokens: 3 }), /invalid rate-limit/);
  assert.throws(() => takeToken(undefined, 0, { steady_rps: 1, burst_tokens: -1 }), /invalid rate-limit/);
  assert.throws(() => takeToken(undefined, 0, { steady_rps: Number.NaN, burst_tokens: 3 }), /invalid rate-limit/);
});
