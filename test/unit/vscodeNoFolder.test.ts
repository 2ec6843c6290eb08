// Rule: with no folder open, a command that needs one (Copy MCP Config, Run Pipeline, Run Agent Team) says why in a
// warning whose Open Folder… runs the editor's own command, instead of an error with nowhere to go.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { copyMcpConfig } from '../../src/vscode/mcpConfigCommands.js';
import { runPipeline } from '../../src/vscode/pipelineCommands.js';
import type { Services } from '../../src/vscode/services.js';
import { runTeam } from '../../src/vscode/teams/teamCommands.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';

describe('a command that needs a folder, with none open', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.answer = () => 'Open Folder…';
    fakeVscode.commands.executed = [];
    fakeVscode.workspace.workspaceFolders = undefined;
  });

  it('says why, and Open Folder… opens the editor\'s folder picker', async () => {
    const s = {} as Services;
    assert.equal(await copyMcpConfig(s, 'claude'), undefined);
    assert.equal(await runPipeline(s), undefined);
    assert.equal(await runTeam(s), undefined);
    assert.deepEqual(fakeWindow.shown.map((m) => [m.level, m.message, m.items]), [
      ['warning', 'Baton: open a folder first; terminal agents join the Baton of a workspace folder.', ['Open Folder…']],
      ['warning', 'Baton: Run Pipeline needs an open folder: its .baton/pipelines holds the systems, and the agents work in it.', ['Open Folder…']],
      ['warning', 'Baton: Run Agent Team needs an open folder: the agents work in it and the team context (.workflow/) is written there.', ['Open Folder…']],
    ]);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(fakeVscode.commands.executed, Array(3).fill(['workbench.action.files.openFolder']));
  });
});
