// "Baton: Prune Finished Runs…": count what the owner's retention policy would delete and cancel (a dry run), ask,
// prune, report.
// No 'vscode' import: the window calls come through PruneUi, so the flow is unit-tested with a fake.
import { errorMessage } from '../core/errors.js';
import { describeIdle, describePolicy, mib, pruningOff, retentionOff, type PruneResult, type RetentionPolicy } from '../core/retention.js';
import { keptText, plural } from '../shared/labels.js';
import type { BatonSource } from './batonSource.js';

/** `text` with its first letter in capitals (a sentence of its own). */
function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What the flow asks of the editor's window (and log). */
export interface PruneUi {
  info(message: string): void;
  /** A modal warning with one action button; resolves to the button picked, undefined when dismissed. */
  confirm(message: string, detail: string, button: string): Promise<string | undefined>;
  /** Shows (and logs) what failed. */
  error(message: string, ex: unknown): void;
  /** Runs `task` under a progress notification titled `title`. */
  progress<T>(title: string, task: () => Promise<T>): Promise<T>;
}

/** The modal's action button. */
export const PRUNE_BUTTON = 'Prune';

/** Why nothing is pruned or cancelled when every limit is 0, naming where the policy is set. */
function offMessage(mode: BatonSource['mode']): string {
  return mode === 'owner'
    ? 'Baton: retention is off (baton.retention.days, maxRuns and idleDays are all 0); no run is pruned or cancelled.'
    : 'Baton: retention is off for the terminal Baton that owns this database (--retention-days 0 --retention-runs 0 --retention-idle-days 0); no run is pruned or cancelled.';
}

/**
 * `Prune 3 finished runs (older than 30 days) and mark 2 unfinished runs idle for more than 30 days as cancelled`,
 * or either half, with the verbs given. (Not "cancel": the modal's own dismiss button is Cancel.)
 */
function whatGoes(r: PruneResult, prune: string, mark: string): string {
  return [
    r.pruned ? `${prune} ${plural(r.pruned, 'finished run')} (${describePolicy(r.policy)})` : '',
    r.cancelled ? `${mark} ${plural(r.cancelled, 'unfinished run')} ${describeIdle(r.policy)} as cancelled` : '',
  ].filter(Boolean).join(' and ');
}

/** The modal's question and its detail. */
export function pruneQuestion(dry: PruneResult, mode: BatonSource['mode']): { message: string; detail: string } {
  const owner = mode === 'client'
    ? ' The policy is that of the terminal Baton that owns this database (its --retention-days, --retention-runs and --retention-idle-days), not these settings.'
    : '';
  const deleted = dry.pruned ? 'Their steps, artifacts and events are deleted; findings stay. ' : '';
  const cancelled = dry.cancelled ? 'The cancelled runs stay as finished runs, pruned later by the same policy. ' : '';
  const question = whatGoes(dry, 'Prune', dry.pruned ? 'mark' : 'Mark');
  return {
    message: `${question}?`,
    detail: `${deleted}${cancelled}${capitalized(keptText(dry.kept, true))}; unfinished runs with recent activity are never touched.${owner}`,
  };
}

/** What a prune did, for the closing notification. */
export function prunedMessage(r: PruneResult): string {
  const compacted = r.compacted ? `; database compacted from ${mib(r.compacted.beforeBytes)} to ${mib(r.compacted.afterBytes)}` : '';
  const done = r.pruned || r.cancelled ? whatGoes(r, 'pruned', 'marked') : `pruned ${plural(0, 'finished run')}`;
  return `Baton: ${done}; ${keptText(r.kept)}${compacted}.`;
}

/** The whole flow; resolves to what the prune did, or undefined when it did not prune (nothing to, declined, failed). */
export async function pruneRuns(source: Pick<BatonSource, 'mode' | 'prune'>, ui: PruneUi): Promise<PruneResult | undefined> {
  let dry: PruneResult;
  try {
    dry = await source.prune({ dry_run: true });
  } catch (ex) {
    ui.error(`Baton: could not count the finished runs to prune: ${errorMessage(ex)}`, ex);
    return undefined;
  }
  const policy: RetentionPolicy = dry.policy;
  if (retentionOff(policy)) return void ui.info(offMessage(source.mode));
  if (!dry.pruned && !dry.cancelled) { // (an owner older than idle cancelling answers no `cancelled`)
    // None kept means none finished: there is nothing to prune, rather than "0 kept".
    const finished = pruningOff(policy) ? 'pruning finished runs is off'
      : dry.kept ? `no finished run is ${describePolicy(policy)}` : 'there is no finished run to prune';
    const idle = policy.idleDays ? `${dry.kept ? '' : ','} and no unfinished run is ${describeIdle(policy)}` : '';
    return void ui.info(`Baton: ${finished}${idle}${dry.kept ? `; ${keptText(dry.kept)}` : ''}.`);
  }
  const { message, detail } = pruneQuestion(dry, source.mode);
  if ((await ui.confirm(message, detail, PRUNE_BUTTON)) !== PRUNE_BUTTON) return undefined;
  let done: PruneResult;
  try {
    // The policy the person confirmed, whatever the owner's is by now; compacting is the core's call.
    done = await ui.progress('Baton: pruning finished runs…', () => source.prune({ days: policy.days, max_runs: policy.maxRuns, idle_days: policy.idleDays }));
  } catch (ex) {
    ui.error(`Baton: pruning finished runs failed: ${errorMessage(ex)}`, ex);
    return undefined;
  }
  ui.info(prunedMessage(done));
  return done;
}
