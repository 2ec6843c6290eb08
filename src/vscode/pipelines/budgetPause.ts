// The notification when a pipeline run pauses at its budget: it waits for a person to raise the budget, and without a
// word from the editor only the status bar's pause icon said so. Its text is pure (unit-tested); the editor's part
// shows it once per pause, with Show (the panel, where "Raise budget and resume" is).
import { isInterruption, type PipelineRunView } from '../../core/pipelines/pipelineRuns.js';
import { budgetReasonText, runName } from '../../shared/labels.js';

/** What the notification says of a run paused at its budget; null for any other run (running, interrupted, …). */
export function budgetPauseMessage(view: Pick<PipelineRunView, 'runId' | 'system' | 'input' | 'status' | 'pauseReason'>): string | null {
  if (view.status !== 'paused' || isInterruption(view.pauseReason)) return null;
  const why = view.pauseReason === null ? 'it reached its budget' : budgetReasonText(view.pauseReason);
  return `Baton: ${runName(view.system.name, view.input)} paused at its budget (${why}; run ${view.runId.slice(0, 8)}). ` +
    'Raise the budget and resume it from its panel, or with baton pipeline resume.';
}
