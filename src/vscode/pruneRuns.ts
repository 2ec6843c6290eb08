// "Baton: Prune Finished Runs…": count what the owner's retention policy would delete (a dry run), ask, prune, report.
// No 'vscode' import: the window calls come through PruneUi, so the flow is unit-tested with a fake.
import { errorMessage } from '../core/errors.js';
import { describePolicy, mib, type PruneResult, type RetentionPolicy } from '../core/retention.js';
import { plural } from '../shared/labels.js';
import type { BatonSource } from './batonSource.js';

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

/** Why nothing is pruned when both limits are 0, naming where the policy is set. */
function retentionOff(mode: BatonSource['mode']): string {
  return mode === 'owner'
    ? 'Baton: retention is off (baton.retention.days and baton.retention.maxRuns are both 0); no run is pruned.'
    : 'Baton: retention is off for the terminal Baton that owns this database (--retention-days 0 --retention-runs 0); no run is pruned.';
}

/** The modal's question and its detail. */
export function pruneQuestion(dry: PruneResult, mode: BatonSource['mode']): { message: string; detail: string } {
  const owner = mode === 'client'
    ? ' The policy is that of the terminal Baton that owns this database (its --retention-days and --retention-runs), not these settings.'
    : '';
  return {
    message: `Prune ${plural(dry.pruned, 'finished run')} (${describePolicy(dry.policy)})?`,
    detail: `Their steps, artifacts and events are deleted; findings stay. ${plural(dry.kept, 'finished run')} kept; unfinished runs are never pruned.${owner}`,
  };
}

/** What a prune did, for the closing notification. */
export function prunedMessage(r: PruneResult): string {
  const compacted = r.compacted ? `; database compacted from ${mib(r.compacted.beforeBytes)} to ${mib(r.compacted.afterBytes)}` : '';
  return `Baton: pruned ${plural(r.pruned, 'finished run')}; ${r.kept} kept${compacted}.`;
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
  if (policy.days === 0 && policy.maxRuns === 0) return void ui.info(retentionOff(source.mode));
  if (dry.pruned === 0) return void ui.info(`Baton: no finished run is ${describePolicy(policy)}; ${dry.kept} kept.`);
  const { message, detail } = pruneQuestion(dry, source.mode);
  if ((await ui.confirm(message, detail, PRUNE_BUTTON)) !== PRUNE_BUTTON) return undefined;
  let done: PruneResult;
  try {
    // The policy the person confirmed, whatever the owner's is by now; compacting is the core's call.
    done = await ui.progress('Baton: pruning finished runs…', () => source.prune({ days: policy.days, max_runs: policy.maxRuns }));
  } catch (ex) {
    ui.error(`Baton: pruning finished runs failed: ${errorMessage(ex)}`, ex);
    return undefined;
  }
  ui.info(prunedMessage(done));
  return done;
}
