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
  const [active, newest] = await Promise.all([listUnfinished(source), source.listExecutions({ limit: recent })]);
  return mergeRuns(active, newest, recent);
}

/** Every unfinished run, newest first (what the status bar and the step pickers need). */
export function listUnfinished(source: Pick<BatonSource, 'listExecutions'>): Promise<ExecutionSummary[]> {
  return source.listExecutions({ active_only: true, limit: ALL_ACTIVE });
}

/** The listing of `newest` (the newest `recent` runs) and the unfinished runs older than them. */
export function mergeRuns(active: ExecutionSummary[], newest: ExecutionSummary[], recent: number): RunListing {
  const seen = new Set(newest.map((e) => e.execution_id));
  const older = active.filter((e) => !seen.has(e.execution_id));
  return { executions: [...newest, ...older], more: newest.length >= recent };
}
