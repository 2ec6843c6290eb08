// Rule: the hand-checked fast path for JSON-RPC messages accepts only what the SDK's JSONRPCMessageSchema accepts,
// gives the same message, and leaves every other input to that schema (so the transports accept exactly what it does).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { CallToolRequestSchema, JSONRPCMessageSchema, RELATED_TASK_META_KEY as SDK_RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import {
  deserializeLine, isAnswer, isRequest, plainAnswer, plainMessage, plainToolCall, RELATED_TASK_META_KEY, toMessage,
} from '../../src/mcp/jsonRpc.js';

const call = { name: 'workflow_next_step', arguments: { step_token: 't', model_output_so_far: { summary: 's', artifacts: [{ type: 'a', content: 'x' }] } } };
const lines = [
  // requests and notifications the fast path takes
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call },
  { jsonrpc: '2.0', id: 'a-1', method: 'tools/list' },
  { jsonrpc: '2.0', id: 0, method: 'ping', params: {} },
  { jsonrpc: '2.0', id: -7, method: 'x' },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'r' } },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { ...call, _meta: { progressToken: 5, other: 'kept' } } },
  // valid, but left to the schema
  { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { ...call, _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't', x: 1 } } } },
  { jsonrpc: '2.0', id: 3, result: { content: [] } },
  { jsonrpc: '2.0', id: 4, error: { code: -32000, message: 'no' } },
  // invalid
  { jsonrpc: '2.0', id: 2 ** 60, method: 'x' },
  { jsonrpc: '2.0', id: 1.5, method: 'x' },
  { jsonrpc: '2.0', id: null, method: 'x' },
  { jsonrpc: '2.0', id: true, method: 'x' },
  { jsonrpc: '1.0', id: 1, method: 'x' },
  { id: 1, method: 'x' },
  { jsonrpc: '2.0', id: 1, method: 7 },
  { jsonrpc: '2.0', id: 1, method: 'x', extra: 1 },
  { jsonrpc: '2.0', id: 1, method: 'x', params: [1, 2] },
  { jsonrpc: '2.0', id: 1, method: 'x', params: null },
  { jsonrpc: '2.0', id: 1, method: 'x', params: 'p' },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: 'no' } },
  { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: '2.0', method: 'x', params: 3 },
  { jsonrpc: '2.0', id: 1 },
  JSON.parse('{"jsonrpc":"2.0","id":1,"method":"x","__proto__":{"a":1}}'),
  [{ jsonrpc: '2.0', id: 1, method: 'x' }],
  null,
  'text',
  42,
];

test('toMessage accepts exactly what JSONRPCMessageSchema accepts, with the same content; the fast path takes plain requests and notifications only', () => {
  let fast = 0;
  for (const value of lines) {
    const schema = JSONRPCMessageSchema.safeParse(value);
    const ours = toMessage(value);
    assert.equal(ours !== undefined, schema.success, JSON.stringify(value));
    if (schema.success) assert.deepEqual(ours, schema.data, JSON.stringify(value));
    if (plainMessage(value)) {
      fast++;
      assert.ok(schema.success, `the fast path took what the schema refuses: ${JSON.stringify(value)}`);
    }
  }
  assert.equal(fast, 7, 'the seven plain requests and notifications take the fast path');
});

const answers = [
  // answers the fast path takes
  { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'x' }], structuredContent: { a: 1 } } },
  { jsonrpc: '2.0', id: 'r', result: {} },
  { jsonrpc: '2.0', id: 4, result: { _meta: { progressToken: 2, other: 'kept' }, tools: [] } },
  { jsonrpc: '2.0', id: 4, error: { code: -32000, message: 'no' } },
  { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error', data: { at: 1 } } },
  // valid, but left to the schema (it strips the error's unknown key, or checks a task's _meta)
  { jsonrpc: '2.0', id: 4, error: { code: -32000, message: 'no', extra: 1 } },
  { jsonrpc: '2.0', id: 5, result: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } } },
  // invalid
  { jsonrpc: '2.0', id: null, result: {} },
  { jsonrpc: '2.0', result: {} },
  { jsonrpc: '2.0', id: 1, result: [] },
  { jsonrpc: '2.0', id: 1, result: null },
  { jsonrpc: '2.0', id: 1, result: { _meta: 'no' } },
  { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } },
  { jsonrpc: '2.0', id: 1, result: {}, extra: 1 },
  { jsonrpc: '1.0', id: 1, result: {} },
  { jsonrpc: '2.0', id: 1.5, error: { code: 1, message: 'm' } },
  { jsonrpc: '2.0', id: null, error: { code: 1, message: 'm' } },
  { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'm' } },
  { jsonrpc: '2.0', id: 1, error: { code: 1 } },
  { jsonrpc: '2.0', id: 1, error: 'no' },
];

test('plainAnswer takes only answers JSONRPCMessageSchema accepts as they are; any other goes to the schema', () => {
  let fast = 0;
  for (const value of answers) {
    const schema = JSONRPCMessageSchema.safeParse(value);
    const ours = plainAnswer(value);
    if (ours === undefined) continue;
    fast++;
    assert.ok(schema.success, `the fast path took what the schema refuses: ${JSON.stringify(value)}`);
    assert.deepEqual(ours, schema.data, JSON.stringify(value));
  }
  assert.equal(fast, 5, 'the five plain results and errors take the fast path');
  const notAnswers = lines.filter((v) => typeof v !== 'object' || v === null || !('result' in v || 'error' in v));
  for (const value of notAnswers) assert.equal(plainAnswer(value), undefined, `not an answer: ${JSON.stringify(value)}`);
});

test("the related-task key the fast path leaves to the schema is the SDK's", () => {
  assert.equal(RELATED_TASK_META_KEY, SDK_RELATED_TASK_META_KEY);
});

test('deserializeLine throws where the SDK deserializeMessage throws, and gives what it gives', () => {
  for (const line of [...lines.map((v) => JSON.stringify(v)), '{"jsonrpc":"2.0",', '', 'not json']) {
    let sdk: unknown;
    let sdkError: unknown;
    try {
      sdk = deserializeMessage(line);
    } catch (ex) {
      sdkError = ex;
    }
    if (sdkError) assert.throws(() => deserializeLine(line), (ex: Error) => ex.constructor === (sdkError as Error).constructor, line);
    else assert.deepEqual(deserializeLine(line), sdk, line);
  }
});

test('isRequest and isAnswer tell validated messages apart', () => {
  const kinds = lines.flatMap((v) => toMessage(v) ?? []).map((m) => (isRequest(m) ? 'request' : isAnswer(m) ? 'answer' : 'notification'));
  assert.deepEqual(kinds, ['request', 'request', 'request', 'request', 'notification', 'notification', 'request', 'request', 'answer', 'answer']);
});

test('plainToolCall takes only calls CallToolRequestSchema accepts, with the same name and arguments; tasks and odd params go to the schema', () => {
  const calls: Array<[unknown, boolean]> = [
    [{ name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } }, true],
    [{ name: 'workflow_next_step' }, true],
    [{ name: 'workflow_next_step', arguments: {}, _meta: { progressToken: 'p' } }, true],
    [{ name: 'workflow_next_step', arguments: {}, task: { ttl: 1000 } }, false],
    [{ name: 'workflow_next_step', arguments: {}, extra: 1 }, false],
    [{ name: 'workflow_next_step', arguments: {}, _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } }, false],
    [{ name: 'workflow_next_step', arguments: ['a'] }, false],
    [{ name: 'workflow_next_step', arguments: null }, false],
    [{ name: 'workflow_next_step', arguments: 'a' }, false],
    [{ name: 7, arguments: {} }, false],
    [{ arguments: {} }, false],
    [{ name: 'x', _meta: { progressToken: true } }, false],
    [['workflow_next_step'], false],
    [null, false],
  ];
  for (const [params, plain] of calls) {
    const request = { method: 'tools/call', params };
    const ours = plainToolCall(request);
    assert.equal(ours !== undefined, plain, JSON.stringify(params));
    if (!ours) continue;
    const schema = CallToolRequestSchema.safeParse(request);
    assert.ok(schema.success, `a plain call the schema refuses: ${JSON.stringify(params)}`);
    assert.equal(ours.name, schema.data.params.name);
    assert.deepEqual(ours.arguments, schema.data.params.arguments);
  }
});
