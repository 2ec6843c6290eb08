// Asks the person behind an MCP client to decide a gate (MCP elicitation), alongside the editor and the CLI:
// whichever decides first wins, and the question is withdrawn when the gate is decided elsewhere.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { BatonApi } from '../../core/api.js';
import { decodeTokenUnverified } from '../../core/broker/tokens.js';
import { BatonError } from '../../core/errors.js';
import type { Log } from '../../core/ports.js';
import type { NextStepResponse } from '../../core/types.js';

/**
 * Sessions that have sent the client a request already. The SDK's cancel handler ignores request id 0
 * (`if (!requestId) return`), so a question sent as a session's first request could never be withdrawn:
 * a ping spends that id first.
 */
const spentFirstId = new WeakSet<McpServer>();

/** Who an elicited decision is recorded as. */
export const ELICITATION_ACTOR = 'mcp-elicitation';

/** Asks, if the client can answer forms, for a decision on the step a response left awaiting approval. */
export function elicitGateDecision(server: McpServer, baton: BatonApi, log: Log, res: NextStepResponse): void {
  if (res.status !== 'awaiting_approval' || !res.execution_id || !res.new_step_token) return;
  if (!server.server.getClientCapabilities()?.elicitation) return;
  const step = decodeTokenUnverified(res.new_step_token)?.step_name;
  if (!step) return;
  const executionId = res.execution_id;
  const withdraw = new AbortController();
  const off = baton.onEvent((e) => {
    const decidedElsewhere =
      (e.type === 'step' && e.execution_id === executionId && e.step_name === step && e.status !== 'awaiting_approval') ||
      (e.type === 'execution' && e.execution_id === executionId && (e.status === 'completed' || e.status === 'failed'));
    if (decidedElsewhere) withdraw.abort();
  });
  void (async () => {
    try {
      if (!spentFirstId.has(server)) {
        spentFirstId.add(server);
        await server.server.ping().catch(() => undefined);
      }
      if (withdraw.signal.aborted) return;
      const answer = await server.server.elicitInput(
        {
          message: `Baton: step "${step}" waits for your approval. Approve it to let the workflow go on, or reject it with feedback: the agent redoes the step with your words.`,
          requestedSchema: {
            type: 'object',
            properties: {
              decision: { type: 'string', title: 'Decision', enum: ['approve', 'reject'], enumNames: ['Approve', 'Reject'] },
              feedback: { type: 'string', title: 'Feedback (needed to reject)' },
            },
            required: ['decision'],
          },
        },
        { signal: withdraw.signal, timeout: 24 * 3600_000 },
      );
      if (answer.action !== 'accept' || !answer.content) return;
      const decision = answer.content.decision === 'reject' ? 'reject' : 'approve';
      const feedback = typeof answer.content.feedback === 'string' ? answer.content.feedback : undefined;
      await baton.decide({ execution_id: executionId, step_name: step, decision, feedback, by: ELICITATION_ACTOR });
    } catch (ex) {
      // Decided elsewhere first (withdrawn, or the step moved on): nothing to do.
      if (withdraw.signal.aborted || BatonError.is(ex, 'invalid_state')) return;
      log.warn(`asking the client to decide "${step}" failed`, ex);
    } finally {
      off();
    }
  })();
}
