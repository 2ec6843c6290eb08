// "Baton: Stop Team": stops a running agent team (from the tree's team run, or picked from the running ones) after a
// modal confirmation, as `baton stop @instance` does; the panel's Stop buttons ask the same question.
import * as vscode from 'vscode';
import { teamStopQuestion } from '../../shared/teamStop.js';
import { targetOf } from '../pickers.js';
import type { Services } from '../services.js';
import { stopTeamRun } from './stopTeamRun.js';

/** The modal before a stop: true when the person chose to stop. */
export async function confirmTeamStop(instance: string, agent: string | null): Promise<boolean> {
  const q = teamStopQuestion(instance, agent);
  return (await vscode.window.showWarningMessage(q.message, { modal: true, detail: q.detail }, q.action)) === q.action;
}

/** A running team run the person picks; undefined when there is none or they escape. */
async function pickRunning(s: Services): Promise<string | undefined> {
  const running = (await (await s.connection.teams()).runs()).filter((r) => r.status === 'running');
  if (!running.length) {
    await vscode.window.showInformationMessage('Baton: no agent team is running. Start one with "Baton: Run Agent Team (YAML)...".');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    running.map((r) => ({ label: `${r.workflow}@${r.instance}`, description: r.runId, runId: r.runId })),
    { title: 'Baton: Stop Team', placeHolder: 'The running team to stop' },
  );
  return picked?.runId;
}

/** `baton.stopTeam`: see the file comment. Answers with what stopped (undefined when nothing was). */
export async function stopTeam(s: Services, arg?: unknown): Promise<string[] | undefined> {
  const runId = targetOf(arg).executionId ?? (await pickRunning(s));
  if (!runId) return undefined;
  const teams = await s.connection.teams();
  const stopped = await stopTeamRun(teams, runId, confirmTeamStop);
  if (!stopped) return undefined;
  s.log.info(`stopped ${stopped.join(', ')}${teams.local ? '' : ' in the owner process'}`);
  s.tree.refresh();
  return stopped;
}
