// `baton list`: the agents of the teams the live owner runs, as the spec shows them (NAME SOURCE STATUS).
import { callControl } from '../host/controlClient.js';
import { readDiscovery } from '../host/discovery.js';
import { ownerAnswers } from '../host/proxy.js';
import type { AgentListing } from '../host/worker/teams.js';
import { dbPathOf, flagsFor, parse, refuseArguments } from './common.js';
import { TEAM_OPTIONS } from './teamCommon.js';
import { LIST_USAGE } from './usage.js';

const OPTIONS = { ...TEAM_OPTIONS, json: { type: 'boolean' } } as const;

/** Runs `baton list`; returns the exit code. */
export async function listCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, LIST_USAGE);
  if (values.help) {
    process.stdout.write(`${LIST_USAGE}\n`);
    return 0;
  }
  refuseArguments('list', positionals, LIST_USAGE);
  const live = readDiscovery(dbPathOf(values));
  const agents = live && (await ownerAnswers(live)) ? ((await callControl(live, { op: 'team_list' })) as { result: AgentListing[] }).result : [];
  if (values.json) {
    process.stdout.write(`${JSON.stringify(agents)}\n`);
    return 0;
  }
  process.stdout.write(`${formatList(agents, flagsFor('baton start', dbPathOf(values), values.workspace))}\n`);
  return 0;
}

/**
 * The spec's table; a standalone agent (its instance named after it) shows as NAME (standalone). `start`: flagsFor's
 * flags of `baton start`, for the hint under an empty table.
 */
export function formatList(agents: readonly AgentListing[], start = ''): string {
  const rows = agents.map((a) => {
    const [agent, instance] = a.name.split('@') as [string, string];
    return agent === instance && a.source === '(standalone)' ? [agent, '(standalone)', a.status] : [a.name, a.source, a.status];
  });
  const width = (i: number) => Math.max(20, ...rows.map((r) => r[i]!.length + 1));
  const line = (r: string[]) => `${r[0]!.padEnd(width(0))} ${r[1]!.padEnd(Math.max(15, width(1)))} ${r[2]}`.trimEnd();
  return [line(['NAME', 'SOURCE', 'STATUS']), ...rows.map(line), ...(rows.length ? [] : [`(no agents running; start a team with baton start FILE${start})`])].join('\n');
}
