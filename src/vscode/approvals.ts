// Gates: Approve Step, Reject Step…, and the notification when a step starts waiting for a person. Whoever decides
// first (tree, panel, palette, notification, `baton approve`) wins; a later click is told it was already decided.
import * as vscode from 'vscode';
import type { ExecutionSummary } from '../core/api.js';
import { gateMessage, plural, runName, statusText } from '../shared/labels.js';
import { rejectWords, type RejectOutcome } from '../shared/rejectWords.js';
import { approveGate, decisionsSoFar, rejectGate, rejectionOf, type GateSeen, type GateUi } from './gateDecisions.js';
import { GateNotes } from './gateNotes.js';
import { pickStep, targetOf } from './pickers.js';
import type { Services } from './services.js';
import { waitingGates } from './statusBarText.js';

/** Asks for what a rejection needs: the agent's feedback (it redoes the step), or a pipeline review's reason. */
function askFeedback(stepName: string, outcome: RejectOutcome): Thenable<string | undefined> {
  const words = rejectWords(outcome);
  return vscode.window.showInputBox({
    title: `Baton: Reject "${stepName}"`,
    prompt: words.prompt,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : words.required),
  });
}

/** What rejecting the step does (a pipeline review ends or goes on with the run; a workflow step is redone). */
async function rejection(s: Services, executionId: string, stepName: string): Promise<RejectOutcome> {
  return rejectionOf((id) => s.connection.pipelineView(id), executionId, stepName);
}

const ui: GateUi = {
  info: (message) => void vscode.window.showInformationMessage(message),
  askFeedback,
};

/** What Approve / Reject Step say when no step waits for a person, and the buttons that lead on from there. */
export interface NoGateLead {
  message: string;
  /** Button label → the command it runs, with its argument. */
  buttons: Array<{ label: string; command: string; arg?: unknown }>;
}

/**
 * Why no gate waits, and the way to one (a fresh workspace has none, and the walkthrough's Approve a gate step must
 * not end there): with no run that can reach a gate, start one; with one, hand it to an agent or watch it get there.
 */
export function noGateLead(active: readonly ExecutionSummary[], verb: 'approve' | 'reject'): NoGateLead {
  // A team's run has no gate; a pipeline's human review is one, but no agent prompt hands a pipeline on.
  const runs = active.filter((e) => e.kind !== 'worker');
  if (runs.length === 0) {
    return {
      message: `Baton: no step is awaiting approval, and no workflow is running to reach one. A gate comes when an agent reaches a step ` +
        `that asks for a person's approval (bug-fix's review-code, for one): start a workflow, hand it to an agent, then ${verb} here.`,
      buttons: [{ label: 'Start Workflow…', command: 'baton.startWorkflow' }],
    };
  }
  const run = runs.reduce((a, b) => (b.started_at > a.started_at ? b : a));
  const at = run.current_step ?? run.steps.find((st) => st.status === 'running' || st.status === 'ready')?.step_name;
  const others = runs.length > 1 ? ` (and ${plural(runs.length - 1, 'other run')})` : '';
  const message = `Baton: no step is awaiting approval yet. ${runName(run.workflow ?? run.kind, run.task_description)}${others} is ` +
    `${at ? `at "${at}"` : statusText(run.status)}: its gate comes when an agent reaches a step that asks for your approval. ` +
    `${run.kind === 'pipeline' ? 'Let the pipeline run' : 'Hand it to an agent'}, then ${verb} here.`;
  const buttons: NoGateLead['buttons'] = run.kind === 'pipeline' ? [] : [{ label: 'Copy Agent Prompt', command: 'baton.copyHandoffPrompt', arg: { executionId: run.execution_id } }];
  buttons.push({ label: 'Show', command: 'baton.showExecution', arg: run.execution_id });
  return { message, buttons };
}

/** Says what leads to a gate (noGateLead); a button runs its command. */
async function showNoGate(active: ExecutionSummary[], verb: 'approve' | 'reject'): Promise<void> {
  const lead = noGateLead(active, verb);
  const pick = await vscode.window.showInformationMessage(lead.message, ...lead.buttons.map((b) => b.label));
  const button = lead.buttons.find((b) => b.label === pick);
  if (button) await vscode.commands.executeCommand(button.command, ...(button.arg === undefined ? [] : [button.arg]));
}

/** A step picked now (palette, tree): named with its run; when its gate was shown is not known. */
async function picked(s: Services, arg: unknown, title: string, verb: 'approve' | 'reject'): Promise<GateSeen | undefined> {
  const t = targetOf(arg);
  const none = (active: ExecutionSummary[]) => void showNoGate(active, verb).catch((ex: unknown) => s.log.error('no-gate notification failed', ex));
  const target = t.executionId && t.stepName
    ? { executionId: t.executionId, stepName: t.stepName }
    : await pickStep(s.connection, title, ['awaiting_approval'], t.executionId, undefined, none);
  if (!target) return undefined;
  const [status, outcome] = await Promise.all([s.connection.workflowStatus(target.executionId), rejection(s, target.executionId, target.stepName)]);
  return { ...target, run: runName(status.workflow ?? 'the workflow', status.task_description), decisionsSeen: null, rejection: outcome };
}

/** `baton.approveStep`. */
export async function approveStep(s: Services, arg?: unknown): Promise<void> {
  const gate = await picked(s, arg, 'Baton: Approve Step', 'approve');
  if (gate) await approveGate(s.connection, ui, gate);
}

/** `baton.rejectStep`. */
export async function rejectStep(s: Services, arg?: unknown): Promise<void> {
  const gate = await picked(s, arg, 'Baton: Reject Step', 'reject');
  if (gate) await rejectGate(s.connection, ui, gate);
}

/**
 * Notifies once per gate when a step enters awaiting_approval, with Approve / Reject… / Show; when gates come faster
 * than a person reads them, a few a minute and then one notification counting the others (GateNotes).
 */
export function registerApprovalNotifications(s: Services): vscode.Disposable {
  const notified = new Set<string>();
  const notes = new GateNotes<{ executionId: string; stepName: string }>(
    (g) => void notify(s, g.executionId, g.stepName).catch((ex: unknown) => s.log.error('approval notification failed', ex)),
    (count) => void notifyMany(s, count).catch((ex: unknown) => s.log.error('approval notification failed', ex)),
  );
  const sub = s.connection.onEvent((e) => {
    if (e.type !== 'step') return;
    const key = `${e.execution_id}\u0000${e.step_name}`;
    if (e.status !== 'awaiting_approval') return void notified.delete(key);
    if (notified.has(key)) return;
    notified.add(key);
    notes.gate({ executionId: e.execution_id, stepName: e.step_name });
  });
  return new vscode.Disposable(() => {
    sub.dispose();
    notes.dispose();
  });
}

/** One notification for `count` gates that came after the last one notified, with how many wait now. */
async function notifyMany(s: Services, count: number): Promise<void> {
  const waiting = waitingGates(await s.runs.unfinished()).length;
  if (waiting === 0) return; // all decided meanwhile
  const pick = await vscode.window.showInformationMessage(
    `Baton: ${plural(count, 'more step')} reached ${count === 1 ? 'its gate' : 'their gates'}; ${waiting} await your approval in all.`,
    'Approve…', 'Show',
  );
  if (pick === 'Approve…') await vscode.commands.executeCommand('baton.approveStep');
  else if (pick === 'Show') await vscode.commands.executeCommand('workbench.view.extension.baton');
}

async function notify(s: Services, executionId: string, stepName: string): Promise<void> {
  const [status, decisionsSeen, outcome] = await Promise.all([
    s.connection.workflowStatus(executionId), decisionsSoFar(s.connection, executionId, stepName), rejection(s, executionId, stepName),
  ]);
  const gate: GateSeen = { executionId, stepName, run: runName(status.workflow ?? 'the workflow', status.task_description), decisionsSeen, rejection: outcome };
  // The notification stays up when the gate is decided elsewhere (the editor cannot close it): its buttons check.
  const pick = await vscode.window.showInformationMessage(
    gateMessage(stepName, status.workflow, status.task_description, status.execution_id), 'Approve', 'Reject…', 'Show',
  );
  if (pick === 'Approve') await approveGate(s.connection, ui, gate);
  else if (pick === 'Reject…') await rejectGate(s.connection, ui, gate);
  else if (pick === 'Show') {
    await vscode.commands.executeCommand('baton.showExecution', executionId);
  }
}
