// The one execution state machine every kind of run follows: the lifecycle spec's transitions plus the broker's
// `paused` and `awaiting_approval`. Every status write (broker, gates, cancel, lifecycle tools) goes through it.
import { BatonError } from './errors.js';
import type { ExecutionStatus } from './types.js';

/** Every execution state. */
export const EXECUTION_STATES: readonly ExecutionStatus[] = [
  'pending', 'running', 'paused', 'awaiting_approval', 'timeout', 'escalated', 'completed', 'failed',
];

/**
 * Allowed transitions (a state to itself is always allowed: it changes nothing).
 *
 * | from              | to                                                                   | who                                     |
 * | ----------------- | -------------------------------------------------------------------- | --------------------------------------- |
 * | pending           | running, failed                                                      | spec                                    |
 * | running           | completed, failed, timeout, escalated, paused, awaiting_approval     | spec + broker (gate, pause)             |
 * | paused            | running, failed                                                      | resume or cancel                        |
 * | awaiting_approval | running, completed, failed                                           | approve / reject; last gate closes it   |
 * | timeout           | running, failed                                                      | spec (resumption)                       |
 * | escalated         | running, completed, failed                                           | spec                                    |
 * | completed, failed | —                                                                    | terminal                                |
 */
export const EXECUTION_TRANSITIONS: Readonly<Record<ExecutionStatus, readonly ExecutionStatus[]>> = {
  pending: ['running', 'failed'],
  running: ['completed', 'failed', 'timeout', 'escalated', 'paused', 'awaiting_approval'],
  paused: ['running', 'failed'],
  awaiting_approval: ['running', 'completed', 'failed'],
  timeout: ['running', 'failed'],
  escalated: ['running', 'completed', 'failed'],
  completed: [],
  failed: [],
};

/** Terminal states. */
export const TERMINAL_STATES: readonly ExecutionStatus[] = ['completed', 'failed'];
/** States `resume_execution` accepts. */
export const RESUMABLE_STATES: readonly ExecutionStatus[] = ['timeout', 'escalated', 'paused'];

/** Whether an execution in `status` moves: its steps run or wait at a gate (not paused, timed out, escalated or over). */
export function isMoving(status: string): boolean {
  return status === 'running' || status === 'awaiting_approval';
}

/** Whether `from → to` is allowed (a state to itself always is). */
export function canTransition(from: ExecutionStatus, to: ExecutionStatus): boolean {
  return from === to || (EXECUTION_TRANSITIONS[from]?.includes(to) ?? false);
}

/** Checks `from → to`; throws an `invalid_state` BatonError naming the allowed targets. */
export function assertTransition(executionId: string, from: ExecutionStatus, to: ExecutionStatus): void {
  if (canTransition(from, to)) return;
  const allowed = EXECUTION_TRANSITIONS[from] ?? [];
  const options = allowed.length
    ? `From ${from} it can go to: ${allowed.join(', ')}.`
    : `${from} is a terminal state; start a new execution instead.`;
  throw new BatonError('invalid_state', `Execution ${executionId} cannot go from ${from} to ${to}. ${options}`, { from, to, allowed: [...allowed] });
}
