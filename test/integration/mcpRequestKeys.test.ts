// Rule: through a real MCP client, a start's request key travels in the request's `_meta` ("dev.baton/request-key"),
// on the fast path of plain calls: the same start sent again with it (workflow_next_step or start_execution) starts
// no second run but answers with the first; a malformed key is refused with what to send instead.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NextStepResponse } from '../../src/core/types.js';
import { plainToolCall } from '../../src/mcp/jsonRpc.js';
import { REQUEST_KEY_META } from '../../src/mcp/requestKey.js';
import { openLifecycle, type LifecycleRig } from '../helpers/lifecycleHarness.js';

describe('request keys through an MCP client', () => {
  let rig: LifecycleRig;
  const runs = () => rig.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM executions')!.n;
  const call = (name: string, args: Record<string, unknown>, key: unknown) =>
    rig.client.callTool({ name, arguments: args, _meta: { [REQUEST_KEY_META]: key } });

  before(async () => {
    rig = await openLifecycle({ groups: ['broker', 'lifecycle'] });
  });
  after(() => rig.close());

  it('workflow_next_step: the same key twice is one run and the same answer', async () => {
    const start = { template_name: 'bug-fix', task_description: 'keyed' };
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'workflow_next_step', arguments: start, _meta: { [REQUEST_KEY_META]: 'k' } } };
    assert.ok(plainToolCall(request), 'a keyed start stays on the fast path');
    const before = runs();
    const first = (await call('workflow_next_step', start, 'mcp-key-1')).structuredContent as unknown as NextStepResponse;
    const again = (await call('workflow_next_step', start, 'mcp-key-1')).structuredContent as unknown as NextStepResponse;
    assert.equal(runs(), before + 1);
    assert.equal(again.status, 'ok', JSON.stringify(again));
    assert.equal(again.execution_id, first.execution_id);
    assert.equal(again.new_step_token, first.new_step_token);
  });

  it('start_execution: the same key twice is one execution', async () => {
    const before = runs();
    const first = (await call('start_execution', { workflowName: 'bug-fix' }, 'mcp-key-2')).structuredContent as { id: string };
    const again = (await call('start_execution', { workflowName: 'bug-fix' }, 'mcp-key-2')).structuredContent as { id: string };
    assert.equal(runs(), before + 1);
    assert.equal(again.id, first.id);
  });

  it('a malformed key is refused, saying what to send', async () => {
    const before = runs();
    const r = await call('workflow_next_step', { template_name: 'bug-fix' }, 42);
    assert.equal(r.isError, true);
    assert.match(JSON.stringify(r.content), /_meta \\"dev\.baton\/request-key\\" must be a string of 1 to 200 characters \(a new UUID for each start\)/);
    const lc = await call('start_execution', { workflowName: 'bug-fix' }, '');
    assert.equal(lc.isError, true);
    assert.equal(runs(), before, 'nothing started');
  });
});
