// Approve / Reject… on a gate the person saw (a notification, the tree, the palette), which may have been decided
// elsewhere since (another window, the CLI, the panel): the editor cannot close a notification, so its buttons say
// plainly that the gate was already decided, and how, instead of doing nothing; Reject… checks before it asks for the
// feedback, so what the person would type is not thrown away. No 'vscode' import: unit-tested with a fake.
import { BatonError } from '../core/errors.js';
import { rejectionAt, type PipelineRunView } from '../core/pipelines/pipelineRuns.js';
import { rejectedMessage, rejectWords, type RejectOutcome } from '../shared/rejectWords.js';
import type { BatonSource } from './batonSource.js';

/** What the flow needs of the source. */
export type GateSource = Pick<BatonSource, 'decide' | 'workflowStatus' | 'events'>;

/** What the flow asks of the editor's window. */
export interface GateUi {
  info(message: string): void;
  /** The feedback (or reason) a rejection needs, asked as `outcome` says; undefined: the person dismissed the box. */
  askFeedback(stepName: string, outcome: RejectOutcome): PromiseLike<string | undefined>;
}

/** A gate as the person saw it: its step, the run named for people, and the decisions it had had by then. */
export interface GateSeen {
  executionId: string;
  stepName: string;
  /** The run as the messages name it ("bug-fix “Fix the cart…”"). */
  run: string;
  /** How many decisions the step had had when it was shown (one more means it was decided since); null: not known. */
  decisionsSeen: number | null;
  /** What rejecting it does; absent: a workflow step's gate (the agent redoes the step). */
  rejection?: RejectOutcome;
}

/**
 * What rejecting `stepName` does: for a pipeline run's review, what the run recorded (it fails, or goes on); else the
 * agent redoes the step. `view` reads a pipeline run and fails with execution_not_found for any other execution.
 */
export async function rejectionOf(view: (runId: string) => Promise<Pick<PipelineRunView, 'onReject'>>, executionId: string, stepName: string): Promise<RejectOutcome> {
  try {
    return rejectionAt(await view(executionId), stepName);
  } catch (ex) {
    if (BatonError.is(ex, 'execution_not_found')) return 'redo';
    throw ex;
  }
}

/**
 * Whether the gate still waits for the decision the person is about to make; else how it was decided, if known, or
 * how its run ended undecided (cancelled, failed).
 */
export type GateNow = { waiting: true } | { waiting: false; how: GateEnd };

/** How a gate stopped waiting: decided (approved, rejected), its run ended (cancelled, failed), or not known. */
type GateEnd = 'approved' | 'rejected' | 'cancelled' | 'failed' | null;

/** The gate decisions (approve, reject) recorded for a step, oldest first. */
async function decisionsOf(source: GateSource, executionId: string, stepName: string): Promise<string[]> {
  const events = await source.events(executionId);
  return events.filter((e) => (e.event_type === 'gate_approved' || e.event_type === 'gate_rejected')
    && (e.event_data as { step_name?: unknown } | null)?.step_name === stepName).map((e) => e.event_type);
}

/** How many decisions a step has had so far (taken when its gate is shown). */
export async function decisionsSoFar(source: GateSource, executionId: string, stepName: string): Promise<number> {
  return (await decisionsOf(source, executionId, stepName)).length;
}

/**
 * Whether the gate the person saw still waits: not when it left awaiting_approval, nor when it was decided since and
 * waits again (a redone step: its new submission is not what they saw).
 */
export async function gateNow(source: GateSource, gate: GateSeen): Promise<GateNow> {
  const [status, decisions] = await Promise.all([
    source.workflowStatus(gate.executionId), decisionsOf(source, gate.executionId, gate.stepName),
  ]);
  const waiting = status.steps.some((s) => s.step_name === gate.stepName && s.status === 'awaiting_approval');
  const since = decisions.slice(gate.decisionsSeen ?? 0);
  if (waiting && (gate.decisionsSeen === null || since.length === 0)) return { waiting: true };
  const last = since.at(-1);
  if (last === undefined && status.status === 'failed') return { waiting: false, how: status.cancelled ? 'cancelled' : 'failed' };
  return { waiting: false, how: last === 'gate_approved' ? 'approved' : last === 'gate_rejected' ? 'rejected' : null };
}

/** What the person is told when the gate was decided before their click (or while they wrote their feedback). */
export function alreadyDecided(gate: GateSeen, now: { how: GateEnd }, feedback?: string): string {
  const lost = feedback ? ` Your feedback was not sent: "${feedback}"` : '';
  // A run that ended under the gate was not decided elsewhere: it ended (cancelled by someone, or failed).
  if (now.how === 'cancelled' || now.how === 'failed') {
    return `Baton: "${gate.stepName}" of ${gate.run} no longer waits for a decision: the run ${now.how === 'cancelled' ? 'was cancelled' : 'failed'}; ` +
      `nothing was changed.${lost}`;
  }
  const done = now.how === 'rejected' ? rejectWords(gate.rejection ?? 'redo').done : now.how;
  const how = done ? `was already ${done} elsewhere` : 'no longer waits for a decision';
  return `Baton: "${gate.stepName}" of ${gate.run} ${how}; nothing was changed.${lost}`;
}

/** Decides; false when the gate no longer waited (someone decided first). */
async function decide(source: GateSource, gate: GateSeen, decision: 'approve' | 'reject', feedback?: string): Promise<boolean> {
  try {
    await source.decide({ execution_id: gate.executionId, step_name: gate.stepName, decision, ...(feedback === undefined ? {} : { feedback }) });
    return true;
  } catch (ex) {
    if (BatonError.is(ex, 'invalid_state')) return false;
    throw ex;
  }
}

/** Approve: the gate approved, or the person told it already was decided (and how). */
export async function approveGate(source: GateSource, ui: GateUi, gate: GateSeen): Promise<void> {
  const before = await gateNow(source, gate);
  if (!before.waiting) return ui.info(alreadyDecided(gate, before));
  if (await decide(source, gate, 'approve')) return ui.info(`Baton: "${gate.stepName}" of ${gate.run} approved.`);
  ui.info(alreadyDecided(gate, await settled(source, gate)));
}

/** Reject…: checked before the feedback is asked for, and again (by the decision) once it is typed. */
export async function rejectGate(source: GateSource, ui: GateUi, gate: GateSeen): Promise<void> {
  const before = await gateNow(source, gate);
  if (!before.waiting) return ui.info(alreadyDecided(gate, before));
  const outcome = gate.rejection ?? 'redo';
  const typed = await ui.askFeedback(gate.stepName, outcome);
  if (typed === undefined) return;
  const feedback = typed.trim();
  if (await decide(source, gate, 'reject', feedback)) return ui.info(rejectedMessage(outcome, gate.stepName, gate.run));
  ui.info(alreadyDecided(gate, await settled(source, gate), feedback));
}

/** How a gate someone else decided first ended (a decision refused as no longer waiting). */
async function settled(source: GateSource, gate: GateSeen): Promise<{ how: GateEnd }> {
  const now = await gateNow(source, gate);
  return now.waiting ? { how: null } : now;
}
