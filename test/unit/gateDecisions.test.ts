// Rule: a gate decided elsewhere after the person saw it (another window, the CLI, the tree) is never decided again
// silently: Approve or Reject… from the notification (which the editor cannot close) says it was already decided and
// how (approved / sent back); Reject… checks before asking for the feedback, and one typed while someone else decided
// is given back to the person; a gate redone and waiting again is not the one they saw. What the person is asked and
// told follows what rejecting does: a workflow step goes back to its agent; a pipeline's review (human_review) ends
// the run, failed (onReject: fail, the default), or lets it go on with the review not approved (onReject: continue).
// A gate whose run was cancelled or failed meanwhile says so, not that someone decided it.
// A decision records who made it: the face (cli, vscode) and the OS user, from USER or else the system's own record.
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { describe, it } from 'node:test';
import type { System } from '../../src/core/pipelines/types.js';
import { deciderOn } from '../../src/host/nodePorts.js';
import type { RejectOutcome } from '../../src/shared/rejectWords.js';
import { LocalSource } from '../../src/vscode/batonSource.js';
import { approveGate, decisionsSoFar, rejectGate, rejectionOf, type GateSeen, type GateUi } from '../../src/vscode/gateDecisions.js';
import { LocalPipelines } from '../../src/vscode/pipelines/pipelineSource.js';
import { makeBaton, output } from '../helpers/coreHarness.js';
import { until } from '../helpers/until.js';

const GATED = 'name: gated\ndescription: g\ntype: sequential\nsteps:\n  - name: g\n    agent: implementer\n    description: Do it\n    human_gate: true\n'
  + '  - name: after\n    agent: reviewer\n    description: Then\n    dependencies: [g]\n';

/** A run of `gated` whose step g waits for approval, and the gate as a notification shows it. */
async function waitingGate() {
  const { baton } = await makeBaton({ workflows: { gated: GATED } });
  const first = await baton.nextStep({ template_name: 'gated' });
  const waiting = await baton.nextStep({ step_token: first.new_step_token!, model_output_so_far: output('g') });
  assert.equal(waiting.status, 'awaiting_approval');
  const source = new LocalSource(baton, { url: '', token: '' });
  const executionId = waiting.execution_id!;
  const gate: GateSeen = { executionId, stepName: 'g', run: 'gated', decisionsSeen: await decisionsSoFar(source, executionId, 'g') };
  return { baton, source, gate, executionId, token: waiting.new_step_token! };
}

class FakeUi implements GateUi {
  infos: string[] = [];
  asked = 0;
  outcomes: RejectOutcome[] = [];
  constructor(private readonly typed: string | undefined, private readonly whileTyping: () => Promise<unknown> = async () => undefined) {}
  info(message: string): void {
    this.infos.push(message);
  }
  async askFeedback(_step: string, outcome: RejectOutcome): Promise<string | undefined> {
    this.asked++;
    this.outcomes.push(outcome);
    await this.whileTyping();
    return this.typed;
  }
}

const decisions = async (baton: Awaited<ReturnType<typeof makeBaton>>['baton'], id: string) =>
  baton.events(id).filter((e) => e.event_type.startsWith('gate_')).map((e) => e.event_type);

describe('gate decisions from a notification the person saw earlier', () => {
  it('approve and reject on a gate that still waits decide it and say so', async () => {
    const a = await waitingGate();
    const ui = new FakeUi(undefined);
    await approveGate(a.source, ui, a.gate);
    assert.deepEqual(ui.infos, ['Baton: "g" of gated approved.']);
    const r = await waitingGate();
    const rui = new FakeUi('  tighten it ');
    await rejectGate(r.source, rui, r.gate);
    assert.deepEqual(rui.infos, ['Baton: "g" of gated sent back with your feedback.']);
    const rejected = r.baton.events(r.executionId).find((e) => e.event_type === 'gate_rejected');
    assert.equal((rejected?.event_data as { feedback?: string } | undefined)?.feedback, 'tighten it');
  });

  it('a decision from the editor is recorded as the person\'s OS user, as baton approve records it', async () => {
    const { baton, source, gate, executionId } = await waitingGate();
    const saved = process.env.USER;
    process.env.USER = 'ada';
    try {
      await approveGate(source, new FakeUi(undefined), gate);
    } finally {
      if (saved === undefined) delete process.env.USER;
      else process.env.USER = saved;
    }
    const approved = baton.events(executionId).find((e) => e.event_type === 'gate_approved');
    assert.equal((approved?.event_data as { by?: string } | undefined)?.by, 'vscode:ada');
  });

  it('with no USER in the environment (a container, a service), the OS user is recorded, not a placeholder', () => {
    const saved = process.env.USER;
    try {
      delete process.env.USER;
      assert.equal(deciderOn('cli'), `cli:${userInfo().username}`);
      process.env.USER = '';
      assert.equal(deciderOn('vscode'), `vscode:${userInfo().username}`);
    } finally {
      if (saved === undefined) delete process.env.USER;
      else process.env.USER = saved;
    }
  });

  it('Approve or Reject… on a gate whose run was cancelled (or failed) since says so, not that it was decided elsewhere', async () => {
    const { baton, source, gate, executionId } = await waitingGate();
    await baton.cancel(executionId, 'changed my mind');
    const ui = new FakeUi('cover the edge');
    await approveGate(source, ui, gate);
    await rejectGate(source, ui, gate);
    assert.equal(ui.asked, 0, 'no feedback asked for a gate that cannot be decided');
    assert.deepEqual(ui.infos, Array(2).fill('Baton: "g" of gated no longer waits for a decision: the run was cancelled; nothing was changed.'));
    // Cancelled while the person typed the feedback: it is given back.
    const typing = await waitingGate();
    const late = new FakeUi('cover the edge', () => typing.baton.cancel(typing.executionId));
    await rejectGate(typing.source, late, typing.gate);
    assert.deepEqual(late.infos, ['Baton: "g" of gated no longer waits for a decision: the run was cancelled; nothing was changed. ' +
      'Your feedback was not sent: "cover the edge"']);
    assert.deepEqual(await decisions(typing.baton, typing.executionId), []);
  });

  it('Approve on a gate approved elsewhere says it was already approved and decides nothing', async () => {
    const { baton, source, gate, executionId } = await waitingGate();
    await baton.decide({ execution_id: executionId, decision: 'approve', by: 'cli' });
    const ui = new FakeUi(undefined);
    await approveGate(source, ui, gate);
    assert.deepEqual(ui.infos, ['Baton: "g" of gated was already approved elsewhere; nothing was changed.']);
    assert.deepEqual(await decisions(baton, executionId), ['gate_approved']);
  });

  it('Reject… on a gate sent back elsewhere says so before asking for any feedback', async () => {
    const { baton, source, gate, executionId } = await waitingGate();
    await baton.decide({ execution_id: executionId, decision: 'reject', feedback: 'from the other window', by: 'vscode' });
    const ui = new FakeUi('never typed');
    await rejectGate(source, ui, gate);
    assert.equal(ui.asked, 0, 'no feedback asked for: it would be thrown away');
    assert.deepEqual(ui.infos, ['Baton: "g" of gated was already sent back elsewhere; nothing was changed.']);
  });

  it('feedback typed while someone else approves is given back, not lost silently', async () => {
    const { baton, source, gate, executionId } = await waitingGate();
    const ui = new FakeUi('needs tests', () => baton.decide({ execution_id: executionId, decision: 'approve', by: 'cli' }));
    await rejectGate(source, ui, gate);
    assert.deepEqual(ui.infos, ['Baton: "g" of gated was already approved elsewhere; nothing was changed. Your feedback was not sent: "needs tests"']);
    assert.deepEqual(await decisions(baton, executionId), ['gate_approved']);
  });

  it('a gate sent back, redone and waiting again is not the one the notification showed: Approve does not approve it', async () => {
    const { baton, source, gate, executionId, token } = await waitingGate();
    await baton.decide({ execution_id: executionId, decision: 'reject', feedback: 'redo', by: 'cli' });
    const again = await baton.nextStep({ step_token: token });
    assert.equal((await baton.nextStep({ step_token: again.new_step_token!, model_output_so_far: output('g v2') })).status, 'awaiting_approval');
    const ui = new FakeUi(undefined);
    await approveGate(source, ui, gate);
    assert.deepEqual(ui.infos, ['Baton: "g" of gated was already sent back elsewhere; nothing was changed.']);
    assert.equal(baton.workflowStatus(executionId).steps.find((s) => s.step_name === 'g')?.status, 'awaiting_approval', 'the new submission still waits');
  });

  it('a step picked now (palette, tree) with no record of when it was shown: decided if it waits, else said how it ended', async () => {
    const { baton, source, executionId } = await waitingGate();
    await baton.decide({ execution_id: executionId, decision: 'approve', by: 'cli' });
    const ui = new FakeUi(undefined);
    await approveGate(source, ui, { executionId, stepName: 'g', run: 'gated', decisionsSeen: null });
    assert.deepEqual(ui.infos, ['Baton: "g" of gated was already approved elsewhere; nothing was changed.']);
  });
});

/** A pipeline run whose only step, a review with `onReject`, waits for a person (driven in this process). */
async function waitingReview(onReject?: 'fail' | 'continue') {
  const { baton } = await makeBaton();
  const system: System = {
    name: 'signoff', description: '', agents: [],
    workflow: [{ id: 'ok', type: 'human_review', inputTemplate: 'Ship it?', ...(onReject ? { onReject } : {}) }],
  };
  const runId = await baton.pipelines.start(system, { input: 'ship', cwd: '/tmp' });
  const drive = baton.pipelines.drive(runId);
  const source = new LocalSource(baton, { url: '', token: '' });
  const pipelines = new LocalPipelines(baton.pipelines, () => undefined);
  await until('the review waits', () => baton.workflowStatus(runId).steps.some((st) => st.status === 'awaiting_approval'), 5000);
  const rejection = await rejectionOf((id) => pipelines.view(id), runId, 'ok');
  const gate: GateSeen = { executionId: runId, stepName: 'ok', run: 'signoff', decisionsSeen: await decisionsSoFar(source, runId, 'ok'), rejection };
  return { baton, source, gate, runId, drive };
}

describe('what rejecting says it does', () => {
  it('a workflow step goes back to its agent: the feedback is asked for as instructions', async () => {
    const { baton, source, gate, executionId } = await waitingGate();
    const pipelines = new LocalPipelines(baton.pipelines, () => undefined);
    assert.equal(await rejectionOf((id) => pipelines.view(id), executionId, 'g'), 'redo');
    const ui = new FakeUi('tighten it');
    await rejectGate(source, ui, gate);
    assert.deepEqual(ui.outcomes, ['redo']);
  });

  it('a pipeline review that fails the run on rejection (the default) says the run ends, and it does', async () => {
    const { baton, source, gate, runId, drive } = await waitingReview();
    assert.equal(gate.rejection, 'fail');
    const ui = new FakeUi('not good enough');
    await rejectGate(source, ui, gate);
    assert.deepEqual(ui.outcomes, ['fail']);
    assert.deepEqual(ui.infos, ['Baton: "ok" of signoff rejected: the run ends, failed with your reason.']);
    assert.equal((await drive).status, 'failed');
    assert.equal(baton.workflowStatus(runId).status, 'failed');
  });

  it('a pipeline review with onReject: continue says the run goes on without the approval, and it does', async () => {
    const { baton, source, gate, runId, drive } = await waitingReview('continue');
    assert.equal(gate.rejection, 'continue');
    const ui = new FakeUi('no, but go on');
    await rejectGate(source, ui, gate);
    assert.deepEqual(ui.outcomes, ['continue']);
    assert.deepEqual(ui.infos, ['Baton: "ok" of signoff rejected: the run goes on with this review not approved.']);
    assert.equal((await drive).status, 'completed');
    assert.equal(baton.workflowStatus(runId).status, 'completed');
  });

  it('a pipeline review rejected elsewhere is said to be rejected, not sent back', async () => {
    const { baton, source, gate, runId, drive } = await waitingReview();
    await baton.decide({ execution_id: runId, decision: 'reject', feedback: 'no', by: 'cli' });
    const ui = new FakeUi('never typed');
    await rejectGate(source, ui, gate);
    assert.deepEqual(ui.infos, ['Baton: "ok" of signoff was already rejected elsewhere; nothing was changed.']);
    await drive;
  });
});
