// Rule: the rate buckets a process keeps in memory give exactly what reading them from the database gives: read once,
// then as last saved; a transaction that fails after saving, a lost batch or a prune's deletion sends the next draw
// back to the database. Against the real sql.js store.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { RateBuckets, type DrawnBucket } from '../../src/core/broker/rateBuckets.js';
import type { RateLimitConfig } from '../../src/core/broker/rateLimiter.js';
import type { SqlParams, Store } from '../../src/core/ports.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';

const LIMITS: RateLimitConfig = { enabled: true, task: { steady_rps: 0.5, burst_tokens: 3 }, agent: { steady_rps: 2, burst_tokens: 10 } };
const KEYS = [{ scope: 'task' as const, key: 't1' }, { scope: 'agent' as const, key: 'implementer' }];

/** `store` counting its reads of rate buckets. */
function counting(store: SqlJsStore): { store: Store; reads: () => number } {
  let reads = 0;
  const wrapped: Store = {
    get: (sql: string, params?: SqlParams) => (/FROM rate_buckets/.test(sql) && reads++, store.get(sql, params)),
    all: (sql: string, params?: SqlParams) => store.all(sql, params),
    run: (sql: string, params?: SqlParams) => store.run(sql, params),
    transaction: <T>(fn: () => T) => store.transaction(fn),
    rollbacks: () => store.rollbacks(),
  };
  return { store: wrapped, reads: () => reads };
}

/** Draws at `now` and saves in a transaction, as the broker does; the draw's outcome. */
async function call(buckets: RateBuckets, store: Store, now: number): Promise<string> {
  let drawn: DrawnBucket[];
  try {
    drawn = buckets.draw(KEYS, now);
  } catch (ex) {
    if (BatonError.is(ex, 'rate_limited')) return `limited ${ex.details.retry_after_ms}`;
    throw ex;
  }
  await store.transaction(() => buckets.save(drawn));
  return 'ok';
}

/** The stored rows, for comparing with what memory gave. */
const rows = (store: Store) => store.all('SELECT scope, scope_key, tokens, last_refill FROM rate_buckets ORDER BY scope, scope_key');

test('buckets are read once, then served as saved, with the limits a database read gives', async () => {
  const db = await openStore({ path: null });
  try {
    const { store, reads } = counting(db);
    const buckets = new RateBuckets(store, LIMITS);
    const outcomes = [];
    for (const now of [0, 0, 0, 0, 1_000, 2_000]) outcomes.push(await call(buckets, store, now));
    assert.deepEqual(outcomes, ['ok', 'ok', 'ok', 'limited 2000', 'limited 1000', 'ok']);
    assert.equal(reads(), 2, 'each bucket read from the database once');
    // A reader that starts from the database now (another process, a restart) agrees with what memory gives.
    assert.equal(await call(new RateBuckets(db, LIMITS), db, 2_000), 'limited 2000');
    assert.equal(await call(buckets, store, 2_000), 'limited 2000');
    assert.deepEqual(rows(db).map((r) => [r.scope, r.tokens]), [['agent', 9], ['task', 0]]);
  } finally {
    await db.close();
  }
});

test('a transaction that fails after saving leaves the bucket as stored, and the next draw reads it again', async () => {
  const db = await openStore({ path: null });
  try {
    const { store, reads } = counting(db);
    const buckets = new RateBuckets(store, LIMITS);
    assert.equal(await call(buckets, store, 0), 'ok'); // task 2 tokens left, agent 9
    const before = rows(db);
    const drawn = buckets.draw(KEYS, 0);
    await assert.rejects(store.transaction(() => {
      buckets.save(drawn);
      throw new Error('the call failed after its writes');
    }), /failed after its writes/);
    assert.deepEqual(rows(db), before, 'the failed save was undone');
    const readsBefore = reads();
    // Two more fit in the task bucket: the failed call's token was not spent.
    assert.deepEqual([await call(buckets, store, 0), await call(buckets, store, 0), await call(buckets, store, 0)], ['ok', 'ok', 'limited 2000']);
    assert.equal(reads() - readsBefore, 2, 'read again after the undo');
  } finally {
    await db.close();
  }
});

test('forget() after a prune deleted buckets: the next draw starts from what the database has', async () => {
  const db = await openStore({ path: null });
  try {
    const buckets = new RateBuckets(db, LIMITS);
    for (let i = 0; i < 3; i++) assert.equal(await call(buckets, db, 0), 'ok');
    await db.transaction(() => {
      db.run("DELETE FROM rate_buckets WHERE scope = 'task'");
      buckets.forget();
    });
    assert.equal(await call(buckets, db, 0), 'ok', 'the deleted task bucket starts full again');
    assert.deepEqual(rows(db).map((r) => [r.scope, r.tokens]), [['agent', 6], ['task', 2]]);
    // Without forget() the bucket in memory would have said empty (the mutation this guards against).
  } finally {
    await db.close();
  }
});

test('a store that does not count its undone writes is asked every time', async () => {
  const db = await openStore({ path: null });
  try {
    const { store, reads } = counting(db);
    const { rollbacks: _, ...untrusted } = store;
    const buckets = new RateBuckets(untrusted, LIMITS);
    for (let i = 0; i < 3; i++) assert.equal(await call(buckets, untrusted, 0), 'ok');
    assert.equal(reads(), 6);
  } finally {
    await db.close();
  }
});

test('calls in flight together share one bucket: a token drawn counts before its call saves it', async () => {
  const db = await openStore({ path: null });
  try {
    const buckets = new RateBuckets(db, LIMITS);
    // Five calls draw before any saves (a create awaits its preparation in between): three fit the task bucket.
    const outcomes: string[] = [];
    const drawn: DrawnBucket[][] = [];
    for (let i = 0; i < 5; i++) {
      try {
        drawn.push(buckets.draw(KEYS, 0));
        outcomes.push('ok');
      } catch (ex) {
        if (!BatonError.is(ex, 'rate_limited')) throw ex;
        outcomes.push('limited');
      }
    }
    assert.deepEqual(outcomes, ['ok', 'ok', 'ok', 'limited', 'limited']);
    for (const d of drawn) await db.transaction(() => buckets.save(d));
    assert.deepEqual(rows(db).map((r) => [r.scope, r.tokens]), [['agent', 7], ['task', 0]]);
  } finally {
    await db.close();
  }
});
