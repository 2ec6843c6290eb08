// `baton stop agent@instance | @instance | NAME | --all`: stops agents of teams the live owner runs (their runs are
// killed with their process groups); with no live owner, ends the team runs a killed owner left and stops their agents.
import { teamHost } from '../core/worker/host.js';
import { callControl } from '../host/controlClient.js';
import { endDeadTeamRuns } from '../host/worker/teams.js';
import { parseTarget } from '../host/worker/teamTarget.js';
import { CliError, cliLog, dbPathOf, parse, workspaceOf } from './common.js';
import { noTeamRunning, TEAM_OPTIONS } from './teamCommon.js';
import { withCore } from './withCore.js';
import { STOP_USAGE } from './usage.js';

const OPTIONS = { ...TEAM_OPTIONS, all: { type: 'boolean' }, json: { type: 'boolean' } } as const;

/** Runs `baton stop`; returns the exit code. */
export async function stopCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, STOP_USAGE);
  if (values.help) {
    process.stdout.write(`${STOP_USAGE}\n`);
    return 0;
  }
  if (values.all ? positionals.length !== 0 : positionals.length !== 1) {
    const got = values.all ? `; got "${positionals.join(' ')}" and --all: leave one out` : positionals.length ? `; got "${positionals.join(' ')}"` : '';
    throw new CliError(`stop needs one target (agent@instance, @instance or a standalone NAME) or --all${got}\n\n${STOP_USAGE}`, 2);
  }
  const target = values.all ? undefined : standalone(positionals[0]!);
  const dbPath = dbPathOf(values);
  const stopped = await withCore(
    { dbPath, access: 'existing', workspace: workspaceOf(values), log: cliLog('warn'), missing: () => noTeamRunning(values) },
    async (owner) => ((await callControl(owner, { op: 'team_stop', target })) as { result: string[] }).result,
    // No owner: a team the database shows running was left by a Baton process that was killed, and its agents may
    // still run (each in its own process group). Owning the database now, this command stops them and ends the run.
    async (baton) => {
      const instance = target === undefined ? undefined : parseTarget(target).instance;
      const runs = teamHost(baton)?.teams;
      const ended = runs ? await endDeadTeamRuns(runs, (run) => instance === undefined || run.instance === instance, 'cancelled',
        `stopped by baton stop ${target ?? '--all'} (the Baton process that ran it had ended)`, cliLog('warn')) : [];
      if (ended.length === 0) throw noTeamRunning(values);
      for (const run of ended) process.stderr.write(`baton: @${run.instance} (run ${run.runId}) had no Baton process any more: it is ended, and any agent it left running was stopped\n`);
      return ended.map((run) => `@${run.instance}`);
    },
  );
  if (values.json) process.stdout.write(`${JSON.stringify({ stopped })}\n`);
  else process.stdout.write(stopped.length ? `stopped ${stopped.join(', ')}\n` : 'nothing was running\n');
  return 0;
}

/** A standalone agent NAME is `NAME@NAME` (its own instance); other targets as they are. */
export function standalone(target: string): string {
  return target.includes('@') ? target : `${target}@${target}`;
}
