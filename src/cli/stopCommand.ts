// `baton stop agent@instance | @instance | NAME | --all`: stops agents of teams the live owner runs (their runs are
// killed with their process groups).
import { callControl } from '../host/controlClient.js';
import { CliError, parse } from './common.js';
import { liveOwner, TEAM_OPTIONS } from './teamCommon.js';
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
  const owner = await liveOwner(values);
  const stopped = ((await callControl(owner, { op: 'team_stop', target })) as { result: string[] }).result;
  if (values.json) process.stdout.write(`${JSON.stringify({ stopped })}\n`);
  else process.stdout.write(stopped.length ? `stopped ${stopped.join(', ')}\n` : 'nothing was running\n');
  return 0;
}

/** A standalone agent NAME is `NAME@NAME` (its own instance); other targets as they are. */
export function standalone(target: string): string {
  return target.includes('@') ? target : `${target}@${target}`;
}
