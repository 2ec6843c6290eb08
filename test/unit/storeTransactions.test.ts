// Rule: a transaction applies all of its writes or none, writes happen only inside transactions,
// and the statement cache and registered functions keep working across checkpoints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { withTempDir } from '../fixtures/store/helpers.js';

const count = (s: SqlJsStore) => s.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;
const insertEvent = (s: SqlJsStore, id: string) =>
  s.run("INSERT INTO events (event_id, event_type, created_at) VALUES (?, 'test', '2026-01-01')", [id]);

test('a throwing fn rolls back every write and rejects with the original error', async () => {
  const s = await openStore({ path: null });
  await s.transaction(() => insertEvent(s, 'keep'));
  const boom = new Error('boom');
  await assert.rejects(
    s.transaction(() => {
      insertEvent(s, 'a');
      insertEvent(s, 'b');
      throw boom;
    }),
    (ex) => ex === boom,
  );
  assert.equal(count(s), 1);
  assert.deepEqual(s.all('SELECT event_id FROM events'), [{ event_id: 'keep' }]);
  await s.close();
});

test('a constraint violation inside fn rolls back the earlier writes too', async () => {
  const s = await openStore({ path: null });
  await s.transaction(() => insertEvent(s, 'dup'));
  await assert.rejects(
    s.transaction(() => {
      insertEvent(s, 'new');
      insertEvent(s, 'dup');
    }),
    /UNIQUE/,
  );
  assert.equal(count(s), 1);
  await s.close();
});

test('run() outside a transaction is a bug (plain Error); reads work anywhere', async () => {
  const s = await openStore({ path: null });
  assert.throws(() => insertEvent(s, 'x'), (ex: unknown) => ex instanceof Error && ex.name === 'Error' && /outside transaction/.test(ex.message));
  assert.equal(count(s), 0);
  const value = await s.transaction(() => {
    insertEvent(s, 'y');
    return s.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;
  });
  assert.equal(value, 1);
  await s.close();
});

test('run() returns the number of changed rows', async () => {
  const s = await openStore({ path: null });
  const changed = await s.transaction(() => {
    insertEvent(s, 'a');
    insertEvent(s, 'b');
    return s.run("UPDATE events SET event_type = 'changed'");
  });
  assert.equal(changed, 2);
  await s.close();
});

test('nested transactions run inline; an inner failure undoes only its own writes unless it propagates', async () => {
  const s = await openStore({ path: null });
  let inner: Promise<string> | undefined;
  const outer = await s.transaction(() => {
    insertEvent(s, 'outer');
    inner = s.transaction(() => {
      insertEvent(s, 'inner');
      return 'inner-result';
    });
    try {
      void s.transaction(() => {
        insertEvent(s, 'inner-failed');
        throw new Error('inner boom');
      });
    } catch {
      // the outer fn chose to carry on
    }
    return 'outer-result';
  });
  assert.equal(outer, 'outer-result');
  assert.equal(await inner, 'inner-result');
  assert.deepEqual(s.all('SELECT event_id FROM events ORDER BY event_id'), [{ event_id: 'inner' }, { event_id: 'outer' }]);

  await assert.rejects(
    s.transaction(() => {
      insertEvent(s, 'x1');
      void s.transaction(() => {
        insertEvent(s, 'x2');
        throw new Error('propagates');
      });
    }),
    /propagates/,
  );
  assert.equal(count(s), 2);
  await s.close();
});

test('an async fn is refused and its synchronous writes rolled back', async () => {
  const s = await openStore({ path: null });
  await assert.rejects(
    s.transaction(async () => {
      insertEvent(s, 'a');
    }),
    /synchronous/,
  );
  assert.equal(count(s), 0);
  await s.close();
});

test('blobs and named parameters round-trip through reads', async () => {
  const s = await openStore({ path: null });
  const blob = new Uint8Array([0, 1, 2, 255, 254]);
  await s.transaction(() => s.run('CREATE TABLE b (k TEXT, v BLOB)'));
  await s.transaction(() => s.run('INSERT INTO b VALUES ($k, $v)', { $k: 'one', $v: blob }));
  const row = s.get<{ k: string; v: Uint8Array }>('SELECT k, v FROM b WHERE k = $k', { $k: 'one' });
  assert.deepEqual(row?.v, blob);
  assert.equal(s.get('SELECT k FROM b WHERE k = ?', ['none']), undefined);
  await s.close();
});

test('registered functions and cached statements keep working after checkpoints', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db });
    s.registerFunction('baton_double', (x: number) => x * 2);
    const query = "SELECT baton_double(count(*)) AS d FROM events WHERE event_type = 'test'";
    await s.transaction(() => insertEvent(s, 'a'));
    assert.equal(s.get<{ d: number }>(query)!.d, 2);
    for (let i = 0; i < 3; i++) {
      await s.transaction(() => insertEvent(s, `b${i}`));
      await s.checkpoint();
      assert.equal(s.get<{ d: number }>(query)!.d, 2 * (i + 2));
      await s.transaction(() => s.run("INSERT INTO events (event_id, event_type, created_at) VALUES (?, 'fn', baton_double(?))", [`f${i}`, i]));
    }
    assert.ok(s.stats().checkpoints >= 3);
    await s.close();
  });
});

test('rows are keyed by column name: any name, the later of two alike, NULL as null, a blob as bytes', async () => {
  const s = await openStore({ path: null });
  const row = s.get<Record<string, unknown>>(`SELECT 1 AS a, 'x' AS "we""ird name", NULL AS "n", 2 AS a, 'c' AS "constructor", x'00ff' AS b`)!;
  assert.deepEqual(Object.keys(row), ['a', 'we"ird name', 'n', 'constructor', 'b']);
  assert.equal(row.a, 2);
  assert.equal(row['we"ird name'], 'x');
  assert.equal(row.n, null);
  assert.equal(row.constructor, 'c');
  assert.deepEqual(row.b, new Uint8Array([0, 255]));
  // The same statement's next rows come out alike; all() too.
  assert.deepEqual(s.all<{ k: number }>('SELECT value AS k FROM json_each(?)', ['[1,2,3]']), [{ k: 1 }, { k: 2 }, { k: 3 }]);
  await s.close();
});
