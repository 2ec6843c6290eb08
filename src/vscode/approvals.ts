// Gates: Approve Step, Reject Step…, and the notification when a step starts waiting for a person. Whoever decides
// first (tree, panel, palette, notification, `baton approve`) wins; a later decision's invalid_state is dropped quietly.
import * as vscode from 'vscode';
import { BatonError } from '../core/errors.js';
import { gateMessage, runName } from '../shared/labels.js';
import type { BatonConnection } from './ownership.js';
import { pickStep, targetOf } from './pickers.js';
import type { Services } from './services.js';

/** Decides a gate; false when someone else decided first (the gate is no longer waiting). */
async function decide(connection: BatonConnection, executionId: string, stepName: string, decision: 'approve' | 'reject', feedback?: string): Promise<boolean> {
  try {
    await connection.decide({ execution_id: executionId, step_name: stepName, decision, feedback });
    return true;
  } catch (ex) {
    if (BatonError.is(ex, 'invalid_state')) return false;
    throw ex;
  }
}

/** Asks for the feedback a rejection needs (the agent redoes the step with it). */
function askFeedback(stepName: string): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: `Baton: Reject "${stepName}"`,
    prompt: 'What must the agent change? (required; the agent redoes the step with your words)',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Feedback is required to reject'),
  });
}

/** `baton.approveStep`. */
export async function approveStep(s: Services, arg?: unknown): Promise<void> {
  const t = targetOf(arg);
  const target = t.executionId && t.stepName ? { executionId: t.executionId, stepName: t.stepName } : await pickStep(s.connection, 'Baton: Approve Step', ['awaiting_approval'], t.executionId);
  if (!target) return;
  if (await decide(s.connection, target.executionId, target.stepName, 'approve')) {
    void vscode.window.showInformationMessage(`Baton: "${target.stepName}" approved.`);
  }
}

/** `baton.rejectStep`. */
export async function rejectStep(s: Services, arg?: unknown): Promise<void> {
  const t = targetOf(arg);
  const target = t.executionId && t.stepName ? { executionId: t.executionId, stepName: t.stepName } : await pickStep(s.connection, 'Baton: Reject Step', ['awaiting_approval'], t.executionId);
  if (!target) return;
  const feedback = await askFeedback(target.stepName);
  if (feedback === undefined) return;
  if (await decide(s.connection, target.executionId, target.stepName, 'reject', feedback.trim())) {
    void vscode.window.showInformationMessage(`Baton: "${target.stepName}" sent back with your feedback.`);
  }
}

/** Notifies once per gate when a step enters awaiting_approval, with Approve / Reject… / Show. */
export function registerApprovalNotifications(s: Services): vscode.Disposable {
  const notified = new Set<string>();
  const sub = s.connection.onEvent((e) => {
    if (e.type !== 'step') return;
    const key = `${e.execution_id}\u0000${e.step_name}`;
    if (e.status !== 'awaiting_approval') return void notified.delete(key);
    if (notified.has(key)) return;
    notified.add(key);
    void notify(s, e.execution_id, e.step_name).catch((ex: unknown) => s.log.error('approval notification failed', ex));
  });
  return new vscode.Disposable(() => sub.dispose());
}

async function notify(s: Services, executionId: string, stepName: string): Promise<void> {
  const status = await s.connection.workflowStatus(executionId);
  const pick = await vscode.window.showInformationMessage(
    gateMessage(stepName, status.workflow, status.task_description, status.execution_id), 'Approve', 'Reject…', 'Show',
  );
  if (pick === 'Approve') {
    if (await decide(s.connection, executionId, stepName, 'approve')) {
      void vscode.window.showInformationMessage(`Baton: "${stepName}" of ${runName(status.workflow ?? 'the workflow', status.task_description)} approved.`);
    }
  } else if (pick === 'Reject…') {
    const feedback = await askFeedback(stepName);
    if (feedback !== undefined) await decide(s.connection, executionId, stepName, 'reject', feedback.trim());
  } else if (pick === 'Show') {
    await vscode.commands.executeCommand('baton.showExecution', executionId);
  }
}
