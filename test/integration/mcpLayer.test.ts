// Rule: the MCP layer itself — tool names clients accept, input errors that name the field and the fix, hidden
// internal errors, a call log entry per call, and notifications routed by the event's execution. (Scripted core.)
import assert from 'node:assert/strict';
import { describe, it, before, after } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { silentLog } from '../../src/core/ports.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { parseToolGroups } from '../../src/mcp/toolGroups.js';
import { BAD_INPUT } from '../fixtures/mcp/badInput.js';
import { FakeBaton } from '../fixtures/mcp/fakeBaton.js';

async function connect(baton: FakeBaton) {
  const server = createMcpServer(baton, { toolGroups: ['broker'], version: '0.0.0-test', log: silentLog });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'layer-test', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  return { server, client };
}

describe('MCP layer (scripted core)', () => {
  let baton: FakeBaton;
  let client: Client;
  before(async () => {
    baton = new FakeBaton();
    ({ client } = await connect(baton));
  });
  after(async () => client.close());

  for (const [field, args, expected] of BAD_INPUT) {
    it(`bad ${field} → isError naming the field, and the server stays up`, async () => {
      const before = baton.calls.length;
      const res = await client.callTool({ name: 'workflow_next_step', arguments: args });
      assert.equal(res.isError, true);
      const text = (res.content as Array<{ text: string }>)[0]!.text;
      assert.ok(text.includes(expected), `expected ${JSON.stringify(expected)} in: ${text}`);
      assert.equal(baton.calls.length, before, 'the core is not called with bad input');
      const ok = await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'demo' } });
      assert.equal(ok.isError, undefined);
    });
  }

  it('accepts the spec spelling workflow.next_step and logs it under the listed name', async () => {
    const res = await client.callTool({ name: 'workflow.next_step', arguments: { template_name: 'demo' } });
    assert.equal((res.structuredContent as { status: string }).status, 'ok');
    assert.equal(baton.logged.at(-1)!.name, 'workflow_next_step');
    assert.equal(baton.logged.at(-1)!.ide_type, 'layer-test');
    assert.equal(baton.logged.at(-1)!.success, true);
  });

  it('a tools/call the SDK refuses is still refused by its checks; a plain one with a progress token takes the short path', async () => {
    const before = baton.calls.length;
    const refused: Array<[unknown, RegExp]> = [
      [{ name: 'workflow_next_step', arguments: ['template_name'] }, /params\.arguments: .*expected record/],
      [{ name: 'workflow_next_step', arguments: '{"template_name": "demo"}' }, /params\.arguments: .*received string/],
      [{ name: 7, arguments: {} }, /params\.name: .*expected string/],
      [{ arguments: {} }, /params\.name is required \(a string\)/],
    ];
    for (const [params, said] of refused) {
      // Invalid params (-32602) naming the field and the shape of a call, not an internal error carrying zod's JSON.
      await assert.rejects(client.request({ method: 'tools/call', params } as never, CallToolResultSchema), (ex: { code?: number; message?: string }) => {
        assert.equal(ex.code, -32602, JSON.stringify(params));
        assert.match(ex.message!, /^MCP error -32602: Invalid params for tools\/call: /);
        assert.match(ex.message!, said);
        assert.match(ex.message!, /A tool call is \{"name": "<tool>", "arguments": \{…\}\}/);
        assert.doesNotMatch(ex.message!, /\[\n/, 'not the issues as JSON');
        return true;
      });
    }
    await assert.rejects(client.request({ method: 'resources/read', params: { uri: 7 } } as never, CallToolResultSchema), /-32602: Invalid params for resources\/read: params\.uri: /);
    assert.equal(baton.calls.length, before, 'the core is not called');
    const res = await client.request(
      { method: 'tools/call', params: { name: 'workflow_next_step', arguments: { template_name: 'demo' }, _meta: { progressToken: 1 } } },
      CallToolResultSchema,
    );
    assert.equal((res.structuredContent as { status: string }).status, 'ok');
    assert.equal(baton.calls.length, before + 1);
  });

  it('"arguments": null is a call without arguments (a Go client with a nil map sends it), on the short path and through the SDK\'s checks', async () => {
    const before = baton.calls.length;
    // Plain, with a progress token, and with a key of its own (which sends the call through the SDK's schema).
    for (const more of [{}, { _meta: { progressToken: 'p' } }, { 'io.example/trace': 'x' }]) {
      const res = await client.request({ method: 'tools/call', params: { name: 'workflow_next_step', arguments: null, ...more } } as never, CallToolResultSchema);
      assert.equal(res.isError, undefined, JSON.stringify(res.content));
      assert.deepEqual(baton.calls.at(-1), {}, 'the core got a call with no arguments');
    }
    assert.equal(baton.calls.length, before + 3);
  });

  it('a subscription or read of something that is not a URI is Invalid params naming the fix, not an internal error', async () => {
    const refused: Array<[string, unknown, RegExp]> = [
      ['resources/subscribe', {}, /-32602: Invalid params for resources\/subscribe: params\.uri is required \(a string\)\.$/],
      ['resources/unsubscribe', {}, /-32602: Invalid params for resources\/unsubscribe: params\.uri is required \(a string\)\.$/],
      ['resources/subscribe', { uri: 'workflow status' }, /-32602: uri "workflow status" is not a resource URI \(scheme:\/\/…\); subscribe to one that resources\/list or resources\/templates\/list names/],
      ['resources/subscribe', { uri: 'current-step://%E0' }, /-32602: uri "current-step:\/\/%E0" is not a resource URI/],
      ['resources/read', { uri: '' }, /-32602: uri "" is not a URI; read one that resources\/list or resources\/templates\/list names/],
      ['resources/read', { uri: `not a uri ${'x'.repeat(200)}` }, /-32602: uri "not a uri x{70}…" is not a URI/],
      // The broker spec's own schemes, which a URI cannot hold: Baton's spelling is named.
      ['resources/read', { uri: 'current_step://active' }, /is not a URI; .* The spec's current_step:\/\/ is spelled current-step:\/\/ here \(a URI scheme cannot hold '_'\): use "current-step:\/\/active"\.$/],
      ['resources/subscribe', { uri: 'workflow_artifacts://recent?limit=5' }, /is not a resource URI .* use "workflow-artifacts:\/\/recent\?limit=5"\.$/],
    ];
    for (const [method, params, said] of refused) {
      await assert.rejects(client.request({ method, params } as never, CallToolResultSchema), (ex: { code?: number; message?: string }) => {
        assert.equal(ex.code, -32602, `${method} ${JSON.stringify(params)}: ${ex.message}`);
        assert.match(ex.message!, said);
        assert.doesNotMatch(ex.message!, /\[\n|internal error/);
        assert.match(ex.message!, /^MCP error -32602: (?!MCP error)/, 'the code once (the client adds it; the server does not)');
        return true;
      });
    }
    assert.equal(baton.logged.at(-1)!.call_type, 'resource', 'a refused read is logged');
    assert.equal(baton.logged.at(-1)!.error_category, 'validation');
    await client.subscribeResource({ uri: 'workflow-status://active' });
    await client.unsubscribeResource({ uri: 'workflow-status://active' });
  });

  it('a call of a tool that does not exist is Invalid params (MCP\'s tools spec) naming the one it may have meant', async () => {
    const refusal = async (name: string) => {
      let message = '';
      await assert.rejects(client.callTool({ name, arguments: {} }), (ex: { code?: number; message?: string }) => {
        assert.equal(ex.code, -32602);
        message = ex.message!;
        return true;
      });
      return message;
    };
    assert.equal(await refusal('workflow_next_stepp'), 'MCP error -32602: Unknown tool "workflow_next_stepp" (did you mean "workflow_next_step"?); tools/list names the tools this server has.');
    assert.equal(await refusal('make_coffee'), 'MCP error -32602: Unknown tool "make_coffee"; tools/list names the tools this server has.');
    assert.deepEqual([baton.logged.at(-1)!.name, baton.logged.at(-1)!.success, baton.logged.at(-1)!.error_category], ['make_coffee', false, 'validation'], 'logged');
    // A Baton tool of a group this server (broker only) does not serve: how to ask for it.
    assert.equal(await refusal('start_execution'), 'MCP error -32602: Unknown tool "start_execution": it is in Baton\'s lifecycle tool group, which this ' +
      'server does not serve (it serves broker). Ask for it with `--tools broker,lifecycle` on the Baton that owns the database ' +
      '(baton mcp, baton serve; a baton mcp that forwards to it serves its groups, whatever its own --tools) or the ' +
      'baton.mcp.toolGroups setting (the editor), then restart that one; tools/list names the tools this server has.');
  });

  it('a read of a URI no resource or template matches is Invalid params naming the resources, with the URI in its data', async () => {
    const uri = 'test://nonexistent-resource-for-conformance-testing';
    await assert.rejects(client.readResource({ uri }), (ex: { code?: number; message?: string; data?: unknown }) => {
      assert.equal(ex.code, -32602);
      assert.equal(ex.message, `MCP error -32602: Resource ${uri} not found; read one that resources/list or resources/templates/list names, such as available-workflows://all or current-step://active`);
      assert.deepEqual(ex.data, { uri });
      return true;
    });
    assert.equal(baton.logged.at(-1)!.error_category, 'validation');
  });

  it('an unknown tool is still refused, dotted like an alias or not', async () => {
    await assert.rejects(client.callTool({ name: 'workflow.nope', arguments: {} }), /-32602: Unknown tool "workflow\.nope"/);
  });

  it('a core error result becomes isError with the same structuredContent and a token category in the log', async () => {
    const err = { status: 'error' as const, error: { code: 'token_expired', message: 'The step token expired.', recovery: 'Call with request "refresh_token".' } };
    baton.nextStepImpl = async () => err;
    try {
      const res = await client.callTool({ name: 'workflow_next_step', arguments: { step_token: 'old' } });
      assert.equal(res.isError, true);
      assert.deepEqual(res.structuredContent, err);
      assert.match((res.content as Array<{ text: string }>)[0]!.text, /^Error token_expired: The step token expired\.\n[\s\S]*refresh_token/);
      assert.equal(baton.logged.at(-1)!.error_category, 'token');
    } finally {
      baton.nextStepImpl = null;
    }
  });

  it('an unexpected exception is hidden from the agent', async () => {
    baton.nextStepImpl = async () => {
      throw new Error('db file /secret/path exploded');
    };
    try {
      const res = await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'demo' } });
      assert.equal(res.isError, true);
      const text = (res.content as Array<{ text: string }>)[0]!.text;
      assert.equal(text, "internal error; see Baton's log");
    } finally {
      baton.nextStepImpl = null;
    }
  });

  it('resource domain errors carry the BatonError message; internal ones do not leak', async () => {
    await assert.rejects(client.readResource({ uri: 'persona://nobody' }), /agent "nobody" not found; read persona:\/\/default/);
    await assert.rejects(client.readResource({ uri: 'persona://crash' }), (ex: Error) => !ex.message.includes('secret') && /internal error/.test(ex.message));
    assert.equal(baton.logged.at(-1)!.call_type, 'resource');
    assert.equal(baton.logged.at(-1)!.success, false);
  });

  it('routes updates by execution id, task id and floating forms; not to other executions', async () => {
    const got: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void got.push(n.params.uri));
    for (const uri of ['current-step://task-1', 'workflow-status://exec-1', 'workflow-artifacts://recent?limit=5', 'current-step://other']) {
      await client.subscribeResource({ uri });
    }
    baton.emit({ type: 'step', execution_id: 'exec-1', step_name: 'only', status: 'completed' });
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(got.sort(), ['current-step://task-1', 'workflow-artifacts://recent?limit=5', 'workflow-status://exec-1']);
    await client.unsubscribeResource({ uri: 'current-step://task-1' });
    got.length = 0;
    baton.emit({ type: 'artifact', execution_id: 'exec-1', artifact_id: 'a', is_final: false });
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(!got.includes('current-step://task-1'));
  });

  it('a content event refreshes the prompts', async () => {
    baton.templateList = [...baton.templateList, { ...baton.templateList[0]!, name: 'second', description: 'another' }];
    baton.emit({ type: 'content', kinds: ['workflows'] });
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ['demo', 'second']);
  });

  it('closing the server releases the core listener', async () => {
    const fresh = new FakeBaton();
    const { client: c } = await connect(fresh);
    assert.equal(fresh.listenerCount, 1);
    await c.close();
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(fresh.listenerCount, 0);
  });
});

describe('tool groups', () => {
  it('parses broker, lists and all', () => {
    assert.deepEqual(parseToolGroups(undefined), ['broker']);
    assert.deepEqual(parseToolGroups('broker,lifecycle'), ['broker', 'lifecycle']);
    assert.equal(parseToolGroups('all').length, 6);
  });
  it('an unknown group is a clear error listing the valid ones', () => {
    assert.throws(() => parseToolGroups('broker,lifecyle'), /unknown tool group "lifecyle"; valid groups: broker, specs, lifecycle, content, memory, context/);
    assert.throws(
      () => createMcpServer(new FakeBaton(), { toolGroups: ['nope' as never], version: '0', log: silentLog }),
      /unknown tool group "nope"/,
    );
  });
  it('without the broker group there is no workflow_next_step', async () => {
    const server = createMcpServer(new FakeBaton(), { toolGroups: ['lifecycle'], version: '0', log: silentLog });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    const { tools } = await client.listTools();
    assert.ok(!tools.some((t) => t.name === 'workflow_next_step'));
    assert.ok(tools.some((t) => t.name === 'start_execution'), 'the lifecycle group has its own tools');
    await client.close();
  });
});
