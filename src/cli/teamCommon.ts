// What the team commands (run, start, stop, list, send, peek, new) share: finding the live owner (teams run in the
// owner, see ownDatabase.ts; other processes reach them through its /control endpoint), and printing channel entries.
import { kickoffWarnings } from '../core/worker/kickoffWarnings.js';
import type { ChannelEntry, WorkflowFile } from '../core/worker/types.js';
import type { TeamEvent } from '../core/worker/teamRunner.js';
import type { teamsOf } from '../host/worker/teams.js';
import { ownerAnswers, readDiscovery, type DiscoveryInfo } from '../host/discovery.js';
import { checkWorkflowFile } from '../host/worker/openContext.js';
import { CliError, CONTENT_OPTION, DB_OPTIONS, dbPathOf, flagsFor } from './common.js';
import { printWarnings } from './warnings.js';
import type { OwnerDbValues } from './ownDatabase.js';
import { onStopSignal } from '../host/stopSignals.js';

/** Options of every team command. */
export const TEAM_OPTIONS = DB_OPTIONS;

/** Options of the team commands that may open the database themselves, and so load content (run, start, new). */
export const TEAM_OWNER_OPTIONS = { ...DB_OPTIONS, ...CONTENT_OPTION } as const;

/** The live owner, which runs the teams; a CliError when none runs. */
export async function liveOwner(values: OwnerDbValues): Promise<DiscoveryInfo> {
  const dbPath = dbPathOf(values);
  const live = readDiscovery(dbPath);
  if (live && (await ownerAnswers(live))) return live;
  throw noTeamRunning(values);
}

/** The error of a team command that found no team running (no live owner, nor a run its dead one left behind). */
export function noTeamRunning(values: OwnerDbValues): CliError {
  const dbPath = dbPathOf(values);
  return new CliError(`no team is running: no Baton process owns ${dbPath}. Start a team with baton start FILE${flagsFor('baton start', dbPath, values.workspace)} (or baton run FILE${flagsFor('baton run', dbPath, values.workspace)})${values.db ? '' : ', or name the database of a running one with --db PATH'}`, 1, { db_path: dbPath });
}

/** A channel entry as the spec's channel.md shows it. */
export function formatEntry(entry: ChannelEntry): string {
  return `### ${entry.timestamp.slice(11, 19)} [${entry.from}]\n${entry.message}`;
}

/** A team event as a line (or lines) for a person. */
export function describeEvent(event: TeamEvent): string {
  switch (event.type) {
    case 'channel':
      return formatEntry(event.entry);
    case 'agent_started':
      return `-- @${event.agent} working (${event.unread} unread, invocation ${event.invocation})`;
    case 'agent_finished':
      return `-- @${event.agent} ${event.status}${event.error ? `: ${event.error}` : ''}`;
    case 'team_ended':
      return `-- team ended (${event.reason}): ${event.message}`;
  }
}

/**
 * Runs `begin` (which starts a team or an agent here), then serves this owner's teams until none is left or a stop
 * signal (SIGINT, SIGTERM, SIGHUP), which stops them all. Other processes may start more teams here meanwhile.
 */
export async function serveTeams(teams: ReturnType<typeof teamsOf>, begin: () => Promise<void>): Promise<void> {
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    teams.stop(undefined);
  };
  const stopListening = onStopSignal(onSignal);
  try {
    await begin();
    while (!interrupted && teams.list().length > 0) await new Promise((r) => setTimeout(r, 300));
  } finally {
    stopListening();
  }
}

/**
 * Checks a team workflow file before a database is opened (a missing or invalid one is refused) and prints, as
 * warnings, what its parse ignored (a misspelt field) and what is wrong with its kickoff; returns the parsed file.
 */
export function warnAboutTeamFile(path: string, mode: 'run' | 'start'): WorkflowFile {
  const { file, warnings } = checkWorkflowFile(path);
  printWarnings([...[...warnings].sort((a, b) => (a.line ?? 0) - (b.line ?? 0)), ...kickoffWarnings(file, mode)]);
  return file;
}
