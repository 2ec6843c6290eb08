// "Stop Team" on a team run, without the editor: finds the run's instance among the team runs, refuses one that has
// ended, asks the person, then stops `@instance` through the TeamSource (the owner's Teams.stop here, or /control
// `team_stop` — the path `baton stop` takes). No 'vscode' import.
import { BatonError } from '../../core/errors.js';
import { statusText } from '../../shared/labels.js';
import type { TeamSource } from './teamSource.js';

/** Asks whether to stop `@instance` (a modal in the editor). */
export type ConfirmStop = (instance: string, agent: string | null) => Promise<boolean>;

/** Stops the team run `runId` once confirmed; answers with what stopped, or undefined when the person declines. */
export async function stopTeamRun(source: TeamSource, runId: string, confirm: ConfirmStop): Promise<string[] | undefined> {
  const run = (await source.runs()).find((r) => r.runId === runId);
  if (!run) throw new BatonError('execution_not_found', `no team run ${runId}; the Agent Teams group lists the runs there are`);
  if (run.status !== 'running') throw new BatonError('invalid_state', `team @${run.instance} is ${statusText(run.status, run.cancelled)}: there is nothing to stop`);
  if (!(await confirm(run.instance, null))) return undefined;
  return source.stop(`@${run.instance}`);
}
