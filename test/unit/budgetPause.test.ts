// Rule: a pipeline run that pauses at its budget is announced with the run's name, the figures as the panel shows
// them and how to go on; a run paused for any other reason (an interruption) or not paused is not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { interruptedReason } from '../../src/core/pipelines/pipelineRuns.js';
import type { System } from '../../src/core/pipelines/types.js';
import { budgetPauseMessage } from '../../src/vscode/pipelines/budgetPause.js';

const system: System = { name: 'review', description: '', agents: [], workflow: [] };
const run = (status: string, pauseReason: string | null) =>
  ({ runId: '0123456789abcdef', system, input: 'the login fix', status, pauseReason }) as Parameters<typeof budgetPauseMessage>[0];

test('a run paused at its budget: its name, the figures as the panel says them, how to go on', () => {
  assert.equal(
    budgetPauseMessage(run('paused', 'budget_exceeded: 2468 tokens used, budget 2000')),
    'Baton: review “the login fix” paused at its budget (2,468 tokens used, budget 2,000 tokens; run 01234567). ' +
      'Raise the budget and resume it from its panel, or with baton pipeline resume.',
  );
  assert.match(budgetPauseMessage(run('paused', null))!, /paused at its budget \(it reached its budget; run 01234567\)/);
});

test('a run paused by an interruption, or not paused, is not announced as over its budget', () => {
  assert.equal(budgetPauseMessage(run('paused', interruptedReason('Ctrl-C'))), null);
  assert.equal(budgetPauseMessage(run('running', null)), null);
  assert.equal(budgetPauseMessage(run('completed', null)), null);
});
