// `baton peek [@instance]`: a team's channel, its agents' states and its entry-point document, from the live owner.
import { callControl } from '../host/controlClient.js';
import type { AgentState, TeamEnd } from '../core/worker/teamRunner.js';
import type { ChannelEntry } from '../core/worker/types.js';
import { CliError, parse } from './common.js';
import { formatEntry, liveOwner, TEAM_OPTIONS } from './teamCommon.js';
import { PEEK_USAGE } from './usage.js';

const OPTIONS = { ...TEAM_OPTIONS, json: { type: 'boolean' } } as const;

/** Runs `baton peek`; returns the exit code. */
export async function peekCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, PEEK_USAGE);
  if (values.help) {
    process.stdout.write(`${PEEK_USAGE}\n`);
    return 0;
  }
  if (positionals.length > 1) throw new CliError(`peek takes at most one @instance\n\n${PEEK_USAGE}`, 2);
  const target = positionals[0];
  if (target !== undefined && !/^@./.test(target)) throw new CliError(`peek takes @instance (e.g. @pr-123), got "${target}"\n\n${PEEK_USAGE}`, 2);
  const owner = await liveOwner(values);
  const peek = ((await callControl(owner, { op: 'team_peek', instance: target?.slice(1) })) as {
    result: { instance: string; channel: ChannelEntry[]; document: string; agents: Record<string, AgentState>; end: TeamEnd | null };
  }).result;
  if (values.json) {
    process.stdout.write(`${JSON.stringify(peek)}\n`);
    return 0;
  }
  const agents = Object.entries(peek.agents).map(([a, s]) => `${a}@${peek.instance} ${s}`).join(', ');
  process.stdout.write([
    `@${peek.instance}${peek.end ? ` (ended: ${peek.end.reason})` : ''}: ${agents}`, '', '## Channel', '',
    ...peek.channel.map(formatEntry), '', '## Document', '', peek.document || '(empty)', '',
  ].join('\n'));
  return 0;
}
