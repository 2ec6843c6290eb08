// Maps domain errors to the spec's `status: 'error'` response, each with the call that recovers.
import type { BatonError } from '../errors.js';
import type { NextStepResponse } from '../types.js';

const RECOVERY: Partial<Record<string, string>> = {
  token_expired: "call workflow_next_step({ request: 'refresh_token', step_token }) to get a fresh token for the same step",
  token_malformed: 'pass the exact new_step_token string from the last response',
  token_forged: 'pass the exact new_step_token string from the last response, or read current-step://active',
  token_replayed: 'use the new_step_token from the response to the call that used this token, or read current-step://active',
  token_out_of_order: 'read current-step://active, then claim the next ready step with workflow_next_step({ task_id })',
  token_wrong_execution: 'use the token that belongs to that execution, or drop task_id',
  rate_limited: 'wait retry_after_ms milliseconds, then repeat the same call',
  template_not_found: 'read available-workflows://all and pass one of its names as template_name',
  execution_not_found: 'read project-context://current for the active task, or start a workflow with template_name',
  invalid_state: 'read current-step://active to see what the workflow is waiting for',
  invalid_input: 'fix the request as the message says and call again',
};

/** Turns a domain error into the spec's `status: 'error'` response. */
export function errorResponse(ex: BatonError): NextStepResponse {
  const retry = ex.details.retry_after_ms;
  return {
    status: 'error',
    execution_id: typeof ex.details.execution_id === 'string' ? ex.details.execution_id : undefined,
    error: {
      code: ex.reason, message: ex.message, recovery: RECOVERY[ex.reason] ?? 'see the message',
      ...(typeof retry === 'number' ? { retry_after_ms: retry } : {}),
    },
  };
}
