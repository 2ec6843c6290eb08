// `baton release EXECUTION [--step NAME]`: takes a running step from the agent that holds it (its session ended, its
// process died), as the editor's Release Step does, so that the next agent that asks gets it now rather than once
// its token has expired and the stall threshold passed. Through the live owner, or in the database when none runs.
import type { StepRelease } from '../core/api.js';
import { callControl } from '../host/controlClient.js';
import { deciderOn } from '../host/nodePorts.js';
import { releasedText } from '../shared/labels.js';
import { cliLog, DB_OPTIONS, dbFlagFor, dbPathOf, missingDatabase, oneExecution, parse, workspaceOf } from './common.js';
import { RELEASE_USAGE } from './usage.js';
import { withCore } from './withCore.js';

/** Runs `baton release`; returns the exit code. */
export async function releaseCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...DB_OPTIONS, step: { type: 'string' }, json: { type: 'boolean' } }, RELEASE_USAGE);
  if (values.help) {
    process.stdout.write(`${RELEASE_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw oneExecution('release', positionals, dbFlagFor(dbPathOf(values)), RELEASE_USAGE);
  const id = positionals[0]!;
  const by = deciderOn('cli');
  const dbPath = dbPathOf(values);
  const released = await withCore(
    {
      dbPath, access: 'existing', workspace: workspaceOf(values), log: cliLog('warn'),
      missing: () => missingDatabase(dbPath, values, `There is no execution ${id} whose step to release.`),
    },
    async (owner) => ((await callControl(owner, { op: 'release', execution_id: id, step_name: values.step, by })) as { result: StepRelease }).result,
    (baton) => baton.release(id, values.step, by),
  );
  process.stdout.write(values.json ? `${JSON.stringify(released)}\n` : `${releasedText(released)}\n`);
  return 0;
}
