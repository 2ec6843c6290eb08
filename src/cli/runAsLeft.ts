// A pipeline run as the Baton process that owned it left it, for a command whose owner stopped answering: that owner
// is stopping, or it was a `baton pipeline run` whose run just ended (it exits at once).
import type { TimelineEvent } from '../core/api.js';
import { BatonError } from '../core/errors.js';
import { pipelineHost } from '../core/pipelines/host.js';
import type { PipelineRunView } from '../core/pipelines/pipelineRuns.js';
import { callControl } from '../host/controlClient.js';
import { exitsWithin } from '../host/discovery.js';
import { cliLog, dbPathOf, workspaceOf } from './common.js';
import { withCore } from './withCore.js';

/** How long a command waits for an owner that stopped answering to exit. */
const OWNER_GONE_MS = 10_000;

/** A run as its owner left it, and its timeline (the end a command following it may not have seen). */
export interface RunLeft {
  run: PipelineRunView;
  events: TimelineEvent[];
}

/**
 * Run `runId` once process `ownerPid` is gone (or after OWNER_GONE_MS): read from the database, or from the next owner.
 * `missing`: the error when there is no database.
 */
export async function runAsLeft(ownerPid: number, runId: string, values: { db?: string; workspace?: string }, missing: () => Error): Promise<RunLeft> {
  await exitsWithin(ownerPid, OWNER_GONE_MS);
  return withCore(
    { dbPath: dbPathOf(values), access: 'read', workspace: workspaceOf(values), log: cliLog('warn'), missing },
    async (owner) => ({
      run: ((await callControl(owner, { op: 'pipeline_run', run_id: runId })) as { result: PipelineRunView }).result,
      events: ((await callControl(owner, { op: 'events', execution_id: runId })) as { result: TimelineEvent[] }).result,
    }),
    async (baton) => {
      const pipelines = pipelineHost(baton)?.pipelines;
      if (!pipelines) throw new BatonError('invalid_state', 'this Baton build does not run pipelines');
      return { run: pipelines.view(runId), events: baton.events(runId) };
    },
  );
}
