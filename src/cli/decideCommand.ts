// `baton approve` / `baton reject`: a person's decision on a gated step, through the live owner or the database.
import type { GateDecision } from '../core/api.js';
import { decideViaOwner } from '../host/controlClient.js';
import { CliError, cliLog, CONTENT_OPTION, DB_OPTIONS, dbPathOf, missingDatabase, parse } from './common.js';
import { withCore } from './withCore.js';
import { DECIDE_USAGE } from './usage.js';

/** Runs `baton approve` or `baton reject`; returns the exit code. */
export async function decideCommand(decision: 'approve' | 'reject', args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    { ...DB_OPTIONS, ...CONTENT_OPTION, step: { type: 'string' }, feedback: { type: 'string' }, json: { type: 'boolean' }, by: { type: 'string' } },
    DECIDE_USAGE,
  );
  if (values.help) {
    process.stdout.write(DECIDE_USAGE + '\n');
    return 0;
  }
  const [executionId, ...extra] = positionals;
  if (!executionId || extra.length > 0) throw new CliError(`${decision} needs exactly one EXECUTION id\n\n${DECIDE_USAGE}`, 2);
  if (decision === 'reject' && !values.feedback?.trim()) {
    throw new CliError('reject needs --feedback TEXT: tell the agent what to change (or, for a pipeline\'s review, why you reject it)', 2);
  }
  const request: GateDecision = {
    execution_id: executionId,
    decision,
    step_name: values.step,
    feedback: values.feedback,
    by: values.by ?? `cli:${process.env.USER ?? 'user'}`,
  };
  const dbPath = dbPathOf(values);
  const result = await withCore(
    {
      dbPath, access: 'existing', contentDir: values.content, workspace: values.workspace, log: cliLog('warn'),
      missing: () => missingDatabase(dbPath, values, `There is no execution to ${decision}, and nothing was created.`),
    },
    (owner) => decideViaOwner(owner, request),
    (baton) => baton.decide(request),
  );
  const verb = decision === 'approve' ? 'Approved' : 'Rejected';
  process.stdout.write(
    (values.json
      ? JSON.stringify(result)
      : `${verb} ${result.step_name} of ${result.execution_id}: step ${result.step_status}, execution ${result.execution_status}`) + '\n',
  );
  return 0;
}
