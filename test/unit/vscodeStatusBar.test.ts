// Rule: the status bar names the step a person must act on first (a gate, with its run's progress), else the latest
// running step with its progress (a paused run after the moving ones, and said paused at its step), and disappears when
// no execution is active. Several gates are counted, never one hiding the others. A run whose ready steps no agent has
// taken says it waits for an agent (no spinner). Advance Step's picker offers only runs whose steps can be claimed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecutionSummary } from '../../src/core/api.js';
import { isActive, isSteppable } from '../../src/vscode/executionFilters.js';
import { statusBarView } from '../../src/vscode/statusBarText.js';

function exec(id: string, over: Partial<ExecutionSummary>): ExecutionSummary {
  return {
    execution_id: id, task_id: null, workflow: 'bug-fix', kind: 'template', status: 'running', progress: 50, current_step: 'implement-fix',
    started_at: '2026-11-22T07:00:00.000Z', updated_at: '2026-11-22T07:00:00.000Z',
    steps: [{ step_name: 'implement-fix', status: 'running', agent_name: 'implementer' }], ...over,
  };
}

describe('status bar text', () => {
  it('is hidden with no active execution', () => {
    assert.equal(statusBarView([]), undefined);
    assert.equal(statusBarView([exec('e1', { status: 'completed' }), exec('e2', { status: 'failed' })]), undefined);
  });

  it('shows the running step and progress, spinning', () => {
    const v = statusBarView([exec('e1', {})])!;
    assert.equal(v.text, '$(sync~spin) Baton: implement-fix · 50%');
    assert.equal(v.executionId, 'e1');
  });

  it('a run with steps ready and none at work waits for an agent: said so, not a spinner over "running"', () => {
    const fresh = exec('e1', { progress: 0, current_step: null, steps: [
      { step_name: 'analyze-root-cause', status: 'ready', agent_name: 'debugger' }, { step_name: 'implement-fix', status: 'pending', agent_name: 'implementer' },
    ] });
    const v = statusBarView([fresh])!;
    assert.equal(v.text, '$(person) Baton: analyze-root-cause waits for an agent · 0%');
    assert.equal(v.tooltip, 'bug-fix: analyze-root-cause is ready and no agent has taken it yet; Copy Agent Prompt sends one to the run. Click to open the execution.');
    const two = exec('e2', { current_step: null, steps: [
      { step_name: 'scan', status: 'ready', agent_name: 'reviewer' }, { step_name: 'design', status: 'ready', agent_name: 'architect' },
    ] });
    assert.equal(statusBarView([two])!.text, '$(person) Baton: 2 steps wait for an agent · 50%');
    const oneAtWork = exec('e3', { steps: [
      { step_name: 'scan', status: 'running', agent_name: 'reviewer' }, { step_name: 'design', status: 'ready', agent_name: 'architect' },
    ] });
    assert.equal(statusBarView([oneAtWork])!.text, '$(sync~spin) Baton: implement-fix · 50%', 'a step at work: spinning');
  });

  it('prefers the most recently updated running execution', () => {
    const v = statusBarView([exec('old', {}), exec('new', { updated_at: '2026-11-22T08:00:00.000Z', current_step: 'write-tests', progress: 75 })])!;
    assert.equal(v.text, '$(sync~spin) Baton: write-tests · 75%');
    assert.match(v.tooltip, /2 active executions/);
  });

  it('puts a moving execution before a paused one, however recent; a paused one alone shows paused, not spinning', () => {
    const paused = exec('p', { status: 'paused', updated_at: '2026-11-22T09:00:00.000Z', current_step: 'draft', progress: 10, steps: [] });
    assert.equal(statusBarView([paused, exec('r', {})])!.executionId, 'r');
    const alone = statusBarView([paused])!;
    assert.equal(alone.text, '$(debug-pause) Baton: paused at draft · 10%', 'paused, at the step it stopped, with its progress');
    assert.match(alone.tooltip, /paused/);
    // A pipeline paused at its budget in its first step: nothing is done yet, so 0% is its progress.
    const first = exec('f', { kind: 'pipeline', status: 'paused', current_step: 'plan', progress: 0, steps: [] });
    assert.equal(statusBarView([first])!.text, '$(debug-pause) Baton: paused at plan · 0%');
    assert.equal(statusBarView([{ ...paused, current_step: null }])!.text, '$(debug-pause) Baton: paused · 10%');
  });

  it('a pipeline run whose driving process ended waits like a paused one: after moving runs, with the pause icon', () => {
    const left = exec('o', { kind: 'pipeline', orphaned: true, updated_at: '2026-11-22T09:00:00.000Z', current_step: 'draft', progress: 0, steps: [] });
    assert.equal(statusBarView([left, exec('r', {})])!.executionId, 'r');
    const alone = statusBarView([left])!;
    assert.equal(alone.text, '$(debug-pause) Baton: interrupted at draft · 0%');
    assert.match(alone.tooltip, /interrupted \(the Baton process that drove it ended\)/);
  });

  it('puts a gate waiting for a person first, with a bell and its run\'s progress', () => {
    const gated = exec('g', {
      status: 'awaiting_approval', updated_at: '2026-11-22T06:00:00.000Z', progress: 67,
      steps: [{ step_name: 'review-code', status: 'awaiting_approval', agent_name: 'reviewer' }],
    });
    const v = statusBarView([exec('r', { updated_at: '2026-11-22T09:00:00.000Z' }), gated])!;
    assert.equal(v.text, '$(bell) Baton: review-code awaiting approval · 67%');
    assert.equal(v.executionId, 'g');
  });

  it('a pipeline run\'s last gate reads below 100% while it waits (rounding or a stored 100 never says done)', () => {
    const gated = exec('p', {
      kind: 'pipeline', status: 'awaiting_approval', progress: 99.6, current_step: 'sign-off',
      steps: [{ step_name: 'sign-off', status: 'awaiting_approval', agent_name: 'person' }],
    });
    assert.equal(statusBarView([gated])!.text, '$(bell) Baton: sign-off awaiting approval · 99%');
    assert.equal(statusBarView([{ ...gated, progress: 100 }])!.text, '$(bell) Baton: sign-off awaiting approval · 99%');
  });

  it('two gates of one run are counted with that run\'s progress', () => {
    const gated = exec('g', {
      status: 'awaiting_approval', progress: 40,
      steps: [
        { step_name: 'review-api', status: 'awaiting_approval', agent_name: 'person' },
        { step_name: 'review-ui', status: 'awaiting_approval', agent_name: 'person' },
      ],
    });
    assert.equal(statusBarView([gated])!.text, '$(bell) Baton: 2 steps await approval · 40%');
  });

  it('counts the gates when several runs wait, naming each run with its task and progress in the tooltip', () => {
    const gate = (id: string, task: string, updated: string, progress: number) => exec(id, {
      status: 'awaiting_approval', updated_at: updated, task_description: task, progress,
      steps: [{ step_name: 'review-code', status: 'awaiting_approval', agent_name: 'reviewer' }],
    });
    const v = statusBarView([
      gate('a', 'Fix the cart total rounding', '2026-11-22T06:00:00.000Z', 20),
      gate('b', 'Fix the login redirect loop', '2026-11-22T07:00:00.000Z', 80),
    ])!;
    assert.equal(v.text, '$(bell) Baton: 2 steps await approval', 'one number for two runs would mislead');
    assert.match(v.tooltip, /"review-code" of bug-fix “Fix the login redirect loop” \(80%\); "review-code" of bug-fix “Fix the cart total rounding” \(20%\)/);
    assert.equal(v.executionId, 'b', 'a click opens the most recently updated one');
  });

  it('counts every gate of 121 runs but names only the first ten in the tooltip', () => {
    const runs = Array.from({ length: 121 }, (_, i) => exec(`g${i}`, {
      status: 'awaiting_approval', task_description: `Task ${i}`, updated_at: `2026-11-22T07:${String(i % 60).padStart(2, '0')}:00.000Z`,
      steps: [{ step_name: 'review-code', status: 'awaiting_approval', agent_name: 'reviewer' }],
    }));
    const v = statusBarView(runs)!;
    assert.equal(v.text, '$(bell) Baton: 121 steps await approval');
    assert.equal(v.tooltip.match(/"review-code"/g)?.length, 10);
    assert.match(v.tooltip, /; and 111 more\. Click to open the first\.$/);
  });
});

describe('pickers', () => {
  it('Advance Step offers the unfinished runs with steps to claim: no pipeline or team run, which Baton drives itself', () => {
    const runs = [exec('w', {}), exec('s', { kind: 'spec' }), exec('p', { kind: 'pipeline' }), exec('t', { kind: 'worker' }), exec('d', { status: 'completed' })];
    assert.deepEqual(runs.filter(isSteppable).map((e) => e.execution_id), ['w', 's']);
    assert.deepEqual(runs.filter(isActive).map((e) => e.execution_id), ['w', 's', 'p', 't']);
  });
});
