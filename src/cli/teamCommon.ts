// What the team commands (run, start, stop, list, send, peek, new) share: finding or becoming the database owner
// (teams run in the owner; other processes reach them through its /control endpoint), and printing channel entries.
import { resolve } from 'node:path';
import type { ChannelEntry } from '../core/worker/types.js';
import type { TeamEvent } from '../core/worker/teamRunner.js';
import { readDiscovery, type DiscoveryInfo } from '../host/discovery.js';
import { becomeOwner, type Owner } from '../host/owner.js';
import { ownerAnswers } from '../host/proxy.js';
import { CliError, cliLog, CONTENT_OPTION, DB_OPTIONS, dbPathOf, lockedBy, unreachableOwner, VERSION } from './common.js';

/** Options of every team command. */
export const TEAM_OPTIONS = { ...DB_OPTIONS, ...CONTENT_OPTION } as const;

/** The database flags of a team command. */
export interface TeamDbValues {
  db?: string;
  workspace?: string;
  content?: string;
}

/** This process becomes the owner (teams run here), or the live owner is found (teams run there). */
export async function ownTeams(values: TeamDbValues): Promise<{ owner: Owner } | { remote: DiscoveryInfo }> {
  const dbPath = dbPathOf(values);
  const live = readDiscovery(dbPath);
  if (live && (await ownerAnswers(live))) return { remote: live };
  try {
    return {
      owner: await becomeOwner({
        dbPath, toolGroups: ['broker', 'memory'], version: VERSION, contentDir: values.content, workspace: values.workspace, log: cliLog('warn'),
      }),
    };
  } catch (ex) {
    const pid = lockedBy(ex);
    if (pid === null) throw ex;
    const info = readDiscovery(dbPath);
    if (info && (await ownerAnswers(info))) return { remote: info };
    throw unreachableOwner(dbPath, pid, info?.url ?? null);
  }
}

/** The live owner, which runs the teams; a CliError when none runs. */
export async function liveOwner(values: TeamDbValues): Promise<DiscoveryInfo> {
  const dbPath = dbPathOf(values);
  const live = readDiscovery(dbPath);
  if (live && (await ownerAnswers(live))) return live;
  throw new CliError(`no team is running: no Baton process owns ${dbPath}. Start a team with baton start FILE (or baton run FILE)${values.db ? '' : ', or name the database of a running one with --db PATH'}`, 1);
}

/** The project folder of a team command. */
export function workspaceOf(values: TeamDbValues): string {
  return resolve(values.workspace ?? process.cwd());
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
