// `baton list`: the agents of the teams the live owner runs, as the spec shows them (NAME SOURCE STATUS).
import { existsSync } from 'node:fs';
import { teamHost } from '../core/worker/host.js';
import { callControl } from '../host/controlClient.js';
import { ownerAnswers, readDiscovery } from '../host/discovery.js';
import type { AgentListing } from '../host/worker/teams.js';
import { shortReason } from '../shared/labels.js';
import { cliLog, dbPathOf, flagsFor, parse, refuseArguments, workspaceOf } from './common.js';
import { TEAM_OPTIONS } from './teamCommon.js';
import { LIST_USAGE } from './usage.js';
import { withCore } from './withCore.js';

const OPTIONS = { ...TEAM_OPTIONS, json: { type: 'boolean' } } as const;

/** Runs `baton list`; returns the exit code. */
export async function listCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, LIST_USAGE);
  if (values.help) {
    process.stdout.write(`${LIST_USAGE}\n`);
    return 0;
  }
  refuseArguments('list', positionals, LIST_USAGE);
  const dbPath = dbPathOf(values);
  const live = readDiscovery(dbPath);
  const owned = live !== null && (await ownerAnswers(live));
  const agents = owned ? ((await callControl(live, { op: 'team_list' })) as { result: AgentListing[] }).result : [];
  if (values.json) {
    process.stdout.write(`${JSON.stringify(agents)}\n`);
    return 0;
  }
  const dead = owned || !existsSync(dbPath) ? [] : await deadTeams(dbPath, workspaceOf(values));
  const stop = flagsFor('baton stop', dbPath, values.workspace);
  const notes = dead.map((i) => `(@${i}: the Baton process that ran it has ended, and its agents may still run; baton stop @${i}${stop} stops them)`);
  process.stdout.write(`${[formatList(agents, flagsFor('baton start', dbPath, values.workspace)), ...notes].join('\n')}\n`);
  return 0;
}

/** With no owner, the instances the database shows running: a Baton process that died left them (read only). */
async function deadTeams(dbPath: string, workspace: string | undefined): Promise<string[]> {
  return withCore(
    { dbPath, access: 'read', workspace, log: cliLog('error'), missing: () => new Error('no database') },
    async () => [],
    async (baton) => (teamHost(baton)?.teams.list({ activeOnly: true }) ?? []).map((r) => r.instance),
  // Only a note under the table: a database that cannot be read here leaves it out, as the listing did before.
  ).catch((): string[] => []);
}

/**
 * The spec's table; a standalone agent (its instance named after it) shows as NAME (standalone). `start`: flagsFor's
 * flags of `baton start`, for the hint under an empty table.
 */
export function formatList(agents: readonly AgentListing[], start = ''): string {
  const rows = agents.map((a) => {
    const [agent, instance] = a.name.split('@') as [string, string];
    // A failing agent (its CLI missing, or exiting at once) waits as an idle one does: its last reason says why.
    const status = a.status === 'failed' && a.error ? `failed (${shortReason(a.error)})` : a.status;
    return agent === instance && a.source === '(standalone)' ? [agent, '(standalone)', status] : [a.name, a.source, status];
  });
  const width = (i: number) => Math.max(20, ...rows.map((r) => r[i]!.length + 1));
  const line = (r: string[]) => `${r[0]!.padEnd(width(0))} ${r[1]!.padEnd(Math.max(15, width(1)))} ${r[2]}`.trimEnd();
  return [line(['NAME', 'SOURCE', 'STATUS']), ...rows.map(line), ...(rows.length ? [] : [`(no agents running; start a team with baton start FILE${start})`])].join('\n');
}
