// Rule: a gate decided elsewhere after the person saw it (another window, the CLI, the tree) is never decided again
// silently: Approve or Reject… from the notification (which the editor cannot close) says it was already decided and
// how (approved / sent back); Reject… checks before asking for the feedback, and one typed while someone else decided
// is given back to the person; a gate redone and waiting again is not the one they saw.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalSource } from '../../src/vscode/batonSource.js';
import { approveGate, decisionsSoFar, rejectGate, type GateSeen, type GateUi } from '../../src/vscode/gateDecisions.js';
import { makeBaton, output } from '../helpers/coreHarness.js';

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
  constructor(private readonly typed: string | undefined, private readonly whileTyping: () => Promise<unknown> = async () => undefined) {}
  info(message: string): void {
    this.infos.push(message);
  }
  async askFeedback(): Promise<string | undefined> {
    this.asked++;
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
