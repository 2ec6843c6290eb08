// Rule: Cancel Execution and Copy Agent Prompt offer only the runs each can act on (Cancel: unfinished runs; Copy Agent
// Prompt: workflow runs with a step an agent is given now), newest first, at most PICKED_RUNS of them with an entry
// that counts the rest and takes a typed or pasted id; they read the runs the tree already listed (the shared
// listing), not every run again; with nothing to offer they say why and what to do. Copy Agent Prompt reads the
// run's status without its artifacts.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { LocalSource } from '../../src/vscode/batonSource.js';
import { HeldSteps } from '../../src/vscode/heldSteps.js';
import { PICKED_RUNS } from '../../src/vscode/pickers.js';
import { listUnfinished } from '../../src/vscode/runListing.js';
import type { Services } from '../../src/vscode/services.js';
import { cancelExecution, copyHandoffPrompt } from '../../src/vscode/workflowCommands.js';
import { makeBaton } from '../helpers/coreHarness.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';

type Item = { label: string; detail?: string; alwaysShow?: boolean };

/** An editor whose shared listing was read already (as the tree reads it); `reads` counts the command's own reads. */
async function editor() {
  const { baton, clock } = await makeBaton();
  const connection = new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never);
  const reads: unknown[] = [];
  const list = connection.listExecutions.bind(connection);
  connection.listExecutions = (f) => (reads.push(f), list(f));
  const statusReads: unknown[] = [];
  const status = connection.workflowStatus.bind(connection);
  connection.workflowStatus = (id, opts) => (statusReads.push(opts), status(id, opts));
  const s = {
    connection, held: new HeldSteps(), log: { error: () => undefined },
    runs: { unfinished: () => list({ active_only: true, limit: 100_000 }) },
  } as unknown as Services;
  /** Starts `n` workflow runs a minute apart; their ids, oldest first. */
  const start = async (n: number, task = 'Task') => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      clock.advance(60_000);
      ids.push((await baton.startWorkflow('bug-fix', `${task} ${i}`)).execution_id);
    }
    return ids;
  };
  return { baton, s, reads, statusReads, start };
}

describe('the pickers of unfinished runs', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.picks = [];
    fakeWindow.inputs = [];
    fakeWindow.choose = () => undefined;
    fakeWindow.type = () => undefined;
    fakeWindow.answer = () => undefined;
    fakeVscode.env.clipboard.text = '';
  });

  it('Cancel offers the unfinished runs newest first, capped, with the count of the rest, reading none itself', async () => {
    const { baton, s, reads, start } = await editor();
    const ids = await start(PICKED_RUNS + 7);
    for (const id of ids.slice(0, 2)) await baton.cancel(id, 'done with it', 'test');
    await cancelExecution(s);
    const items = fakeWindow.picks[0] as Item[];
    assert.equal(items.length, PICKED_RUNS + 1, 'the newest PICKED_RUNS and one entry for the rest');
    const shown = items.slice(0, PICKED_RUNS).map((i) => i.detail!.split(' ')[0]);
    assert.deepEqual(shown, ids.slice(2).reverse().slice(0, PICKED_RUNS), 'unfinished only, newest first');
    assert.equal(items.at(-1)!.label, '5 older runs not listed: enter a run id...');
    assert.equal(items.at(-1)!.alwaysShow, true, 'still offered while an id is typed in the filter');
    assert.deepEqual(reads, [], 'the runs the tree listed, not a read of every run');
  });

  it('an unlisted run is reached by its id; an id of no unfinished run is refused, saying where to copy one', async () => {
    const { baton, s, start } = await editor();
    const ids = await start(PICKED_RUNS + 2);
    await baton.cancel(ids.at(-1)!, 'done with it', 'test');
    const oldest = ids[0]!; // one run too many to list
    fakeWindow.choose = (items) => items.at(-1);
    fakeWindow.type = () => ` ${oldest} `;
    fakeWindow.answer = (m) => (m.level === 'warning' ? 'Cancel Execution' : undefined);
    await cancelExecution(s);
    const box = fakeWindow.inputs[0] as { prompt: string; validateInput(v: string): string | undefined };
    assert.equal(box.prompt, `The execution id (or task id) of one of the ${PICKED_RUNS + 1} unfinished runs`);
    assert.equal(box.validateInput(oldest!), undefined);
    assert.equal(box.validateInput(ids.at(-1)!), `"${ids.at(-1)}" is not the id of one of the unfinished runs: copy the id from a run's ` +
      'tooltip in the Baton view, or from baton status');
    assert.equal(baton.workflowStatus(oldest).cancelled, true, 'the typed run was cancelled');
    assert.match(fakeWindow.shown.at(-1)!.message, /Task 0” cancelled\.$/);
  });

  it('Copy Agent Prompt offers only the workflow runs with a step ready for an agent', async () => {
    const { baton, s, statusReads, start } = await editor();
    const [ready1, taken, ready2] = await start(3);
    await baton.nextStep({ task_id: baton.workflowStatus(taken!).task_id! }); // its only ready step is being worked on
    await copyHandoffPrompt(s);
    const offered = (fakeWindow.picks[0] as Item[]).map((i) => i.detail!.split(' ')[0]);
    assert.deepEqual(offered, [ready2, ready1]);
    fakeWindow.choose = (items) => items[1];
    await copyHandoffPrompt(s);
    assert.match(fakeVscode.env.clipboard.text, /^Work on the Baton workflow "bug-fix" \(Task 0\)/);
    assert.deepEqual(statusReads, [{ artifacts: false }], 'the task id read without every artifact of the run');
  });

  it('with nothing to offer, says why and what to do', async () => {
    const { baton, s, start } = await editor();
    await copyHandoffPrompt(s);
    const [only] = await start(1);
    await baton.nextStep({ task_id: baton.workflowStatus(only!).task_id! });
    await copyHandoffPrompt(s);
    await baton.cancel(only!, 'done with it', 'test');
    await copyHandoffPrompt(s);
    await cancelExecution(s);
    assert.deepEqual(fakeWindow.picks, []);
    assert.deepEqual(fakeWindow.shown.map((m) => m.message), [
      'Baton: no run yet. Start one with "Baton: Start Workflow…".',
      'Baton: no workflow run has a step ready for an agent now: their steps are being worked on or wait for your decision ' +
        '(Approve Step or Reject Step...). Release Step frees a step whose agent went away.',
      'Baton: no running workflow to hand to an agent; start one with "Start Workflow…".',
      'Baton: every run has ended already; there is none to cancel.',
    ]);
  });
});
