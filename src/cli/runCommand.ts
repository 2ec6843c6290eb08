// `baton run FILE`: starts a team (in this process as the database owner, or in the live owner), follows it until
// every agent is idle, and prints the final document (JSON lines with --json). Ctrl-C stops the team.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { callControl } from '../host/controlClient.js';
import type { DiscoveryInfo } from '../host/discovery.js';
import type { Owner } from '../host/owner.js';
import type { TeamEnd, TeamEvent } from '../core/worker/teamRunner.js';
import type { WorkflowFile } from '../core/worker/types.js';
import { contextDir, instanceContext } from '../host/worker/openContext.js';
import { teamsOf, type TeamInstance } from '../host/worker/teams.js';
import { CliError, fileArgument, parse, workspaceOf } from './common.js';
import { describeEvent, TEAM_OWNER_OPTIONS, warnAboutTeamFile } from './teamCommon.js';
import { othersDone } from './othersDone.js';
import { ownerTaking } from './ownDatabase.js';
import { checkInstanceName } from '../core/worker/workflowVariables.js';
import { RUN_USAGE } from './usage.js';
import { numberFlag } from './numberFlag.js';
import { onStopSignal } from '../host/stopSignals.js';

const OPTIONS = { ...TEAM_OWNER_OPTIONS, instance: { type: 'string' }, verbose: { type: 'boolean' }, json: { type: 'boolean' }, 'max-invocations': { type: 'string' } } as const;

type Values = ReturnType<typeof parse<typeof OPTIONS>>['values'];

/** Runs `baton run`; returns the exit code. */
export async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, RUN_USAGE);
  if (values.help) {
    process.stdout.write(`${RUN_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new CliError(`run needs exactly one workflow FILE (got ${positionals.length})\n\n${RUN_USAGE}`, 2);
  const maxInvocations = maxInvocationsOf(values['max-invocations']);
  // A bad instance name, a missing or invalid file are refused before a database is opened or made.
  if (values.instance !== undefined) checkInstanceName(values.instance);
  const file = fileArgument(positionals[0]!, values.workspace);
  const workflow = warnAboutTeamFile(file, 'run');
  const start = { file, instance: values.instance, mode: 'run' as const, cwd: workspaceOf(values), maxInvocations };
  const print = printer(values, (instance) => documentPlace(workflow, instance, start.cwd));
  const where = await ownerTaking(values, async (remote) => {
    const started = (await callControl(remote, {
      op: 'team_start', file: start.file, instance: start.instance, mode: 'run', cwd: start.cwd, max_invocations: start.maxInvocations, env: process.env as Record<string, string>,
    }, 300_000)) as { result: { instance: string } };
    return () => followRemote(remote, started.result.instance, print);
  });
  if ('follow' in where) return where.follow();
  return runHere(where.owner, start, print);
}

/** `--max-invocations N`; a bad one is refused with `usage`, the usage of the command that was given it. */
export function maxInvocationsOf(raw: string | undefined, usage = RUN_USAGE): number | undefined {
  return numberFlag(raw, { flag: '--max-invocations', unit: 'agent turns', min: 1, examples: ['50'] }, usage);
}

type Print = { event(e: TeamEvent): void; result(instance: string, end: TeamEnd, document: string): number };

/**
 * Where a team keeps its document, for the line said when it wrote none: the file (and its channel's), or that it is
 * kept in memory only.
 */
export function documentPlace(workflow: WorkflowFile, instance: string, cwd: string): { document: string; channel: string } | null {
  const context = instanceContext(workflow, instance);
  if (!context || context.provider === 'memory') return null;
  const dir = contextDir(context, cwd);
  return { document: join(dir, context.document), channel: join(dir, context.channel) };
}

/** The line, on stderr, of a team that ended with no document: stdout, which scripts read, stays the document's. */
function noDocument(place: ReturnType<typeof documentPlace>): string {
  if (!place) return '(no document: the team wrote none; it kept its context in memory only, so nothing is on disk: run with --verbose to see its channel)';
  const what = existsSync(place.document) ? `${place.document} is empty` : `the team wrote none to ${place.document}`;
  return `(no document: ${what}; its channel is ${place.channel})`;
}

function printer(values: Values, placeOf: (instance: string) => ReturnType<typeof documentPlace>): Print {
  return {
    event(e) {
      if (values.json) process.stdout.write(`${JSON.stringify(e)}\n`);
      else if (values.verbose || e.type === 'team_ended' || (e.type === 'agent_finished' && e.status !== 'completed')) process.stderr.write(`${describeEvent(e)}\n`);
    },
    result(instance, end, document) {
      const ok = end.reason === 'idle' && end.failures === 0;
      if (values.json) process.stdout.write(`${JSON.stringify({ type: 'result', instance, ...end, ok, document })}\n`);
      else if (!document) process.stderr.write(`${noDocument(placeOf(instance))}\n`);
      else process.stdout.write(document.endsWith('\n') ? document : `${document}\n`);
      if (!ok) process.stderr.write(`baton: team @${instance}: ${end.message}${end.failures ? ` (${end.failures} agent turn${end.failures === 1 ? '' : 's'} failed; see --verbose)` : ''}\n`);
      return ok ? 0 : 1;
    },
  };
}

async function runHere(owner: Owner, start: Parameters<ReturnType<typeof teamsOf>['start']>[0], print: Print): Promise<number> {
  let team: TeamInstance | undefined;
  const onSignal = () => team?.runner.stop('interrupted (Ctrl-C)');
  const stopListening = onStopSignal(onSignal);
  try {
    team = await teamsOf(owner.opened.baton).start({ ...start, onEvent: (e) => print.event(e) });
    const end = await team.runner.done;
    return print.result(team.instance, end, await team.provider.readDocument());
  } finally {
    stopListening();
    // Teams other `baton run` or `start` commands started here while this process owned the database run on.
    const teams = teamsOf(owner.opened.baton);
    // Its own team is one of the names: more means it ran teams for other commands.
    await othersDone('teams', () => teams.running().map((i) => `@${i}`), () => void teams.stop(undefined), () => owner.endpoint.busy(), teams.names().length > 1);
    await owner.close();
  }
}

/** Follows a team the live owner runs for this command, to its end. */
async function followRemote(remote: DiscoveryInfo, instance: string, print: Print): Promise<number> {
  // Said as the team's end, which this command prints: the person pressed Ctrl-C here, not `baton stop`.
  const onSignal = (signal: NodeJS.Signals) => void callControl(remote, {
    op: 'team_stop', target: `@${instance}`, reason: signal === 'SIGINT' ? 'interrupted (Ctrl-C)' : `interrupted (${signal})`,
  }).catch(() => undefined);
  const stopListening = onStopSignal(onSignal);
  try {
    let since = 0;
    let ended = false;
    for (;;) {
      const got = (await callControl(remote, { op: 'team_events', instance, since })) as { result: { events: TeamEvent[]; next: number; end: TeamEnd | null } };
      for (const e of got.result.events) print.event(e);
      since = got.result.next;
      ended ||= got.result.events.some((e) => e.type === 'team_ended');
      if (ended && got.result.end) {
        const peek = (await callControl(remote, { op: 'team_peek', instance })) as { result: { document: string } };
        return print.result(instance, got.result.end, peek.result.document);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    stopListening();
  }
}
