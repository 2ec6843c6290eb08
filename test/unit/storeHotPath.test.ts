// Rule: the broker's hot path stays cheap for structural reasons a refactor could silently undo: the
// connection keeps its exclusive lock and in-memory rollback journal across checkpoints (db.export()
// reopens the database), and the per-call lookups go through indexes, never a walk of an execution's rows; the run
// listings (the editor's tree reads them on every refresh) walk an index in their order instead of sorting the table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openStore } from '../../src/store/sqlJsStore.js';
import { withTempDir } from '../fixtures/store/helpers.js';

const pragma = (s: Awaited<ReturnType<typeof openStore>>, name: string) => Object.values(s.get<Record<string, unknown>>(`PRAGMA ${name}`)!)[0];

test('connection settings hold after open and after every checkpoint', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, durability: 'write' });
    try {
      for (let round = 0; round < 3; round++) {
        assert.equal(pragma(s, 'locking_mode'), 'exclusive', `round ${round}`);
        assert.equal(pragma(s, 'journal_mode'), 'memory', `round ${round}`);
        assert.equal(pragma(s, 'synchronous'), 0, `round ${round}`);
        await s.transaction(() => s.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('probe', ?)", [String(round)]));
        await s.checkpoint();
      }
      // A rolled-back transaction still rolls back with the in-memory journal.
      await assert.rejects(s.transaction(() => {
        s.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('probe', 'lost')");
        throw new Error('boom');
      }), /boom/);
      assert.equal(s.get<{ value: string }>("SELECT value FROM meta WHERE key = 'probe'")!.value, '2');
    } finally {
      await s.close();
    }
  });
});

test('the hot-path lookups use an index on (execution, step)', async () => {
  const s = await openStore({ path: null });
  try {
    const plan = (sql: string) => s.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ['e', 's']).map((r) => r.detail).join(' | ');
    assert.match(plan('SELECT * FROM steps WHERE execution_id = ? AND step_name = ?'), /USING INDEX sqlite_autoindex_steps_1 \(execution_id=\? AND step_name=\?\)/);
    assert.match(plan('UPDATE steps SET status = status WHERE execution_id = ? AND step_name = ?'), /USING INDEX sqlite_autoindex_steps_1 \(execution_id=\? AND step_name=\?\)/);
    assert.match(plan('SELECT content FROM artifacts WHERE execution_id = ? AND step_name IN (?)'), /USING INDEX idx_artifacts_execution_step \(execution_id=\? AND step_name=\?\)/);
    // Queries by execution alone still find an index (the new ones start with execution_id).
    assert.match(plan("SELECT * FROM steps WHERE execution_id = ? AND ? = 's' ORDER BY position"), /USING INDEX sqlite_autoindex_steps_1 \(execution_id=\?\)/);
    assert.match(plan("SELECT * FROM artifacts WHERE execution_id = ? AND ? = 's' ORDER BY id"), /USING INDEX idx_artifacts_execution_step \(execution_id=\?\)/);
  } finally {
    await s.close();
  }
});

test('the run listings walk executions newest first through an index, sorting nothing', async () => {
  const s = await openStore({ path: null });
  try {
    const plan = (sql: string) => s.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, [200]).map((r) => r.detail).join(' | ');
    for (const where of ['', "WHERE status NOT IN ('completed','failed')"]) {
      const listing = plan(`SELECT * FROM executions ${where} ORDER BY started_at DESC, rowid DESC LIMIT ?`);
      assert.match(listing, /USING INDEX idx_executions_started/, where || 'the newest runs');
      assert.doesNotMatch(listing, /TEMP B-TREE/, where || 'the newest runs');
    }
  } finally {
    await s.close();
  }
});
