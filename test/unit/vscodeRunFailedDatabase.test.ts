// Rule: with the database not open (it failed, or another process holds it), Run Pipeline, Run Agent Team and Start
// Spec Workflow fail at once with the database's own words (which name the file and the fix), before they list
// anything or ask for a task, an instance name or a tasks.md that could not be used.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Services } from '../../src/vscode/services.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';

// What the pickers need of the editor, given before the commands' modules read it (so that a command that listed
// before checking the database fails on this test's assertions, not on the fake).
Object.assign(fakeVscode, { QuickPickItemKind: { Separator: -1 }, Uri: (fakeVscode as { Uri?: unknown }).Uri ?? class {} });
const tasksFiles = ['/ws/specs/a/tasks.md', '/ws/specs/b/tasks.md'].map((fsPath) => ({ fsPath, scheme: 'file' }));
Object.assign(fakeVscode.workspace, {
  findFiles: async (glob: string) => (glob.includes('tasks.md') ? tasksFiles : []), asRelativePath: (u: { fsPath: string }) => u.fsPath.slice(4),
});

const FAILURE = 'could not open the database /data/b.db (EACCES). The setting baton.database.path names it: point the setting at a file in a folder you can write to';

describe('Run Pipeline, Run Agent Team and Start Spec Workflow while the database is not open', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.picks = [];
    fakeWindow.inputs = [];
    fakeWindow.choose = (items) => items.find((i) => (i as { choice?: unknown; file?: unknown }).choice ?? (i as { file?: unknown }).file);
    fakeVscode.workspace.workspaceFolders = [{ name: 'ws', uri: { fsPath: '/ws' } }];
  });
  afterEach(() => {
    fakeWindow.choose = () => undefined;
    fakeVscode.workspace.workspaceFolders = undefined;
  });

  it('fail with the database\'s words before any picker or input box', async () => {
    const { runPipeline } = await import('../../src/vscode/pipelineCommands.js');
    const { runTeam } = await import('../../src/vscode/teams/teamCommands.js');
    const { startSpecWorkflow } = await import('../../src/vscode/specCommands.js');
    const asked: string[] = [];
    const s = {
      connection: {
        ready: async () => { throw new Error(FAILURE); },
        pipelines: async () => { asked.push('pipelines'); throw new Error(FAILURE); },
        teams: async () => { asked.push('teams'); throw new Error(FAILURE); },
      },
    } as unknown as Services;
    await assert.rejects(runPipeline(s), { message: FAILURE });
    await assert.rejects(runTeam(s), { message: FAILURE });
    await assert.rejects(startSpecWorkflow(s), { message: FAILURE });
    assert.equal(fakeWindow.picks.length, 0, 'no list of pipelines, blueprints, team files or tasks.md files');
    assert.equal(fakeWindow.inputs.length, 0, 'no task or instance name asked for');
  });
});
