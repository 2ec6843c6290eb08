// Rule: the editor's Release Step takes a running step from the agent that holds it once the person confirms: from a
// tree node or the palette (which offers only workflows' and spec workflows' running steps, the only one taken
// without asking); the step is ready for the next agent, a step the editor itself held is forgotten, and a refusal
// is shown in its own words. Dismissed, nothing changes.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { LocalSource } from '../../src/vscode/batonSource.js';
import { HeldSteps } from '../../src/vscode/heldSteps.js';
import type { Services } from '../../src/vscode/services.js';
import { releaseStep } from '../../src/vscode/workflowCommands.js';
import { deciderOn } from '../../src/host/nodePorts.js';
import { makeBaton, okStep } from '../helpers/coreHarness.js';
import { fakeWindow } from '../helpers/fakeVscode.js';

async function editor() {
  const { baton, store } = await makeBaton();
  const connection = new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never);
  const held = new HeldSteps();
  const s = { connection, held, log: { error: () => undefined } } as unknown as Services;
  return { baton, store, s, held };
}

const node = (execution_id: string, step_name: string) => ({ ref: { kind: 'step', execution_id, step_name, status: 'running' } });

describe('Release Step', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.answer = (shown) => (shown.level === 'warning' ? 'Release Step' : undefined);
  });

  it('releases the step of a tree node once confirmed; the editor forgets it if it held it', async () => {
    const { baton, s, held } = await editor();
    const r = await baton.nextStep({ template_name: 'bug-fix' }, { client_name: 'vscode' });
    held.keep(r);
    const id = r.execution_id!;
    await releaseStep(s, node(id, 'analyze-root-cause'));
    assert.deepEqual(fakeWindow.shown.map((m) => [m.level, m.items]), [['warning', ['Release Step']], ['info', []]]);
    assert.equal(fakeWindow.shown[0]!.message, 'Release "analyze-root-cause" from the agent that holds it?');
    assert.match(fakeWindow.shown[1]!.message, new RegExp(`^Baton: Released analyze-root-cause of ${id} from vscode \\(held since [^)]+\\): it is ready`));
    assert.equal(baton.workflowStatus(id).steps[0]!.status, 'ready');
    assert.equal(held.get(id), undefined, 'the token it held no longer works');
    assert.deepEqual(baton.events(id).filter((e) => e.event_type === 'step_released').map((e) => (e.event_data as { by: string }).by), [deciderOn('vscode')]);
  });

  it('dismissed, releases nothing', async () => {
    const { baton, s } = await editor();
    fakeWindow.answer = () => undefined;
    const id = (await baton.nextStep({ template_name: 'bug-fix' })).execution_id!;
    await releaseStep(s, node(id, 'analyze-root-cause'));
    assert.equal(fakeWindow.shown.length, 1);
    assert.equal(baton.workflowStatus(id).steps[0]!.status, 'running');
  });

  it('from the palette takes the only running step of a workflow, leaving a pipeline run\'s alone', async () => {
    const { baton, store, s } = await editor();
    const pipeline = (await baton.nextStep({ template_name: 'bug-fix' })).execution_id!;
    await store.transaction(() => store.run("UPDATE executions SET kind = 'pipeline' WHERE execution_id = ?", [pipeline]));
    const id = (await baton.nextStep({ template_name: 'bug-fix' })).execution_id!;
    await releaseStep(s);
    assert.equal(baton.workflowStatus(id).steps[0]!.status, 'ready');
    assert.equal(baton.workflowStatus(pipeline).steps[0]!.status, 'running');
  });

  it('shows a refusal in its own words', async () => {
    const { baton, s } = await editor();
    const first = await baton.nextStep({ template_name: 'bug-fix' });
    const id = first.execution_id!;
    await baton.nextStep({ step_token: okStep(first).token, model_output_so_far: { summary: 'x', artifacts: [], references: [], confidence: 1 } });
    await releaseStep(s, node(id, 'analyze-root-cause'));
    assert.equal(fakeWindow.shown.at(-1)!.message, `Baton: Step "analyze-root-cause" of execution ${id} is completed; only a running step can be released: implement-fix.`);
  });
});
