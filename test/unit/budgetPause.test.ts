// Rule: a pipeline run that pauses at its budget is announced with the run's name, the figures as the panel shows
// them and how to go on; a run paused for any other reason (an interruption), not paused, or not a pipeline run is not.
// An owner that ended with the run it paused (a terminal's `pipeline run`) does not lose the notification: the run is
// read again from the next owner.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { interruptedReason } from '../../src/core/pipelines/pipelineRuns.js';
import type { System } from '../../src/core/pipelines/types.js';
import { BatonError } from '../../src/core/errors.js';
import { budgetPauseMessage, budgetPauseOf } from '../../src/vscode/pipelines/budgetPause.js';

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

test('the owner that paused the run ended with it: the run is read again until the next owner answers', async () => {
  const paused = run('paused', 'budget_exceeded: 3702 tokens used, budget 3000');
  let reads = 0;
  const waits: number[] = [];
  const view = async () => {
    if (++reads <= 2) throw new BatonError('owner_unreachable', 'Baton process 15702 owns the database but its endpoint does not answer');
    return paused;
  };
  const message = await budgetPauseOf(view, paused.runId, async (ms) => void waits.push(ms));
  assert.match(message!, /paused at its budget \(3,702 tokens used, budget 3,000 tokens; run 01234567\)/);
  assert.deepEqual(waits, [1000, 1000], 'a second apart, twice');
});

test('not a pipeline run: nothing to say; an owner that never answers: the failure after six reads', async () => {
  const missing = async () => { throw new BatonError('execution_not_found', 'No pipeline run x'); };
  assert.equal(await budgetPauseOf(missing, 'x', async () => undefined), null);
  let reads = 0;
  const gone = async () => { reads++; throw new BatonError('owner_unreachable', 'does not answer'); };
  await assert.rejects(budgetPauseOf(gone, 'x', async () => undefined), /does not answer/);
  assert.equal(reads, 6);
});
