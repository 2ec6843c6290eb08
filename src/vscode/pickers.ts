// Turning a command argument (a tree node, an id from the panel, nothing from the palette) into an execution or step,
// asking with a QuickPick when the argument does not say.
import * as vscode from 'vscode';
import type { ExecutionSummary } from '../core/api.js';
import type { StepStatus } from '../core/types.js';
import type { BatonSource } from './batonSource.js';
import { ALL_ACTIVE, listRuns, PICKER_RUNS } from './runListing.js';
import { taskLabel } from '../shared/labels.js';
import { executionDescription, executionLabel, statusText, type TreeNode } from './views/treeModel.js';

/** What a command argument names. */
export interface Target {
  executionId?: string;
  stepName?: string;
  artifactId?: string;
}

/** Reads a tree node, an execution id string, or `{ executionId, stepName }` (the panel's shape). */
export function targetOf(arg: unknown): Target {
  if (typeof arg === 'string' && arg) return { executionId: arg };
  if (arg && typeof arg === 'object') {
    const ref = (arg as Partial<TreeNode>).ref;
    if (ref) {
      if (ref.kind === 'execution') return { executionId: ref.execution_id };
      if (ref.kind === 'step') return { executionId: ref.execution_id, stepName: ref.step_name };
      if (ref.kind === 'artifact') return { executionId: ref.execution_id, artifactId: ref.artifact_id };
      return {};
    }
    const o = arg as Record<string, unknown>;
    const str = (k: string) => (typeof o[k] === 'string' && o[k] ? (o[k] as string) : undefined);
    return { executionId: str('executionId') ?? str('execution_id'), stepName: str('stepName') ?? str('step_name'), artifactId: str('artifactId') ?? str('artifact_id') };
  }
  return {};
}

/**
 * Asks for an execution among those `filter` keeps, the only one taken without asking (as pickStep does); undefined
 * when there is none or the person escapes. With runs but none that `filter` keeps, says `none` (why none of them will
 * do), not that there is no run.
 */
export async function pickExecution(
  source: BatonSource, title: string, filter: (e: ExecutionSummary) => boolean = () => true, none?: string,
): Promise<string | undefined> {
  const { executions: all } = await listRuns(source, PICKER_RUNS);
  const executions = all.filter(filter);
  if (executions.length === 0) {
    void vscode.window.showInformationMessage(all.length > 0 && none ? `Baton: ${none}`
      : 'Baton: no run yet. Start one with "Baton: Start Workflow…".');
    return undefined;
  }
  if (executions.length === 1) return executions[0]!.execution_id;
  const picked = await vscode.window.showQuickPick(
    executions.map((e) => ({
      label: executionLabel(e),
      description: executionDescription(e),
      detail: `${e.execution_id} · started ${e.started_at.slice(0, 16).replace('T', ' ')}`,
      id: e.execution_id,
    })),
    { title, placeHolder: 'Choose an execution', matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.id;
}

/** Asks for a step in `status` across active executions (those `filter` keeps); the only one is taken without asking. */
export async function pickStep(
  source: BatonSource, title: string, statuses: StepStatus[], executionId?: string, filter: (e: ExecutionSummary) => boolean = () => true,
): Promise<{ executionId: string; stepName: string } | undefined> {
  const executions = (await source.listExecutions({ active_only: true, limit: ALL_ACTIVE })).filter((e) => (!executionId || e.execution_id === executionId) && filter(e));
  const steps = executions.flatMap((e) => e.steps.filter((s) => statuses.includes(s.status)).map((s) => ({ e, s })));
  if (steps.length === 0) {
    void vscode.window.showInformationMessage(`Baton: no step is ${statuses.map((st) => statusText(st)).join(' or ')} right now.`);
    return undefined;
  }
  if (steps.length === 1) return { executionId: steps[0]!.e.execution_id, stepName: steps[0]!.s.step_name };
  const picked = await vscode.window.showQuickPick(
    steps.map(({ e, s }) => {
      const task = taskLabel(e.task_description);
      return {
        label: s.step_name, description: `${e.workflow ?? e.kind}${task ? ` “${task}”` : ''} · ${statusText(s.status)}`,
        detail: `${e.execution_id} · started ${e.started_at.slice(0, 16).replace('T', ' ')}`, e, s,
      };
    }),
    { title, placeHolder: 'Choose a step', matchOnDescription: true, matchOnDetail: true },
  );
  return picked && { executionId: picked.e.execution_id, stepName: picked.s.step_name };
}
