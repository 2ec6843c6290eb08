// Rule: what the editor shows a person names runs so two of one workflow differ (the task as typed, clipped to one
// line), each gate's notification text is its own, statuses read as words ("awaiting approval", "cancelled"), counts
// take the right plural, progress says 100% only for a run that completed, and bidi control characters in agent text
// are shown, never obeyed; a budget pause's stored reason reads with grouped tokens and dollars as spend does; the
// timeline names a stopped step and a pipeline run's end in the panel's words; a step a run left unfinished when it
// ended reads "not run" / "stopped" with how the run ended.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bidiSafe, budgetOverrun, budgetReasonText, gateMessage, keptText, leftStepText, plural, runName, shownProgress, statusText, taskLabel,
  timelineEventName,
} from '../../src/shared/labels.js';
import { buildPanelState } from '../../src/vscode/panels/panelState.js';
import { statusBarView } from '../../src/vscode/statusBarText.js';
import { executionLabel } from '../../src/vscode/views/treeModel.js';

describe('labels', () => {
  it('reads statuses as words, a cancelled failure as "cancelled"', () => {
    assert.equal(statusText('awaiting_approval'), 'awaiting approval');
    assert.equal(statusText('failed'), 'failed');
    assert.equal(statusText('failed', true), 'cancelled');
    assert.equal(statusText('running', true), 'running', 'only a finished execution reads as cancelled');
  });

  it('says 100% only for a completed run: the panel, the tree and the status bar', () => {
    assert.deepEqual([shownProgress(99.6, 'running'), shownProgress(100, 'awaiting_approval'), shownProgress(100, 'completed'), shownProgress(-3, 'running'), shownProgress(49.5, 'paused')], [99, 99, 100, 0, 50]);
    // 199 of 200 steps done rounds to 100 (an owner that rounded, or an older run's record): the last one still runs.
    const run = { execution_id: 'e1', task_id: null, workflow: 'long', kind: 'template' as const, status: 'running' as const, progress: 100, current_step: 'last', started_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', steps: [{ step_name: 'last', status: 'running' as const, agent_name: 'a' }] };
    assert.equal(executionLabel(run), 'long · running · 99%');
    assert.match(statusBarView([run])!.text, / · 99%$/);
    const state = buildPanelState({ ...run, completed_at: null, steps: [] }, null, [], [], '');
    assert.equal(state.progress, 99);
    assert.equal(buildPanelState({ ...run, status: 'completed', completed_at: null, steps: [] }, null, [], [], '').progress, 100);
  });

  it('counts with the right plural', () => {
    assert.deepEqual([plural(0, 'step'), plural(1, 'step'), plural(2, 'step'), plural(2, 'entry', 'entries')], ['0 steps', '1 step', '2 steps', '2 entries']);
    // What a prune leaves: never "0 kept".
    assert.deepEqual([keptText(0), keptText(1), keptText(12), keptText(0, true), keptText(1, true)],
      ['no finished run is left', '1 finished run kept', '12 finished runs kept', 'no finished run would be left', '1 finished run would be kept']);
  });

  it('clips a task to one line with an ellipsis, and has none for a blank task', () => {
    assert.equal(taskLabel('Fix the\n  cart   total'), 'Fix the cart total');
    const long = taskLabel('x'.repeat(80))!;
    assert.equal([...long].length, 50);
    assert.ok(long.endsWith('…'));
    assert.equal(taskLabel('  '), null);
    assert.equal(taskLabel(null), null);
    assert.equal(runName('bug-fix', 'Fix it'), 'bug-fix “Fix it”');
    assert.equal(runName('bug-fix', undefined), 'bug-fix');
  });

  it('gives each gate its own notification text, even for the same workflow, step and task', () => {
    const a = gateMessage('review-code', 'bug-fix', 'Fix the cart total', '11111111-aaaa');
    const b = gateMessage('review-code', 'bug-fix', 'Fix the login loop', '22222222-bbbb');
    const c = gateMessage('review-code', 'bug-fix', 'Fix the cart total', '33333333-cccc');
    assert.equal(a, 'Baton: review-code of bug-fix “Fix the cart total” awaits your approval (run 11111111)');
    assert.equal(new Set([a, b, c]).size, 3);
  });

  it('shows bidi controls instead of obeying them', () => {
    assert.equal(bidiSafe('a\u202Elive\u202C b'), 'a[U+202E]live[U+202C] b');
    assert.equal(bidiSafe('\u2066x\u2069\u200F'), '[U+2066]x[U+2069][U+200F]');
    assert.equal(bidiSafe('שלום plain'), 'שלום plain', 'right-to-left letters themselves are kept');
    assert.equal(taskLabel('\u202Eevil'), '[U+202E]evil');
  });

  it('a step a run left unfinished when it ended says so; a finished step, or one of a run under way, does not', () => {
    assert.equal(leftStepText('ready', 'failed', true), 'not run (run cancelled)');
    assert.equal(leftStepText('pending', 'failed'), 'not run (run failed)');
    assert.equal(leftStepText('running', 'failed', true), 'stopped (run cancelled)');
    assert.equal(leftStepText('awaiting_approval', 'failed'), 'stopped (run failed)');
    assert.equal(leftStepText('completed', 'failed', true), null);
    assert.equal(leftStepText('failed', 'failed'), null);
    assert.equal(leftStepText('failed', 'failed', true, true), 'stopped (run cancelled)', 'failed by the cancel, at the run\'s end');
    assert.equal(leftStepText('failed', 'failed', true), null, 'failed before the cancel');
    assert.equal(leftStepText('failed', 'failed', false, true), null, 'a failed run\'s failed step failed');
    assert.equal(leftStepText('ready', 'running'), null);
    assert.equal(leftStepText('pending', 'paused'), null);
  });

  it('a budget pause\'s reason reads as spend does; a reason in another form is kept as it is', () => {
    assert.equal(budgetReasonText('budget_exceeded: 2468 tokens used, budget 2000'), '2,468 tokens used, budget 2,000 tokens');
    assert.equal(budgetReasonText('budget_exceeded: $0.5 spent, budget $0.25'), '$0.5000 spent, budget $0.2500');
    assert.equal(budgetReasonText('still over its budget'), 'still over its budget');
  });

  it('reads which limit a budget pause passed from its stored reason, not from words around it', () => {
    assert.deepEqual(budgetOverrun('budget_exceeded: 2468 tokens used, budget 2000'), { limit: 'tokens', used: 2468, budget: 2000 });
    assert.deepEqual(budgetOverrun('budget_exceeded: $0.0123 spent, budget $0.01'), { limit: 'usd', used: 0.0123, budget: 0.01 });
    assert.equal(budgetOverrun('interrupted (Ctrl-C): 12 tokens used so far'), null);
    assert.equal(budgetOverrun('budget_exceeded: 12 tokens used, budget 10 (and more)'), null);
  });

  it('names timeline events as the panel says things: a stopped step "stopped", a pipeline run\'s end a pipeline\'s', () => {
    assert.equal(timelineEventName('step_interrupted', true), 'step stopped');
    assert.equal(timelineEventName('workflow_completed', true), 'pipeline completed');
    assert.equal(timelineEventName('workflow_failed', true), 'pipeline failed');
    assert.equal(timelineEventName('workflow_cancelled', true), 'pipeline cancelled');
    assert.equal(timelineEventName('pipeline_started', true), 'pipeline started');
    assert.equal(timelineEventName('workflow_completed'), 'workflow completed', 'a workflow run is a workflow');
    assert.equal(timelineEventName('gate_requested'), 'gate requested');
  });
});
