// Rule: Start Spec Workflow on a tasks.md that runs but writes a task id twice starts it, and then warns with the
// file and the first line to look at (every warning goes to the log); Open File opens the file at that line.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { LocalSource } from '../../src/vscode/batonSource.js';
import { ExecutionPanel } from '../../src/vscode/panels/executionPanel.js';
import type { Services } from '../../src/vscode/services.js';
import { startSpecWorkflow } from '../../src/vscode/specCommands.js';
import { makeBaton } from '../helpers/coreHarness.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';
import { until } from '../helpers/until.js';

// spec-kit's template as one version shipped it, its story phases twice (ids T005–T023 twice): see SOURCES.md.
const fixture = join(__dirname, '..', 'fixtures', 'specs', 'others', 'speckit-template-duplicated.tasks.md');

describe('Start Spec Workflow on a tasks.md that writes a task id twice', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.answer = (m) => (m.items.includes('Open File') ? 'Open File' : undefined);
    fakeVscode.window.shownDocuments = [];
  });

  it('starts it, warns with the file and line of the first repeat, logs every one, and opens the file there', async () => {
    const { baton, workspace } = await makeBaton();
    const source = 'specs/001-x/tasks.md';
    mkdirSync(join(workspace, 'specs', '001-x'), { recursive: true });
    copyFileSync(fixture, join(workspace, source));
    const local = new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never);
    const logged: string[] = [];
    const connection = { ready: async () => undefined, startSpec: local.startSpec.bind(local), specStatus: local.specStatus.bind(local) };
    const s = { connection, tree: { refresh: () => undefined }, log: { warn: (m: string) => logged.push(m), error: () => undefined } } as unknown as Services;
    fakeVscode.workspace.workspaceFolders = [{ name: 'ws', uri: { fsPath: workspace } }];
    const show = ExecutionPanel.show;
    ExecutionPanel.show = (() => undefined) as never; // the panel has tests of its own; this one follows the warning
    try {
      const id = await startSpecWorkflow(s, fakeVscode.Uri.file(join(workspace, source)));
      assert.ok(id, 'the workflow started');
      await until('the warning', () => fakeWindow.shown.some((m) => m.level === 'warning'), 5000);
    } finally {
      ExecutionPanel.show = show;
    }
    const warning = fakeWindow.shown.find((m) => m.level === 'warning')!;
    assert.match(warning.message, /^Baton: specs\/001-x\/tasks\.md:150: task id T005 is written on lines 63 and 150: each is used, /);
    assert.match(warning.message, /Give the task on line 150 an id of its own\. \(18 more: Baton: Show Log\)$/);
    assert.deepEqual(warning.items, ['Open File']);
    assert.equal(logged.filter((m) => /^Baton: specs\/001-x\/tasks\.md:\d+: task id T0\d\d is written on lines /.test(m)).length, 19);
    await until('the file opened', () => fakeVscode.window.shownDocuments.length > 0, 5000);
    assert.deepEqual(fakeVscode.window.shownDocuments.map((d) => [d.path, d.options?.selection?.startLine]), [[join(workspace, source), 149]]);
  });
});
