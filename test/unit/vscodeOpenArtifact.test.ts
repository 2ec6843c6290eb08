// Rule: Open Artifact from the palette lists the artifacts newest first, each with its step, type and run as the tree
// names it (workflow and task) and when it was made, so two runs (or two attempts of a step) are told apart; never a
// bare execution id, nor a row that starts with " · " for an artifact of no step; with no artifact at all it says how
// one comes to be, not only that there is none.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { openArtifact } from '../../src/vscode/artifactDocuments.js';
import { LocalSource } from '../../src/vscode/batonSource.js';
import type { Services } from '../../src/vscode/services.js';
import { makeBaton, okStep, output } from '../helpers/coreHarness.js';
import { fakeWindow } from '../helpers/fakeVscode.js';

describe('Open Artifact\'s picker', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.picks = [];
  });

  it('names each artifact\'s step, type and run (workflow “task”), not its execution id', async () => {
    const { baton } = await makeBaton();
    const s = { connection: new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never) } as unknown as Services;
    const r = await baton.nextStep({ template_name: 'bug-fix', task_description: 'Fix the cart total' });
    await baton.nextStep({ step_token: okStep(r).token, model_output_so_far: output('root cause', 'Root cause notes') });
    await openArtifact(s);
    const items = fakeWindow.picks[0] as Array<{ label: string; description: string; detail: string }>;
    assert.equal(items.length, 1);
    assert.equal(items[0]!.label, 'Root cause notes');
    assert.equal(items[0]!.description, 'analyze-root-cause · markdown');
    assert.match(items[0]!.detail, /^bug-fix “Fix the cart total” · \d{4}-\d\d-\d\d \d\d:\d\d$/);
    assert.ok(!items[0]!.detail.includes(r.execution_id!), items[0]!.detail);
  });

  it('with no artifact yet, says how one comes to be and how to start a run', async () => {
    const { baton } = await makeBaton();
    const s = { connection: new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never) } as unknown as Services;
    await openArtifact(s);
    assert.equal(fakeWindow.picks.length, 0, 'no empty picker');
    assert.equal(fakeWindow.shown.length, 1);
    assert.match(fakeWindow.shown[0]!.message, /^Baton: no artifacts yet\. .*Advance Step.*Start Workflow/);
  });
});
