// Rule: Start Spec Workflow on a tasks.md Baton cannot read names the file and line from the error's details, not by
// reading its message, and Open File opens that file at that line: also for a folder whose name holds ", line 1:" and
// for a file that is not UTF-8 (whose message is worded otherwise).
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { LocalSource } from '../../src/vscode/batonSource.js';
import type { Services } from '../../src/vscode/services.js';
import { startSpecWorkflow } from '../../src/vscode/specCommands.js';
import { makeBaton } from '../helpers/coreHarness.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';

/** The editor's services on a real core whose workspace holds `files` (path → bytes). */
async function editor(files: Record<string, Buffer | string>) {
  const { baton, workspace } = await makeBaton();
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(join(workspace, path, '..'), { recursive: true });
    writeFileSync(join(workspace, path), bytes);
  }
  const local = new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never);
  const warned: string[] = [];
  const connection = { ready: async () => undefined, startSpec: local.startSpec.bind(local) };
  const s = { connection, log: { warn: (m: string) => warned.push(m), error: () => undefined } } as unknown as Services;
  fakeVscode.workspace.workspaceFolders = [{ name: 'ws', uri: { fsPath: workspace } }];
  return { s, workspace, warned };
}

describe('Start Spec Workflow on a tasks.md Baton cannot read', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.answer = (m) => (m.items.includes('Open File') ? 'Open File' : undefined);
    fakeVscode.window.shownDocuments = [];
    fakeVscode.workspace.opened = [];
  });

  it('in a folder whose name holds ", line 1:", names the file and the line the parser gave', async () => {
    const source = 'specs/q3, line 1: draft/tasks.md';
    const { s, workspace, warned } = await editor({ [source]: '# Plan\n\nSome notes.\n\n### Phase 1: Setup\n**Goal:** none yet\n' });
    const uri = fakeVscode.Uri.file(join(workspace, source));
    assert.equal(await startSpecWorkflow(s, uri), undefined);
    assert.deepEqual(fakeWindow.shown.map((m) => [m.level, m.message, m.items]), [[
      'error', `Baton: ${source}:5: the heading "Phase 1: Setup" has no tasks. Expected a list of its tasks under each phase heading ` +
        '(an example: Baton: Show Log).', ['Open File'],
    ]]);
    assert.match(warned[0]!, /for example:\n- \[ \] T001 Create the project structure/, 'the example goes to the log');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(fakeVscode.window.shownDocuments.map((d) => [d.path, d.options?.selection?.startLine]), [[join(workspace, source), 4]]);
  });

  it('that is not UTF-8, names it and the line with the bytes, and opens it there', async () => {
    const source = 'specs/001-cafe/tasks.md';
    const latin1 = Buffer.from('# Tasks\n\n## Phase 1: Caf\xe9\n- [ ] T001 Write the menu\n', 'latin1');
    const { s, workspace } = await editor({ [source]: latin1 });
    assert.equal(await startSpecWorkflow(s, fakeVscode.Uri.file(join(workspace, source))), undefined);
    assert.deepEqual(fakeWindow.shown.map((m) => [m.level, m.message, m.items]), [[
      'error', `Baton: ${source}:3: it is not UTF-8 text (line 3 has bytes that are not UTF-8); save it as UTF-8 and try again.`, ['Open File'],
    ]]);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(fakeVscode.window.shownDocuments.map((d) => [d.path, d.options?.selection?.startLine]), [[join(workspace, source), 2]]);
  });
});
