// Rule: the tree, the pickers and the status bar list every unfinished run, however many newer runs there are (a run
// left at a gate weeks ago must still be offered to Approve, and counted), besides the newest runs; no run twice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecutionSummary } from '../../src/core/api.js';
import { ALL_ACTIVE, listRuns } from '../../src/vscode/runListing.js';

function run(i: number, status: ExecutionSummary['status']): ExecutionSummary {
  return {
    execution_id: `e${i}`, task_id: null, workflow: 'bug-fix', kind: 'template', status, progress: 0, current_step: null,
    started_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), updated_at: '2026-01-01T00:00:00.000Z', steps: [],
  };
}

/** A source over `all` that answers as the core does: newest first, `limit` at most, active_only filtering. */
function source(all: ExecutionSummary[]) {
  const asked: Array<{ active_only?: boolean; limit?: number }> = [];
  return {
    asked,
    async listExecutions(f: { active_only?: boolean; limit?: number } = {}) {
      asked.push(f);
      const newestFirst = [...all].sort((a, b) => b.started_at.localeCompare(a.started_at));
      const kept = f.active_only ? newestFirst.filter((e) => e.status !== 'completed' && e.status !== 'failed') : newestFirst;
      return kept.slice(0, f.limit ?? 50);
    },
  };
}

describe('listRuns', () => {
  it('keeps 300 gated runs older than the 1,500 newest finished ones, each once, and says older runs exist', async () => {
    const all = [
      ...Array.from({ length: 300 }, (_, i) => run(i, 'awaiting_approval')),
      ...Array.from({ length: 1500 }, (_, i) => run(1000 + i, 'completed')),
    ];
    const s = source(all);
    const { executions, more } = await listRuns(s, 200);
    assert.equal(executions.filter((e) => e.status === 'awaiting_approval').length, 300);
    assert.equal(executions.filter((e) => e.status === 'completed').length, 200);
    assert.equal(new Set(executions.map((e) => e.execution_id)).size, executions.length);
    assert.equal(more, true);
    assert.deepEqual(s.asked, [{ active_only: true, limit: ALL_ACTIVE }, { limit: 200 }]);
  });

  it('a run both recent and unfinished is listed once; a small database has no more', async () => {
    const { executions, more } = await listRuns(source([run(1, 'running'), run(2, 'completed')]), 200);
    assert.deepEqual(executions.map((e) => e.execution_id), ['e2', 'e1']);
    assert.equal(more, false);
  });
});
