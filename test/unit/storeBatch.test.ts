// Rule: the transactions of BATCH_WINDOW_MS from the first (turns of the event loop apart) are committed into sql.js's
// in-memory file together, never later than BATCH_MAX_MS after it (answers on their way or not), and that changes
// nothing a caller can see: a failing transaction undoes only its own writes, a batch SQLite throws away is redone
// from its journal records, checkpoints hold every transaction committed before them, and a store that cannot redo a
// lost batch refuses further writes instead of going on without them.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatonError } from '../../src/core/errors.js';
import { BATCH_MAX_MS, BATCH_WINDOW_MS, openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { batchCommitted, batched, crashImage, journalProbe, nextTurn, reopenWatched, watchInserts, withTempDir } from '../fixtures/store/helpers.js';

const ids = (s: SqlJsStore) => s.all<{ event_id: string }>('SELECT event_id FROM events ORDER BY event_id').map((r) => r.event_id);
const insertEvent = (s: SqlJsStore, id: string) =>
  s.run("INSERT INTO events (event_id, event_type, created_at) VALUES (?, 'test', '2026-01-01')", [id]);
/** A transaction whose write runs in SQLite after its answer, as a continue's writes do (Store.deferWrites). */
const deferredInsert = (s: SqlJsStore, id: string) =>
  s.transaction(() => {
    s.deferWrites();
    insertEvent(s, id);
  });
/** A trigger that throws SQLite's whole transaction away (RAISE(ROLLBACK)) when an event named 'lose-batch' is inserted. */
const addBatchLoser = (s: SqlJsStore) =>
  s.transaction(() => {
    s.run("CREATE TRIGGER lose_batch BEFORE INSERT ON events WHEN NEW.event_id = 'lose-batch' BEGIN SELECT RAISE(ROLLBACK, 'batch lost on purpose'); END");
  });

test('transactions started in one turn: a failing one undoes only its own writes, the others stay, and a crash keeps them', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db });
    const boom = new Error('boom');
    const a = s.transaction(() => insertEvent(s, 'a'));
    const b = assert.rejects(
      s.transaction(() => {
        insertEvent(s, 'b');
        throw boom;
      }),
      (ex) => ex === boom,
    );
    const c = s.transaction(() => insertEvent(s, 'c'));
    // Readers in the same turn see what was committed before them.
    assert.deepEqual(ids(s), ['a', 'c']);
    await Promise.all([a, b, c]);
    assert.deepEqual(ids(s), ['a', 'c']);
    const image = crashImage(t.dir);
    const reopened = await openStore({ path: image.db });
    assert.deepEqual(ids(reopened), ['a', 'c']);
    await reopened.close();
    await s.close();
  });
});

test('a batch SQLite throws away (RAISE(ROLLBACK)) is redone: the transactions released into it before keep their writes', async () => {
  for (const path of [null, 'file'] as const) {
    await withTempDir(async (t) => {
      const s = await openStore({ path: path && t.db });
      await addBatchLoser(s);
      const a = s.transaction(() => insertEvent(s, 'a'));
      const lost = assert.rejects(
        s.transaction(() => {
          insertEvent(s, 'x');
          insertEvent(s, 'lose-batch');
        }),
        /batch lost on purpose/,
      );
      const c = s.transaction(() => insertEvent(s, 'c'));
      await Promise.all([a, lost, c]);
      assert.deepEqual(ids(s), ['a', 'c'], `${path ?? 'in memory'}: the lost batch is redone, the failed transaction is not`);
      await s.transaction(() => insertEvent(s, 'd'));
      assert.deepEqual(ids(s), ['a', 'c', 'd']);
      if (path) {
        const image = crashImage(t.dir);
        const reopened = await openStore({ path: image.db });
        assert.deepEqual(ids(reopened), ['a', 'c', 'd']);
        await reopened.close();
      }
      await s.close();
    });
  }
});

test('a transaction is answered before its batch is committed: a transaction right after the answer joins that batch, and if it loses the batch the answered write is redone', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db });
    await addBatchLoser(s);
    const inserted = await watchInserts(s);
    await batchCommitted();
    await s.transaction(() => insertEvent(s, 'a')); // answered once its journal record is on disk
    // Straight after the answer, the batch of 'a' is still open: this one joins it and makes SQLite throw it away.
    await assert.rejects(s.transaction(() => insertEvent(s, 'lose-batch')), /batch lost on purpose/);
    assert.deepEqual(inserted, ['a', 'a'], "'a' was in the lost batch and is redone");
    assert.deepEqual(ids(s), ['a'], 'the answered write is there');
    await s.transaction(() => insertEvent(s, 'b'));
    assert.deepEqual(ids(s), ['a', 'b']);
    await s.close();
  });
});

test('a batch stays open BATCH_WINDOW_MS from its first transaction: transactions turns apart are redone together when it is lost, one committed when the window passed is not', async (t) => {
  await withTempDir(async (dir) => {
    const s = await openStore({ path: dir.db });
    await addBatchLoser(s);
    const inserted = await watchInserts(s);
    await batchCommitted();
    // The window's end comes when the test says (the journal's flushes and the turns between calls are not mocked).
    t.mock.timers.enable({ apis: ['setTimeout'] });
    try {
      await s.transaction(() => insertEvent(s, 'a'));
      for (let i = 0; i < 5; i++) await nextTurn();
      await s.transaction(() => insertEvent(s, 'b'));
      await assert.rejects(s.transaction(() => insertEvent(s, 'lose-batch')), /batch lost on purpose/);
      assert.deepEqual(inserted, ['a', 'b', 'a', 'b'], 'a and b, turns apart, were in one batch: both redone');
      await s.transaction(() => insertEvent(s, 'c'));
      t.mock.timers.tick(BATCH_WINDOW_MS - 1);
      await s.transaction(() => insertEvent(s, 'd'));
      t.mock.timers.tick(1); // the window has passed: c and d are committed
      await s.transaction(() => insertEvent(s, 'e'));
      await assert.rejects(s.transaction(() => insertEvent(s, 'lose-batch')), /batch lost on purpose/);
      assert.deepEqual(inserted, ['a', 'b', 'a', 'b', 'c', 'd', 'e', 'e'], 'only e, in a batch of its own, is redone');
    } finally {
      t.mock.timers.reset();
    }
    assert.deepEqual(ids(s), ['a', 'b', 'c', 'd', 'e']);
    const image = crashImage(dir.dir);
    await s.close();
    const reopened = await reopenWatched(image.db);
    assert.deepEqual(ids(reopened), ['a', 'b', 'c', 'd', 'e']);
    await reopened.close();
  });
});

/**
 * Runs `fn` on a store whose journal holds its thread-pool syncs until `probe.release()` (calls that come together
 * sync there), under mocked timers and Date. `fn` returns the events it inserted: the store, and its crash image,
 * must hold them, each run once.
 */
async function withHeldSyncs(t: TestContext, fn: (s: SqlJsStore, probe: ReturnType<typeof journalProbe>) => Promise<string[]>): Promise<void> {
  await withTempDir(async (dir) => {
    const probe = journalProbe();
    const s = await openStore({ path: dir.db, openJournalFile: probe.open, idleCheckpointMs: 60_000 });
    const inserted = await watchInserts(s);
    await batchCommitted();
    probe.hold = true;
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    let written: string[];
    try {
      written = await fn(s, probe);
    } finally {
      t.mock.timers.reset();
      probe.hold = false;
      probe.release();
    }
    await nextTurn();
    assert.deepEqual(inserted, written, 'each write ran once');
    assert.deepEqual(ids(s), written);
    const image = crashImage(dir.dir);
    await s.close();
    const reopened = await reopenWatched(image.db);
    assert.deepEqual(ids(reopened), written);
    await reopened.close();
  });
}

test('under a steady stream of answers a batch still commits BATCH_MAX_MS after it began: its commit gives way to answers no longer than that', (t) =>
  withHeldSyncs(t, async (s, probe) => {
    // Calls come two at a time, each pair before the last pair's answers; each call's write runs after its answer.
    const written: string[] = [];
    const pair = () => {
      const ids = [written.length, written.length + 1].map((n) => `c${String(n).padStart(2, '0')}`);
      written.push(...ids);
      return Promise.all(ids.map((id) => deferredInsert(s, id)));
    };
    let answers = pair();
    for (let age = BATCH_WINDOW_MS; ; age += BATCH_WINDOW_MS) {
      while (probe.waiting === 0) await nextTurn();
      t.mock.timers.tick(BATCH_WINDOW_MS); // the commit is due: answers are on their way
      if (age >= BATCH_MAX_MS) break;
      const next = pair(); // the next two calls come before those answers
      probe.release();
      await answers; // each answer re-arms the commit, which finds the next calls' answers on their way
      t.mock.timers.tick(0);
      answers = next;
      assert.equal(batched(s), written.length, `${age} ms: the commit gave way to the answers of ${written.slice(-2).join(' and ')}`);
      await nextTurn(); // the answered calls' writes run
    }
    assert.equal(batched(s), 0, `${BATCH_MAX_MS} ms: committed with the answers of ${written.slice(-2).join(' and ')} still on their way`);
    assert.equal(probe.waiting, 1);
    probe.release();
    await answers;
    return written;
  }));

test('a commit that waits for answers whose sync is slow still comes BATCH_MAX_MS after the batch began', (t) =>
  withHeldSyncs(t, async (s, probe) => {
    const answers = Promise.all(['a', 'b'].map((id) => deferredInsert(s, id)));
    while (probe.waiting === 0) await nextTurn();
    t.mock.timers.tick(BATCH_WINDOW_MS);
    assert.equal(batched(s), 2, 'the commit gives way to the answers on their way');
    t.mock.timers.tick(BATCH_MAX_MS - BATCH_WINDOW_MS - 1);
    assert.equal(batched(s), 2, 'still, as long as the batch is younger than BATCH_MAX_MS');
    t.mock.timers.tick(1);
    assert.equal(batched(s), 0, 'committed with the answers still waiting for their sync');
    assert.equal(probe.waiting, 1);
    probe.release();
    await answers;
    return ['a', 'b'];
  }));

test('a failing transaction that changed nothing leaves its batch as it is; one that changed something rolls the batch back and redoes the others', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db });
    const redos = () => s.stats().batchRedos;
    // All in one turn, so in one batch.
    const a = s.transaction(() => insertEvent(s, 'a'));
    const refused = assert.rejects(
      s.transaction(() => {
        ids(s);
        throw new BatonError('invalid_input', 'refused before it wrote');
      }),
      /refused before it wrote/,
    );
    assert.equal(redos(), 0, 'a failure after reads only undoes nothing');
    const innerOnly = assert.rejects(
      s.transaction(() => {
        try {
          void s.transaction(() => {
            insertEvent(s, 'inner');
            throw new Error('inner boom');
          });
        } catch {
          // its write is undone by its own savepoint
        }
        throw new Error('outer boom');
      }),
      /outer boom/,
    );
    assert.equal(redos(), 0, 'a nested failure is undone by its own savepoint');
    assert.deepEqual(ids(s), ['a']);
    const wrote = assert.rejects(
      s.transaction(() => {
        insertEvent(s, 'x');
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(redos(), 1, "'x' is rolled back with the batch, and 'a' redone");
    assert.deepEqual(ids(s), ['a']);
    // The redo closed that batch; 'c' opens the next. A statement that fails may have undone more than itself, so its
    // batch is redone though the failed transaction wrote nothing.
    const c = s.transaction(() => insertEvent(s, 'c'));
    const failedStatement = assert.rejects(s.transaction(() => insertEvent(s, 'a')), /UNIQUE/);
    assert.equal(redos(), 2);
    assert.deepEqual(ids(s), ['a', 'c']);
    const b = s.transaction(() => insertEvent(s, 'b'));
    await Promise.all([a, refused, innerOnly, wrote, c, failedStatement, b]);
    assert.deepEqual(ids(s), ['a', 'b', 'c']);
    const image = crashImage(t.dir);
    const reopened = await openStore({ path: image.db });
    assert.deepEqual(ids(reopened), ['a', 'b', 'c'], 'the journal holds exactly the transactions that succeeded');
    await reopened.close();
    await s.close();
  });
});

test('a checkpoint taken in the turn of a transaction holds it: the database file alone has it', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db });
    const a = s.transaction(() => insertEvent(s, 'a'));
    await s.checkpoint();
    await a;
    assert.equal(s.stats().journalRecords, 0);
    const alone = join(t.dir, 'alone.db');
    copyFileSync(t.db, alone);
    const reopened = await openStore({ path: alone });
    assert.deepEqual(ids(reopened), ['a']);
    await reopened.close();
    await s.close();
  });
});

test('a lost batch that cannot be redone: its writes stay acknowledged, and the store refuses every later transaction with store_failed', async () => {
  const s = await openStore({ path: null });
  let failRedo = false;
  s.registerFunction('flaky_id', (id: string) => {
    if (failRedo) throw new Error('flaky_id fails the second time');
    return id;
  });
  await addBatchLoser(s);
  const a = s.transaction(() => s.run("INSERT INTO events (event_id, event_type, created_at) VALUES (flaky_id('a'), 'test', '2026-01-01')"));
  const lost = assert.rejects(
    s.transaction(() => {
      failRedo = true;
      insertEvent(s, 'lose-batch');
    }),
    /batch lost on purpose/,
  );
  await Promise.all([a, lost]);
  await assert.rejects(
    s.transaction(() => insertEvent(s, 'after')),
    (ex) => BatonError.is(ex, 'store_failed') && /could not redo/.test(ex.message) && /restart Baton/.test(ex.message),
  );
  assert.deepEqual(ids(s), []);
  s.dispose();
});
