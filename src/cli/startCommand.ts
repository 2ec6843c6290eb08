// `baton start FILE`: starts a team in persistent mode — in this process as the database owner (which then runs
// until every team in it is stopped, or Ctrl-C), or in the live owner. `--background` leaves it running in a
// detached `baton start` whose output goes to a log file beside the database.
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { callControl } from '../host/controlClient.js';
import { ownerAnswers, readDiscovery } from '../host/discovery.js';
import { teamsOf } from '../host/worker/teams.js';
import type { TeamEvent } from '../core/worker/teamRunner.js';
import { checkInstanceName, DEFAULT_INSTANCE } from '../core/worker/workflowVariables.js';
import { CliError, dbFlagFor, dbPathOf, fileArgument, parse, workspaceOf } from './common.js';
import { maxInvocationsOf } from './runCommand.js';
import { describeEvent, serveTeams, TEAM_OWNER_OPTIONS, warnAboutTeamFile } from './teamCommon.js';
import { ownerTaking } from './ownDatabase.js';
import { START_USAGE } from './usage.js';

const OPTIONS = { ...TEAM_OWNER_OPTIONS, instance: { type: 'string' }, verbose: { type: 'boolean' }, background: { type: 'boolean' }, 'max-invocations': { type: 'string' } } as const;

type Values = ReturnType<typeof parse<typeof OPTIONS>>['values'];

/** Runs `baton start`; returns the exit code. */
export async function startCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, START_USAGE);
  if (values.help) {
    process.stdout.write(`${START_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new CliError(`start needs exactly one workflow FILE (got ${positionals.length})\n\n${START_USAGE}`, 2);
  const file = fileArgument(positionals[0]!, values.workspace);
  const maxInvocations = maxInvocationsOf(values['max-invocations'], START_USAGE);
  // A bad instance name, a missing or invalid file are refused before a database is opened or made.
  if (values.instance !== undefined) checkInstanceName(values.instance);
  warnAboutTeamFile(file, 'start');
  if (values.background) return background(file, values, args);
  const start = { file, instance: values.instance, mode: 'start' as const, cwd: workspaceOf(values), maxInvocations };
  // An owner that stops before it takes the team is no owner: this process or the next one is (see ownerTaking).
  const where = await ownerTaking(values, async (remote) => {
    const r = (await callControl(remote, { op: 'team_start', ...start, max_invocations: maxInvocations, env: process.env as Record<string, string> }, 300_000)) as { result: { instance: string; agents: string[]; pid: number } };
    return started(r.result.instance, r.result.agents, r.result.pid, dbFlagFor(dbPathOf(values)));
  });
  if ('follow' in where) {
    process.stdout.write(`${where.follow}\n`);
    return 0;
  }
  const { owner } = where;
  const teams = teamsOf(owner.opened.baton);
  try {
    await serveTeams(teams, async () => {
      // A failed turn (an agent's CLI not installed, one that exits at once) is shown without --verbose too: this
      // terminal is the only place that would see it, and the team keeps running.
      const onEvent = values.verbose
        ? (e: TeamEvent) => process.stderr.write(`${describeEvent(e)}\n`)
        : (e: TeamEvent) => {
          if (e.type === 'agent_finished' && e.status === 'failed') process.stderr.write(`baton: ${e.agent}@${start.instance ?? DEFAULT_INSTANCE}'s turn failed: ${e.error ?? 'no reason given'}\n`);
        };
      const team = await teams.start({ ...start, onEvent });
      process.stdout.write(`${started(team.instance, Object.keys(team.runner.states()), process.pid, dbFlagFor(dbPathOf(values)))}\n`);
    });
    return 0;
  } finally {
    await owner.close();
  }
}

/** What `start` prints: the team's agents, and how to talk to it, watch it and stop it (`db`: dbFlagFor's). */
function started(instance: string, agents: string[], pid: number, db: string): string {
  return `started @${instance} in Baton process ${pid}: ${agents.map((a) => `${a}@${instance}`).join(', ')}\n` +
    `talk to it: baton send "…" --to ${agents[0]}@${instance}${db}; watch: baton peek @${instance}${db}; stop: baton stop @${instance}${db}`;
}

/** Starts a detached `baton start` and waits until the owner lists the instance. */
async function background(file: string, values: Values, args: string[]): Promise<number> {
  const dbPath = dbPathOf(values);
  const instance = values.instance ?? DEFAULT_INSTANCE;
  const logDir = join(dirname(dbPath), 'teams');
  mkdirSync(logDir, { recursive: true });
  const log = join(logDir, `${instance}.log`);
  // The wait below takes the instance's listing as the sign the child started: an instance of that name already
  // running would pass for it while the child fails, so it is refused here as the foreground start refuses it.
  const live = readDiscovery(dbPath);
  if (live && (await ownerAnswers(live))) {
    const list = (await callControl(live, { op: 'team_list' })) as { result: { instance: string; source: string }[] };
    const running = list.result.find((a) => a.instance === instance);
    if (running) {
      const db = dbFlagFor(dbPath);
      throw new CliError(`team instance @${instance} is already running (${running.source}); stop it with \`baton stop @${instance}${db}\`, or start this one with --instance NAME`, 1);
    }
  }
  const fd = openSync(log, 'a');
  const child = spawn(process.execPath, [process.argv[1]!, 'start', ...args.filter((a) => a !== '--background')], { detached: true, stdio: ['ignore', fd, fd], cwd: process.cwd() });
  child.unref();
  let exited: number | null = null;
  child.on('exit', (code) => (exited = code ?? 1));
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (exited !== null) throw new CliError(`the background team did not start (exit code ${exited}):\n${readFileSync(log, 'utf8').trim().split('\n').slice(-20).join('\n')}`, 1);
    const live = readDiscovery(dbPath);
    if (live && (await ownerAnswers(live))) {
      const list = (await callControl(live, { op: 'team_list' })) as { result: { instance: string; name: string }[] };
      const mine = list.result.filter((a) => a.instance === instance);
      if (mine.length) {
        process.stdout.write(`${started(instance, mine.map((a) => a.name.split('@')[0]!), live.pid, dbFlagFor(dbPath))}\nlog: ${log}\n`);
        return 0;
      }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new CliError(`the background team @${instance} did not appear within 120 s; see ${log}`, 1);
}
