// Rule: the call log keeps what a successful call's response says (status, ids, names, the first words of each text,
// the size of each list) but not a copy of Baton's own output, which the database holds anyway; a failed call's
// response and every request stay as they were, redacted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeBaton, okStep, output } from '../helpers/coreHarness.js';

type Row = { request_full: string; response_full: string; response_size_bytes: number; success: number };

describe('call log', () => {
  it("keeps the outline of a successful call's response, with its full size", async () => {
    const { baton } = await makeBaton();
    const { token } = okStep(await baton.nextStep({ template_name: 'bug-fix', task_description: 'the login page returns 500' }));
    const request = { step_token: token, model_output_so_far: output('found it', 'Root cause', { summary: `long summary ${'words '.repeat(100)}` }) };
    const message = `# Workflow Step: implement-fix\n\n${'Change the code so that the session cookie survives. '.repeat(20)}`;
    const response = {
      status: 'ok', execution_id: 'exec-1', task_id: 'task-1', new_step_token: token, progress: 0.25, human_message: message,
      next_step_contract: { step_name: 'implement-fix', allowed_actions: ['a', 'b', 'c'], human_gate_required: false },
      context: { persona_uri: 'persona://implementer', guardrails: ['x', 'y'], selection: { scores: { a: 1 } } },
    };
    baton.logCall({ call_type: 'tool', name: 'workflow_next_step', request, response, duration_ms: 2, success: true });
    await baton.flushCalls();
    const row = baton.recentCalls(1)[0] as Row;

    assert.equal(row.response_size_bytes, JSON.stringify(response).length);
    assert.deepEqual(JSON.parse(row.response_full), {
      status: 'ok', execution_id: 'exec-1', task_id: 'task-1', new_step_token: '[REDACTED]', progress: 0.25,
      human_message: `${message.slice(0, 200).replace(/[A-Za-z0-9_\-+/=.]{1,256}$/, '')}... (${message.length} chars)`,
      next_step_contract: { step_name: 'implement-fix', allowed_actions: '[3 items]', human_gate_required: false },
      context: { persona_uri: 'persona://implementer', guardrails: '[2 items]', selection: '{1 fields}' },
    });

    // The request is kept as the agent sent it (redacted).
    const sent = JSON.parse(row.request_full) as { step_token: string; model_output_so_far: { summary: string } };
    assert.equal(sent.model_output_so_far.summary, request.model_output_so_far.summary);
    assert.equal(sent.step_token, '[REDACTED]');
  });

  it('writes a few entries after a quarter second, and a batch of 16 on the next turn', async () => {
    const { baton } = await makeBaton();
    const log = (i: number) => baton.logCall({ call_type: 'tool', name: `t${i}`, request: {}, response: { status: 'ok' }, duration_ms: 1, success: true });
    const logged = () => baton.recentCalls(100).length;
    const turn = () => new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 0; i < 3; i++) log(i);
    await turn();
    assert.equal(logged(), 0, 'three entries wait for the timer');
    for (let i = 3; i < 16; i++) log(i);
    await turn();
    assert.equal(logged(), 16, 'a full batch is written at once, with the ones that waited');
    log(16);
    await turn();
    assert.equal(logged(), 16, 'the next one waits for the timer again');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(logged(), 17);
  });

  it("keeps a failed call's response whole", async () => {
    const { baton } = await makeBaton();
    const res = await baton.nextStep({ template_name: 'no-such-workflow' });
    assert.equal(res.status, 'error');
    const response = { ...res, detail: `why: ${'because '.repeat(60)}` };
    baton.logCall({ call_type: 'tool', name: 'workflow_next_step', request: { template_name: 'no-such-workflow' }, response, duration_ms: 1, success: false });
    await baton.flushCalls();
    const row = baton.recentCalls(1)[0] as Row;
    assert.deepEqual(JSON.parse(row.response_full), JSON.parse(JSON.stringify(response)));
  });
});
