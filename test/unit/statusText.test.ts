// Rule: `baton status` with nothing to show says why: no unfinished execution points at --all, which lists the rest;
// a listed execution shows its task and whether it was cancelled.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderStatus } from '../../src/cli/statusCommand.js';

test('an empty listing of unfinished executions points at --all; an empty --all listing says there are none', () => {
  assert.equal(renderStatus([], '', true), 'No unfinished executions (baton status --all lists the finished ones too).');
  assert.equal(renderStatus([], '', false), 'No executions.');
});

test('a listed execution shows its task, clipped to one line, and a cancelled one reads cancelled', () => {
  const base = { execution_id: 'e1', task_id: null, workflow: 'bug-fix', kind: 'workflow', status: 'failed', progress: 20, current_step: null, started_at: '', updated_at: '', steps: [] };
  const text = renderStatus([{ ...base, task_description: `Fix the\nlogin ${'loop '.repeat(30)}`, cancelled: true } as never], '', false);
  assert.match(text, /^e1 {2}bug-fix {2}cancelled {2}20% {2}"Fix the login loop loop .{20,}\u2026"$/);
  assert.equal(renderStatus([{ ...base, task_description: null } as never], '', false), 'e1  bug-fix  failed  20%');
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
