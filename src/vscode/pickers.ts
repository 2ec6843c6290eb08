// Turning a command argument (a tree node, an id from the panel, nothing from the palette) into an execution or step,
// asking with a QuickPick when the argument does not say.
import * as vscode from 'vscode';
import type { ExecutionSummary } from '../core/api.js';
import type { StepStatus } from '../core/types.js';
import type { BatonSource } from './batonSource.js';
import { ALL_ACTIVE, listRuns, PICKER_RUNS } from './runListing.js';
import { plural, taskLabel } from '../shared/labels.js';
import type { SharedRunListing } from './sharedRunListing.js';
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

const NO_RUN_YET = 'no run yet. Start one with "Baton: Start Workflow…".';

/** A run as a picker lists it. */
function runItem(e: ExecutionSummary): vscode.QuickPickItem {
  return { label: executionLabel(e), description: executionDescription(e), detail: `${e.execution_id} · started ${e.started_at.slice(0, 16).replace('T', ' ')}` };
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
    void vscode.window.showInformationMessage(`Baton: ${all.length > 0 && none ? none : NO_RUN_YET}`);
    return undefined;
  }
  if (executions.length === 1) return executions[0]!.execution_id;
  const picked = await vscode.window.showQuickPick(
    executions.map((e) => ({ ...runItem(e), id: e.execution_id })),
    { title, placeHolder: 'Choose an execution', matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.id;
}

/** How many runs a picker of unfinished runs lists (newest first); the others are reached by typing their id. */
export const PICKED_RUNS = 50;

/** What a picker of unfinished runs offers, and what it says when it has nothing to offer. */
export interface RunChoice {
  title: string;
  /** The unfinished runs the command can act on. */
  offer: (e: ExecutionSummary) => boolean;
  /** Those runs in words, plural, for the id box ("unfinished runs"). */
  which: string;
  /** Why none of the unfinished runs (given) will do, and what to do instead. */
  none: (unfinished: ExecutionSummary[]) => string;
  /** Said when every run has ended (when there is no run at all, how to start one is said). */
  ended: string;
}

/**
 * Asks for one of the unfinished runs `choice.offer` keeps, from the shared listing (the tree's reading of this
 * refresh, not a read of every run): the newest PICKED_RUNS, then an entry that counts the rest and takes a typed or
 * pasted id. The only one is taken without asking; with none, says why and what to do.
 */
export async function pickUnfinishedRun(
  runs: Pick<SharedRunListing, 'unfinished'>, source: Pick<BatonSource, 'listExecutions'>, choice: RunChoice,
): Promise<ExecutionSummary | undefined> {
  const unfinished = await runs.unfinished();
  const offered = unfinished.filter(choice.offer);
  if (offered.length === 0) {
    // One indexed row says whether any run exists at all (to say "start one" rather than "they ended").
    const said = unfinished.length > 0 ? choice.none(unfinished)
      : (await source.listExecutions({ limit: 1 })).length > 0 ? choice.ended : NO_RUN_YET;
    void vscode.window.showInformationMessage(`Baton: ${said}`);
    return undefined;
  }
  if (offered.length === 1) return offered[0];
  const rest = offered.length - PICKED_RUNS;
  const items: Array<vscode.QuickPickItem & { run?: ExecutionSummary }> = offered.slice(0, PICKED_RUNS).map((e) => ({ ...runItem(e), run: e }));
  if (rest > 0) items.push({ label: `${plural(rest, 'older run')} not listed: enter a run id...`, alwaysShow: true });
  const picked = await vscode.window.showQuickPick(items, { title: choice.title, placeHolder: 'Choose a run', matchOnDescription: true, matchOnDetail: true });
  if (!picked || picked.run) return picked?.run;
  const find = (v: string) => offered.find((e) => e.execution_id === v.trim() || e.task_id === v.trim());
  const typed = await vscode.window.showInputBox({
    title: choice.title,
    prompt: `The execution id (or task id) of one of the ${offered.length} ${choice.which}`,
    placeHolder: 'Copy it from a run\'s tooltip in the Baton view, or from baton status',
    ignoreFocusOut: true,
    validateInput: (v) => (!v.trim() || find(v) ? undefined
      : `"${v.trim()}" is not the id of one of the ${choice.which}: copy the id from a run's tooltip in the Baton view, or from baton status`),
  });
  return typed === undefined ? undefined : find(typed);
}

/** Asks for a step in `status` across active executions (those `filter` keeps); the only one is taken without asking. */
export async function pickStep(
  source: BatonSource, title: string, statuses: StepStatus[], executionId?: string, filter: (e: ExecutionSummary) => boolean = () => true,
  none?: (active: ExecutionSummary[]) => void,
): Promise<{ executionId: string; stepName: string } | undefined> {
  const executions = (await source.listExecutions({ active_only: true, limit: ALL_ACTIVE })).filter((e) => (!executionId || e.execution_id === executionId) && filter(e));
  const steps = executions.flatMap((e) => e.steps.filter((s) => statuses.includes(s.status)).map((s) => ({ e, s })));
  if (steps.length === 0) {
    // `none` says what leads to such a step (the runs it looked at); else only that there is none.
    if (none) none(executions);
    else void vscode.window.showInformationMessage(`Baton: no step is ${statuses.map((st) => statusText(st)).join(' or ')} right now.`);
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
