// Rule: a screen reader hears the status bar item as words: its text without the icon's name (the editor read
// "$(bell) Baton: ..." as "bell Baton: ..."), its separators as pauses, then the tooltip that names the run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExecutionSummary } from '../../src/core/api.js';
import { statusBarLabel, statusBarView } from '../../src/vscode/statusBarText.js';

function exec(id: string, over: Partial<ExecutionSummary>): ExecutionSummary {
  return {
    execution_id: id, task_id: null, workflow: 'bug-fix', kind: 'template', status: 'running', progress: 50, current_step: 'implement-fix',
    started_at: '2026-11-22T07:00:00.000Z', updated_at: '2026-11-22T07:00:00.000Z',
    steps: [{ step_name: 'implement-fix', status: 'running', agent_name: 'implementer' }], ...over,
  };
}

test('the item is read without its icon, with its run named', () => {
  const gate = statusBarView([exec('e1', {
    status: 'awaiting_approval', progress: 75, task_description: 'Fix the total',
    steps: [{ step_name: 'review-code', status: 'awaiting_approval', agent_name: 'reviewer' }],
  })])!;
  assert.equal(statusBarLabel(gate), 'Baton: review-code awaiting approval, 75%. "review-code" of bug-fix \u201cFix the total\u201d waits for your approval. Click to open the execution.');
  const spinning = statusBarView([exec('e1', {})])!;
  assert.match(spinning.text, /^\$\(sync~spin\) /);
  assert.equal(statusBarLabel(spinning), 'Baton: implement-fix, 50%. bug-fix: running implement-fix. Click to open the execution.');
});
