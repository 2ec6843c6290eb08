// The `broker` group: the spec's broker tool, listed as `workflow_next_step` because clients refuse dots in tool names.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BatonApi } from '../../core/api.js';
import { recoveryFor } from '../../core/broker/brokerErrors.js';
import { NEXT_STEP_TOOL, resultText } from '../../core/broker/stepText.js';
import { BatonError } from '../../core/errors.js';
import type { Log } from '../../core/ports.js';
import type { NextStepRequest, NextStepResponse } from '../../core/types.js';
import { misspeltKeys, tooDeepResult } from '../inputErrors.js';
import { requestKeyOf } from '../requestKey.js';
import type { ToolCallExtra, ToolSpec } from '../toolSpec.js';
import { fastParseNextStep } from './nextStepFastParse.js';
import { NEXT_STEP_FIELD_HINTS, modelOutputSchema, nextStepInputSchema, nextStepOutputSchema } from './nextStepSchema.js';
import { elicitGateDecision } from './gateElicitation.js';
import { gateWait } from './gateProgress.js';

/** The listed name (OpenAI-compatible: `^[a-zA-Z0-9_-]+$`). */
export { NEXT_STEP_TOOL };
/** The spec's spelling, still accepted by `tools/call` as an alias. */
export const NEXT_STEP_TOOL_SPEC_NAME = 'workflow.next_step';

const DESCRIPTION = `Baton's workflow broker: it hands you one step at a time, with a contract saying what you may and may not do, and records what you submit. Always do exactly one step per token.

How to call it:
- Start a workflow: {"template_name": "bug-fix", "task_description": "what to fix"} (names: resource available-workflows://all).
- Finish your step and get the next one: {"step_token": "<new_step_token from your last result>", "model_output_so_far": {"summary": "...", "artifacts": [{"type": "markdown", "title": "...", "content": "..."}], "references": ["path/file.ts"], "confidence": 0.8}}.
- Claim a parallel ready step of a running workflow: {"task_id": "<task_id or execution_id>"}; {} (no arguments) does the same for the workflow that is active in this project, e.g. one the user started in the editor.
- Your token expired but the step is still yours: {"request": "refresh_token", "step_token": "<old token>"}.
- You lost the token of the step you hold (e.g. your context was compacted): {"request": "reclaim", "task_id": "<task_id>"} hands it to you again, on this same connection.
- Run a spec's tasks.md phase by phase: {"template_name": "spec_execution_v1", "source": "specs/auth/tasks.md"}; submit each phase with "evidence": {"1": "...", "2": "..."} (one entry per validation-gate item); read a task not listed in full with {"request": "get_task", "step_token": "...", "task_number": 3}.

What the result's status means:
- ok: do the step in next_step_contract (allowed_actions only, never forbidden_actions), produce required_output_format, then call again with new_step_token and your model_output_so_far. context carries the task, your persona, guardrails and the artifacts you depend on.
- awaiting_approval: a person must approve the step before the workflow goes on. Tell the user, and call again with only the same step_token to wait for the decision. If they reject it, the step comes back with their feedback.
- no_op: nothing to do right now (e.g. other agents hold the ready steps); wait and retry later.
- task_closed: the workflow is finished; synthesis holds the outcome.
- error: error.message says what went wrong, error.recovery what to do, and error.next_call (when present) the arguments of the call that recovers; rate_limited comes with retry_after_ms.

The text of each result says the same in words, with the exact arguments of the next call on its "Next call:" line.`;

/** Registers the broker tools; returns their specs for input pre-validation and aliases. */
/** The fields of model_output_so_far, against which a misspelt key is told apart from an agent's own extra one. */
const OUTPUT_FIELDS = Object.keys(modelOutputSchema.shape);

export function registerBrokerTools(
  server: McpServer, baton: BatonApi, log: Log, clientName: () => string | undefined, gateProgressMs: number, sessionId: string,
  holderPid?: number,
): ToolSpec[] {
  const call = async (args: Record<string, unknown>, extra?: ToolCallExtra): Promise<CallToolResult> => {
    const gate = gateWait(extra, gateProgressMs);
    try {
      const ctx = { client_name: clientName(), session_id: sessionId, holder_pid: holderPid, request_key: requestKeyOf(extra) };
      const res = await baton.nextStep(args as NextStepRequest, ctx, gate.wait);
      // Only when the step has just been submitted: polling calls do not ask again.
      if ((args as NextStepRequest).model_output_so_far) elicitGateDecision(server, baton, log, res);
      return toResult(res);
    } catch (ex) {
      if (BatonError.is(ex)) {
        // Thrown before the core answers (a malformed request key): the same recovery as the core's own errors.
        return toResult({ status: 'error', error: { code: ex.reason, message: ex.message, recovery: recoveryFor(ex.reason) } });
      }
      const tooDeep = tooDeepResult(NEXT_STEP_TOOL, ex);
      if (tooDeep) return tooDeep;
      log.error(`${NEXT_STEP_TOOL} failed`, ex);
      return { isError: true, content: [{ type: 'text', text: "internal error; see Baton's log" }] };
    } finally {
      gate.stop();
    }
  };
  server.registerTool(
    NEXT_STEP_TOOL,
    {
      title: 'Workflow: next step',
      description: DESCRIPTION,
      inputSchema: nextStepInputSchema,
      outputSchema: nextStepOutputSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      // Claude Code defers MCP tools behind its ToolSearch by default (the model sees only the name and must search
      // before its first call); Baton's one entry point is loaded up front, as every tool Baton's own runners start.
      _meta: { 'anthropic/alwaysLoad': true },
    },
    call,
  );
  return [
    {
      name: NEXT_STEP_TOOL,
      aliases: [NEXT_STEP_TOOL_SPEC_NAME],
      inputSchema: nextStepInputSchema,
      hints: NEXT_STEP_FIELD_HINTS,
      // An agent's own extra keys in its output pass (and are dropped); a misspelt one (`findigs`) would lose data.
      misspelt: (args) => misspeltKeys(args.model_output_so_far, 'model_output_so_far', OUTPUT_FIELDS),
      fastParse: fastParseNextStep,
      // As every other refusal of workflow_next_step: `error` in the structured form too, not only the text.
      structuredError: (message) => ({ status: 'error', error: { code: 'invalid_input', message, recovery: 'fix the fields named and call workflow_next_step again' } }),
      call,
    },
  ];
}

/**
 * A core response as a tool result: the structured form, and the text form for clients that forward only the text
 * (each usable alone: the text carries the status, ids, token and the next call's arguments).
 */
function toResult(res: NextStepResponse): CallToolResult {
  const structuredContent = res as unknown as Record<string, unknown>;
  const content: CallToolResult['content'] = [{ type: 'text', text: resultText(res) }];
  return res.status === 'error' ? { isError: true, structuredContent, content } : { structuredContent, content };
}
