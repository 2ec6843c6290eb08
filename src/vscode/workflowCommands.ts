// Start Workflow…, Advance Step…, Show Execution, Cancel Execution, Release Step, Prune Finished Runs…, Copy Agent Prompt.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { BatonError } from '../core/errors.js';
import { defaultTaskDescription } from '../core/broker/stepText.js';
import type { ExecutionSummary, WorkflowStatusResource } from '../core/api.js';
import type { ArtifactInput, NextStepResponse } from '../core/types.js';
import { ExecutionPanel } from './panels/executionPanel.js';
import { hasReadyStep, isActive, isSteppable } from './executionFilters.js';
import { pickExecution, pickStep, pickUnfinishedRun, targetOf } from './pickers.js';
import { pruneRuns } from './pruneRuns.js';
import { startSpecWorkflow } from './specCommands.js';
import type { Services } from './services.js';
import { plural, releasedText, runName } from '../shared/labels.js';
import { cancelQuestion, SPEC_OUTLINE } from './views/treeModel.js';

/** The text an agent needs to take over a step the editor holds (the token is the capability). */
export function handoffPrompt(workflow: string, step: string, token: string): string {
  return `Continue the Baton workflow "${workflow}": call the Baton MCP tool workflow_next_step with ` +
    `{ "step_token": "${token}" } to receive step "${step}" with its contract and context, do the work, then submit it with ` +
    '{ "step_token": <new_step_token>, "model_output_so_far": { "summary", "artifacts", "references", "confidence" } }.';
}

/** The text that sends an agent to a workflow a person started: it claims the ready steps by task id. */
export function agentPrompt(workflow: string, taskId: string, task: string): string {
  return `Work on the Baton workflow "${workflow}" (${task}): call the Baton MCP tool workflow_next_step with ` +
    `{ "task_id": "${taskId}" } to receive the next ready step with its contract and context, do the work, then submit it with ` +
    '{ "step_token": <new_step_token>, "model_output_so_far": { "summary", "artifacts", "references", "confidence" } } and keep going until the workflow closes.';
}

/** Tells the person what a broker answer means (and remembers a step handed to the editor). */
function report(s: Services, r: NextStepResponse, what: string): void {
  s.held.keep(r);
  if (r.status === 'error') {
    void vscode.window.showErrorMessage(`Baton: ${r.error?.message ?? 'the step was refused'} ${r.error?.recovery ?? ''}`.trim());
  } else if (r.status === 'ok' && r.next_step_contract) {
    const step = r.next_step_contract.step_name;
    void vscode.window
      .showInformationMessage(`Baton: ${what}. Step "${step}" is yours: submit it with "Advance Step…" or hand it to an agent.`, 'Copy Agent Prompt')
      .then((pick) => pick && vscode.commands.executeCommand('baton.copyHandoffPrompt', { executionId: r.execution_id, stepName: step }));
  } else if (r.status === 'awaiting_approval') {
    void vscode.window.showInformationMessage(`Baton: ${what}; it now waits for a person's approval.`);
  } else if (r.status === 'task_closed') {
    void vscode.window.showInformationMessage(`Baton: ${what}. The workflow is complete.`);
  } else if (r.human_message) {
    void vscode.window.showInformationMessage(`Baton: ${what}. ${r.human_message}`);
  }
}

/** `baton.startWorkflow`: pick a template, describe the task, start it and open its panel. */
export async function startWorkflow(s: Services, arg?: unknown): Promise<string | undefined> {
  const templates = await s.connection.templates();
  let name = arg && typeof arg === 'object' && (arg as { ref?: { kind?: string; template?: string } }).ref?.kind === 'template'
    ? (arg as { ref: { template: string } }).ref.template
    : typeof arg === 'string' ? arg : undefined;
  if (!name) {
    const picked = await vscode.window.showQuickPick(
      templates.map((t) => ({
        label: t.name,
        // A spec template's one step stands for the phases of the tasks.md it is started on: "1 step" would mislead.
        description: `${t.dynamic_phases ? SPEC_OUTLINE : plural(t.steps.length, 'step')} · ${t.type}` +
          `${t.estimated_duration_minutes ? ` · ~${t.estimated_duration_minutes} min` : ''}`,
        detail: t.description,
      })),
      { title: 'Baton: Start Workflow', placeHolder: 'Choose a workflow', matchOnDescription: true, matchOnDetail: true },
    );
    name = picked?.label;
  }
  if (!name) return undefined;
  // A template whose phases come from a tasks.md (spec_execution_v1) starts from one: the spec command asks which.
  if (templates.find((t) => t.name === name)?.dynamic_phases) return startSpecWorkflow(s);
  const description = await vscode.window.showInputBox({
    title: `Baton: Start ${name}`,
    // The task is optional (a workflow starts from its name alone): said here, so an empty box is not a surprise.
    prompt: `Describe the task (what the agents should do). Optional: left empty, the task reads "${defaultTaskDescription(name)}".`,
    placeHolder: 'e.g. Fix the crash when saving an empty file',
    ignoreFocusOut: true,
  });
  if (description === undefined) return undefined;
  const task = description.trim() || undefined;
  let started;
  try {
    started = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Baton: starting ${name}…` },
      () => s.connection.startWorkflow(name, task),
    );
  } catch (ex) {
    if (!BatonError.is(ex)) throw ex;
    void vscode.window.showErrorMessage(`Baton: ${ex.message}`);
    return undefined;
  }
  // Nobody holds a step yet: an agent picks up the first one (the editor's agent sees Baton's tools already).
  void vscode.window
    .showInformationMessage(
      `Baton: started ${name}. Ask your agent to take it on, or submit steps yourself with "Advance Step…".`,
      'Copy Agent Prompt',
    )
    .then((pick) => pick && vscode.commands.executeCommand('baton.copyHandoffPrompt', { executionId: started.execution_id }));
  ExecutionPanel.show(s.context, s.connection, started.execution_id);
  s.tree.refresh();
  return started.execution_id;
}

/** An artifact from the active editor (its selection when there is one), or undefined. */
async function editorArtifact(): Promise<{ artifact: ArtifactInput; reference: string } | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.uri.scheme === 'baton') return undefined;
  const sel = editor.selection;
  const items = [{ label: 'No artifact', id: 'none' }, { label: 'Attach the active editor as an artifact', description: basename(editor.document.fileName), id: 'file' }];
  if (!sel.isEmpty) items.push({ label: 'Attach the selection as an artifact', description: `${sel.end.line - sel.start.line + 1} lines`, id: 'selection' });
  const picked = await vscode.window.showQuickPick(items, { title: 'Baton: Advance Step', placeHolder: 'Attach an artifact?' });
  if (!picked || picked.id === 'none') return undefined;
  const doc = editor.document;
  const lang = doc.languageId;
  const type = lang === 'yaml' || lang === 'json' ? lang : 'markdown';
  const text = picked.id === 'selection' ? doc.getText(sel) : doc.getText();
  const name = basename(doc.fileName);
  const body = type === 'markdown' && lang !== 'markdown' ? `\`\`\`${lang}\n${text}\n\`\`\`\n` : text;
  return {
    artifact: { type, title: picked.id === 'selection' ? `${name} (lines ${sel.start.line + 1}-${sel.end.line + 1})` : name, content: body },
    reference: vscode.workspace.asRelativePath(doc.uri),
  };
}

/**
 * Why a person cannot take a step of this run now, in a person's words: the step named (or, none named, every step
 * left) is being worked on by an agent or waits for a decision. Undefined when there is a step to take.
 */
export function notYoursText(status: WorkflowStatusResource, stepName?: string): string | undefined {
  const steps = stepName ? status.steps.filter((x) => x.step_name === stepName) : status.steps;
  if (steps.length === 0 || steps.some((x) => x.status === 'ready')) return undefined;
  const working = steps.filter((x) => x.status === 'running');
  const gated = steps.filter((x) => x.status === 'awaiting_approval');
  if (working.length === 0 && gated.length === 0) return undefined;
  const names = (list: typeof steps) => list.map((x) => `"${x.step_name}"`).join(', ');
  const parts = [
    working.length ? `${names(working)} ${working.length === 1 ? 'is' : 'are'} being worked on by ${working.length === 1 ? `its agent (${working[0]!.agent_name})` : 'agents'}; ` +
      'if an agent went away, Release Step hands its step to the next one that asks' : '',
    gated.length ? `${names(gated)} ${gated.length === 1 ? 'waits' : 'wait'} for your decision: Approve Step or Reject Step…` : '',
  ].filter(Boolean);
  const run = runName(status.workflow ?? 'the workflow', status.task_description);
  return `Baton: no step of ${run} is ready for you. ${parts.join('. ')}.`;
}

/** `baton.advanceStep`: a person submits a step (claiming the next ready one if the editor holds none). */
export async function advanceStep(s: Services, arg?: unknown): Promise<void> {
  const t = targetOf(arg);
  const executionId = t.executionId ?? (await pickExecution(s.connection, 'Baton: Advance Step', isSteppable,
    'no workflow run is under way, so there is no step to advance (Baton drives pipelines and teams itself). ' +
    'Start one with "Baton: Start Workflow…".'));
  if (!executionId) return;
  let held = s.held.get(executionId, t.stepName);
  if (!held) {
    const busy = notYoursText(await s.connection.workflowStatus(executionId), t.stepName);
    if (busy) return void vscode.window.showInformationMessage(busy);
    const claimed = await s.connection.nextStep({ task_id: executionId, requested_step_name: t.stepName });
    s.held.keep(claimed);
    held = s.held.get(executionId, claimed.next_step_contract?.step_name);
    if (!held) return report(s, claimed, 'nothing to advance');
  }
  const summary = await vscode.window.showInputBox({
    title: `Baton: Advance "${held.step_name}"`,
    prompt: 'Summarize what was done for this step',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'A summary is required'),
  });
  if (summary === undefined) return;
  const attached = await editorArtifact();
  const step = held;
  const r = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Baton: submitting ${step.step_name}…` },
    () => s.connection.nextStep({
      step_token: step.token,
      model_output_so_far: {
        summary: summary.trim(), artifacts: attached ? [attached.artifact] : [], references: attached ? [attached.reference] : [], confidence: 1,
      },
    }),
  );
  if (r.status !== 'error' || r.error?.code.startsWith('token_')) s.held.drop(step.execution_id, step.step_name);
  report(s, r, `submitted ${step.step_name}`);
}

/** `baton.showExecution`: the panel of an execution (asks which when no argument says). */
export async function showExecution(s: Services, arg?: unknown): Promise<void> {
  const id = targetOf(arg).executionId ?? (await pickExecution(s.connection, 'Baton: Show Execution'));
  if (id) ExecutionPanel.show(s.context, s.connection, id);
}

/** `baton.cancelExecution`: after a modal confirmation, the execution fails with reason "cancelled". */
export async function cancelExecution(s: Services, arg?: unknown): Promise<void> {
  const given = targetOf(arg).executionId;
  const picked = given ? undefined : await pickUnfinishedRun(s.runs, s.connection, {
    title: 'Baton: Cancel Execution', offer: isActive, which: 'unfinished runs',
    none: () => 'every run has ended already; there is none to cancel.', ended: 'every run has ended already; there is none to cancel.',
  });
  const id = given ?? picked?.execution_id;
  if (!id) return;
  // The run as the tree lists it (this refresh's reading), to ask about it by name.
  const e = picked ?? (await s.runs.unfinished()).find((x) => x.execution_id === id || x.task_id === id);
  const confirm = await vscode.window.showWarningMessage(
    e ? cancelQuestion(e) : `Cancel execution ${id}?`,
    { modal: true, detail: `Execution ${id}. It stops as cancelled; agents working on it lose their step tokens.` },
    'Cancel Execution',
  );
  if (confirm !== 'Cancel Execution') return;
  try {
    await s.connection.cancel(id, 'cancelled from the editor');
    // Named as the question named it: with several runs, "execution cancelled" does not say which.
    void vscode.window.showInformationMessage(`Baton: ${e ? runName(e.workflow ?? e.kind, e.task_description, 60) : `execution ${id}`} cancelled.`);
  } catch (ex) {
    if (!BatonError.is(ex, 'invalid_state')) throw ex;
    void vscode.window.showInformationMessage(`Baton: ${ex.message}`);
  }
}

/**
 * `baton.releaseStep`: after a modal confirmation, a running step is taken from the agent that holds it (one that went
 * away): its token stops working, and the next agent that asks for work gets the step.
 */
export async function releaseStep(s: Services, arg?: unknown): Promise<void> {
  const t = targetOf(arg);
  const target = t.executionId && t.stepName ? { executionId: t.executionId, stepName: t.stepName } : await pickStep(s.connection, 'Baton: Release Step', ['running'], t.executionId, isSteppable);
  if (!target) return;
  const confirm = await vscode.window.showWarningMessage(
    `Release "${target.stepName}" from the agent that holds it?`,
    { modal: true, detail: `Execution ${target.executionId}. For an agent that went away holding the step: the token it holds stops working, and the next agent that asks for work gets the step.` },
    'Release Step',
  );
  if (confirm !== 'Release Step') return;
  try {
    const released = await s.connection.release(target.executionId, target.stepName);
    s.held.drop(released.execution_id, released.step_name);
    void vscode.window.showInformationMessage(`Baton: ${releasedText(released)}`);
  } catch (ex) {
    if (!BatonError.is(ex, 'invalid_state')) throw ex;
    void vscode.window.showInformationMessage(`Baton: ${ex.message}`);
  }
}

/** `baton.pruneRuns`: a dry run by the owner's retention policy, a modal confirmation, then the prune. */
export async function pruneFinishedRuns(s: Services): Promise<void> {
  await pruneRuns(s.connection, {
    info: (message) => void vscode.window.showInformationMessage(message),
    confirm: (message, detail, button) => Promise.resolve(vscode.window.showWarningMessage(message, { modal: true, detail }, button)),
    error: (message, ex) => {
      s.log.error(message, ex);
      void vscode.window.showErrorMessage(message);
    },
    progress: (title, task) => Promise.resolve(vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, task)),
  });
}

const NO_WORKFLOW_RUNNING = 'no running workflow to hand to an agent; start one with "Start Workflow…".';

/** Why no unfinished run is offered: none is a workflow run (Baton drives the others), or none has a ready step. */
function nothingReady(unfinished: ExecutionSummary[]): string {
  if (!unfinished.some(isSteppable)) return `${NO_WORKFLOW_RUNNING} (Baton drives pipelines and teams itself)`;
  return 'no workflow run has a step ready for an agent now: their steps are being worked on or wait for your decision ' +
    '(Approve Step or Reject Step...). Release Step frees a step whose agent went away.';
}

/** `baton.copyHandoffPrompt`: copies a prompt that gives a step the editor holds to an agent. */
export async function copyHandoffPrompt(s: Services, arg?: unknown): Promise<void> {
  const t = targetOf(arg);
  const held = t.executionId ? s.held.get(t.executionId, t.stepName) : s.held.all()[0];
  if (!held) {
    // No step held by the editor: send the agent to the workflow itself, to claim its ready steps. Pipelines and teams
    // take no agent from outside; with several runs under way the person says which (the newest was taken unasked).
    // Offered: the runs whose next step an agent can claim now (the prompt claims by task id); a run whose steps are
    // all being worked on or wait at a gate would send the agent away with nothing.
    const e = t.executionId
      ? (await s.runs.unfinished()).find((x) => x.execution_id === t.executionId && isSteppable(x))
      : await pickUnfinishedRun(s.runs, s.connection, {
        title: 'Baton: Copy Agent Prompt', offer: hasReadyStep, which: 'workflow runs with a step ready for an agent',
        none: nothingReady, ended: NO_WORKFLOW_RUNNING,
      });
    if (!e) {
      if (t.executionId) void vscode.window.showInformationMessage(`Baton: ${NO_WORKFLOW_RUNNING}`);
      return;
    }
    const status = await s.connection.workflowStatus(e.execution_id, { artifacts: false });
    const task = (await s.connection.events(e.execution_id)).find((x) => x.event_type === 'workflow_started')?.event_data as { task_description?: string } | undefined;
    await vscode.env.clipboard.writeText(agentPrompt(e.workflow ?? 'workflow', status.task_id ?? e.execution_id, task?.task_description ?? 'the task'));
    void vscode.window.showInformationMessage(`Baton: agent prompt for ${e.workflow ?? 'the workflow'} copied; paste it into your agent's chat.`);
    return;
  }
  const e = (await s.runs.unfinished()).find((x) => x.execution_id === held.execution_id);
  await vscode.env.clipboard.writeText(handoffPrompt(e?.workflow ?? 'workflow', held.step_name, held.token));
  s.held.drop(held.execution_id, held.step_name);
  void vscode.window.showInformationMessage(`Baton: hand-off prompt for "${held.step_name}" copied; paste it into your agent's chat.`);
}
