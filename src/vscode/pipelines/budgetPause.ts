// The notification when a pipeline run pauses at its budget: it waits for a person to raise the budget, and without a
// word from the editor only the status bar's pause icon said so. What it says, and reading the run for it, are here
// (no 'vscode' import: unit-tested); the editor shows it once per pause, with Show (the panel: Raise budget and resume).
import { BatonError } from '../../core/errors.js';
import { isBudgetPause, type PipelineRunView } from '../../core/pipelines/pipelineRuns.js';
import { budgetReasonText, runName } from '../../shared/labels.js';

type PausedView = Pick<PipelineRunView, 'runId' | 'system' | 'input' | 'status' | 'pauseReason'>;

/** What the notification says of a run paused at its budget; null for any other run (running, interrupted, …). */
export function budgetPauseMessage(view: PausedView): string | null {
  if (!isBudgetPause(view)) return null;
  const why = view.pauseReason === null ? 'it reached its budget' : budgetReasonText(view.pauseReason);
  return `Baton: ${runName(view.system.name, view.input)} paused at its budget (${why}; run ${view.runId.slice(0, 8)}). ` +
    'Raise the budget and resume it from its panel, or with baton pipeline resume.';
}

/** How many times the run is read while its owner does not answer, a second apart. */
const READS = 6;

/**
 * The notification's text for an execution that just paused, read with `view` (null: not a pipeline run, or not
 * paused at its budget). The owner that paused the run may have ended with it (a terminal's `baton pipeline run`
 * exits as its run pauses): while it does not answer, the run is read again, a second apart, from whichever process
 * owns the database by then (this window, once it has taken over).
 */
export async function budgetPauseOf(
  view: (runId: string) => Promise<PausedView>, runId: string, wait = (ms: number) => new Promise((r) => setTimeout(r, ms)),
): Promise<string | null> {
  for (let read = 1; ; read++) {
    try {
      return budgetPauseMessage(await view(runId));
    } catch (ex) {
      if (BatonError.is(ex, 'execution_not_found')) return null; // a paused workflow or team run
      if (!BatonError.is(ex, 'owner_unreachable') || read === READS) throw ex;
      await wait(1000);
    }
  }
}
