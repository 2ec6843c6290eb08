// Rule: `baton status` with nothing to show says why: no unfinished execution points at --all (with its --db), which
// lists the rest; a listed execution shows its task and whether it was cancelled; every gate that waits gets its
// commands.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderStatus } from '../../src/cli/statusCommand.js';
import { makeBaton } from '../helpers/coreHarness.js';

test('an empty listing of unfinished executions points at --all; an empty --all listing says there are none', () => {
  assert.equal(renderStatus([], '', true), 'No unfinished executions (baton status --all lists the finished ones too).');
  assert.equal(renderStatus([], '', false), 'No executions.');
  // The --all it points at names the database this listing read, as the gates' commands do.
  assert.equal(renderStatus([], ' --db x.db', true), 'No unfinished executions (baton status --all --db x.db lists the finished ones too).');
});

test('a listed execution shows its task, clipped to one line, and a cancelled one reads cancelled', () => {
  const base = { execution_id: 'e1', task_id: null, workflow: 'bug-fix', kind: 'workflow', status: 'failed', progress: 20, current_step: null, started_at: '', updated_at: '', steps: [] };
  const text = renderStatus([{ ...base, task_description: `Fix the\nlogin ${'loop '.repeat(30)}`, cancelled: true } as never], '', false);
  assert.match(text, /^e1 {2}bug-fix {2}cancelled {2}20% {2}"Fix the login loop loop .{20,}\u2026"$/);
  assert.equal(renderStatus([{ ...base, task_description: null } as never], '', false), 'e1  bug-fix  failed  20%');
  // Who cancelled it and why, in short: the first sentence, clipped; a note says where the whole reason is.
  const why = `stopped by baton stop @pr-1. ${'More detail. '.repeat(5)}`;
  const whole = '\n\n(A reason cut short here is whole in baton status --json.)';
  assert.equal(renderStatus([{ ...base, task_description: null, cancelled: true, cancel_reason: why } as never], '', false), `e1  bug-fix  cancelled (stopped by baton stop @pr-1)  20%${whole}`);
  const long = 'x'.repeat(200);
  assert.match(renderStatus([{ ...base, task_description: null, cancelled: true, cancel_reason: long } as never], '', false), /^e1 {2}bug-fix {2}cancelled \(x{79}\u2026\) {2}20%\n\n\(A reason/);
  assert.equal(renderStatus([{ ...base, task_description: null, cancelled: true, cancel_reason: 'by the editor.' } as never], '', false), 'e1  bug-fix  cancelled (by the editor)  20%');
});

test('a team run shows workflow@instance and "team run" in place of a progress it does not have; one-line entries are not spaced', () => {
  const base = { task_id: null, started_at: '', updated_at: '', task_description: null, cancelled: false, current_step: null, progress: 0 };
  const team = { ...base, execution_id: 't1', workflow: 'review', kind: 'worker', status: 'completed', instance: 'pr-7', steps: [] };
  const older = { ...team, execution_id: 't0', instance: undefined };
  const workflow = {
    ...base, execution_id: 'e1', workflow: 'bug-fix', kind: 'template', status: 'running', progress: 25, current_step: 'fix',
    steps: [{ step_name: 'fix', status: 'running', agent_name: 'implementer' }],
  };
  assert.equal(
    renderStatus([team, older, workflow, team] as never, '', false),
    't1  review@pr-7  completed  team run\nt0  review  completed  team run\n\ne1  bug-fix  running  25%  step: fix\n  ▶ fix (running, implementer)\n\nt1  review@pr-7  completed  team run',
  );
});

test('every gate that waits gets its approve and reject commands, in a run whose other steps go on too', () => {
  const base = { task_id: null, started_at: '', updated_at: '', task_description: null, cancelled: false, workflow: 'feature', kind: 'template', progress: 40 };
  const step = (step_name: string, status: string) => ({ step_name, status, agent_name: 'a' });
  const parallel = { ...base, execution_id: 'e1', status: 'running', current_step: 'write-tests', steps: [step('review-design', 'awaiting_approval'), step('write-tests', 'running')] };
  assert.equal(
    renderStatus([parallel] as never, ' --db x.db', false),
    'e1  feature  running  40%  step: write-tests\n  ⏸ review-design (awaiting_approval, a)\n  ▶ write-tests (running, a)\n' +
      '  → baton approve e1 --db x.db   or   baton reject e1 --db x.db --feedback TEXT',
  );
  const two = { ...parallel, steps: [step('review-design', 'awaiting_approval'), step('review-api', 'awaiting_approval')] };
  assert.match(renderStatus([two] as never, '', false), /\n {2}→ baton approve e1 --step review-design {3}or {3}baton reject e1 --step review-design --feedback TEXT\n {2}→ baton approve e1 --step review-api {3}or {3}baton reject e1 --step review-api --feedback TEXT$/);
  // A run that says it waits, though no step says so (an older owner's listing): the hint as before.
  assert.match(renderStatus([{ ...parallel, status: 'awaiting_approval', steps: [] }] as never, '', false), /\n {2}→ baton approve e1 {3}or {3}baton reject e1 --feedback TEXT$/);
});

test('a workflow quiet for ten minutes with steps running says how to release them from an agent that went away', () => {
  const now = Date.parse('2026-01-01T01:00:00.000Z');
  const step = (step_name: string, status: string) => ({ step_name, status, agent_name: 'a' });
  const quiet = {
    execution_id: 'e1', task_id: 't1', started_at: '', updated_at: '2026-01-01T00:50:00.000Z', task_description: null, cancelled: false,
    workflow: 'bug-fix', kind: 'template', status: 'running', progress: 0, current_step: 'fix', steps: [step('fix', 'running'), step('test', 'pending')],
  };
  assert.equal(
    renderStatus([quiet] as never, ' --db x.db', false, now),
    'e1  bug-fix  running  0%  step: fix\n  ▶ fix (running, a)\n  · test (pending, a)\n' +
      '  → quiet since 2026-01-01T00:50:00.000Z: if the agent holding fix went away, baton release e1 --db x.db',
  );
  const two = { ...quiet, kind: 'spec', steps: [step('left', 'running'), step('right', 'running')] };
  assert.match(renderStatus([two] as never, '', false, now), /\n {2}→ quiet since \S+: if the agent holding left, right went away, baton release e1 --step NAME$/);
  // Active a minute ago, or a pipeline run (its steps are held by the agents it started): no hint.
  assert.doesNotMatch(renderStatus([{ ...quiet, updated_at: '2026-01-01T00:59:00.000Z' }] as never, '', false, now), /release/);
  assert.doesNotMatch(renderStatus([{ ...quiet, kind: 'pipeline' }] as never, '', false, now), /release/);
  // Nor a run the lifecycle tools drive (no task): its steps hold no token, and baton release refuses them.
  assert.doesNotMatch(renderStatus([{ ...quiet, task_id: null }] as never, '', false, now), /release/);
});

test('a cancelled run\'s steps say what the cancel did: the one under way stopped, the others not run (the real core)', async () => {
  const { baton } = await makeBaton();
  const run = await baton.nextStep({ template_name: 'bug-fix' });
  await baton.cancel(run.execution_id!, 'not needed', 'tester');
  const [summary] = baton.listExecutions({});
  assert.deepEqual(summary!.steps.map((s) => [s.step_name, s.status, s.stopped ?? false]), [
    ['analyze-root-cause', 'failed', true], ['implement-fix', 'pending', false], ['write-tests', 'pending', false], ['review-code', 'pending', false],
  ]);
  const lines = renderStatus([summary!], '', false).split('\n');
  assert.deepEqual(lines.slice(1), [
    '  \u2013 analyze-root-cause (stopped: run cancelled, debugger)',
    '  \u2013 implement-fix (not run: run cancelled, implementer)',
    '  \u2013 write-tests (not run: run cancelled, implementer)',
    '  \u2013 review-code (not run: run cancelled, reviewer)',
  ]);
  // A failed step the cancel did not stop (its agent failed it earlier: no `stopped`) reads failed.
  const earlier = { ...summary!, steps: summary!.steps.map((s) => ({ step_name: s.step_name, status: s.status, agent_name: s.agent_name })) };
  assert.equal(renderStatus([earlier], '', false).split('\n')[1], '  \u2717 analyze-root-cause (failed, debugger)');
});

test('a failed run says why under its steps, in one line; a cancelled one keeps its reason in the head only', () => {
  const base = { execution_id: 'e1', task_id: null, workflow: 'p', kind: 'pipeline', status: 'failed', progress: 0, current_step: null, started_at: '', updated_at: '', task_description: null };
  const steps = [{ step_name: 'one', status: 'failed', agent_name: 'a' }];
  const error = `step one: command exited with code 3: stderr: ${'x'.repeat(200)}\nat line 2`;
  const whole = '\n\n(A reason cut short here is whole in baton status --json --db x.db.)';
  assert.equal(renderStatus([{ ...base, steps, error } as never], ' --db x.db', false), `e1  p  failed  0%\n  ✗ one (failed, a)\n  ✗ why it failed: step one: command exited with code 3: stderr: ${'x'.repeat(53)}…${whole}`);
  assert.doesNotMatch(renderStatus([{ ...base, steps, cancelled: true, cancel_reason: 'by the editor' } as never], '', false), /why it failed/);
  // A step's own reason shows beside it, unless the run's reason already says it.
  const failedStep = [{ step_name: 'one', status: 'failed', agent_name: 'a', error: 'boom. More.' }];
  assert.equal(renderStatus([{ ...base, steps: failedStep } as never], '', false), 'e1  p  failed  0%\n  ✗ one (failed, a): boom' + whole.replace(' --db x.db', ''));
  assert.equal(renderStatus([{ ...base, steps: failedStep, error: 'step one: boom. More.' } as never], '', false), 'e1  p  failed  0%\n  ✗ one (failed, a)\n  ✗ why it failed: step one: boom' + whole.replace(' --db x.db', ''));
  // One that says what to do next keeps that step, without its asides in brackets.
  const missing = 'claude: "claude" was not found on PATH. Install Claude Code from npm: `npm i -g x` (package x), or put it on PATH.';
  assert.match(renderStatus([{ ...base, steps, error: missing } as never], '', false),
    /\n {2}✗ why it failed: claude: "claude" was not found on PATH\. Install Claude Code from npm: `npm i -g x`\n\n\(A reason/);
  const told = 'command: "x" was not found on PATH. Check the agent\'s command.';
  assert.equal(renderStatus([{ ...base, steps, error: told } as never], '', false), `e1  p  failed  0%\n  ✗ one (failed, a)\n  ✗ why it failed: ${told.slice(0, -1)}`);
});
