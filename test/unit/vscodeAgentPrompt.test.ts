// Rule: Copy Agent Prompt from the palette, with no step held by the editor, sends the agent to a workflow run: the
// only one under way without asking, else the one the person picks (never silently the newest); a pipeline or team
// run, which takes no agent from outside, is not offered.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { LocalSource } from '../../src/vscode/batonSource.js';
import { HeldSteps } from '../../src/vscode/heldSteps.js';
import { listUnfinished } from '../../src/vscode/runListing.js';
import type { Services } from '../../src/vscode/services.js';
import { copyHandoffPrompt } from '../../src/vscode/workflowCommands.js';
import { makeBaton } from '../helpers/coreHarness.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';

async function editor() {
  const { baton, store } = await makeBaton();
  const connection = new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never);
  const s = { connection, runs: { unfinished: () => listUnfinished(connection) }, held: new HeldSteps(), log: { error: () => undefined } } as unknown as Services;
  return { baton, store, s };
}

describe('Copy Agent Prompt from the palette', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.picks = [];
    fakeVscode.env.clipboard.text = '';
  });

  it('takes the only workflow run under way, leaving a pipeline run out', async () => {
    const { baton, store, s } = await editor();
    const workflow = await baton.startWorkflow('bug-fix', 'Fix the cart');
    const pipeline = await baton.startWorkflow('bug-fix', 'A pipeline run');
    await store.transaction(() => store.run("UPDATE executions SET kind = 'pipeline' WHERE execution_id = ?", [pipeline.execution_id]));
    await copyHandoffPrompt(s);
    assert.deepEqual(fakeWindow.picks, [], 'nothing asked');
    assert.match(fakeVscode.env.clipboard.text, /^Work on the Baton workflow "bug-fix" \(Fix the cart\)/);
    assert.ok(fakeVscode.env.clipboard.text.includes(workflow.task_id!), fakeVscode.env.clipboard.text);
  });

  it('with two workflow runs under way, asks which (dismissed: copies nothing)', async () => {
    const { baton, s } = await editor();
    await baton.startWorkflow('bug-fix', 'First');
    await baton.startWorkflow('security-audit', 'Second');
    await copyHandoffPrompt(s);
    assert.equal((fakeWindow.picks[0] ?? []).length, 2);
    assert.equal(fakeVscode.env.clipboard.text, '');
  });
});
