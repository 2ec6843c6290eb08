// Rule: the pipeline engine runs every step type as the system says (interpolation, conditions, loops with break,
// retries with backoff, timeouts, abort, both parallel failure policies, human review, budgets), durably, as an
// execution in the shared tables; a completed step is replayed, never run again; a step started again in a later pass
// (resumed) is its next attempt, as a retry is, without using up its retries; the timeline's end of an attempt says
// what that attempt spent, not the step's total.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSystemFile, formatProblems } from '../../src/core/pipelines/systemFile.js';
import type { PipelineProgress, System } from '../../src/core/pipelines/types.js';
import { makeBaton } from '../helpers/coreHarness.js';
import { FakeRunner, type FakeReply } from '../helpers/fakeRunner.js';

function system(yaml: string): System {
  const parsed = parseSystemFile(yaml, 'test.yaml', 'test');
  assert.ok(parsed.value, formatProblems(parsed.problems));
  return parsed.value;
}

async function setup(script: (req: import('../../src/core/pipelines/runner.js').AgentRunRequest, n: number) => FakeReply) {
  const made = await makeBaton();
  const runner = new FakeRunner(script);
  made.baton.pipelines.setRunners(() => runner);
  return { ...made, runner };
}

const AGENTS = `
agents:
  - { id: scout, role: researcher, runner: command, command: [x] }
  - { id: analyzer, role: analyzer, runner: command, command: [x] }
  - { id: summarizer, role: custom, runner: command, command: [x] }
`;

test('a sequential pipeline interpolates system.input and earlier outputs, stores artifacts and memory, and completes', async () => {
  const { baton, runner } = await setup((req) => ({ text: `${req.agent} says: ${req.prompt.split('\n')[0]}`, usage: { input: 10, output: 5 }, costUsd: 0.01 }));
  const sys = system(`name: research
${AGENTS}
workflow:
  - { id: step-1, type: agent, agentId: scout, inputTemplate: "{{system.input}}", outputVariable: scoutFindings }
  - { id: step-2, type: agent, agentId: analyzer, inputTemplate: "Analyze these findings:\\n\\n{{scoutFindings}}", outputVariable: analysis }
  - { id: step-3, type: agent, agentId: summarizer, inputTemplate: "Summarize {{analysis}} / {{unknown.var}}", outputVariable: summary }
`);
  const id = await baton.pipelines.start(sys, { input: 'find the cart bug', cwd: '/tmp' });
  const out = await baton.pipelines.drive(id);
  assert.equal(out.status, 'completed', out.error ?? '');
  assert.equal(runner.calls[0]!.prompt, 'find the cart bug');
  assert.equal(runner.calls[1]!.prompt, 'Analyze these findings:\n\nscout says: find the cart bug');
  assert.match(runner.calls[2]!.prompt, /\{\{unknown\.var\}\}$/, 'an unknown variable stays as written');
  assert.match(runner.calls[1]!.systemPrompt!, /## Context from Previous Agents[\s\S]*step:step-1[\s\S]*scout says/);
  const status = baton.workflowStatus(id);
  assert.equal(status.status, 'completed');
  assert.deepEqual(status.steps.map((s) => [s.step_name, s.status, s.agent_name]), [
    ['step-1', 'completed', 'scout'], ['step-2', 'completed', 'analyzer'], ['step-3', 'completed', 'summarizer'],
  ]);
  assert.equal(status.steps[0]!.artifacts.length, 1);
  assert.equal(status.steps[0]!.artifacts[0]!.content, 'scout says: find the cart bug');
  const usage = baton.pipelines.usage(id);
  assert.equal(usage.total.tokens, 45);
  assert.ok(Math.abs(usage.total.costUsd - 0.03) < 1e-9);
  assert.equal(usage.byAgent.scout!.tokens, 15);
  assert.equal(usage.bySteps['step-2']!.tokens, 15);
  assert.equal(baton.listExecutions().find((e) => e.execution_id === id)!.kind, 'pipeline');
  const claim = await baton.nextStep({ task_id: id });
  assert.equal(claim.status, 'error');
  assert.match(JSON.stringify(claim), /is a pipeline run: Baton starts its agents itself/);
});

test('nested paths read into JSON outputs and objects', async () => {
  const { baton, runner } = await setup((req) => ({ text: req.agent === 'scout' ? '{"files": ["a.ts", "b.ts"], "risk": {"level": "high"}}' : 'ok' }));
  const sys = system(`name: nested
${AGENTS}
workflow:
  - { type: agent, agentId: scout, outputVariable: found }
  - { type: transform, inputTemplate: "{{found}}", operation: json, outputVariable: parsed }
  - { type: agent, agentId: analyzer, inputTemplate: "risk={{found.risk.level}} first={{parsed.files.0}} name={{system.name}}" }
`);
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  assert.equal((await baton.pipelines.drive(id)).status, 'completed');
  assert.equal(runner.calls[1]!.prompt, 'risk=high first=a.ts name=nested');
});

test('conditional steps take the branch their condition selects', async () => {
  for (const [answer, expected] of [['this is a BUG report', 'bug-investigator'], ['a new feature', 'feature-planner']] as const) {
    const { baton, runner } = await setup((req) => ({ text: req.agent === 'classifier' ? answer : 'done' }));
    const sys = system(`name: route
agents:
  - { id: classifier, runner: command, command: [x] }
  - { id: bug-investigator, runner: command, command: [x] }
  - { id: feature-planner, runner: command, command: [x] }
workflow:
  - { type: agent, agentId: classifier, outputVariable: taskType }
  - type: conditional
    condition: { field: taskType, operator: contains, value: bug }
    trueBranch: [{ type: agent, agentId: bug-investigator }]
    falseBranch: [{ type: agent, agentId: feature-planner }]
`);
    const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
    assert.equal((await baton.pipelines.drive(id)).status, 'completed');
    assert.deepEqual(runner.calls.map((c) => c.agent), ['classifier', expected]);
  }
});

test('a loop ends once its break condition holds, and at maxIterations otherwise', async () => {
  let reviews = 0;
  const { baton, runner } = await setup((req) => {
    if (req.agent === 'reviewer') return { text: ++reviews >= 2 ? 'APPROVED' : 'needs work: score 3' };
    return { text: `impl v${runner.callsOf('implementer').length}` };
  });
  const sys = system(`name: refine
agents:
  - { id: implementer, runner: command, command: [x] }
  - { id: reviewer, runner: command, command: [x] }
workflow:
  - { type: agent, agentId: implementer, outputVariable: implementation }
  - type: loop
    id: refine
    maxIterations: 5
    breakCondition: { field: reviewResult, operator: contains, value: APPROVED }
    children:
      - { id: review, type: agent, agentId: reviewer, inputTemplate: "Review ({{loop.iteration}}): {{implementation}}", outputVariable: reviewResult }
      - { id: improve, type: agent, agentId: implementer, inputTemplate: "Improve: {{reviewResult}}", outputVariable: implementation }
`);
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  assert.equal((await baton.pipelines.drive(id)).status, 'completed');
  assert.deepEqual(baton.workflowStatus(id).steps.map((s) => s.step_name), ['1-implementer', 'refine[1]/review', 'refine[1]/improve', 'refine[2]/review']);
  assert.equal(runner.callsOf('reviewer')[1]!.prompt, 'Review (2): impl v2');

  const capped = await setup(() => ({ text: 'never good' }));
  const id2 = await capped.baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  assert.equal((await capped.baton.pipelines.drive(id2)).status, 'completed');
  assert.equal(capped.runner.callsOf('reviewer').length, 5);
});

test('a failed agent step is retried with growing backoff, and fails the run after its last attempt', async () => {
  const times: number[] = [];
  const { baton, runner } = await setup((_req, n) => {
    times.push(performance.now());
    return n < 3 ? { error: `flaky ${n}` } : { text: 'finally' };
  });
  const progress: PipelineProgress[] = [];
  const sys = system(`name: retry
${AGENTS}
workflow:
  - { type: agent, agentId: scout, retry: { maxAttempts: 3, backoffMs: 30, multiplier: 2 }, outputVariable: out }
`);
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  const out = await baton.pipelines.drive(id, { onProgress: (p) => progress.push(p) });
  assert.equal(out.status, 'completed');
  assert.equal(runner.calls.length, 3);
  assert.deepEqual(progress.filter((p) => p.type === 'step_retry').map((p) => p.type === 'step_retry' && p.waitMs), [30, 60]);
  // Each failed try is on the timeline, with why and when the next one came: the run's record has them all.
  const retries = baton.events(id).filter((e) => e.event_type === 'step_retry').map((e) => e.event_data as { attempt: number; error: string; wait_ms: number });
  assert.deepEqual(retries.map((r) => [r.attempt, r.error, r.wait_ms]), [[1, 'flaky 1', 30], [2, 'flaky 2', 60]]);
  assert.ok(times[1]! - times[0]! >= 28 && times[2]! - times[1]! >= 58, `backoff waits: ${times[1]! - times[0]!}, ${times[2]! - times[1]!}`);
  assert.equal(baton.workflowStatus(id).steps[0]!.attempt, 3);

  const failing = await setup(() => ({ error: 'always broken' }));
  const id2 = await failing.baton.pipelines.start(system(`name: r2
${AGENTS}
workflow:
  - { id: s, type: agent, agentId: scout, retry: { maxAttempts: 2, backoffMs: 1 } }
  - { id: never, type: agent, agentId: analyzer }
`), { input: 'x', cwd: '/tmp' });
  const out2 = await failing.baton.pipelines.drive(id2);
  assert.equal(out2.status, 'failed');
  assert.match(out2.error!, /step s: always broken \(after 2 attempts\)/);
  assert.equal(failing.runner.calls.length, 2, 'the next step never ran');
  const st = failing.baton.workflowStatus(id2);
  assert.equal(st.status, 'failed');
  assert.equal(st.steps[0]!.status, 'failed');
});

test('a step past its timeout is stopped (the runner sees the abort) and counts as a failed attempt', async () => {
  const { baton, runner } = await setup((_r, n) => (n === 1 ? { hang: true } : { text: 'quick' }));
  const sys = system(`name: slow
${AGENTS}
workflow:
  - { type: agent, agentId: scout, timeoutMs: 50, retry: { maxAttempts: 2, backoffMs: 1 } }
`);
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  const progress: PipelineProgress[] = [];
  const out = await baton.pipelines.drive(id, { onProgress: (p) => progress.push(p) });
  assert.equal(out.status, 'completed');
  assert.equal(runner.aborted, 1);
  assert.equal(runner.calls[0]!.timeoutMs, 50);
  const retry = progress.find((p) => p.type === 'step_retry');
  assert.ok(retry && retry.type === 'step_retry' && /timed out after 50 ms/.test(retry.error));

  const hung = await setup(() => ({ hang: true }));
  const id2 = await hung.baton.pipelines.start(system(`name: s2
${AGENTS}
workflow:
  - { id: s, type: agent, agentId: scout, timeoutMs: 30 }
`), { input: 'x', cwd: '/tmp' });
  const out2 = await hung.baton.pipelines.drive(id2);
  assert.equal(out2.status, 'failed');
  assert.match(out2.error!, /timed out after 30 ms/);
});

test('cancelling a run aborts its running agent and fails the run; nothing runs after', async () => {
  const { baton, runner } = await setup((req) => (req.agent === 'scout' ? { hang: true } : { text: 'no' }));
  const sys = system(`name: abort
${AGENTS}
workflow:
  - { type: agent, agentId: scout }
  - { type: agent, agentId: analyzer }
`);
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  const driving = baton.pipelines.drive(id);
  while (runner.calls.length === 0) await new Promise((r) => setTimeout(r, 2));
  await baton.cancel(id, 'cancelled', 'test');
  const out = await driving;
  assert.equal(out.status, 'aborted');
  assert.equal(runner.aborted, 1);
  assert.deepEqual(runner.calls.map((c) => c.agent), ['scout']);
  assert.equal(baton.workflowStatus(id).status, 'failed');

  // An abort signal from the caller (Ctrl-C) stops the run the same way.
  const second = await setup((req) => (req.agent === 'scout' ? { hang: true } : { text: 'no' }));
  const id2 = await second.baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  const ctl = new AbortController();
  const p = second.baton.pipelines.drive(id2, { signal: ctl.signal });
  while (second.runner.calls.length === 0) await new Promise((r) => setTimeout(r, 2));
  ctl.abort();
  assert.equal((await p).status, 'aborted');
  assert.equal(second.baton.workflowStatus(id2).status, 'failed');
});

const PARALLEL = (policy: string) => `name: par
agents:
  - { id: fast-fail, runner: command, command: [x] }
  - { id: slow, runner: command, command: [x] }
  - { id: after, runner: command, command: [x] }
workflow:
  - type: parallel
    id: explore
    failurePolicy: ${policy}
    children:
      - { id: a, type: agent, agentId: fast-fail, outputVariable: a }
      - { id: b, type: agent, agentId: slow, outputVariable: b }
  - { type: agent, agentId: after }
`;

test('parallel fail_fast stops the other children at the first failure', async () => {
  // The slow child never answers on its own: the run can only end because fail_fast stopped it.
  const { baton, runner } = await setup((req) => (req.agent === 'fast-fail' ? { error: 'boom', delayMs: 10 } : { hang: true }));
  const id = await baton.pipelines.start(system(PARALLEL('fail_fast')), { input: 'x', cwd: '/tmp' });
  const out = await baton.pipelines.drive(id);
  assert.equal(out.status, 'failed');
  assert.match(out.error!, /boom/);
  assert.equal(runner.aborted, 1, 'the slow child was stopped, not waited for');
  assert.equal(runner.callsOf('after').length, 0);
  const steps = baton.workflowStatus(id).steps;
  assert.equal(steps.find((s) => s.step_name === 'explore/a')!.status, 'failed');
  assert.notEqual(steps.find((s) => s.step_name === 'explore/b')!.status, 'completed');
});

test('parallel wait_for_all lets every child finish, keeps their outputs, then fails', async () => {
  const { baton, runner } = await setup((req) => (req.agent === 'fast-fail' ? { error: 'boom', delayMs: 5 } : { text: 'slow done', delayMs: 80 }));
  const id = await baton.pipelines.start(system(PARALLEL('wait_for_all')), { input: 'x', cwd: '/tmp' });
  const out = await baton.pipelines.drive(id);
  assert.equal(out.status, 'failed');
  assert.equal(runner.aborted, 0);
  const steps = baton.workflowStatus(id).steps;
  assert.equal(steps.find((s) => s.step_name === 'explore/b')!.status, 'completed');
  assert.equal(steps.find((s) => s.step_name === 'explore/a')!.status, 'failed');
  assert.equal(runner.callsOf('after').length, 0);
});

test('parallel children that all succeed run at once and both outputs reach the next step', async () => {
  const starts: number[] = [];
  const { baton, runner } = await setup((req) => {
    if (req.agent !== 'after') starts.push(performance.now());
    return { text: `${req.agent}!`, delayMs: req.agent === 'after' ? 0 : 300 };
  });
  const sys = system(PARALLEL('fail_fast').replace('- { type: agent, agentId: after }', '- { type: agent, agentId: after, inputTemplate: "{{a}} + {{b}}" }'));
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  assert.equal((await baton.pipelines.drive(id)).status, 'completed');
  assert.ok(starts[1]! - starts[0]! < 300, 'the second child started before the first (300 ms) finished');
  assert.equal(runner.callsOf('after')[0]!.prompt, 'fast-fail! + slow!');
});

test('human_review waits in awaiting_approval for the broker gate; approve goes on, reject fails or continues', async () => {
  for (const [decision, onReject, expected] of [['approve', 'fail', 'completed'], ['reject', 'fail', 'failed'], ['reject', 'continue', 'completed']] as const) {
    const { baton, runner } = await setup(() => ({ text: 'plan v1' }));
    const sys = system(`name: gated
${AGENTS}
workflow:
  - { type: agent, agentId: scout, outputVariable: plan }
  - { id: check, type: human_review, inputTemplate: "Approve this plan? {{plan}}", outputVariable: verdict, onReject: ${onReject} }
  - { type: agent, agentId: analyzer, inputTemplate: "approved={{verdict.approved}} feedback={{verdict.feedback}}" }
`);
    const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
    const driving = baton.pipelines.drive(id);
    while (baton.workflowStatus(id).status !== 'awaiting_approval') await new Promise((r) => setTimeout(r, 2));
    const st = baton.workflowStatus(id);
    assert.equal(st.steps.find((s) => s.step_name === 'check')!.status, 'awaiting_approval');
    const result = await baton.decide({ execution_id: id, decision, feedback: decision === 'reject' ? 'too vague' : undefined, by: 'tester' });
    assert.equal(result.step_name, 'check');
    const out = await driving;
    assert.equal(out.status, expected, `${decision}/${onReject}: ${out.error}`);
    if (expected === 'completed') {
      assert.equal(runner.callsOf('analyzer')[0]!.prompt, decision === 'approve' ? 'approved=true feedback=' : 'approved=false feedback=too vague');
    } else {
      assert.match(out.error!, /too vague/);
      assert.equal(runner.callsOf('analyzer').length, 0);
    }
    assert.ok(baton.events(id).some((e) => e.event_type === (decision === 'approve' ? 'gate_approved' : 'gate_rejected')));
  }
});

test('progress counts the steps not reached yet and reads 100% only once the run has finished', async () => {
  const { baton } = await setup((req) => (req.agent === 'analyzer' ? { hang: true } : { text: 'plan v1' }));
  const sys = system(`name: paced
${AGENTS}
workflow:
  - { type: agent, agentId: scout, outputVariable: plan }
  - { id: check, type: human_review, inputTemplate: "Approve {{plan}}?" }
  - id: last
    type: conditional
    condition: { field: plan, operator: contains, value: plan }
    trueBranch: [{ id: write, type: agent, agentId: analyzer }]
    falseBranch: []
`);
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  const driving = baton.pipelines.drive(id);
  while (baton.workflowStatus(id).status !== 'awaiting_approval') await new Promise((r) => setTimeout(r, 2));
  // One of three planned steps is done (the first one's row was the only one, and read 100%).
  assert.equal(baton.workflowStatus(id).progress, 33, 'at the gate');
  await baton.decide({ execution_id: id, decision: 'approve', by: 'tester' });
  while (baton.workflowStatus(id).steps.find((s) => s.step_name === 'last/then/write')?.status !== 'running') await new Promise((r) => setTimeout(r, 2));
  assert.equal(baton.workflowStatus(id).progress, 67, 'while the last step runs');
  baton.pipelines.abort(id);
  await driving;
  assert.notEqual(baton.workflowStatus(id).progress, 100, 'a cancelled run is not done');
  const { runningProgress } = await import('../../src/core/pipelines/pipelineRuns.js');
  assert.equal(runningProgress({ completed: 200, running: 1 }, 3), 99, 'rounding never says 100 while a step runs');
  const done = await setup(() => ({ text: 'ok' }));
  const quick = await done.baton.pipelines.start(system(`name: quick\n${AGENTS}\nworkflow:\n  - { type: agent, agentId: scout }\n`), { input: 'x', cwd: '/tmp' });
  assert.equal((await done.baton.pipelines.drive(quick)).status, 'completed');
  assert.equal(done.baton.workflowStatus(quick).progress, 100);
});

test('transform steps trim, parse JSON, extract with a pattern and split lines; a bad JSON text fails the run clearly', async () => {
  const { baton, runner } = await setup(() => ({ text: 'Score: 8/10\n```json\n{"ok": true}\n```' }));
  const sys = system(`name: t
${AGENTS}
workflow:
  - { type: agent, agentId: scout, outputVariable: raw }
  - { type: transform, inputTemplate: "{{raw}}", operation: extract, pattern: "Score: (\\\\d+)", outputVariable: score }
  - { type: transform, inputTemplate: "{{raw}}", operation: json, outputVariable: data }
  - { type: transform, inputTemplate: "  A\\nb  ", operation: upper, outputVariable: up }
  - type: conditional
    condition: { all: [{ field: score, operator: gte, value: 8 }, { field: data.ok, operator: equals, value: true }] }
    trueBranch: [{ type: agent, agentId: analyzer, inputTemplate: "{{score}} {{up}}" }]
`);
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  const out = await baton.pipelines.drive(id);
  assert.equal(out.status, 'completed', out.error ?? '');
  assert.equal(runner.callsOf('analyzer')[0]!.prompt, '8   A\nB  ');

  const bad = await setup(() => ({ text: 'not json' }));
  const id2 = await bad.baton.pipelines.start(system(`name: t2
${AGENTS}
workflow:
  - { type: agent, agentId: scout, outputVariable: raw }
  - { id: parse, type: transform, inputTemplate: "{{raw}}", operation: json }
`), { input: 'x', cwd: '/tmp' });
  const out2 = await bad.baton.pipelines.drive(id2);
  assert.equal(out2.status, 'failed');
  assert.match(out2.error!, /step parse: transform parse: the text is not JSON/);
});

test('a run over its token budget pauses with budget_exceeded and resumes after a person raises it, without re-running done steps', async () => {
  const { baton, runner } = await setup(() => ({ text: 'ok', usage: { input: 40, output: 20 } }));
  const sys = system(`name: budgeted
budget: { tokens: 100 }
${AGENTS}
workflow:
  - { id: one, type: agent, agentId: scout }
  - { id: two, type: agent, agentId: analyzer }
  - { id: three, type: agent, agentId: summarizer }
`);
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  const out = await baton.pipelines.drive(id);
  assert.equal(out.status, 'paused');
  assert.match(out.error!, /budget_exceeded: 120 tokens used, budget 100/);
  assert.equal(runner.calls.length, 2, 'the third step never started');
  assert.equal(baton.workflowStatus(id).status, 'paused');
  assert.ok(baton.events(id).some((e) => e.event_type === 'budget_exceeded'));
  const listed = baton.pipelines.list().find((r) => r.runId === id)!;
  assert.match(listed.pauseReason!, /budget_exceeded/);

  await assert.rejects(baton.pipelines.prepareResume(id), /still over its budget: 120 tokens used, budget 100 tokens\. Resume it with a token budget above 120\.$/);
  await assert.rejects(baton.pipelines.prepareResume(id, { tokens: 110 }), /budget 110 tokens\. Resume it with a token budget above 120\.$/);
  await assert.rejects(baton.pipelines.prepareResume(id), { details: { limit: 'tokens' } });
  await baton.pipelines.prepareResume(id, { tokens: 1000 });
  const again = await baton.pipelines.drive(id);
  assert.equal(again.status, 'completed');
  assert.deepEqual(runner.calls.map((c) => c.agent), ['scout', 'analyzer', 'summarizer']);
  assert.equal(baton.pipelines.usage(id).total.tokens, 180);
});

test('a run over its dollar budget is refused a resume under what it spent, in dollars', async () => {
  const { baton } = await setup(() => ({ text: 'ok', usage: { input: 1, output: 1 }, costUsd: 0.0123 }));
  const sys = system(`name: dollars
budget: { usd: 0.01 }
${AGENTS}
workflow:
  - { id: one, type: agent, agentId: scout }
  - { id: two, type: agent, agentId: analyzer }
`);
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  assert.equal((await baton.pipelines.drive(id)).status, 'paused');
  await assert.rejects(baton.pipelines.prepareResume(id, { usd: 0.012 }), /still over its budget: \$0\.0123 spent, budget \$0\.0120\. Resume it with a budget above \$0\.0123\.$/);
  await assert.rejects(baton.pipelines.prepareResume(id, { usd: 0.012 }), { details: { limit: 'usd' } });
  await baton.pipelines.prepareResume(id, { usd: 1 });
  assert.equal((await baton.pipelines.drive(id)).status, 'completed');
});

test('a budget stops a running agent as soon as its streamed usage passes the limit', async () => {
  const { baton, runner } = await setup(() => ({ stream: [{ input: 10, output: 10 }, { input: 500, output: 500 }], hang: true }));
  const sys = system(`name: usd
budget: { tokens: 100, usd: 5 }
${AGENTS}
workflow:
  - { id: big, type: agent, agentId: scout }
`);
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  const out = await baton.pipelines.drive(id);
  assert.equal(out.status, 'paused');
  assert.equal(runner.aborted, 1);
  const st = baton.workflowStatus(id);
  assert.equal(st.steps[0]!.status, 'pending', 'the step goes back to pending, to run again on resume');
  assert.equal(baton.pipelines.usage(id).total.tokens, 1000, 'what it spent stays billed');
});

test('a budget passed while a review waits beside it pauses the run (not stuck in awaiting_approval); the review waits again on resume', async () => {
  const { baton, runner } = await setup(() => ({ text: 'big', usage: { input: 500, output: 500 }, delayMs: 30 }));
  const sys = system(`name: mixed
budget: { tokens: 100 }
${AGENTS}
workflow:
  - type: parallel
    id: both
    failurePolicy: wait_for_all
    children:
      - { id: gate, type: human_review, inputTemplate: "go?" }
      - { id: spend, type: agent, agentId: scout }
  - { id: after, type: agent, agentId: analyzer }
`);
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  const out = await baton.pipelines.drive(id);
  assert.equal(out.status, 'paused');
  assert.equal(baton.workflowStatus(id).status, 'paused');
  assert.equal(runner.callsOf('analyzer').length, 0);
  await baton.pipelines.prepareResume(id, { tokens: 10_000 });
  const again = baton.pipelines.drive(id);
  while (baton.workflowStatus(id).status !== 'awaiting_approval') await new Promise((r) => setTimeout(r, 2));
  await baton.decide({ execution_id: id, decision: 'approve' });
  assert.equal((await again).status, 'completed');
  assert.deepEqual(runner.calls.map((c) => c.agent), ['scout', 'analyzer'], 'the completed agent step did not run again');
});

test('a second pass (after a crash) replays completed steps from their records and runs only the one that was running', async () => {
  const { baton, runner, store } = await setup((req) => (req.agent === 'analyzer' ? { hang: true } : { text: `${req.agent} out`, usage: { input: 1, output: 1 } }));
  const sys = system(`name: replay
${AGENTS}
workflow:
  - { id: one, type: agent, agentId: scout, outputVariable: first }
  - { id: two, type: agent, agentId: analyzer, inputTemplate: "{{first}}", outputVariable: second }
  - { id: three, type: agent, agentId: summarizer, inputTemplate: "{{first}} / {{second}}" }
`);
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  void baton.pipelines.drive(id); // this process "dies" with step two running: its pass never ends
  while (runner.callsOf('analyzer').length === 0) await new Promise((r) => setTimeout(r, 2));
  assert.equal(baton.workflowStatus(id).steps.find((s) => s.step_name === 'two')!.status, 'running');

  // A new process on the same database resumes the run.
  const { makeBaton } = await import('../helpers/coreHarness.js');
  const next = await makeBaton({ store });
  const runner2 = new FakeRunner((req) => ({ text: `${req.agent} out (2)` }));
  next.baton.pipelines.setRunners(() => runner2);
  await next.baton.pipelines.prepareResume(id);
  const progress: PipelineProgress[] = [];
  const out = await next.baton.pipelines.drive(id, { onProgress: (p) => progress.push(p) });
  assert.equal(out.status, 'completed', out.error ?? '');
  assert.deepEqual(runner2.calls.map((c) => c.agent), ['analyzer', 'summarizer'], 'step one is not run again');
  assert.equal(runner2.calls[0]!.prompt, 'scout out', 'its recorded output is replayed into the variables');
  assert.equal(runner2.calls[1]!.prompt, 'scout out / analyzer out (2)');
  assert.ok(progress.some((p) => p.type === 'step_completed' && p.step === 'one' && p.replayed));
  assert.equal(next.baton.workflowStatus(id).steps.find((s) => s.step_name === 'two')!.attempt, 2, 'started again: its second attempt');
  assert.equal(next.baton.workflowStatus(id).steps.find((s) => s.step_name === 'three')!.attempt, 1);
});

test('a step stopped at the budget runs again on resume as its next attempt, numbered on by a retry, its retries its own', async () => {
  // Call 1 streams past the budget (stopped); on resume call 2 fails and is retried; call 3 completes.
  const { baton, runner } = await setup((_req, n) => (n === 1 ? { stream: [{ input: 1500, output: 968 }], hang: true }
    : n === 2 ? { error: 'flaky', usage: { input: 3, output: 2 } } : { text: 'done', usage: { input: 10, output: 10 } }));
  const sys = system(`name: again
budget: { tokens: 2000 }
${AGENTS}
workflow:
  - { id: big, type: agent, agentId: scout, retry: { maxAttempts: 2, backoffMs: 1 } }
`);
  const id = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  const progress: PipelineProgress[] = [];
  assert.equal((await baton.pipelines.drive(id, { onProgress: (p) => progress.push(p) })).status, 'paused');
  assert.equal(baton.workflowStatus(id).steps[0]!.attempt, 1);
  await baton.pipelines.prepareResume(id, { tokens: 4500 });
  const out = await baton.pipelines.drive(id, { onProgress: (p) => progress.push(p) });
  assert.equal(out.status, 'completed', out.error ?? '');
  assert.equal(runner.calls.length, 3, 'the retry policy allows two tries in the pass after the resume: the pause was no failure');
  const started = (data: unknown) => (data as { attempt: number }).attempt;
  assert.deepEqual(baton.events(id).filter((e) => e.event_type === 'step_started').map((e) => started(e.event_data)), [1, 2, 3], 'the timeline');
  assert.deepEqual(progress.filter((p) => p.type === 'step_started').map((p) => p.type === 'step_started' && p.attempt), [1, 2, 3]);
  assert.deepEqual(progress.filter((p) => p.type === 'step_retry').map((p) => p.type === 'step_retry' && p.attempt), [2]);
  const st = baton.workflowStatus(id);
  assert.equal(st.steps[0]!.attempt, 3);
  assert.deepEqual(st.steps[0]!.artifacts.map((a) => (a.metadata as { attempt?: number } | null)?.attempt), [3]);
  // Each attempt that ended says what it spent itself, not the step's total so far (2,468 + 5 + 20 = 2,493).
  const ends = baton.events(id).filter((e) => e.event_type === 'step_interrupted' || e.event_type === 'step_completed');
  type Ended = { attempt: number; usage: { input: number; output: number } };
  const spent = ends.map((e) => [e.event_type, (e.event_data as Ended).attempt, (e.event_data as Ended).usage.input + (e.event_data as Ended).usage.output]);
  assert.deepEqual(spent, [['step_interrupted', 1, 2468], ['step_completed', 3, 20]]);
  assert.equal(baton.pipelines.usage(id).bySteps.big!.tokens, 2493, 'the step still counts every attempt');
});
