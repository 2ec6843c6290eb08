// Maps domain errors to the spec's `status: 'error'` response, each with the call that recovers.
import type { BatonError } from '../errors.js';
import type { NextStepRequest, NextStepResponse } from '../types.js';
import type { ExecutionRow, StepState } from './executionRepo.js';
import { decodeTokenUnverified } from './tokens.js';

const RECOVERY: Partial<Record<string, string>> = {
  token_expired: 'call workflow_next_step with {"request": "refresh_token", "step_token": <this token>} to get a fresh token for the same step (for a token already used: that call\'s answer again)',
  token_malformed: 'pass the exact new_step_token string from the last result',
  token_forged: 'pass the exact new_step_token string from the last result, or read current-step://active',
  token_replayed: 'use the new_step_token from the result of the call that used this token, or read current-step://active',
  token_out_of_order: 'use the latest new_step_token you got for the current step, or claim the next ready step with workflow_next_step({ task_id })',
  token_wrong_execution: 'use the token that belongs to that execution, or drop task_id',
  rate_limited: 'wait retry_after_ms milliseconds, then repeat the same call',
  template_not_found: 'read available-workflows://all and pass one of its names as template_name',
  execution_not_found: 'read project-context://current for the active task, or start a workflow with template_name',
  invalid_state: 'read current-step://active to see what the workflow is waiting for',
  invalid_input: 'fix the request as the message says and call again',
};

/** What an agent does about an error of this reason (`error.recovery` of the spec's error response). */
export function recoveryFor(reason: string): string {
  return RECOVERY[reason] ?? 'see the message';
}

/** Turns a domain error into the spec's `status: 'error'` response (a `next_call` in its details is passed on). */
function errorResponse(ex: BatonError): NextStepResponse {
  const retry = ex.details.retry_after_ms;
  const call = ex.details.next_call;
  return {
    status: 'error',
    execution_id: typeof ex.details.execution_id === 'string' ? ex.details.execution_id : undefined,
    error: {
      code: ex.reason, message: ex.message, recovery: recoveryFor(ex.reason),
      ...(typeof retry === 'number' ? { retry_after_ms: retry } : {}),
      ...(call && typeof call === 'object' ? { next_call: call as Record<string, unknown> } : {}),
    },
  };
}

/** Token refusals that, for a run that has ended unfinished, mean only that it has: no refresh or retry helps. */
const ENDED_TOKEN_ERRORS = new Set(['token_expired', 'token_out_of_order', 'token_replayed']);

/** Errors that concern no execution, or (rate_limited) must stay cheap to answer. */
const PLAIN = new Set(['rate_limited', 'invalid_input', 'template_not_found']);

/**
 * The error answer for a call; for an error about a known execution (named by the error, the token or task_id),
 * where it stands and the call that recovers when the caller can make it. `find` looks an execution up.
 */
export function errorResult(
  ex: BatonError, req: NextStepRequest, find: (id: string) => { exec: ExecutionRow; steps: StepState[] } | undefined,
): NextStepResponse {
  const res = errorResponse(ex);
  if (!res.error || PLAIN.has(ex.reason)) return res;
  const id = res.execution_id ?? (req.step_token ? decodeTokenUnverified(req.step_token)?.execution_id : undefined) ?? req.task_id;
  const found = id ? find(id) : undefined;
  if (!found) return res;
  const { exec, steps } = found;
  res.execution_id = exec.execution_id;
  res.task_id = exec.task_id ?? undefined;
  res.error.current_step = describeCurrent(exec, steps);
  if (exec.status === 'failed' && ENDED_TOKEN_ERRORS.has(ex.reason)) {
    // An agent back at a run that was cancelled (by a person, or for being idle) or failed: say so, not "refresh".
    res.error.message = endedMessage(exec);
    res.error.recovery = 'start a new workflow with template_name (see available-workflows://all); this one has ended';
    delete res.error.next_call;
    return res;
  }
  const call = res.error.next_call ?? recoveryCall(ex, req, exec, steps);
  if (call) res.error.next_call = call;
  return res;
}

/** How a run that ended unfinished ended: cancelled (why, by whom, when) or failed. */
function endedMessage(exec: ExecutionRow): string {
  const c = exec.metadata.cancelled as { reason?: unknown; by?: unknown; at?: unknown } | undefined;
  const how = c
    ? `was cancelled${typeof c.at === 'string' ? ` at ${c.at}` : ''}${typeof c.by === 'string' ? ` by ${c.by}` : ''}${typeof c.reason === 'string' ? ` (${c.reason})` : ''}`
    : 'has failed';
  return `Execution ${exec.execution_id} ${how}; its steps no longer move and this token is of no further use. Read workflow-status://${exec.execution_id} for what it did, or start a new workflow with template_name.`;
}

/** Where an execution stands, for an error about it: its steps in flight, or how it ended. */
function describeCurrent(exec: ExecutionRow, steps: StepState[]): string {
  if (exec.status === 'completed' || exec.status === 'failed') return `none (execution ${exec.status})`;
  const open = steps.filter((s) => s.status === 'running' || s.status === 'awaiting_approval' || s.status === 'ready');
  return open.length ? open.map((s) => `${s.step_name} (${s.status})`).join(', ') : `none (execution ${exec.status})`;
}

/** The call that recovers from a token error when the caller can make it with what it has; undefined when none can. */
function recoveryCall(ex: BatonError, req: NextStepRequest, exec: ExecutionRow, steps: StepState[]): Record<string, unknown> | undefined {
  if (ex.reason === 'token_expired' && req.step_token) return { request: 'refresh_token', step_token: req.step_token };
  if (!ex.reason.startsWith('token_') || ex.reason === 'token_wrong_execution') return undefined;
  if (exec.status === 'completed' || exec.status === 'failed') return undefined;
  // The caller's token no longer applies: a step that is ready can be claimed with the execution id.
  return steps.some((s) => s.status === 'ready') ? { task_id: exec.execution_id } : undefined;
}
