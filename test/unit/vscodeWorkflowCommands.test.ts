// Rule: "Baton: Start Workflow…" says in its input box that the task is optional and what a run started without one is
// given as its task (the core's own words), so an empty box starts nothing the person did not expect; its list says a
// spec template runs the phases of a tasks.md, not "1 step". Cancel Execution names the run it cancelled.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { LocalSource } from '../../src/vscode/batonSource.js';
import { listUnfinished } from '../../src/vscode/runListing.js';
import type { Services } from '../../src/vscode/services.js';
import { cancelExecution, startWorkflow } from '../../src/vscode/workflowCommands.js';
import { makeBaton } from '../helpers/coreHarness.js';
import { fakeWindow } from '../helpers/fakeVscode.js';

describe('Start Workflow… and Cancel Execution', () => {
  beforeEach(() => {
    fakeWindow.inputs = [];
    fakeWindow.picks = [];
  });

  it('lists the workflows with their steps; a spec template with the phases of the tasks.md it starts on, not "1 step"', async () => {
    const { baton } = await makeBaton();
    const s = { connection: new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never) } as unknown as Services;
    assert.equal(await startWorkflow(s), undefined, 'dismissed: nothing started');
    const items = (fakeWindow.picks[0] ?? []) as Array<{ label: string; description: string }>;
    const of = (name: string) => items.find((i) => i.label === name)?.description;
    assert.match(of('bug-fix') ?? '', /^4 steps · sequential/);
    assert.match(of('spec_execution_v1') ?? '', /^phases from a tasks\.md · /);
  });

  it('asks for the task saying it is optional, with the task a run started without one gets', async () => {
    const { baton } = await makeBaton();
    const s = { connection: new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never) } as unknown as Services;
    assert.equal(await startWorkflow(s, 'bug-fix'), undefined, 'dismissed: nothing started');
    assert.equal(fakeWindow.inputs.length, 1);
    const prompt = String(fakeWindow.inputs[0]!.prompt);
    assert.match(prompt, /^Describe the task \(what the agents should do\)\. Optional: left empty, the task reads "[^"]+"\.$/);
    assert.deepEqual(await baton.listExecutions(), [], 'the dismissed box started no run');
    const started = await baton.startWorkflow('bug-fix');
    const task = (await baton.workflowStatus(started.execution_id)).task_description;
    assert.ok(task && prompt.includes(`"${task}"`), `the prompt names the task the core gives: ${task}`);
  });
  it('Cancel Execution asks about the run by name, and names the run it cancelled', async () => {
    const { baton } = await makeBaton();
    const connection = new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never);
    const s = { connection, runs: { unfinished: () => listUnfinished(connection) } } as unknown as Services;
    const run = await baton.startWorkflow('bug-fix', 'Fix the cart total');
    await baton.startWorkflow('bug-fix', 'Another one');
    fakeWindow.shown = [];
    fakeWindow.answer = (shown) => (shown.level === 'warning' ? 'Cancel Execution' : undefined);
    try {
      await cancelExecution(s, run.execution_id);
    } finally {
      fakeWindow.answer = () => undefined;
    }
    assert.match(fakeWindow.shown[0]!.message, /^Cancel bug-fix “Fix the cart total”\?/);
    assert.equal(fakeWindow.shown[1]!.message, 'Baton: bug-fix “Fix the cart total” cancelled.');
    assert.equal((await baton.workflowStatus(run.execution_id)).cancelled, true);
  });
});
