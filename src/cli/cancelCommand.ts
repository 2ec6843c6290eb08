// `baton cancel EXECUTION`: ends an unfinished execution (a workflow, a spec workflow, a pipeline run) as the editor's
// Cancel Execution does, through the live owner or in the database. A team run is stopped with `baton stop` instead.
import type { BatonApi, ExecutionSummary, WorkflowStatusResource } from '../core/api.js';
import { BatonError } from '../core/errors.js';
import { callControl } from '../host/controlClient.js';
import type { DiscoveryInfo } from '../host/discovery.js';
import { CliError, cliLog, DB_OPTIONS, dbFlagFor, dbPathOf, missingDatabase, oneExecution, parse, workspaceOf } from './common.js';
import { CANCEL_USAGE } from './usage.js';
import { withCore } from './withCore.js';

/** Who cancelled, as the execution's record keeps it (`baton pipeline cancel` records `cli`). */
export const CANCELLED_BY = 'baton cancel';

/** Runs `baton cancel`; returns the exit code. */
export async function cancelCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...DB_OPTIONS, json: { type: 'boolean' } }, CANCEL_USAGE);
  if (values.help) {
    process.stdout.write(`${CANCEL_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw oneExecution('cancel', positionals, dbFlagFor(dbPathOf(values)), CANCEL_USAGE);
  const id = positionals[0]!;
  const db = dbFlagFor(dbPathOf(values));
  const summary = await cancelExecution(id, values, {
    missing: `There is no execution ${id} to cancel.`,
    by: CANCELLED_BY,
    allowedVia: (owner) => notATeam(db, async () => ((await callControl(owner, { op: 'workflow_status', id })) as { result: WorkflowStatusResource }).result),
    allowedIn: (baton) => notATeam(db, async () => baton.workflowStatus(id)),
  });
  if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  else process.stdout.write(`Cancelled ${summary.kind === 'pipeline' ? 'run' : 'execution'} ${summary.execution_id}${summary.workflow ? ` (${summary.workflow})` : ''}.\n`);
  return 0;
}

/**
 * Cancels execution `id` through the live owner, or in the database when none runs, once `allowedVia` (asking the
 * owner) or `allowedIn` (the core) lets it: each throws the refusal of what this command does not cancel.
 */
export async function cancelExecution(
  id: string, values: { db?: string; workspace?: string },
  opts: { missing: string; by: string; allowedVia(owner: DiscoveryInfo): Promise<void>; allowedIn(baton: BatonApi): Promise<void> | void },
): Promise<ExecutionSummary> {
  const dbPath = dbPathOf(values);
  return withCore(
    { dbPath, access: 'existing', workspace: workspaceOf(values), log: cliLog('warn'), missing: () => missingDatabase(dbPath, values, opts.missing) },
    async (owner) => {
      await opts.allowedVia(owner);
      return ((await callControl(owner, { op: 'cancel', execution_id: id, reason: 'cancelled', by: opts.by })) as { result: ExecutionSummary }).result;
    },
    async (baton) => {
      await opts.allowedIn(baton);
      return baton.cancel(id, 'cancelled', opts.by);
    },
  );
}

/**
 * A team run has agents to stop, which cancelling its record would leave running: `baton stop` does both (a team run
 * that ended is said to have ended). An id that names nothing is left to the cancel, whose refusal says so in a
 * terminal's words. `db`: dbFlagFor's.
 */
async function notATeam(db: string, read: () => Promise<WorkflowStatusResource>): Promise<void> {
  const status = await read().catch((ex: unknown) => {
    if (BatonError.is(ex, 'execution_not_found')) return null;
    throw ex;
  });
  if (!status?.team) return;
  // One that ended has nothing left to stop: `baton stop` would only say no team is running.
  const ended = status.status === 'completed' || status.status === 'failed';
  if (ended) throw new CliError(`${status.execution_id} is a team run that has already ended (${status.cancelled ? 'cancelled' : status.status}): there is nothing to stop or cancel.`, 1);
  throw new CliError(`${status.execution_id} is a team run: stop it with baton stop @${status.team.instance}${db}`, 1);
}
