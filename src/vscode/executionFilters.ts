// Which executions a command offers in its picker. No 'vscode' import (unit-tested).
import type { ExecutionSummary } from '../core/api.js';

/** Whether an execution can still change. */
export function isActive(e: ExecutionSummary): boolean {
  return e.status !== 'completed' && e.status !== 'failed';
}

/** An unfinished run whose steps agents (or a person) claim and submit: not a pipeline run or team run, which Baton drives. */
export function isSteppable(e: ExecutionSummary): boolean {
  return isActive(e) && e.kind !== 'pipeline' && e.kind !== 'worker';
}

/** A workflow run with a step an agent asking by task id is given now (the Copy Agent Prompt prompt asks that way). */
export function hasReadyStep(e: ExecutionSummary): boolean {
  return isSteppable(e) && e.steps.some((s) => s.status === 'ready');
}

/** Paused, or a pipeline run the process that drove it left (orphaned): it waits for a person to resume it. */
export function waitsForResume(e: ExecutionSummary): boolean {
  return e.status === 'paused' || e.orphaned === true;
}
