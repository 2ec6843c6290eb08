// Rule: through a real MCP client, a start's request key travels in the request's `_meta` ("dev.baton/request-key"),
// on the fast path of plain calls: the same start sent again with it (workflow_next_step, start_execution or
// start_workflow) starts no second run but answers with the first; a malformed key is refused with what to send
// instead. Each of these starts is one `baton mcp` adds a key to and may send again.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { SpecPhaseResult } from '../../src/core/specTypes.js';
import type { NextStepResponse } from '../../src/core/types.js';
import { safeToSendAgain } from '../../src/host/proxyAnswers.js';
import { fileSpecSource } from '../../src/host/specSourceFile.js';
import { plainToolCall } from '../../src/mcp/jsonRpc.js';
import { isKeyedStart, REQUEST_KEY_META, withRequestKey } from '../../src/mcp/requestKey.js';
import { makeLifecycleWorkspace, openLifecycle, type LifecycleRig } from '../helpers/lifecycleHarness.js';

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
    // error.recovery is what the tool's description tells an agent to read: never empty, text form included.
    const error = (r.structuredContent as { error: { recovery: string } }).error;
    assert.equal(error.recovery, 'fix the request as the message says and call again');
    assert.match(JSON.stringify(r.content), /Recovery: fix the request as the message says and call again/);
    const lc = await call('start_execution', { workflowName: 'bug-fix' }, '');
    assert.equal(lc.isError, true);
    assert.equal(runs(), before, 'nothing started');
  });
});

describe('start_workflow (the specs group) with a request key through an MCP client', () => {
  let rig: LifecycleRig;
  const runs = () => rig.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM executions')!.n;
  const start = { workflow_type: 'spec_execution_v1', target_file: 'specs/auth/tasks.md', metadata: { ticket: 'AUTH-1' } };
  const call = (key: unknown) => rig.client.callTool({ name: 'start_workflow', arguments: start, _meta: { [REQUEST_KEY_META]: key } });

  before(async () => {
    const workspace = makeLifecycleWorkspace();
    mkdirSync(join(workspace, 'specs', 'auth'), { recursive: true });
    writeFileSync(join(workspace, start.target_file), readFileSync(join(__dirname, '..', 'fixtures', 'specs', 'auth-service.tasks.md'), 'utf8'));
    rig = await openLifecycle({ workspace, groups: ['broker', 'specs'] });
    rig.baton.specs.setSourcePort(fileSpecSource);
  });
  after(async () => {
    await rig.close();
    rmSync(rig.workspace, { recursive: true, force: true });
  });

  it('the same key twice is one workflow: the second answer has its session_id and current phase, and says so', async () => {
    const before = runs();
    const first = await call('mcp-spec-key-1');
    const again = await call('mcp-spec-key-1');
    assert.equal(runs(), before + 1);
    assert.equal(again.isError, undefined, JSON.stringify(again.content));
    const a = first.structuredContent as unknown as SpecPhaseResult;
    const b = again.structuredContent as unknown as SpecPhaseResult;
    assert.equal(b.session_id, a.session_id);
    assert.equal(b.current_phase, 0);
    assert.equal(b.already_started, true);
    assert.equal(a.already_started, undefined);
    const text = (again.content as Array<{ text: string }>)[0]!.text;
    assert.match(text, new RegExp(`^session_id: ${a.session_id} · status: running · phase 0 of \\d+`));
    assert.match(text, /This start's request key \(.+\) had already started this workflow, so no second one was started; here it is as it stands\./);
    const other = (await call('mcp-spec-key-2')).structuredContent as unknown as SpecPhaseResult;
    assert.notEqual(other.session_id, a.session_id, 'another key, another workflow');
  });

  it('a malformed key is refused, saying what to send; nothing is started', async () => {
    const before = runs();
    for (const key of [42, '', 'k'.repeat(201)]) {
      const r = await call(key);
      assert.equal(r.isError, true);
      assert.match(JSON.stringify(r.content), /_meta \\"dev\.baton\/request-key\\" must be a string of 1 to 200 characters \(a new UUID for each start\)/);
    }
    assert.equal(runs(), before);
  });

  it('start_workflow is a keyed start: baton mcp adds a key to it, and sends it again only with one', () => {
    const request: JSONRPCRequest = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'start_workflow', arguments: start } };
    assert.equal(isKeyedStart(request), true);
    assert.equal(safeToSendAgain(request), false, 'without a key it may start a second workflow');
    const keyed = withRequestKey(request, 'b3f1c9d2-0000-4000-8000-000000000001');
    assert.equal(safeToSendAgain(keyed), true);
    assert.ok(plainToolCall(keyed), 'a keyed start_workflow stays on the fast path');
  });
});
