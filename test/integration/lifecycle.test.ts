// Rule: the lifecycle, logging and query tools run on the broker's tables and state machine, through a real MCP
// client: an execution goes pending → running → completed with dependent steps and checked outputs; every state
// pair is either allowed or refused with the allowed moves; timeouts follow the injected clock; logs are idempotent;
// artifacts are immutable and binary-safe; and a run survives closing and reopening its database. List texts count in
// words ("1 incomplete execution", never "execution(s)"). An answer names a bundled contract by what it is, never by
// the folder Baton is installed in; a name or text of only spaces is refused.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXECUTION_TRANSITIONS } from '../../src/core/stateMachine.js';
import { bundledContentDir } from '../../src/host/openBaton.js';
import type { ExecutionStatus } from '../../src/core/types.js';
import { parseToolGroups } from '../../src/mcp/toolGroups.js';
import { output, okStep } from '../helpers/coreHarness.js';
import { STEP_OUTPUT, WORKFLOW_OUTPUT, makeLifecycleWorkspace, openLifecycle, type LifecycleRig } from '../helpers/lifecycleHarness.js';

const LIFECYCLE_TOOLS = [
  'start_execution', 'transition_workflow_state', 'start_step', 'complete_step', 'check_execution_timeout', 'resume_execution',
  'complete_execution', 'get_incomplete_executions', 'log_execution', 'store_artifact', 'store_finding', 'query_findings',
  'get_execution_history', 'get_execution_details',
];
const CONTENT_TOOLS = ['search_workflows', 'list_projects', 'get_workflow', 'get_agent_persona', 'get_relevant_rules', 'get_project_context'];
const READ_ONLY = ['get_incomplete_executions', 'query_findings', 'get_execution_history', 'get_execution_details', ...CONTENT_TOOLS.filter((t) => t !== 'get_project_context')];

/** Starts a bug-fix execution and moves it to running. */
async function running(rig: LifecycleRig, extra: Record<string, unknown> = {}): Promise<string> {
  const e = await rig.ok('start_execution', { workflowName: 'bug-fix', ...extra });
  await rig.ok('transition_workflow_state', { executionId: e.id, newState: 'running' });
  return e.id as string;
}

describe('lifecycle tools: listing and groups', () => {
  let rig: LifecycleRig;
  before(async () => { rig = await openLifecycle(); });
  after(() => rig.close());

  it('lists the 14 lifecycle and 6 content tools by their spec names, each with a title, description and output schema', async () => {
    const { tools } = await rig.client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of [...LIFECYCLE_TOOLS, ...CONTENT_TOOLS]) assert.ok(names.includes(n), `${n} listed`);
    assert.equal(names.length, 1 + LIFECYCLE_TOOLS.length + CONTENT_TOOLS.length);
    for (const t of tools.filter((x) => x.name !== 'workflow_next_step')) {
      assert.ok(t.title && t.title.length > 5, `${t.name} has a title`);
      assert.ok((t.description ?? '').length > 60, `${t.name} has an actionable description`);
      assert.ok(t.outputSchema, `${t.name} has an output schema`);
    }
  });

  it('annotates queries as read-only, log_execution as idempotent, and nothing as destructive', async () => {
    const { tools } = await rig.client.listTools();
    for (const t of tools) {
      assert.equal(t.annotations?.destructiveHint, false, t.name);
      if (READ_ONLY.includes(t.name)) assert.equal(t.annotations?.readOnlyHint, true, t.name);
    }
    assert.equal(tools.find((t) => t.name === 'log_execution')!.annotations?.idempotentHint, true);
    assert.equal(tools.find((t) => t.name === 'start_execution')!.annotations?.readOnlyHint, false);
  });

  it('keeps the groups off by default and turns them on with --tools all or lifecycle,content', async () => {
    const plain = await openLifecycle({ groups: parseToolGroups(undefined) });
    try {
      assert.deepEqual((await plain.client.listTools()).tools.map((t) => t.name), ['workflow_next_step']);
    } finally {
      await plain.close();
    }
    assert.ok(parseToolGroups('all').includes('lifecycle') && parseToolGroups('all').includes('content'));
    assert.deepEqual(parseToolGroups('lifecycle,content'), ['lifecycle', 'content']);
  });

  it('names the wrong field and what it must be', async () => {
    const r = await rig.call('start_step', { executionId: 'x', stepName: 's', dependsOn: ['abc'] });
    assert.equal(r.isError, true);
    assert.match(r.text, /dependsOn\[0\] must be a step id: a string of digits/);
    const u = await rig.call('log_execution', { executionId: 'x', layer: 'step', layerId: '1', logLevel: 'loud', message: 'm' });
    assert.match(u.text, /logLevel must be one of debug, info, warn, error \(got "loud"\)/);
    const extra = await rig.call('resume_execution', { executionId: 'x', force: true });
    assert.match(extra.text, /unknown field "force"/);
  });
});

describe('lifecycle tools: the complete lifecycle', () => {
  let rig: LifecycleRig;
  before(async () => { rig = await openLifecycle(); });
  after(() => rig.close());

  it('an execution failed from pending never started: no startedAt and no duration; one failed while running keeps both', async () => {
    const never = await rig.ok('start_execution', { workflowName: 'bug-fix' });
    const ran = await rig.ok('start_execution', { workflowName: 'bug-fix' });
    await rig.ok('transition_workflow_state', { executionId: ran.id, newState: 'running' });
    rig.clock.advance(5_000);
    for (const e of [never, ran]) await rig.ok('transition_workflow_state', { executionId: e.id, newState: 'failed', error: 'called off' });
    const details = async (id: string) => (await rig.ok('get_execution_details', { executionId: id })).execution;
    const duration = (id: string) => rig.store.get<{ duration_ms: number | null }>('SELECT duration_ms FROM executions WHERE execution_id = ?', [id])!.duration_ms;
    const n = await details(never.id);
    assert.deepEqual([n.state, n.startedAt, n.error, duration(never.id)], ['failed', null, 'called off', null]);
    assert.ok(n.completedAt && n.createdAt);
    const r = await details(ran.id);
    assert.ok(r.startedAt);
    assert.equal(duration(ran.id), 5_000);
  });

  it('runs start → running → dependent steps → completed, visible in details, history, workflow-status:// and the editor list', async () => {
    const e = await rig.ok('start_execution', { workflowName: 'bug-fix', metadata: { ticket: 'BUG-1' }, timeoutMs: 3_600_000 });
    assert.equal(e.state, 'pending');
    assert.equal(e.startedAt, null);
    assert.deepEqual(e.metadata, { ticket: 'BUG-1' });
    assert.equal(e.timeoutMs, 3_600_000);
    assert.deepEqual(e.phases.map((p: { phase: string }) => p.phase), ['analyze-root-cause', 'implement-fix', 'write-tests', 'review-code']);
    assert.deepEqual(e.phases[1].dependsOn, ['analyze-root-cause']);
    assert.equal(e.projectId, rig.baton.listExecutions()[0] ? e.projectId : null);
    assert.ok(rig.baton.listExecutions().some((x) => x.execution_id === e.id && x.status === 'pending' && x.workflow === 'bug-fix'));

    const t = await rig.ok('transition_workflow_state', { executionId: e.id, newState: 'running' });
    assert.deepEqual(t, { success: true, executionId: e.id, from: 'pending', state: 'running' });
    const s1 = await rig.ok('start_step', { executionId: e.id, stepName: 'analyze', phaseName: 'analyze-root-cause' });
    assert.equal(s1.state, 'running');
    assert.equal(s1.agentName, 'debugger');
    assert.match(s1.id, /^\d+$/);
    const done1 = await rig.ok('complete_step', { stepId: s1.id, output: STEP_OUTPUT });
    assert.equal(done1.state, 'completed');
    assert.deepEqual(done1.output, STEP_OUTPUT);
    assert.equal(done1.contract.validated, true);
    // Progress counts the template's phases no step has taken up yet: 1 of 4 done is 25%, not 1 of 1.
    const progress = async () => (await rig.ok('get_execution_details', { executionId: e.id })).execution.progress;
    assert.equal(await progress(), 25);
    const incomplete = await rig.ok('get_incomplete_executions', {});
    assert.equal(incomplete.executions.find((x: { id: string }) => x.id === e.id).progress, 25);
    const s2 = await rig.ok('start_step', { executionId: e.id, stepName: 'implement', phaseName: 'implement-fix', dependsOn: [s1.id] });
    assert.deepEqual(s2.dependsOn, [s1.id]);
    await rig.ok('complete_step', { stepId: s2.id, output: { summary: 'Fixed', confidence: 0.9 } });
    assert.equal(await progress(), 50);
    const closed = await rig.ok('complete_execution', { executionId: e.id, output: WORKFLOW_OUTPUT });
    assert.equal(closed.state, 'completed');

    const d = await rig.ok('get_execution_details', { executionId: e.id, includeLogs: true, includeArtifacts: true, includeFindings: true });
    assert.equal(d.execution.state, 'completed');
    assert.deepEqual(d.execution.output, WORKFLOW_OUTPUT);
    assert.equal(d.execution.progress, 100);
    assert.ok(d.execution.startedAt && d.execution.completedAt);
    assert.deepEqual(d.steps.map((s: { stepName: string; state: string }) => `${s.stepName}:${s.state}`), ['analyze:completed', 'implement:completed']);
    assert.deepEqual(d.logs, []);
    const status = rig.baton.workflowStatus(e.id);
    assert.equal(status.status, 'completed');
    assert.deepEqual(status.steps.map((s) => s.step_name), ['analyze', 'implement']);
    const res = await rig.client.readResource({ uri: `workflow-status://${e.id}` });
    assert.equal(JSON.parse((res.contents[0] as { text: string }).text).status, 'completed');
    const history = await rig.ok('get_execution_history', { workflowName: 'bug-fix', state: 'completed' });
    assert.ok(history.executions.some((x: { id: string }) => x.id === e.id));
    const timeline = rig.baton.events(e.id).map((x) => x.event_type);
    assert.ok(timeline.includes('state_changed') && timeline.includes('step_started') && timeline.includes('step_completed'));
  });

  it('counts a step of no phase as more work in the progress, and a failed step as not done', async () => {
    const e = await rig.ok('start_execution', { workflowName: 'bug-fix' });
    await rig.ok('transition_workflow_state', { executionId: e.id, newState: 'running' });
    const progress = async () => (await rig.ok('get_execution_details', { executionId: e.id })).execution.progress;
    const s1 = await rig.ok('start_step', { executionId: e.id, stepName: 'analyze-root-cause' });
    await rig.ok('complete_step', { stepId: s1.id, output: STEP_OUTPUT });
    assert.equal(await progress(), 25);
    const extra = await rig.ok('start_step', { executionId: e.id, stepName: 'changelog' });
    await rig.ok('complete_step', { stepId: extra.id, output: STEP_OUTPUT });
    assert.equal(await progress(), 40); // 2 of 5
    const failed = await rig.ok('start_step', { executionId: e.id, stepName: 'implement-fix' });
    await rig.ok('complete_step', { stepId: failed.id, error: 'the build broke' });
    assert.equal(await progress(), 40);
  });

  it('two calls finishing one step at once: one wins, the other hears that the step is finished', async () => {
    for (let round = 0; round < 3; round++) {
      const e = await rig.ok('start_execution', { workflowName: 'bug-fix' });
      await rig.ok('transition_workflow_state', { executionId: e.id, newState: 'running' });
      const s1 = await rig.ok('start_step', { executionId: e.id, stepName: 'analyze-root-cause' });
      const [done, failed] = await Promise.all([
        rig.call('complete_step', { stepId: s1.id, output: STEP_OUTPUT }),
        rig.call('complete_step', { stepId: s1.id, error: 'it broke' }),
      ]);
      assert.equal([done, failed].filter((r) => r.isError).length, 1, `${done.text} | ${failed.text}`);
      const loser = done.isError ? done : failed;
      assert.match(loser.text, /is (completed|failed), not running/);
      const stored = (await rig.ok('get_execution_details', { executionId: e.id })).steps[0].state;
      assert.equal(stored, done.isError ? 'failed' : 'completed', 'the stored state is the winner\'s');
    }
  });

  it('refuses an unknown workflow with the list of workflows', async () => {
    const r = await rig.call('start_execution', { workflowName: 'no-such' });
    assert.equal(r.isError, true);
    assert.match(r.text, /No workflow "no-such"\. Workflows: bug-fix, feature-implementation, security-audit/);
  });

  it('associates the project of projectPath (discovering it) or of projectId', async () => {
    const other = makeLifecycleWorkspace();
    try {
      const e = await rig.ok('start_execution', { workflowName: 'bug-fix', projectPath: other });
      const projects = await rig.ok('list_projects', {});
      const p = projects.projects.find((x: { path: string }) => x.path === other);
      assert.ok(p, 'the path became a project');
      assert.equal(e.projectId, p.id);
      const e2 = await rig.ok('start_execution', { workflowName: 'bug-fix', projectId: p.id });
      assert.equal(e2.projectId, p.id);
      const bad = await rig.call('start_execution', { workflowName: 'bug-fix', projectId: 9999 });
      assert.match(bad.text, /No project 9999; see list_projects/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('inspects an execution started with workflow_next_step: steps with string ids, dependencies as ids, by task id too', async () => {
    const r = await rig.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'login fails' } });
    const sc = r.structuredContent as { execution_id: string; task_id: string };
    for (const id of [sc.execution_id, sc.task_id]) {
      const d = await rig.ok('get_execution_details', { executionId: id });
      assert.equal(d.execution.id, sc.execution_id);
      assert.equal(d.execution.taskId, sc.task_id);
      assert.equal(d.execution.state, 'running');
      assert.equal(d.steps.length, 4);
      const byName = new Map<string, { id: string; dependsOn: string[] }>(d.steps.map((s: { stepName: string }) => [s.stepName, s]));
      assert.deepEqual(byName.get('implement-fix')!.dependsOn, [byName.get('analyze-root-cause')!.id]);
    }
    const incomplete = await rig.ok('get_incomplete_executions', { workflowName: 'bug-fix' });
    assert.ok(incomplete.executions.some((x: { id: string }) => x.id === sc.execution_id));
    const refused = await rig.call('start_step', { executionId: sc.execution_id, stepName: 'x' });
    assert.match(refused.text, /driven by workflow_next_step .*call workflow_next_step\(\{ task_id/);
  });

  it('lets a broker execution be escalated (the broker refuses to move it) and resumed (it moves again)', async () => {
    const first = await rig.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } });
    const sc = first.structuredContent as any;
    const { token } = okStep(sc);
    await rig.ok('transition_workflow_state', { executionId: sc.execution_id, newState: 'escalated', error: 'needs a human' });
    const blocked = (await rig.client.callTool({ name: 'workflow_next_step', arguments: { step_token: token, model_output_so_far: output('a') } })).structuredContent as any;
    assert.equal(blocked.status, 'error');
    assert.match(blocked.error.message, /escalated; it must be resumed/);
    await rig.ok('resume_execution', { executionId: sc.execution_id });
    const moved = (await rig.client.callTool({ name: 'workflow_next_step', arguments: { step_token: token, model_output_so_far: output('a') } })).structuredContent as any;
    assert.equal(moved.status, 'ok');
    assert.equal(moved.next_step_contract.step_name, 'implement-fix');
  });

  it('keeps the broker on the same table: a gate goes running → awaiting_approval → running, and awaiting_approval cannot escalate', async () => {
    const yaml = 'name: gated\ndescription: One gated step\ntype: sequential\nsteps:\n  - name: only\n    agent: implementer\n    description: Do it\n    human_gate: true\n  - name: after\n    agent: reviewer\n    description: Then this\n    dependencies: [only]\n';
    const gated = await openLifecycle({ files: { 'workflows/gated.yaml': yaml } });
    try {
      const sc = (await gated.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'gated' } })).structuredContent as any;
      const sub = (await gated.client.callTool({ name: 'workflow_next_step', arguments: { step_token: sc.new_step_token, model_output_so_far: output('x') } })).structuredContent as any;
      assert.equal(sub.status, 'awaiting_approval');
      assert.equal((await gated.ok('get_execution_details', { executionId: sc.execution_id })).execution.state, 'awaiting_approval');
      const r = await gated.call('transition_workflow_state', { executionId: sc.execution_id, newState: 'escalated' });
      assert.match(r.text, /cannot go from awaiting_approval to escalated\. From awaiting_approval it can go to: running, completed, failed\./);
      // No lifecycle tool passes the gate for the person: not running, not completed (the agent's own run, gate open).
      const running = await gated.call('transition_workflow_state', { executionId: sc.execution_id, newState: 'running' });
      assert.match(running.text, /waits for a person to approve or reject its gate; an agent cannot move it on\. Ask them to decide \(baton approve /);
      const completed = await gated.call('transition_workflow_state', { executionId: sc.execution_id, newState: 'completed' });
      assert.match(completed.text, /is driven by workflow_next_step \(task [^)]+\): it completes when its last step is submitted/);
      const closed = await gated.call('complete_execution', { executionId: sc.execution_id, output: { summary: 'done', status: 'completed' } });
      assert.match(closed.text, /it completes when its last step is submitted/);
      assert.equal((await gated.ok('get_execution_details', { executionId: sc.execution_id })).execution.state, 'awaiting_approval');
      await gated.baton.decide({ execution_id: sc.execution_id, decision: 'approve' });
      assert.equal((await gated.ok('get_execution_details', { executionId: sc.execution_id })).execution.state, 'running');
    } finally {
      await gated.close();
    }
  });
});

describe('lifecycle tools: every state pair', () => {
  let rig: LifecycleRig;
  before(async () => { rig = await openLifecycle(); });
  after(() => rig.close());

  const FROM: ExecutionStatus[] = ['pending', 'running', 'paused', 'timeout', 'escalated', 'completed', 'failed'];
  const TO: ExecutionStatus[] = ['pending', 'running', 'completed', 'failed', 'timeout', 'escalated', 'paused'];
  /** A path from pending to each state. */
  const PATH: Record<string, ExecutionStatus[]> = {
    pending: [], running: ['running'], paused: ['running', 'paused'], timeout: ['running', 'timeout'],
    escalated: ['running', 'escalated'], completed: ['running', 'completed'], failed: ['failed'],
  };

  for (const from of FROM) {
    for (const to of TO) {
      const legal = from === to || EXECUTION_TRANSITIONS[from].includes(to);
      it(`${from} → ${to} is ${legal ? 'allowed' : 'refused with the allowed moves'}`, async () => {
        const e = await rig.ok('start_execution', { workflowName: 'security-audit' });
        for (const s of PATH[from]!) await rig.ok('transition_workflow_state', { executionId: e.id, newState: s });
        // A finished execution's error is not rewritten (see 'keeps a finished execution as it finished').
        const why = from === to && (to === 'completed' || to === 'failed') ? {} : { error: 'why' };
        const r = await rig.call('transition_workflow_state', { executionId: e.id, newState: to, ...why });
        const after = await rig.ok('get_execution_details', { executionId: e.id, includeSteps: false });
        if (legal) {
          assert.equal(r.isError, false, r.text);
          assert.equal(r.sc.state, to);
          assert.equal(after.execution.state, to);
        } else {
          assert.equal(r.isError, true);
          const allowed = EXECUTION_TRANSITIONS[from];
          assert.ok(r.text.includes(`cannot go from ${from} to ${to}`), r.text);
          assert.ok(r.text.includes(allowed.length ? `From ${from} it can go to: ${allowed.join(', ')}.` : `${from} is a terminal state`), r.text);
          assert.equal(after.execution.state, from, 'the state did not change');
        }
      });
    }
  }
});

describe('lifecycle tools: timeouts, resumption, dependencies', () => {
  let rig: LifecycleRig;
  before(async () => { rig = await openLifecycle({ options: { timeoutSweepMs: 10_000 } }); });
  after(() => rig.close());

  it('detects a timeout by the injected clock, not before the deadline', async () => {
    const id = await running(rig, { timeoutMs: 1000 });
    rig.clock.advance(999);
    assert.equal((await rig.ok('check_execution_timeout')).count, 0);
    rig.clock.advance(2);
    const r = await rig.ok('check_execution_timeout');
    assert.deepEqual(r.timedOut.map((e: { id: string }) => e.id), [id]);
    const d = await rig.ok('get_execution_details', { executionId: id });
    assert.equal(d.execution.state, 'timeout');
    assert.match(d.execution.error, /Timed out/);
  });

  it('does not time out a pending execution (its clock starts when it runs)', async () => {
    const e = await rig.ok('start_execution', { workflowName: 'bug-fix', timeoutMs: 10 });
    rig.clock.advance(1000);
    assert.ok(!(await rig.ok('check_execution_timeout')).timedOut.some((x: { id: string }) => x.id === e.id));
  });

  it('resumes a timed-out execution with a fresh deadline', async () => {
    const id = await running(rig, { timeoutMs: 1000 });
    rig.clock.advance(1500);
    await rig.ok('check_execution_timeout');
    const r = await rig.ok('resume_execution', { executionId: id });
    assert.deepEqual(r, { success: true, executionId: id, from: 'timeout', state: 'running' });
    rig.clock.advance(600);
    assert.equal((await rig.ok('check_execution_timeout')).count, 0);
    rig.clock.advance(600);
    assert.equal((await rig.ok('check_execution_timeout')).count, 1);
  });

  it('resumes escalated and paused executions, and refuses the others naming the resumable states', async () => {
    for (const state of ['escalated', 'paused']) {
      const id = await running(rig);
      await rig.ok('transition_workflow_state', { executionId: id, newState: state });
      assert.equal((await rig.ok('resume_execution', { executionId: id })).state, 'running');
    }
    const id = await running(rig);
    const r = await rig.call('resume_execution', { executionId: id });
    assert.match(r.text, /is running; only timeout, escalated, paused executions can be resumed/);
    const pending = await rig.ok('start_execution', { workflowName: 'bug-fix' });
    assert.match((await rig.call('resume_execution', { executionId: pending.id })).text, /transition_workflow_state newState "running"/);
  });

  it('sweeps timeouts from tick() no more often than timeoutSweepMs', async () => {
    await rig.baton.tick(); // the first tick sweeps; start counting from here
    const id = await running(rig, { timeoutMs: 1000 });
    rig.clock.advance(2000);
    await rig.baton.tick();
    assert.equal(rig.baton.lifecycle.execution(id).state, 'running', 'only 2 s since the last sweep');
    rig.clock.advance(8000);
    await rig.baton.tick();
    assert.equal(rig.baton.lifecycle.execution(id).state, 'timeout');
  });

  it('keeps a step with unmet dependencies pending, names them, and starts it once they complete', async () => {
    const id = await running(rig);
    const a = await rig.ok('start_step', { executionId: id, stepName: 'analyze' });
    const r = await rig.call('start_step', { executionId: id, stepName: 'implement', dependsOn: [a.id] });
    assert.equal(r.isError, true);
    assert.match(r.text, new RegExp(`depends on ${a.id} "analyze" \\(running\\).*kept pending.*same stepName`));
    let d = await rig.ok('get_execution_details', { executionId: id });
    const pending = d.steps.find((s: { stepName: string }) => s.stepName === 'implement');
    assert.equal(pending.state, 'pending');
    assert.deepEqual(d.readyStepIds, []);
    await rig.ok('complete_step', { stepId: a.id, output: STEP_OUTPUT });
    d = await rig.ok('get_execution_details', { executionId: id });
    assert.deepEqual(d.readyStepIds, [pending.id]);
    assert.deepEqual(rig.baton.lifecycle.readySteps(id).map((s) => s.id), [pending.id]);
    const started = await rig.ok('start_step', { executionId: id, stepName: 'implement' });
    assert.equal(started.id, pending.id);
    assert.equal(started.state, 'running');
  });

  it('marks several steps ready once their shared dependency completes (parallel branches)', async () => {
    const id = await running(rig);
    const a = await rig.ok('start_step', { executionId: id, stepName: 'scan' });
    for (const n of ['mitigate', 'validate']) await rig.call('start_step', { executionId: id, stepName: n, dependsOn: [a.id] });
    await rig.ok('complete_step', { stepId: a.id, output: STEP_OUTPUT });
    const ready = (await rig.ok('get_execution_details', { executionId: id })).steps.filter((s: { id: string }) => rig.baton.lifecycle.readySteps(id).some((r) => r.id === s.id));
    assert.deepEqual(ready.map((s: { stepName: string }) => s.stepName), ['mitigate', 'validate']);
  });

  it('refuses dependencies that are not steps of the execution, and steps of an execution that is not running', async () => {
    const id = await running(rig);
    const r = await rig.call('start_step', { executionId: id, stepName: 'x', dependsOn: ['99999'] });
    assert.match(r.text, /dependsOn names "99999", which is not a step of execution/);
    const p = await rig.ok('start_execution', { workflowName: 'bug-fix' });
    assert.match((await rig.call('start_step', { executionId: p.id, stepName: 'x' })).text, /is pending; steps start only while it is running: start it with transition_workflow_state/);
  });

  it('completes only running steps and fails a step with an error', async () => {
    const id = await running(rig);
    const a = await rig.ok('start_step', { executionId: id, stepName: 'a' });
    const failed = await rig.ok('complete_step', { stepId: a.id, error: 'compiler crashed' });
    assert.equal(failed.state, 'failed');
    assert.equal(failed.error, 'compiler crashed');
    assert.match((await rig.call('complete_step', { stepId: a.id, output: STEP_OUTPUT })).text, /is failed, not running/);
    assert.match((await rig.call('complete_step', { stepId: '987654', output: STEP_OUTPUT })).text, /No step with id "987654"/);
    const again = await rig.ok('start_step', { executionId: id, stepName: 'a' });
    assert.equal(again.state, 'running', 'a failed step can be started again');
  });
});

describe('lifecycle tools: resumption after closing and reopening the database', () => {
  it('continues an execution, its logs, findings and artifacts after a reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-lc-db-'));
    const workspace = makeLifecycleWorkspace();
    const dbPath = join(dir, 'baton.db');
    try {
      const first = await openLifecycle({ dbPath, workspace });
      const id = await running(first, { timeoutMs: 60_000 });
      const s = await first.ok('start_step', { executionId: id, stepName: 'analyze' });
      await first.ok('log_execution', { executionId: id, layer: 'step', layerId: s.id, logLevel: 'info', message: 'started' });
      await first.ok('store_finding', { executionId: id, severity: 'high', category: 'security', title: 'Token leak', description: 'tokens written to logs' });
      await first.ok('store_artifact', { executionId: id, stepId: s.id, name: 'bytes.bin', contentType: 'binary', content: 'AAEC/w==' });
      const other = await running(first, { timeoutMs: 1000 });
      first.clock.advance(5000);
      await first.ok('check_execution_timeout');
      await first.close();

      const second = await openLifecycle({ dbPath, workspace, clock: first.clock });
      try {
        const incomplete = await second.ok('get_incomplete_executions');
        assert.deepEqual(incomplete.executions.map((e: { id: string; state: string }) => `${e.id}:${e.state}`), [`${id}:running`, `${other}:timeout`]);
        await second.ok('complete_step', { stepId: s.id, output: STEP_OUTPUT });
        await second.ok('resume_execution', { executionId: other });
        const dup = await second.ok('log_execution', { executionId: id, layer: 'step', layerId: s.id, logLevel: 'info', message: 'again' });
        assert.equal(dup.duplicate, true);
        assert.equal(dup.message, 'started');
        const found = await second.ok('query_findings', { searchText: 'leak' });
        assert.equal(found.total, 1, 'the full-text index came back with the database');
        const d = await second.ok('get_execution_details', { executionId: id, includeArtifacts: true });
        assert.deepEqual([...Buffer.from(d.artifacts[0].content, 'base64')], [0, 1, 2, 255]);
        await second.ok('complete_execution', { executionId: id, output: WORKFLOW_OUTPUT });
        assert.equal(second.baton.lifecycle.execution(id).state, 'completed');
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

describe('lifecycle tools: contract validation', () => {
  let rig: LifecycleRig;
  before(async () => { rig = await openLifecycle(); });
  after(() => rig.close());

  it('refuses a name or text of only spaces (it would show as nothing in the tree and the history), storing nothing', async () => {
    const id = await running(rig);
    const s = await rig.ok('start_step', { executionId: id, stepName: 'blank-check' });
    const blank = ' \t\n ';
    const calls: Array<[string, Record<string, unknown>, string]> = [
      ['start_step', { executionId: id, stepName: blank }, 'stepName'],
      ['start_step', { executionId: id, stepName: 'b', phaseName: blank }, 'phaseName'],
      ['start_step', { executionId: id, stepName: 'c', agentName: blank }, 'agentName'],
      ['store_artifact', { executionId: id, name: blank, contentType: 'text', content: 'x' }, 'name'],
      ['store_finding', { executionId: id, severity: 'low', category: blank, title: 't', description: 'd' }, 'category'],
      ['store_finding', { executionId: id, severity: 'low', category: 'c', title: blank, description: 'd' }, 'title'],
      ['store_finding', { executionId: id, severity: 'low', category: 'c', title: 't', description: blank }, 'description'],
      ['log_execution', { executionId: id, layer: 'step', layerId: s.id, logLevel: 'info', message: blank }, 'message'],
    ];
    for (const [tool, args, field] of calls) {
      const r = await rig.call(tool, args);
      assert.equal(r.isError, true, `${tool}.${field}`);
      assert.match(r.text, new RegExp(`^Invalid arguments for ${tool}: ${field} must be a string that is not empty or only spaces(, such as \\w+(\\.md)?)? \\(got " \\\\t\\\\n "\\)`), r.text);
    }
    const details = rig.baton.lifecycle.details({ executionId: id, includeLogs: true, includeArtifacts: true, includeFindings: true });
    assert.deepEqual(details.steps!.map((step) => step.stepName), ['blank-check']);
    assert.deepEqual([details.artifacts, details.findings, details.logs].map((list) => list!.length), [0, 0, 0]);
  });

  it('refuses a step output missing summary, naming the field, and leaves the step running', async () => {
    const id = await running(rig);
    const s = await rig.ok('start_step', { executionId: id, stepName: 'a' });
    const r = await rig.call('complete_step', { stepId: s.id, output: { artifacts: [], confidence: 0.5 } });
    assert.equal(r.isError, true);
    // The bundled contract by what it is, never by the folder Baton is installed in (an internal path, the user's home)
    assert.match(r.text, /output does not match the StepOutput contract \(StepOutput\.schema\.json, Baton's bundled contracts\): \/summary is required/);
    assert.ok(!`${r.text}${JSON.stringify(r.meta)}`.includes(bundledContentDir()), `${r.text} ${JSON.stringify(r.meta)}`);
    assert.equal(rig.baton.lifecycle.details({ executionId: id }).steps![0]!.state, 'running');
  });

  it('reports every failing field with its path (allErrors)', async () => {
    const id = await running(rig);
    const s = await rig.ok('start_step', { executionId: id, stepName: 'a' });
    const r = await rig.call('complete_step', { stepId: s.id, output: { summary: '', confidence: 2, references: [3] } });
    assert.match(r.text, /\/summary must NOT have fewer than 1 characters/);
    assert.match(r.text, /\/confidence must be <= 1/);
    assert.match(r.text, /\/references\/0 must be string/);
  });

  it('refuses a workflow output that breaks WorkflowOutput and keeps the execution running; accepts a valid one', async () => {
    const id = await running(rig);
    const r = await rig.call('complete_execution', { executionId: id, output: { summary: 'x', workflow: { name: 5 } } });
    assert.match(r.text, /WorkflowOutput contract .*\/workflow\/name must be string/);
    assert.equal(rig.baton.lifecycle.execution(id).state, 'running');
    assert.equal((await rig.ok('complete_execution', { executionId: id, output: WORKFLOW_OUTPUT })).contract.validated, true);
  });

  it('keeps a finished execution as it finished: a repeat of its end changes nothing, another output or error is refused', async () => {
    const id = await running(rig);
    const first = await rig.ok('complete_execution', { executionId: id, output: WORKFLOW_OUTPUT });
    const finished = (await rig.ok('get_execution_details', { executionId: id, includeSteps: false })).execution;
    assert.equal(first.state, 'completed');
    const repeat = await rig.ok('complete_execution', { executionId: id, output: WORKFLOW_OUTPUT });
    assert.deepEqual([repeat.from, repeat.state], ['completed', 'completed']);
    const other = await rig.call('complete_execution', { executionId: id, output: { ...WORKFLOW_OUTPUT, summary: 'rewritten' } });
    assert.equal(other.isError, true);
    assert.equal(other.text, `Execution ${id} is already completed; its output stays as it finished (see get_execution_details). `
      + 'To record another result, start a new execution with start_execution.');
    const withError = await rig.call('transition_workflow_state', { executionId: id, newState: 'completed', error: 'late' });
    assert.match(withError.text, /is already completed; its error stays as it finished/);
    assert.deepEqual((await rig.ok('get_execution_details', { executionId: id, includeSteps: false })).execution, finished);

    const failed = await rig.ok('start_execution', { workflowName: 'bug-fix' });
    await rig.ok('transition_workflow_state', { executionId: failed.id, newState: 'failed', error: 'first reason' });
    assert.equal((await rig.ok('complete_execution', { executionId: failed.id, error: 'first reason' })).state, 'failed');
    const again = await rig.call('complete_execution', { executionId: failed.id, error: 'second reason' });
    assert.match(again.text, /is already failed; its error stays as it finished/);
    assert.equal((await rig.ok('get_execution_details', { executionId: failed.id, includeSteps: false })).execution.error, 'first reason');
  });

  it('uses a workspace contract (.baton/contracts) over the bundled one', async () => {
    const schema = JSON.stringify({ type: 'object', required: ['verdict'], properties: { verdict: { enum: ['pass', 'fail'] } } });
    const ws = await openLifecycle({ files: { 'contracts/StepOutput.schema.json': schema } });
    try {
      const id = await running(ws);
      const s = await ws.ok('start_step', { executionId: id, stepName: 'a' });
      assert.match((await ws.call('complete_step', { stepId: s.id, output: STEP_OUTPUT })).text, /\/verdict is required/);
      assert.match((await ws.call('complete_step', { stepId: s.id, output: { verdict: 'maybe' } })).text, /\/verdict must be equal to one of the allowed values/);
      assert.equal((await ws.ok('complete_step', { stepId: s.id, output: { verdict: 'pass' } })).state, 'completed');
    } finally {
      await ws.close();
    }
  });

  it('skips validation with a logged notice when no schema exists', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'baton-nocontracts-'));
    const bare = await openLifecycle({ bundled: empty, files: { 'workflows/tiny.yaml': 'name: tiny\ndescription: t\ntype: sequential\nsteps:\n  - name: one\n    agent: a\n    description: d\n' } });
    try {
      const e = await bare.ok('start_execution', { workflowName: 'tiny' });
      await bare.ok('transition_workflow_state', { executionId: e.id, newState: 'running' });
      const s = await bare.ok('start_step', { executionId: e.id, stepName: 'one' });
      const done = await bare.ok('complete_step', { stepId: s.id, output: { anything: true } });
      assert.equal(done.state, 'completed');
      assert.equal(done.contract.validated, false);
      assert.match(done.contract.notice, /^No StepOutput\.schema\.json in Baton's bundled contracts or .*without contract validation/);
      assert.ok(!done.contract.notice.includes(empty), done.contract.notice);
      assert.ok(bare.log.lines.some((l) => l.level === 'info' && /contracts: No StepOutput\.schema\.json/.test(l.message)));
      const closed = await bare.ok('complete_execution', { executionId: e.id, output: { whatever: 1 } });
      assert.equal(closed.contract.validated, false);
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('validates log contracts against <Layer>Output and skips layers without a schema', async () => {
    const id = await running(rig);
    const bad = await rig.call('log_execution', { executionId: id, layer: 'step', layerId: 'c1', logLevel: 'info', message: 'm', contractOutput: { confidence: 3 } });
    assert.match(bad.text, /contractOutput does not match the StepOutput contract.*\/summary is required.*\/confidence must be <= 1/);
    const skipped = await rig.ok('log_execution', { executionId: id, layer: 'agent_task', layerId: 'c2', logLevel: 'info', message: 'm', contractInput: { x: 1 } });
    assert.deepEqual(skipped.contracts.map((c: { schema: string; validated: boolean }) => `${c.schema}:${c.validated}`), ['AgentTaskInput:false']);
  });
});

describe('logging tools: idempotent logs and immutable artifacts', () => {
  let rig: LifecycleRig;
  let id: string;
  before(async () => {
    rig = await openLifecycle();
    id = await running(rig);
  });
  after(() => rig.close());

  it('logs once per (executionId, layer, layerId) and returns the stored entry on a repeat', async () => {
    const args = { executionId: id, layer: 'workflow', layerId: id, logLevel: 'info', message: 'Workflow started', context: { n: 1 } };
    const first = await rig.ok('log_execution', args);
    assert.equal(first.duplicate, false);
    assert.deepEqual(first.context, { n: 1 });
    const again = await rig.ok('log_execution', { ...args, message: 'changed', logLevel: 'error' });
    assert.equal(again.duplicate, true);
    assert.equal(again.id, first.id);
    assert.equal(again.message, 'Workflow started');
    assert.equal(rig.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM execution_logs WHERE execution_id = ?', [id])!.n, 1);
  });

  it('lists logs oldest first in details, including ones written after an earlier read', async () => {
    const other = await running(rig);
    await rig.ok('log_execution', { executionId: other, layer: 'step', layerId: 'a', logLevel: 'info', message: 'one' });
    const first = await rig.ok('get_execution_details', { executionId: other, includeLogs: true, includeSteps: false });
    assert.deepEqual(first.logs.map((l: { message: string }) => l.message), ['one']);
    await rig.ok('log_execution', { executionId: other, layer: 'step', layerId: 'b', logLevel: 'warn', message: 'two' });
    await rig.ok('log_execution', { executionId: id, layer: 'step', layerId: 'elsewhere', logLevel: 'info', message: 'not this execution' });
    const second = await rig.ok('get_execution_details', { executionId: other, includeLogs: true, includeSteps: false });
    assert.deepEqual(second.logs.map((l: { message: string; logLevel: string }) => `${l.message}:${l.logLevel}`), ['one:info', 'two:warn']);
    assert.equal(second.steps, undefined);
  });

  it('logs separately per layer and layerId, and refuses an unknown execution', async () => {
    const a = await rig.ok('log_execution', { executionId: id, layer: 'step', layerId: '1', logLevel: 'debug', message: 'a' });
    const b = await rig.ok('log_execution', { executionId: id, layer: 'agent_task', layerId: '1', logLevel: 'debug', message: 'b' });
    assert.notEqual(a.id, b.id);
    assert.match((await rig.call('log_execution', { executionId: 'nope', layer: 'step', layerId: '1', logLevel: 'info', message: 'x' })).text, /No execution "nope"/);
  });

  it('round-trips binary artifacts byte for byte, with the decoded size', async () => {
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 37 + 11) % 256));
    const stored = await rig.ok('store_artifact', { executionId: id, name: 'blob.bin', contentType: 'binary', content: bytes.toString('base64'), metadata: { origin: 'test' } });
    assert.equal(stored.sizeBytes, 1000);
    assert.equal(stored.encoding, 'base64');
    assert.equal(stored.mimeType, 'application/octet-stream');
    assert.equal(stored.content, undefined, 'the store answer does not echo the content');
    const d = await rig.ok('get_execution_details', { executionId: id, includeArtifacts: true });
    const back = d.artifacts.find((a: { id: string }) => a.id === stored.id);
    assert.deepEqual(Buffer.from(back.content, 'base64'), bytes);
    assert.deepEqual(Buffer.from(rig.baton.lifecycle.artifactBytes(stored.id)), bytes);
  });

  it('stores text with its UTF-8 size, checks JSON and base64, and links an artifact to its step', async () => {
    const s = await rig.ok('start_step', { executionId: id, stepName: 'writer' });
    const t = await rig.ok('store_artifact', { executionId: id, stepId: s.id, name: 'notes.md', contentType: 'markdown', content: '# Ünïcode ✓' });
    assert.equal(t.sizeBytes, Buffer.byteLength('# Ünïcode ✓'));
    assert.equal(t.stepId, s.id);
    assert.equal(t.stepName, 'writer');
    assert.match((await rig.call('store_artifact', { executionId: id, name: 'x.json', contentType: 'json', content: '{nope' })).text, /content is not valid JSON/);
    assert.match((await rig.call('store_artifact', { executionId: id, name: 'x.bin', contentType: 'binary', content: 'not base64!' })).text, /content must be standard base64/);
    assert.match((await rig.call('store_artifact', { executionId: id, stepId: '424242', name: 'x', contentType: 'text', content: 'x' })).text, /No step "424242" in execution/);
  });

  it('keeps a huge call in the call log as a redacted head with its full size', async () => {
    const content = `AKIAIOSFODNN7EXAMPLE ${'x'.repeat(100_000)}`;
    const args = { executionId: id, name: 'huge.txt', contentType: 'text', content };
    // Stored: the call log keeps the outline (the artifact holds the content).
    await rig.ok('store_artifact', args);
    // Refused (no such execution): the call log keeps the request, cut to a redacted head.
    assert.ok((await rig.call('store_artifact', { ...args, executionId: 'no-such-execution' })).isError);
    await rig.baton.flushCalls();
    const [failed, stored] = rig.baton.recentCalls(20).filter((r) => r.tool_or_resource_name === 'store_artifact' && Number(r.request_size_bytes) > 100_000);
    assert.equal(Number(stored!.request_size_bytes), Buffer.byteLength(JSON.stringify(args)));
    assert.equal(Number(stored!.success), 1);
    assert.equal(Number(failed!.success), 0);
    const outline = JSON.parse(String(stored!.request_full)) as { content: string };
    assert.match(outline.content, /^\[REDACTED:aws_access_key_id\] x*\.\.\. \(100021 chars\)$/);
    const cut = JSON.parse(String(failed!.request_full)) as { truncated: boolean; size: number; head: string };
    assert.equal(cut.truncated, true);
    assert.equal(cut.size, Number(failed!.request_size_bytes));
    assert.ok(cut.head.length <= 64 * 1024);
    assert.ok(!cut.head.includes('AKIAIOSFODNN7EXAMPLE') && cut.head.includes('[REDACTED:aws_access_key_id]'));
  });

  it('keeps artifacts immutable: the database refuses to change their content', async () => {
    const a = await rig.ok('store_artifact', { executionId: id, name: 'fixed.txt', contentType: 'text', content: 'v1' });
    await assert.rejects(rig.store.transaction(() => rig.store.run("UPDATE artifacts SET content = 'v2' WHERE artifact_id = ?", [a.id])), /artifacts are immutable/);
    const again = await rig.ok('store_artifact', { executionId: id, name: 'fixed.txt', contentType: 'text', content: 'v2' });
    assert.notEqual(again.id, a.id, 'a new version is a new artifact');
    assert.equal(rig.baton.lifecycle.details({ executionId: id, includeArtifacts: true }).artifacts!.find((x) => x.id === a.id)!.content, 'v1');
  });
});

describe('list tools: their text counts in words', () => {
  let rig: LifecycleRig;
  before(async () => { rig = await openLifecycle(); });
  after(() => rig.close());

  it('says "1 incomplete execution", "1 of 1 execution", "N of M workflows", "No findings", never "(s)"', async () => {
    assert.equal((await rig.call('get_incomplete_executions', {})).text, '0 incomplete executions.');
    await running(rig);
    assert.equal((await rig.call('get_incomplete_executions', {})).text, '1 incomplete execution.');
    assert.equal((await rig.call('get_execution_history', {})).text, '1 of 1 execution.');
    assert.equal((await rig.call('list_projects', {})).text, '1 of 1 project.', 'the workspace, known once an execution started in it');
    assert.equal((await rig.call('query_findings', {})).text, 'No findings.');
    const workflows = (await rig.call('search_workflows', {})).text;
    assert.match(workflows, /^\d+ of \d+ workflows: bug-fix, /);
    const rules = (await rig.call('get_relevant_rules', {})).text;
    assert.match(rules, /^\d+ of \d+ rules?: /);
    assert.ok(![workflows, rules].some((t) => t.includes('(s)')), `${workflows}\n${rules}`);
  });
});

describe('content files read by the tests', () => {
  it('ships the bundled StepOutput and WorkflowOutput contracts as JSON Schema', () => {
    for (const name of ['StepOutput', 'WorkflowOutput']) {
      const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', 'content', 'contracts', `${name}.schema.json`), 'utf8')) as { required: string[] };
      assert.deepEqual(schema.required, ['summary']);
    }
  });
});
