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
