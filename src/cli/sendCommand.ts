// `baton send MESSAGE --to agent@instance`: posts to a team's channel as the person ('user'), mentioning the agent
// (or, with --to @instance, as written), through the live owner; the agent wakes on the mention.
import { callControl } from '../host/controlClient.js';
import type { ChannelEntry } from '../core/worker/types.js';
import { CliError, dbFlagFor, dbPathOf, parse, shellQuote } from './common.js';
import { standalone } from './stopCommand.js';
import { formatEntry, liveOwner, TEAM_OPTIONS } from './teamCommon.js';
import { SEND_USAGE } from './usage.js';

const OPTIONS = { ...TEAM_OPTIONS, to: { type: 'string' }, json: { type: 'boolean' } } as const;

/** Runs `baton send`; returns the exit code. */
export async function sendCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, SEND_USAGE);
  if (values.help) {
    process.stdout.write(`${SEND_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1 || !positionals[0]!.trim()) {
    // Words the shell split: the one MESSAGE they make, quoted, is what to type.
    const quoted = positionals.length > 1 ? `: baton send ${shellQuote(positionals.join(' '))} --to ${values.to ? shellQuote(values.to) : 'TARGET'}${dbFlagFor(dbPathOf(values))}` : '';
    throw new CliError(`send needs exactly one MESSAGE (quote it)${quoted}\n\n${SEND_USAGE}`, 2);
  }
  if (!values.to) throw new CliError(`send needs --to agent@instance (or @instance, or a standalone agent's NAME)\n\n${SEND_USAGE}`, 2);
  const owner = await liveOwner(values);
  const entry = ((await callControl(owner, { op: 'team_send', message: positionals[0]!, to: standalone(values.to) })) as { result: ChannelEntry }).result;
  process.stdout.write(values.json ? `${JSON.stringify(entry)}\n` : `${formatEntry(entry)}\n`);
  return 0;
}
