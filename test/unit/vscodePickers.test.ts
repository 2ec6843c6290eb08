// Rule: a palette command that asks which run says why it has none to offer: no run at all (start one), or runs that
// all ended (Cancel Execution: none to cancel; Advance Step: no workflow under way), never "no execution" while the
// tree lists some; with one run to offer, it takes it without asking.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { LocalSource } from '../../src/vscode/batonSource.js';
import { HeldSteps } from '../../src/vscode/heldSteps.js';
import { listUnfinished } from '../../src/vscode/runListing.js';
import type { Services } from '../../src/vscode/services.js';
import { advanceStep, cancelExecution } from '../../src/vscode/workflowCommands.js';
import { makeBaton } from '../helpers/coreHarness.js';
import { fakeWindow } from '../helpers/fakeVscode.js';

async function editor() {
  const { baton } = await makeBaton();
  const connection = new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never);
  const s = { connection, runs: { unfinished: () => listUnfinished(connection) }, held: new HeldSteps(), log: { error: () => undefined } } as unknown as Services;
  return { baton, s };
}

describe('the palette pickers with nothing to offer', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.answer = () => undefined;
  });

  it('with no run at all, say so and how to start one', async () => {
    const { s } = await editor();
    await cancelExecution(s);
    await advanceStep(s);
    assert.deepEqual(fakeWindow.shown.map((m) => m.message), [
      'Baton: no run yet. Start one with "Baton: Start Workflow…".', 'Baton: no run yet. Start one with "Baton: Start Workflow…".',
    ]);
  });

  it('with one run to offer, take it without asking; with two, ask', async () => {
    const { baton, s } = await editor();
    fakeWindow.picks = [];
    const first = (await baton.nextStep({ template_name: 'bug-fix' })).execution_id!;
    await cancelExecution(s); // the modal is dismissed: nothing is cancelled
    assert.equal(fakeWindow.picks.length, 0, 'no quick pick for the only run');
    assert.match(fakeWindow.shown.at(-1)!.message, /bug-fix/, 'straight to the confirmation of that run');
    assert.equal(baton.workflowStatus(first).status, 'running');
    await baton.nextStep({ template_name: 'bug-fix' });
    await cancelExecution(s);
    assert.equal(fakeWindow.picks.length, 1);
    assert.equal(fakeWindow.picks[0]!.length, 2, 'both runs offered');
  });

  it('with runs that all ended, say that none is left to cancel or advance', async () => {
    const { baton, s } = await editor();
    const id = (await baton.nextStep({ template_name: 'bug-fix' })).execution_id!;
    await baton.cancel(id, 'cancelled from the editor', 'vscode');
    await cancelExecution(s);
    await advanceStep(s);
    assert.deepEqual(fakeWindow.shown.map((m) => [m.level, m.message]), [
      ['info', 'Baton: every run has ended already; there is none to cancel.'],
      ['info', 'Baton: no workflow run is under way, so there is no step to advance (Baton drives pipelines and teams itself). ' +
        'Start one with "Baton: Start Workflow…".'],
    ]);
  });
});
