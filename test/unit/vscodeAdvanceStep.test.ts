// Rule: Advance Step on a step an agent is working on (or a run whose steps all are, or wait at a gate) tells the
// person so in their words (whose step it is, Release Step for an agent that went away, Approve/Reject for a gate),
// claims nothing and takes no step from the agent; a ready step is still claimed for the person.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { LocalSource } from '../../src/vscode/batonSource.js';
import { HeldSteps } from '../../src/vscode/heldSteps.js';
import type { Services } from '../../src/vscode/services.js';
import { advanceStep, notYoursText } from '../../src/vscode/workflowCommands.js';
import { makeBaton, okStep, output } from '../helpers/coreHarness.js';
import { fakeWindow } from '../helpers/fakeVscode.js';

async function editor() {
  const { baton } = await makeBaton();
  const connection = new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never);
  const held = new HeldSteps();
  const s = { connection, held, log: { error: () => undefined } } as unknown as Services;
  return { baton, s, held };
}

const node = (execution_id: string, step_name: string) => ({ ref: { kind: 'step', execution_id, step_name, status: 'running' } });

describe('Advance Step on a step that is not the person\'s to take', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.answer = () => undefined;
  });

  it('on a step an agent holds (the tree\'s menu), says whose it is and claims nothing', async () => {
    const { baton, s, held } = await editor();
    const r = await baton.nextStep({ template_name: 'bug-fix', task_description: 'Fix the cart' }, { client_name: 'claude-code' });
    const id = r.execution_id!;
    await advanceStep(s, node(id, 'analyze-root-cause'));
    assert.deepEqual(fakeWindow.shown.map((m) => [m.level, m.message]), [['info',
      'Baton: no step of bug-fix “Fix the cart” is ready for you. "analyze-root-cause" is being worked on by its agent (debugger); ' +
      'if an agent went away, Release Step hands its step to the next one that asks.']]);
    assert.equal(held.get(id), undefined, 'the editor took nothing');
    const still = await baton.nextStep({ step_token: okStep(r).token, model_output_so_far: output('root cause') });
    assert.equal(still.status, 'ok', 'the agent\'s token still works');
  });

  it('from the palette on a run whose steps are all taken or gated, names them; a ready step is still claimed', async () => {
    const { baton, s, held } = await editor();
    const r = await baton.nextStep({ template_name: 'bug-fix' }, { client_name: 'claude-code' });
    const id = r.execution_id!;
    await advanceStep(s, id);
    assert.match(fakeWindow.shown[0]!.message, /^Baton: no step of bug-fix “Run the bug-fix workflow” is ready for you\. "analyze-root-cause" is being worked on/);
    const status = baton.workflowStatus(id);
    const gated = { ...status, steps: status.steps.map((x) => ({ ...x, status: x.step_name === 'review-code' ? 'awaiting_approval' as const : 'completed' as const })) };
    assert.equal(notYoursText(gated), 'Baton: no step of bug-fix “Run the bug-fix workflow” is ready for you. "review-code" waits for your decision: Approve Step or Reject Step….');
    await baton.nextStep({ step_token: okStep(r).token, model_output_so_far: output('root cause') });
    await baton.release(id, 'implement-fix');
    fakeWindow.shown = [];
    await advanceStep(s, id); // a ready step: claimed for the person, who is then asked for a summary (dismissed here)
    assert.equal(held.get(id)?.step_name, 'implement-fix');
  });
});
