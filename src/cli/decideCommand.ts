// `baton approve` / `baton reject`: a person's decision on a gated step, through the live owner or the database.
import type { GateDecision, GateDecisionResult } from '../core/api.js';
import { BatonError } from '../core/errors.js';
import { pipelineHost } from '../core/pipelines/host.js';
import type { PipelineRunView } from '../core/pipelines/pipelineRuns.js';
import { callControl, decideViaOwner } from '../host/controlClient.js';
import type { DiscoveryInfo } from '../host/discovery.js';
import { deciderOn } from '../host/nodePorts.js';
import { CliError, cliLog, CONTENT_OPTION, DB_OPTIONS, dbFlagFor, dbPathOf, missingDatabase, oneExecution, parse, workspaceOf } from './common.js';
import { runAsLeft } from './runAsLeft.js';
import { withCore } from './withCore.js';
import { DECIDE_USAGE, REJECT_USAGE } from './usage.js';

/** A pipeline run as it is just after a decision: whether it is over, and whether a process drives it on. */
export type RunAfter = Pick<PipelineRunView, 'status' | 'orphaned'>;

/**
 * The line a decision prints: for a pipeline run (`run` set) what becomes of the run — it goes on (the process driving
 * it was woken), ends failed (a review rejected with onReject: fail), or waits for `baton pipeline resume`, as no
 * process drives it (or it is paused); for a workflow, the step's and the execution's statuses. `db` is dbFlagFor's,
 * for that command.
 */
export function decidedText(result: GateDecisionResult, run: RunAfter | null, db = ''): string {
  const head = `${result.decision === 'approve' ? 'Approved' : 'Rejected'} ${result.step_name} of ${result.execution_id}: step ${result.step_status}`;
  if (run === null) return `${head}, execution ${result.execution_status}`;
  if (run.status === 'completed' || run.status === 'failed') return `${head}; the run ${run.status}`;
  // A paused run (Ctrl-C, its budget) is driven by no process until it is resumed, even with an owner running.
  if (run.status === 'paused') return `${head}; the run is paused: go on with baton pipeline resume ${result.execution_id}${db}`;
  if (run.orphaned) return `${head}; no Baton process drives the run: go on with baton pipeline resume ${result.execution_id}${db}`;
  if (result.step_status === 'failed') return `${head}; the run ends: it fails with your reason`;
  return result.decision === 'reject' ? `${head}; the run goes on with this review not approved` : `${head}; the run goes on`;
}

/** The pipeline run the decision was on, read after it; null for any other execution. */
async function runAfter(read: () => Promise<RunAfter>): Promise<RunAfter | null> {
  try {
    return await read();
  } catch (ex) {
    // Not a pipeline run (or an owner that cannot say): the decision is made all the same, printed as a workflow's.
    if (BatonError.is(ex)) return null;
    throw ex;
  }
}

/**
 * A pipeline run read back through the owner that took the decision. A `baton pipeline run` whose run the decision
 * ended (a rejected review failing it, the last step approved) exits at once, so it may no longer answer: then the
 * run is read as it left it, once it is gone.
 */
async function runViaOwner(owner: DiscoveryInfo, runId: string, values: { db?: string; workspace?: string }): Promise<RunAfter> {
  try {
    return ((await callControl(owner, { op: 'pipeline_run', run_id: runId })) as { result: PipelineRunView }).result;
  } catch (ex) {
    if (!BatonError.is(ex, 'owner_unreachable')) throw ex;
    return (await runAsLeft(owner.pid, runId, values, () => ex)).run;
  }
}

/** Runs `baton approve` or `baton reject`; returns the exit code. */
export async function decideCommand(decision: 'approve' | 'reject', args: string[]): Promise<number> {
  const usage = decision === 'approve' ? DECIDE_USAGE : REJECT_USAGE;
  const { values, positionals } = parse(
    args,
    { ...DB_OPTIONS, ...CONTENT_OPTION, step: { type: 'string' }, feedback: { type: 'string' }, json: { type: 'boolean' }, by: { type: 'string' } },
    usage,
  );
  if (values.help) {
    process.stdout.write(usage + '\n');
    return 0;
  }
  const [executionId] = positionals;
  if (!executionId || positionals.length > 1) throw oneExecution(decision, positionals, dbFlagFor(dbPathOf(values)), usage);
  if (decision === 'reject' && !values.feedback?.trim()) {
    throw new CliError('reject needs --feedback TEXT: tell the agent what to change (or, for a pipeline\'s review, why you reject it)', 2);
  }
  const request: GateDecision = {
    execution_id: executionId,
    decision,
    step_name: values.step,
    feedback: values.feedback,
    by: values.by ?? deciderOn('cli'),
  };
  const dbPath = dbPathOf(values);
  const { result, run } = await withCore(
    {
      dbPath, access: 'existing', contentDir: values.content, workspace: workspaceOf(values), log: cliLog('warn'),
      missing: () => missingDatabase(dbPath, values, `There is no execution to ${decision}, and nothing was created.`),
    },
    async (owner) => {
      const done = await decideViaOwner(owner, request);
      return { result: done, run: await runAfter(() => runViaOwner(owner, done.execution_id, values)) };
    },
    async (baton) => {
      const done = await baton.decide(request);
      const pipelines = pipelineHost(baton)?.pipelines;
      return { result: done, run: pipelines ? await runAfter(async () => pipelines.view(done.execution_id)) : null };
    },
  );
  process.stdout.write((values.json ? JSON.stringify(result) : decidedText(result, run, dbFlagFor(dbPath))) + '\n');
  return 0;
}
