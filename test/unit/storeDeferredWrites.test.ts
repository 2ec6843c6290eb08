// Rule: a transaction's writes after `deferWrites` are journaled with it (on disk before its answer) and run in SQLite
// after it, in order, before anything else touches the database; no reader ever sees the database without them. A
// read inside the transaction runs them at once. Once released, one that fails for a reason its values decide is
// skipped and logged, and the journal's replay skips it too, so a crash image opens to the same rows; a failure of
// the moment loses the batch, which is redone from the journal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Log } from '../../src/core/ports.js';
import { scanJournal } from '../../src/store/journal.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { batchCommitted, batched, crashImage, nextTurn, reopenWatched, watchInserts, withTempDir } from '../fixtures/store/helpers.js';

const ids = (s: SqlJsStore) => s.all<{ event_id: string }>('SELECT event_id FROM events ORDER BY id').map((r) => r.event_id);
const insertEvent = (s: SqlJsStore, id: string) =>
  s.run("INSERT INTO events (event_id, event_type, created_at) VALUES (?, 'test', '2026-01-01')", [id]);

/** A log that keeps its errors. */
function keptLog(): Log & { errors: string[] } {
  const errors: string[] = [];
  return { errors, debug() {}, info() {}, warn() {}, error: (m: string) => void errors.push(m) };
}

test('deferred writes are journaled with their transaction, run after its answer in order, and any read runs them first', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db });
    const inserted = await watchInserts(s);
    const answered = s.transaction(() => {
      insertEvent(s, 'a');
      s.deferWrites();
      assert.equal(insertEvent(s, 'b'), -1, 'a deferred write has changed no row yet');
      insertEvent(s, 'c');
    });
    assert.deepEqual(inserted, ['a'], 'b and c wait for the answer');
    await answered;
    assert.deepEqual(inserted, ['a'], 'the answer comes first');
    const records = scanJournal(readFileSync(t.journal));
    assert.ok(records.ok);
    const last = records.records.at(-1)!.statements;
    assert.deepEqual(last.map((q) => [q[1], q[2]]), [[['a'], undefined], [['b'], 1], [['c'], 1]], 'on disk before the answer, marked deferred');
    await nextTurn();
    assert.deepEqual(inserted, ['a', 'b', 'c'], 'run on the turn after the answer');
    // The batch's commit, which waited for that answer, follows: nothing is left to redo.
    await nextTurn();
    assert.equal(batched(s), 0, 'the batch was committed');

    // Released and not yet run: a read outside any transaction runs them first.
    await s.transaction(() => {
      s.deferWrites();
      insertEvent(s, 'd');
    });
    assert.deepEqual(ids(s), ['a', 'b', 'c', 'd']);
    // And the next transaction's first write: it updates a row a deferred write inserted.
    await s.transaction(() => {
      s.deferWrites();
      insertEvent(s, 'e');
    });
    await s.transaction(() => assert.equal(s.run("UPDATE events SET event_type = 'later' WHERE event_id = 'e'"), 1));
    assert.deepEqual(inserted, ['a', 'b', 'c', 'd', 'e']);

    const image = crashImage(t.dir);
    const reopened = await reopenWatched(image.db);
    assert.deepEqual(ids(reopened), ['a', 'b', 'c', 'd', 'e']);
    assert.equal(reopened.get<{ event_type: string }>("SELECT event_type FROM events WHERE event_id = 'e'")?.event_type, 'later');
    await reopened.close();
    await s.close();
  });
});

test('a read inside the deferring transaction runs its deferred writes and ends the deferral; a nested transaction defers nothing', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db });
    await s.transaction(() => {
      s.deferWrites();
      insertEvent(s, 'a');
      assert.deepEqual(ids(s), ['a'], 'the read sees the deferred write');
      assert.equal(insertEvent(s, 'b'), 1, 'writes after the read run at once');
      s.deferWrites();
      insertEvent(s, 'c');
      void s.transaction(() => {
        s.deferWrites();
        assert.equal(insertEvent(s, 'inner'), 1, 'a nested transaction runs its writes at once');
      });
      assert.deepEqual(ids(s), ['a', 'b', 'c', 'inner'], 'the nested transaction ran the deferred write before its savepoint');
    });
    // A nested transaction that fails after deferred writes of the outer one: it undoes only its own write.
    await s.transaction(() => {
      s.deferWrites();
      insertEvent(s, 'd');
      try {
        void s.transaction(() => {
          insertEvent(s, 'x');
          throw new Error('inner boom');
        });
      } catch {
        // undone by its savepoint
      }
    });
    assert.deepEqual(ids(s), ['a', 'b', 'c', 'inner', 'd']);
    const image = crashImage(t.dir);
    const reopened = await openStore({ path: image.db });
    assert.deepEqual(ids(reopened), ['a', 'b', 'c', 'inner', 'd']);
    await reopened.close();
    await s.close();
  });
});

test('a transaction that fails after deferring writes leaves none of them, in memory or on disk, and its batch untouched', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db });
    const inserted = await watchInserts(s);
    const a = s.transaction(() => insertEvent(s, 'a'));
    const rollbacks = s.rollbacks();
    const failed = assert.rejects(
      s.transaction(() => {
        s.deferWrites();
        insertEvent(s, 'x');
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(s.stats().batchRedos, 0, 'only deferred writes, none ran: nothing to undo');
    assert.equal(s.rollbacks(), rollbacks + 1, 'yet writes a caller took as made were undone: caches of rows seen drop');
    await Promise.all([a, failed]);
    await nextTurn();
    assert.deepEqual(inserted, ['a']);
    assert.deepEqual(ids(s), ['a']);
    const image = crashImage(t.dir);
    const reopened = await reopenWatched(image.db);
    assert.deepEqual(ids(reopened), ['a']);
    await reopened.close();
    await s.close();
  });
});

test('a released deferred write that breaks a constraint is skipped and logged, and the replay of its record skips it too', async () => {
  for (const path of [null, 'file'] as const) {
    await withTempDir(async (t) => {
      const log = keptLog();
      const s = await openStore({ path: path && t.db, log });
      await s.transaction(() => insertEvent(s, 'dup'));
      await s.transaction(() => {
        insertEvent(s, 'a');
        s.deferWrites();
        insertEvent(s, 'b');
        insertEvent(s, 'dup'); // event_id is UNIQUE
        insertEvent(s, 'c');
      });
      await nextTurn();
      assert.deepEqual(ids(s), ['dup', 'a', 'b', 'c'], `${path ?? 'in memory'}: the writes around it stay`);
      assert.equal(log.errors.length, 1);
      assert.match(log.errors[0]!, /deferred past its answer failed and was skipped \(UNIQUE constraint failed: events\.event_id\): INSERT INTO events/);
      await s.transaction(() => insertEvent(s, 'd'));
      assert.deepEqual(ids(s), ['dup', 'a', 'b', 'c', 'd'], 'the store goes on');
      if (path) {
        const image = crashImage(t.dir);
        const replayLog = keptLog();
        const reopened = await openStore({ path: image.db, log: replayLog });
        assert.deepEqual(ids(reopened), ['dup', 'a', 'b', 'c', 'd'], 'the replay gives the same rows');
        assert.equal(replayLog.errors.length, 1, 'and says what it skipped');
        await reopened.close();
      }
      await s.close();
    });
  }
});

test('a write that breaks a constraint inside its own transaction fails it, deferred or not', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db });
    await s.transaction(() => insertEvent(s, 'dup'));
    await assert.rejects(
      s.transaction(() => {
        s.deferWrites();
        insertEvent(s, 'a');
        insertEvent(s, 'dup');
        ids(s); // runs them: the transaction fails
      }),
      /UNIQUE constraint failed/,
    );
    assert.deepEqual(ids(s), ['dup']);
    const image = crashImage(t.dir);
    const reopened = await openStore({ path: image.db });
    assert.deepEqual(ids(reopened), ['dup']);
    await reopened.close();
    await s.close();
  });
});

test('a released deferred write whose failure throws SQLite\'s transaction away loses the batch: the batch is redone, then the store refuses writes it cannot keep', async () => {
  await withTempDir(async (t) => {
    const log = keptLog();
    const s = await openStore({ path: t.db, log });
    // RAISE(ROLLBACK) ends the whole SQLite transaction: skipping the write would leave the batch's other writes out.
    await s.transaction(() =>
      s.run("CREATE TRIGGER lose_batch BEFORE INSERT ON events WHEN NEW.event_id = 'lose-batch' BEGIN SELECT RAISE(ROLLBACK, 'batch lost on purpose'); END"));
    await batchCommitted(); // the trigger's batch: the next one holds a and b alone
    const a = s.transaction(() => insertEvent(s, 'a'));
    const b = s.transaction(() => {
      s.deferWrites();
      insertEvent(s, 'lose-batch');
    });
    await Promise.all([a, b]); // answered: its record is on disk
    await nextTurn();
    // The redo meets the same rollback: the store cannot hold what it acknowledged, and says so.
    await assert.rejects(s.transaction(() => insertEvent(s, 'c')), /lost 2 committed transactions it could not redo/);
    assert.equal(log.errors.length, 1);
    // Its journal says what it acknowledged; the replay meets the same trigger and refuses to open, naming the record.
    const image = crashImage(t.dir);
    await assert.rejects(openStore({ path: image.db }), /cannot be replayed/);
    s.dispose();
  });
});
