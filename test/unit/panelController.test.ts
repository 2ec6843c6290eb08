// Rule: the panel answers `panel/ready` (and only then) with the state, drops invalid messages, decides gates through
// the source, reports a failed decision as `panel/error` unless it was already decided elsewhere, pushes one
// debounced update for a burst of its execution's events (and, under a stream that never pauses, one every maxWaitMs),
// and ignores other executions' events.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ArtifactQuery, ArtifactsResource, CurrentStepResource, GateDecision, GateDecisionResult, WorkflowStatusResource } from '../../src/core/api.js';
import type { BatonEvent, StepStatus } from '../../src/core/types.js';
import type { ToWebview } from '../../src/shared/protocol.js';
import type { BatonSource } from '../../src/vscode/batonSource.js';
import { PanelController, PRUNED_MESSAGE } from '../../src/vscode/panels/panelController.js';

class FakeSource {
  gate: StepStatus = 'awaiting_approval';
  decisions: GateDecision[] = [];
  decideError: Error | null = null;
  reads = 0;
  listeners: Array<(e: BatonEvent) => void> = [];

  async workflowStatus(id: string): Promise<WorkflowStatusResource> {
    this.reads++;
    if (id !== 'e1' && id !== 't1') throw new Error(`No execution or task "${id}"`);
    return {
      execution_id: 'e1', task_id: 't1', workflow: 'bug-fix', status: 'awaiting_approval', current_step: 'fix', progress: 50,
      started_at: '2026-01-01T00:00:00Z', completed_at: null,
      steps: [{ step_name: 'fix', status: this.gate, agent_name: 'implementer', dependencies: [], started_at: null, completed_at: null, duration_ms: null, outcome_summary: null, feedback: null, attempt: 1, artifacts: [] }],
    };
  }
  async currentStep(): Promise<CurrentStepResource> {
    return { execution_id: 'e1', task_id: 't1', workflow: 'bug-fix', status: 'awaiting_approval', progress: 50, current_step: 'fix', active_steps: [], artifacts: [] };
  }
  async events() { return []; }
  async artifacts(q: ArtifactQuery): Promise<ArtifactsResource> { return { artifacts: [], total: 0, query: { ...q } }; }
  async guardrails() { return '# Active Guardrails\n'; }
  async templates() { return []; }
  async decide(d: GateDecision): Promise<GateDecisionResult> {
    this.decisions.push(d);
    if (this.decideError) throw this.decideError;
    this.gate = d.decision === 'approve' ? 'completed' : 'pending';
    return { execution_id: 'e1', step_name: d.step_name ?? 'fix', decision: d.decision, step_status: this.gate, execution_status: 'running' };
  }
  onEvent(l: (e: BatonEvent) => void) {
    this.listeners.push(l);
    return { dispose: () => { this.listeners = this.listeners.filter((x) => x !== l); } };
  }
  emit(e: BatonEvent) { for (const l of this.listeners) l(e); }
}

function setup(id = 'e1') {
  const source = new FakeSource();
  const posted: ToWebview[] = [];
  const opened: string[] = [];
  const warnings: string[] = [];
  const titles: string[] = [];
  const controller = new PanelController(source as unknown as BatonSource, id, {
    post: (m) => posted.push(m),
    openArtifact: async (a) => { opened.push(a); },
    onState: (s) => titles.push(s.workflow ?? ''),
    log: { warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
  }, null, 5);
  return { source, posted, opened, warnings, titles, controller };
}

test('nothing is posted before panel/ready; ready gets panel/init with the canonical execution id', async () => {
  const { source, posted, controller, titles } = setup('t1');
  source.emit({ type: 'step', execution_id: 'e1', step_name: 'fix', status: 'running' });
  await controller.receive({ type: 'panel/refresh' });
  await sleep(20);
  assert.equal(posted.length, 0);
  await controller.receive({ type: 'panel/ready' });
  assert.equal(posted.length, 1);
  assert.equal(posted[0]?.type, 'panel/init');
  assert.equal(posted[0]?.type === 'panel/init' && posted[0].executionId, 'e1');
  assert.ok(controller.matches('e1') && controller.matches('t1'));
  assert.deepEqual(titles, ['bug-fix']);
  controller.dispose();
});

test('invalid messages are logged and dropped', async () => {
  const { source, posted, warnings, controller } = setup();
  await controller.receive({ type: 'panel/ready' });
  for (const raw of [null, { type: 'panel/approve', stepName: '../x' }, { type: 'panel/reject', stepName: 'fix', feedback: '' }, { type: 'evil' }]) {
    await controller.receive(raw);
  }
  assert.equal(warnings.length, 4);
  assert.deepEqual(source.decisions, []);
  assert.equal(posted.length, 1);
  controller.dispose();
});

test('approve and reject decide through the source, then update', async () => {
  const { source, posted, controller } = setup();
  await controller.receive({ type: 'panel/ready' });
  await controller.receive({ type: 'panel/reject', stepName: 'fix', feedback: ' add a test ' });
  assert.deepEqual(source.decisions, [{ execution_id: 'e1', step_name: 'fix', decision: 'reject', feedback: 'add a test' }]);
  source.gate = 'awaiting_approval';
  await controller.receive({ type: 'panel/approve', stepName: 'fix' });
  assert.deepEqual(source.decisions[1], { execution_id: 'e1', step_name: 'fix', decision: 'approve' });
  assert.deepEqual(posted.map((m) => m.type), ['panel/init', 'panel/update', 'panel/update']);
  const last = posted.at(-1);
  assert.equal(last?.type === 'panel/update' && last.state.steps[0]?.status, 'completed');
  controller.dispose();
});

test('a failed decision is reported; one already made elsewhere only refreshes', async () => {
  const { source, posted, warnings, controller } = setup();
  await controller.receive({ type: 'panel/ready' });
  source.decideError = new Error('rate limited, try again');
  await controller.receive({ type: 'panel/approve', stepName: 'fix' });
  assert.deepEqual(posted.slice(1).map((m) => m.type), ['panel/error', 'panel/update']);
  assert.equal(posted[1]?.type === 'panel/error' && posted[1].message, 'rate limited, try again');
  source.gate = 'completed';
  source.decideError = new Error('Step "fix" is completed, not awaiting approval');
  await controller.receive({ type: 'panel/approve', stepName: 'fix' });
  assert.deepEqual(posted.slice(3).map((m) => m.type), ['panel/update']);
  assert.ok(warnings.some((w) => w.includes('already decided')));
  controller.dispose();
});

test('a burst of this execution’s events gives one update; other executions’ events none', async () => {
  const { source, posted, controller } = setup();
  await controller.receive({ type: 'panel/ready' });
  const before = source.reads;
  source.emit({ type: 'step', execution_id: 'other', step_name: 'x', status: 'running' });
  source.emit({ type: 'project', project_id: 1 });
  await sleep(20);
  assert.equal(posted.length, 1);
  for (let i = 0; i < 5; i++) source.emit({ type: 'artifact', execution_id: 'e1', artifact_id: `a${i}`, is_final: false });
  source.emit({ type: 'execution', execution_id: 'e1', task_id: 't1', status: 'running' });
  await sleep(40);
  assert.deepEqual(posted.map((m) => m.type), ['panel/init', 'panel/update']);
  assert.equal(source.reads - before, 1);
  controller.detach();
  source.emit({ type: 'step', execution_id: 'e1', step_name: 'fix', status: 'running' });
  await sleep(20);
  assert.equal(posted.length, 2, 'a detached (hidden) webview gets nothing until it is ready again');
  controller.dispose();
  assert.equal(source.listeners.length, 0);
});

test('a stream of this execution’s events closer than the debounce updates the panel while it lasts, not only once it stops', async () => {
  const { source, posted, controller } = setup();
  await controller.receive({ type: 'panel/ready' });
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    for (let ms = 0; ms < 1200; ms += 2) { // the setup's debounce is 5 ms
      source.emit({ type: 'step', execution_id: 'e1', step_name: 'fix', status: 'running' });
      mock.timers.tick(2);
      await new Promise((r) => setImmediate(r)); // the read the timer started resolves
    }
    assert.ok(posted.filter((m) => m.type === 'panel/update').length >= 2, posted.map((m) => m.type).join(', '));
  } finally {
    mock.timers.reset();
    controller.dispose();
  }
});

test('openArtifact runs the host command; a failure is shown; reading a missing execution is an error', async () => {
  const { opened, posted, controller } = setup();
  await controller.receive({ type: 'panel/openArtifact', artifactId: 'abc-1' });
  assert.deepEqual(opened, ['abc-1']);
  controller.dispose();
  const missing = setup('nope');
  await missing.controller.receive({ type: 'panel/ready' });
  assert.equal(missing.posted[0]?.type, 'panel/error');
  missing.controller.dispose();
  assert.deepEqual(posted, []);
});

test('a run pruned by retention: the panel says so, drops the update pending for it and reads nothing after, drops the update pending for it and reads nothing after', async () => {
  const { source, posted, controller } = setup();
  await controller.receive({ type: 'panel/ready' });
  const readsBefore = source.reads;
  source.emit({ type: 'execution', execution_id: 'e1', task_id: 't1', status: 'completed' });
  source.emit({ type: 'pruned', execution_ids: ['e0', 'e1'] });
  await sleep(20);
  assert.deepEqual(posted.slice(1), [{ type: 'panel/error', message: PRUNED_MESSAGE }]);
  source.emit({ type: 'step', execution_id: 'e1', step_name: 'fix', status: 'running' });
  await controller.receive({ type: 'panel/refresh' });
  controller.detach();
  await controller.receive({ type: 'panel/ready' });
  await sleep(20);
  assert.equal(source.reads, readsBefore, 'no read of a run that is gone');
  assert.deepEqual(posted.slice(1).map((m) => m.type), ['panel/error', 'panel/error', 'panel/error']);
  assert.ok(posted.slice(1).every((m) => m.type === 'panel/error' && m.message === PRUNED_MESSAGE));
  controller.dispose();
});

test('a pruned event matches the run however the panel was opened (by its task id) and ignores a prune of other runs', async () => {
  const { source, posted, controller } = setup('t1');
  await controller.receive({ type: 'panel/ready' });
  source.emit({ type: 'pruned', execution_ids: ['e7', 'e8'] });
  source.emit({ type: 'step', execution_id: 'e1', step_name: 'fix', status: 'completed' });
  await sleep(20);
  assert.deepEqual(posted.map((m) => m.type), ['panel/init', 'panel/update'], 'other runs pruned: this one still updates');
  source.emit({ type: 'pruned', execution_ids: ['e1'] });
  assert.deepEqual(posted.at(-1), { type: 'panel/error', message: PRUNED_MESSAGE });
  controller.dispose();
});
