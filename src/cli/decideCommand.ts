// `baton approve` / `baton reject`: a person's decision on a gated step, through the live owner or the database.
import type { GateDecision } from '../core/api.js';
import { decideViaOwner } from '../host/controlClient.js';
import { CliError, cliLog, DB_OPTIONS, dbPathOf, parse } from './common.js';
import { withCore } from './withCore.js';

/** Usage of `baton approve` and `baton reject`. */
export const DECIDE_USAGE = `Usage: baton approve EXECUTION [--step NAME] [--db PATH] [--json]
       baton reject EXECUTION --feedback TEXT [--step NAME] [--db PATH] [--json]

EXECUTION is an execution id or task id; --step defaults to the one step awaiting approval.`;

/** Runs `baton approve` or `baton reject`. */
export async function decideCommand(decision: 'approve' | 'reject', args: string[]): Promise<void> {
  const { values, positionals } = parse(
    args,
    { ...DB_OPTIONS, step: { type: 'string' }, feedback: { type: 'string' }, json: { type: 'boolean' }, by: { type: 'string' } },
    DECIDE_USAGE,
  );
  if (values.help) {
    process.stderr.write(DECIDE_USAGE + '\n');
    return;
  }
  const [executionId, ...extra] = positionals;
  if (!executionId || extra.length > 0) throw new CliError(`${decision} needs exactly one EXECUTION id\n\n${DECIDE_USAGE}`, 2);
  if (decision === 'reject' && !values.feedback?.trim()) {
    throw new CliError('reject needs --feedback TEXT: tell the agent what to change', 2);
  }
  const request: GateDecision = {
    execution_id: executionId,
    decision,
    step_name: values.step,
    feedback: values.feedback,
    by: values.by ?? `cli:${process.env.USER ?? 'user'}`,
  };
  const result = await withCore(
    { dbPath: dbPathOf(values), contentDir: values.content, workspace: values.workspace, log: cliLog('warn') },
    (owner) => decideViaOwner(owner, request),
    (baton) => baton.decide(request),
  );
  const verb = decision === 'approve' ? 'Approved' : 'Rejected';
  process.stdout.write(
    (values.json
      ? JSON.stringify(result)
      : `${verb} ${result.step_name} of ${result.execution_id}: step ${result.step_status}, execution ${result.execution_status}`) + '\n',
  );
}
