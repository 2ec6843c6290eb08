// `baton status`: executions and their steps, from the live owner or by reading the database (never writing it).
import type { ExecutionSummary } from '../core/api.js';
import { DEFAULT_OPTIONS } from '../core/baton.js';
import { statusViaOwner } from '../host/controlClient.js';
import { cliLog, DB_OPTIONS, dbFlagFor, dbPathOf, missingDatabase, parse, refuseArguments, workspaceOf } from './common.js';
import { withCore } from './withCore.js';
import { STATUS_USAGE } from './usage.js';
import { cutReason, leftStepText, taskLabel } from '../shared/labels.js';

const MARK: Record<string, string> = {
  completed: '✓', running: '▶', awaiting_approval: '⏸', failed: '✗', skipped: '–', pending: '·', ready: '○',
};

/** How many executions a listing shows, newest first. */
export const STATUS_LISTED = 50;

/** How long a workflow with running steps is quiet before the listing says how to release them (the default token TTL). */
const QUIET_MS = DEFAULT_OPTIONS.tokenTtlMs;

/**
 * Human-readable lines for a listing; `dbFlag` (e.g. ` --db PATH`) goes into the approve/reject/release commands it
 * suggests. `now` (ms) tells a workflow whose agents went quiet holding steps.
 */
export function renderStatus(executions: ExecutionSummary[], dbFlag = '', activeOnly = false, now = Date.now()): string {
  if (executions.length === 0) return activeOnly ? `No unfinished executions (baton status --all${dbFlag} lists the finished ones too).` : 'No executions.';
  // Whether a reason below is cut short: a note under the listing then says where it is whole.
  let cut = false;
  const short = (reason: string, max?: number) => {
    const r = cutReason(reason, max);
    cut ||= r.cut;
    return r.text;
  };
  const blocks = executions
    .map((e) => {
      const task = taskLabel(e.task_description, 60);
      // A team run has no steps to count: its agents take turns until they are idle or it is stopped.
      const what = e.kind === 'worker' ? `${e.workflow ?? 'team'}${e.instance ? `@${e.instance}` : ''}` : e.workflow ?? e.kind;
      const progress = e.kind === 'worker' ? 'team run' : `${e.progress}%`;
      // Who cancelled it and why, in short (the editor's panel and the agent's next call say it in full).
      const state = e.cancelled ? `cancelled${e.cancel_reason ? ` (${short(e.cancel_reason)})` : ''}` : e.status;
      const head = `${e.execution_id}  ${what}  ${state}  ${progress}${e.current_step ? `  step: ${e.current_step}` : ''}${task ? `  "${task}"` : ''}`;
      const steps = e.steps.map((s) => {
        // A step the run left unfinished when it ended (one a cancel stopped included) says so, as the editor does.
        const left = leftStepText(s.status, e.status, e.cancelled, s.stopped === true);
        if (left) return `  \u2013 ${s.step_name} (${left.replace(' (', ': ').replace(/\)$/, '')}, ${s.agent_name})`;
        // Why a step failed, unless the run's own reason already says it (a pipeline's "step one: …").
        const why = s.error && !e.error?.includes(s.error) ? `: ${short(s.error)}` : '';
        return `  ${MARK[s.status] ?? '?'} ${s.step_name} (${s.status}, ${s.agent_name})${why}`;
      });
      // Every gate that waits gets its commands, also in a run whose other steps go on (a parallel workflow).
      const waiting = e.steps.filter((s) => s.status === 'awaiting_approval').map((s) => s.step_name);
      if (waiting.length === 0 && e.status === 'awaiting_approval') waiting.push('');
      const decide = (step: string) => {
        const which = waiting.length > 1 ? ` --step ${step}` : '';
        return `  → baton approve ${e.execution_id}${dbFlag}${which}   or   baton reject ${e.execution_id}${dbFlag}${which} --feedback TEXT`;
      };
      const hint = waiting.map(decide);
      // Why it failed, cut to a line (--json and the editor's panel have it whole).
      if (e.error) hint.unshift(`  ✗ why it failed: ${short(e.error, 100)}`);
      // A team whose agents' turns fail (a CLI not installed, one exiting at once) still reads running: say which, and why.
      for (const f of e.failing_agents ?? []) {
        hint.push(`  ✗ ${f.agent}@${e.instance ?? e.workflow ?? 'INSTANCE'}: its last turn failed${f.error ? `: ${short(f.error)}` : ''}`);
      }
      // Read with no owner: no process runs it (teams run only in the owner), but its agents may live on.
      if (e.kind === 'worker' && e.orphaned && !e.cancelled) {
        hint.push(`  → the Baton process that ran it has ended; baton stop @${e.instance ?? e.workflow ?? 'INSTANCE'}${dbFlag} stops any agent it left running and ends the run`);
      }
      // A step held by an agent that went away waits for its token to expire and the stall threshold: say how not to.
      // Not for a run the lifecycle tools drive (no task): its steps hold no token, and baton release refuses them.
      const held = e.steps.filter((s) => s.status === 'running').map((s) => s.step_name);
      const tokened = (e.kind === 'template' && Boolean(e.task_id)) || e.kind === 'spec';
      if (tokened && held.length && now - Date.parse(e.updated_at) >= QUIET_MS) {
        const which = held.length > 1 ? ' --step NAME' : '';
        hint.push(`  → quiet since ${e.updated_at}: if the agent holding ${held.join(', ')} went away, baton release ${e.execution_id}${dbFlag}${which}`);
      }
      return [head, ...steps, ...hint].join('\n');
    });
  // A blank line sets off an entry with steps under it; one-line entries (team runs) follow each other directly.
  const text = blocks.reduce((text, block, i) => `${text}${block.includes('\n') || blocks[i - 1]!.includes('\n') ? '\n\n' : '\n'}${block}`);
  return cut ? `${text}\n\n(A reason cut short here is whole in baton status --json${dbFlag}.)` : text;
}

/** The line under a listing that left older executions out. */
export function moreText(activeOnly: boolean): string {
  const which = activeOnly ? 'unfinished executions' : 'executions';
  return `(only the ${STATUS_LISTED} newest ${which} are listed; older ones are left out: get_execution_history, a lifecycle tool, pages through them all)`;
}

/** Runs `baton status`; returns the exit code. */
export async function statusCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...DB_OPTIONS, json: { type: 'boolean' }, all: { type: 'boolean' } }, STATUS_USAGE);
  if (values.help) {
    process.stdout.write(STATUS_USAGE + '\n');
    return 0;
  }
  refuseArguments('status', positionals, STATUS_USAGE);
  const activeOnly = !values.all;
  const dbPath = dbPathOf(values);
  // One more than is listed tells whether older ones were left out, which the listing then says.
  const found = await withCore(
    {
      dbPath, access: 'read', workspace: workspaceOf(values), log: cliLog('warn'),
      missing: () => missingDatabase(dbPath, values, 'Status only reads, so nothing was created.'),
    },
    (owner) => statusViaOwner(owner, activeOnly, STATUS_LISTED + 1),
    // No owner: a team run the file shows running was left by a Baton process that died (teams run only in the owner).
    async (baton) => (await baton.listExecutions({ active_only: activeOnly, limit: STATUS_LISTED + 1 }))
      .map((e) => (e.kind === 'worker' && e.status === 'running' ? { ...e, orphaned: true } : e)),
  );
  const executions = found.slice(0, STATUS_LISTED);
  const more = found.length > STATUS_LISTED;
  if (values.json) process.stdout.write(`${JSON.stringify({ executions, more })}\n`);
  else process.stdout.write(`${renderStatus(executions, dbFlagFor(dbPath), activeOnly)}${more ? `\n\n${moreText(activeOnly)}` : ''}\n`);
  return 0;
}
