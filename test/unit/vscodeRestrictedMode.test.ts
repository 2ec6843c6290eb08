// Rule: in an untrusted workspace (Restricted Mode) Run Pipeline and Run Agent Team run nothing of the workspace (its
// agents and setup steps are commands): they say why, offer the editor's Manage Workspace Trust, and ask nothing
// else.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { runPipeline } from '../../src/vscode/pipelineCommands.js';
import type { Services } from '../../src/vscode/services.js';
import { runTeam } from '../../src/vscode/teams/teamCommands.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';

describe('Run Pipeline and Run Agent Team in Restricted Mode', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.picks = [];
    fakeWindow.answer = () => 'Manage Workspace Trust';
    fakeVscode.commands.executed = [];
    fakeVscode.workspace.workspaceFolders = [{ name: 'ws', uri: { fsPath: '/ws' } }];
    fakeVscode.workspace.isTrusted = false;
  });
  afterEach(() => {
    fakeVscode.workspace.isTrusted = true;
    fakeVscode.workspace.workspaceFolders = undefined;
  });

  it('say why they wait for trust, open the trust editor, and list nothing', async () => {
    const s = {} as Services;
    assert.equal(await runPipeline(s), undefined);
    assert.equal(await runTeam(s), undefined);
    assert.deepEqual(fakeWindow.shown.map((m) => [m.level, m.message, m.items]), ['Run Pipeline', 'Run Agent Team'].map((what) => [
      'warning',
      `Baton: ${what} runs agents and setup commands in this folder, which is not trusted (Restricted Mode). ` +
        `Trust the folder with Manage Workspace Trust, then run ${what} again.`,
      ['Manage Workspace Trust'],
    ]));
    assert.equal(fakeWindow.picks.length, 0, 'no picker of the workspace\'s files');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(fakeVscode.commands.executed, Array(2).fill(['workbench.trust.manage']));
  });
});
