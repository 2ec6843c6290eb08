// `baton status`: executions and their steps, from the live owner or the database.
import type { ExecutionSummary } from '../core/api.js';
import { statusViaOwner } from '../host/controlClient.js';
import { cliLog, DB_OPTIONS, dbPathOf, parse } from './common.js';
import { withCore } from './withCore.js';

/** Usage of `baton status`. */
export const STATUS_USAGE = `Usage: baton status [--db PATH] [--all] [--json]

Lists executions (only unfinished ones unless --all), with their steps.`;

const MARK: Record<string, string> = {
  completed: '✓', running: '▶', awaiting_approval: '⏸', failed: '✗', skipped: '–', pending: '·', ready: '○',
};

/** Human-readable lines for a listing. */
export function renderStatus(executions: ExecutionSummary[]): string {
  if (executions.length === 0) return 'No executions.';
  return executions
    .map((e) => {
      const head = `${e.execution_id}  ${e.workflow ?? e.kind}  ${e.status}  ${e.progress}%${e.current_step ? `  step: ${e.current_step}` : ''}`;
      const steps = e.steps.map((s) => `  ${MARK[s.status] ?? '?'} ${s.step_name} (${s.status}, ${s.agent_name})`);
      const hint = e.status === 'awaiting_approval' ? [`  → baton approve ${e.execution_id}   or   baton reject ${e.execution_id} --feedback TEXT`] : [];
      return [head, ...steps, ...hint].join('\n');
    })
    .join('\n\n');
}

/** Runs `baton status`. */
export async function statusCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { ...DB_OPTIONS, json: { type: 'boolean' }, all: { type: 'boolean' } }, STATUS_USAGE);
  if (values.help) {
    process.stderr.write(STATUS_USAGE + '\n');
    return;
  }
  const activeOnly = !values.all;
  const executions = await withCore(
    { dbPath: dbPathOf(values), contentDir: values.content, workspace: values.workspace, log: cliLog('warn') },
    (owner) => statusViaOwner(owner, activeOnly),
    async (baton) => baton.listExecutions({ active_only: activeOnly }),
  );
  process.stdout.write((values.json ? JSON.stringify({ executions }) : renderStatus(executions)) + '\n');
}
