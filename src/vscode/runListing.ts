// What the tree, the pickers and the status bar list: every unfinished run, however many and however old, then the
// newest finished ones. A single newest-N listing let old runs still waiting at a gate or holding a step fall out of
// them once N newer runs existed. No 'vscode' import (unit-tested).
import type { ExecutionSummary } from '../core/api.js';
import type { BatonSource } from './batonSource.js';

/** A limit no real database reaches: unfinished runs are all listed (the idle ones are cancelled by retention). */
export const ALL_ACTIVE = 100_000;
/** How many of the newest runs, finished or not, a listing holds besides the unfinished ones. */
export const RECENT_RUNS = 200;
/** The runs the Show Execution picker offers (retention keeps 1000 finished runs by default). */
export const PICKER_RUNS = 1000;

/** The unfinished runs and the newest `recent`, newest first; `more`: older runs exist beyond them. */
export interface RunListing {
  executions: ExecutionSummary[];
  more: boolean;
}

/** Lists every unfinished run and the newest `recent` runs, without duplicates, newest first. */
export async function listRuns(source: Pick<BatonSource, 'listExecutions'>, recent = RECENT_RUNS): Promise<RunListing> {
  const [active, newest] = await Promise.all([
    source.listExecutions({ active_only: true, limit: ALL_ACTIVE }),
    source.listExecutions({ limit: recent }),
  ]);
  const seen = new Set(newest.map((e) => e.execution_id));
  const older = active.filter((e) => !seen.has(e.execution_id));
  return { executions: [...newest, ...older], more: newest.length >= recent };
}
