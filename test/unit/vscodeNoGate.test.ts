// Rule: Approve Step and Reject Step with no step awaiting approval lead somewhere (the walkthrough's "Approve a gate"
// step runs Approve Step on a fresh workspace): with no run that can reach a gate they offer Start Workflow…; with one,
// they name it and where it is, and offer Copy Agent Prompt (hand it to an agent) and Show; a team's run is no such run.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { approveStep, noGateLead, rejectStep } from '../../src/vscode/approvals.js';
import { LocalSource } from '../../src/vscode/batonSource.js';
import type { Services } from '../../src/vscode/services.js';
import { makeBaton } from '../helpers/coreHarness.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';

async function editor() {
  const { baton } = await makeBaton();
  const connection = new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never);
  return { baton, s: { connection, log: { error: () => undefined } } as unknown as Services };
}
const settle = () => new Promise((r) => setImmediate(r));

describe('Approve / Reject Step with no gate waiting', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeVscode.commands.executed = [];
  });

  it('on a fresh workspace, says no workflow runs and Start Workflow… starts one', async () => {
    const { s } = await editor();
    fakeWindow.answer = () => 'Start Workflow…';
    await approveStep(s);
    await settle();
    assert.deepEqual(fakeWindow.shown.map((m) => [m.message, m.items]), [[
      'Baton: no step is awaiting approval, and no workflow is running to reach one. A gate comes when an agent reaches a step that ' +
        "asks for a person's approval (bug-fix's review-code, for one): start a workflow, hand it to an agent, then approve here.",
      ['Start Workflow…'],
    ]]);
    assert.deepEqual(fakeVscode.commands.executed, [['baton.startWorkflow']]);
  });

  it('with a run under way, names it and its step; Copy Agent Prompt hands that run to an agent', async () => {
    const { baton, s } = await editor();
    const r = await baton.nextStep({ template_name: 'bug-fix', task_description: 'Fix the cart' });
    fakeWindow.answer = () => 'Copy Agent Prompt';
    await rejectStep(s);
    await settle();
    assert.deepEqual(fakeWindow.shown.map((m) => [m.message, m.items]), [[
      'Baton: no step is awaiting approval yet. bug-fix “Fix the cart” is at "analyze-root-cause": its gate comes when an agent reaches ' +
        'a step that asks for your approval. Hand it to an agent, then reject here.',
      ['Copy Agent Prompt', 'Show'],
    ]]);
    assert.deepEqual(fakeVscode.commands.executed, [['baton.copyHandoffPrompt', { executionId: r.execution_id }]]);
  });

  it('leaves a team\'s run out, and a pipeline gets Show without an agent prompt', () => {
    const run = (kind: string, started_at: string) => ({
      execution_id: `${kind}-1`, task_id: null, workflow: kind === 'pipeline' ? 'review' : null, kind, status: 'running' as const, progress: 10,
      current_step: 'draft', started_at, updated_at: started_at, steps: [],
    });
    assert.deepEqual(noGateLead([run('worker', '2026-01-02')], 'approve').buttons.map((b) => b.label), ['Start Workflow…']);
    const lead = noGateLead([run('worker', '2026-01-03'), run('pipeline', '2026-01-02')], 'approve');
    assert.deepEqual(lead.buttons, [{ label: 'Show', command: 'baton.showExecution', arg: 'pipeline-1' }]);
    assert.match(lead.message, /\. review is at "draft": .*Let the pipeline run, then approve here\.$/);
  });
});
