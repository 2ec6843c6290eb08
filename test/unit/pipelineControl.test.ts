// Rule: the owner's pipeline control ops re-check what a client sends (system, budget, ids) and answer with the
// domain error's status and message; a started run is driven by the owner; a run no process drives is listed as such.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLog } from '../../src/core/ports.js';
import { handleControl } from '../../src/host/controlOps.js';
import { makeBaton } from '../helpers/coreHarness.js';
import { FakeRunner } from '../helpers/fakeRunner.js';

const SYSTEM = {
  name: 'remote', description: '', agents: [{ id: 'a', role: 'custom', runner: 'command', command: ['x'] }],
  workflow: [{ id: 's', type: 'agent', agentId: 'a', inputTemplate: '{{system.input}}', outputVariable: 'out' }],
};

test('pipeline_start validates the system again and the owner drives the run; usage and runs are readable', async () => {
  const { baton } = await makeBaton();
  const runner = new FakeRunner((req) => ({ text: `got ${req.prompt}`, usage: { input: 3, output: 4 } }));
  baton.pipelines.setRunners(() => runner);
  const bad = await handleControl(baton, JSON.stringify({ op: 'pipeline_start', system: { ...SYSTEM, workflow: [{ type: 'agnet' }] }, input: 'x', cwd: '/tmp' }), silentLog);
  assert.equal(bad.status, 400);
  assert.match(JSON.stringify(bad.body), /system is not valid:.*workflow\[0\]\.type: must be one of agent/);
  const started = await handleControl(baton, JSON.stringify({ op: 'pipeline_start', system: SYSTEM, input: 'hello', cwd: '/tmp', budget: { tokens: 100 } }), silentLog);
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const runId = (started.body as { result: { runId: string } }).result.runId;
  for (let i = 0; i < 200 && baton.workflowStatus(runId).status !== 'completed'; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(baton.workflowStatus(runId).status, 'completed');
  assert.equal(runner.calls[0]!.prompt, 'hello');
  const usage = await handleControl(baton, JSON.stringify({ op: 'pipeline_usage', run_id: runId }), silentLog);
  assert.equal((usage.body as { result: { total: { tokens: number } } }).result.total.tokens, 7);
  const runs = await handleControl(baton, JSON.stringify({ op: 'pipeline_runs' }), silentLog);
  assert.equal((runs.body as { result: Array<{ runId: string; budget: unknown }> }).result[0]!.runId, runId);
});

test('bad pipeline requests are refused with the field and the fix', async () => {
  const { baton } = await makeBaton();
  const cases: Array<[unknown, number, RegExp]> = [
    [{ op: 'pipeline_start', system: SYSTEM, input: 'x', cwd: '/tmp', budget: { tokens: 'lots' } }, 400, /budget\.tokens and budget\.usd must be numbers/],
    [{ op: 'pipeline_start', system: SYSTEM, input: 'x' }, 400, /cwd must be a non-empty string/],
    [{ op: 'pipeline_start', system: 'name: x', input: 'x', cwd: '/tmp' }, 400, /system must be a JSON object/],
    [{ op: 'pipeline_start', system: SYSTEM, input: 'x', cwd: '/tmp', variables: { a: 1 } }, 400, /variables must map names to strings/],
    [{ op: 'pipeline_resume', run_id: 'nope' }, 404, /No pipeline run \\"nope\\"/],
    [{ op: 'pipeline_usage' }, 400, /run_id must be a non-empty string/],
  ];
  for (const [body, status, message] of cases) {
    const r = await handleControl(baton, JSON.stringify(body), silentLog);
    assert.equal(r.status, status, JSON.stringify(body));
    assert.match(JSON.stringify(r.body), message);
  }
  // A completed run cannot be resumed.
  baton.pipelines.setRunners(() => new FakeRunner(() => ({ text: 'ok' })));
  const id = await baton.pipelines.start(SYSTEM as never, { input: 'x', cwd: '/tmp' });
  await baton.pipelines.drive(id);
  const again = await handleControl(baton, JSON.stringify({ op: 'pipeline_resume', run_id: id }), silentLog);
  assert.equal(again.status, 409);
  assert.match(JSON.stringify(again.body), /is completed; only a paused or interrupted run can be resumed/);
});

test('a run no process drives (the one that did ended) is listed as orphaned, with its input as its task; driven, not', async () => {
  const { baton } = await makeBaton();
  baton.pipelines.setRunners(() => new FakeRunner(() => ({ text: 'done' })));
  // Started and never driven here: as a run whose driving process died looks to the next owner.
  const runId = await baton.pipelines.start(SYSTEM as never, { input: 'fix the login bug', cwd: '/tmp' });
  const listed = () => baton.listExecutions().find((e) => e.execution_id === runId)!;
  assert.deepEqual([listed().status, listed().orphaned, listed().task_description], ['running', true, 'fix the login bug']);
  assert.equal(baton.pipelines.list().find((r) => r.runId === runId)!.orphaned, true);
  const driving = baton.pipelines.drive(runId);
  assert.equal(listed().orphaned, undefined, 'driven by this process');
  assert.equal((await driving).status, 'completed');
  assert.equal(listed().orphaned, undefined, 'finished');
});

test('a resume still over budget is refused through the owner with the limit it passed, for the terminal to name its flag', async () => {
  const { baton } = await makeBaton();
  baton.pipelines.setRunners(() => new FakeRunner(() => ({ text: 'ok', usage: { input: 60, output: 60 }, costUsd: 0.02 })));
  const twoSteps = { ...SYSTEM, workflow: [...SYSTEM.workflow, { ...SYSTEM.workflow[0], id: 't', outputVariable: 'again' }] };
  const id = await baton.pipelines.start(twoSteps as never, { input: 'x', cwd: '/tmp', budget: { tokens: 100 } });
  assert.equal((await baton.pipelines.drive(id)).status, 'paused');
  const tokens = await handleControl(baton, JSON.stringify({ op: 'pipeline_resume', run_id: id }), silentLog);
  assert.deepEqual(tokens.body, { error: {
    reason: 'budget_exceeded',
    message: `Run ${id} is still over its budget: 120 tokens used, budget 100 tokens. Resume it with a token budget above 120.`,
    details: { limit: 'tokens' },
  } });
  const usd = await handleControl(baton, JSON.stringify({ op: 'pipeline_resume', run_id: id, budget: { tokens: 1000, usd: 0.01 } }), silentLog);
  assert.equal((usd.body as { error: { details: unknown } }).error.details && JSON.stringify((usd.body as { error: { details: unknown } }).error.details), '{"limit":"usd"}');
  // A refusal without details has no field for them.
  const missing = await handleControl(baton, JSON.stringify({ op: 'pipeline_resume', run_id: 'nope' }), silentLog);
  assert.equal('details' in (missing.body as { error: object }).error, false);
});
