// What the panel's one live region says when a run changes: only what a person acts on or waits for (a step starts
// waiting for their decision, the run ends or pauses, a spec's tasks.md drifts; the editor's errors are said there
// too). Agents' progress, timeline events, output and messages say nothing: a run with agents at work would otherwise
// talk over everything else the screen reader reads.
import { plural, statusText } from '../src/shared/labels.js';
import type { PanelState } from '../src/shared/protocol.js';

type Announced = Pick<PanelState, 'executionId' | 'status' | 'cancelled' | 'awaiting' | 'endReason'> & {
  pipeline?: { pausedForBudget: string | null } | null;
  spec?: { source: string; drift: { state: string } } | null;
};

function ended(s: Announced): string | null {
  if (s.status === 'failed') {
    const how = statusText(s.status, s.cancelled);
    return s.endReason ? `Run ${how}: ${s.endReason}.` : `Run ${how}.`;
  }
  if (s.status === 'paused') return s.pipeline?.pausedForBudget ? 'Run paused: budget exceeded.' : 'Run paused.';
  return s.status === 'completed' ? 'Run completed.' : null;
}

/**
 * The sentence for the change from `before` to `after`, or null for none. A first render (or another execution) says
 * nothing: the page itself is read then.
 */
export function announcement(before: Announced | null, after: Announced): string | null {
  if (!before || before.executionId !== after.executionId) return null;
  const parts: string[] = [];
  const newlyWaiting = after.awaiting.filter((a) => !before.awaiting.includes(a));
  if (newlyWaiting.length === 1) parts.push(`${newlyWaiting[0]} waits for your decision.`);
  else if (newlyWaiting.length > 1) parts.push(`${plural(newlyWaiting.length, 'step')} wait for your decision: ${newlyWaiting.join(', ')}.`);
  const was = before.status === 'failed' ? statusText(before.status, before.cancelled) : before.status;
  const now = after.status === 'failed' ? statusText(after.status, after.cancelled) : after.status;
  if (now !== was) {
    const end = ended(after);
    if (end) parts.push(end);
  }
  const drift = after.spec?.drift.state;
  if (drift && drift !== 'in_sync' && drift !== before.spec?.drift.state) {
    parts.push(drift === 'missing' ? `${after.spec!.source} is gone.` : `${after.spec!.source} has changed since this workflow started.`);
  }
  return parts.length ? parts.join(' ') : null;
}
