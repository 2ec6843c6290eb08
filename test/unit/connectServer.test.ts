// Rule: connectServer dispatches a plain request or notification straight to the SDK's handlers (no zod parse to tell
// its kind) with the same outcome as the SDK's own dispatch: calls answer, notifications arrive, a handler set on the
// transport before connecting still hears every message; a client's answer to a server request (an elicitation) still
// goes through the SDK's dispatch; and without the SDK internals it relies on, the SDK's dispatch stays as it was.
// A plain tools/call skips the SDK's _onrequest too, and keeps what it does: the error answer of a handler that throws,
// cancellation and close (the handler's signal aborts, no answer goes out), notifications and requests related to the
// call; a tools/call that is not plain (null arguments, a task) still goes through _onrequest.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema, EmptyResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { connectServer } from '../../src/mcp/jsonRpc.js';

function server(): McpServer {
  const s = new McpServer({ name: 't', version: '1' });
  s.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return s;
}

describe('connectServer', () => {
  it('answers calls and takes notifications as the SDK would, and the earlier onmessage hears each message', async () => {
    const s = server();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const heard: string[] = [];
    serverSide.onmessage = (m: JSONRPCMessage) => void heard.push('method' in m ? m.method : 'answer');
    let initialized = false;
    s.server.oninitialized = () => void (initialized = true);
    let sdkDispatch: unknown;
    await connectServer({ server: s.server, connect: async (t) => { await s.connect(t); sdkDispatch = t.onmessage; } }, serverSide);
    assert.notEqual(serverSide.onmessage, sdkDispatch, 'the fast path is in place');
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(clientSide);
    const res = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    assert.deepEqual(res.content, [{ type: 'text', text: 'hi' }]);
    await client.ping();
    const bad = await client.callTool({ name: 'echo', arguments: { text: 5 } });
    assert.equal(bad.isError, true, 'a tool\'s own validation still answers');
    assert.ok(initialized, 'notifications/initialized reached the server');
    assert.equal(s.server.getClientVersion()?.name, 'c');
    assert.deepEqual(heard, ['initialize', 'notifications/initialized', 'tools/call', 'ping', 'tools/call']);
    await client.close();
  });

  it("a client's answer to the server's elicitation goes through the SDK's dispatch", async () => {
    const s = server();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await connectServer(s, serverSide);
    const client = new Client({ name: 'c', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { ok: true } }));
    await client.connect(clientSide);
    const answer = await s.server.elicitInput({ message: 'ok?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    assert.deepEqual(answer, { action: 'accept', content: { ok: true } });
    await client.close();
  });

  it('a plain tools/call skips _onrequest; one with null arguments or a task goes through it', async () => {
    const s = server();
    const protocol = s.server as unknown as { _onrequest: (request: { method: string }, ...rest: unknown[]) => void };
    const sdkOnRequest = protocol._onrequest;
    const through: string[] = [];
    protocol._onrequest = function (this: unknown, request: { method: string }, ...rest: unknown[]) {
      through.push(request.method);
      return sdkOnRequest.call(this, request, ...rest);
    };
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await connectServer(s, serverSide);
    const answers = new Map<unknown, JSONRPCMessage>();
    clientSide.onmessage = (m) => void ('id' in m && answers.set(m.id, m));
    await clientSide.start();
    const send = async (m: object) => clientSide.send({ jsonrpc: '2.0', ...m } as JSONRPCMessage);
    await send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
    await send({ method: 'notifications/initialized' });
    await send({ id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'plain' } } });
    await send({ id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'with a task' }, task: { ttl: 1000 } } });
    await settle(() => answers.size === 3);
    assert.deepEqual((answers.get(2) as unknown as { result: { content: unknown } }).result.content, [{ type: 'text', text: 'plain' }]);
    assert.ok(answers.has(3), 'the task-augmented call is answered by the SDK (its answer, whatever it is)');
    assert.deepEqual(through, ['initialize', 'tools/call'], 'only the initialize and the call with a task reached _onrequest');
    await clientSide.close();
  });

  it("answers a handler's error as the SDK does: its code, message and data, else Internal error", async () => {
    const s = new McpServer({ name: 't', version: '1' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await connectServer(s, serverSide);
    const handlers = (s.server as unknown as { _requestHandlers: Map<string, (r: { params: { name: string } }) => unknown> })._requestHandlers;
    handlers.set('tools/call', (r) => {
      if (r.params.name === 'coded') throw Object.assign(new Error('no such thing'), { code: -32602, data: { hint: 'x' } });
      if (r.params.name === 'sync') throw new Error('thrown at once');
      return Promise.reject(new Error('rejected later'));
    });
    const answers = new Map<unknown, { error?: { code: number; message: string; data?: unknown } }>();
    clientSide.onmessage = (m) => void ('id' in m && answers.set(m.id, m as never));
    await clientSide.start();
    for (const [id, name] of [[1, 'coded'], [2, 'sync'], [3, 'later']] as const) {
      await clientSide.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
    }
    await settle(() => answers.size === 3);
    assert.deepEqual(answers.get(1)!.error, { code: -32602, message: 'no such thing', data: { hint: 'x' } });
    assert.deepEqual(answers.get(2)!.error, { code: -32603, message: 'thrown at once' });
    assert.deepEqual(answers.get(3)!.error, { code: -32603, message: 'rejected later' });
    await clientSide.close();
  });

  it('a cancelled call aborts its signal, read before or after, and is not answered; its requests are refused then', async () => {
    const s = new McpServer({ name: 't', version: '1' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await connectServer(s, serverSide);
    const seen: Array<{ early: boolean; aborted: boolean; reason: unknown; asked: string }> = [];
    const handlers = (s.server as unknown as { _requestHandlers: Map<string, (r: unknown, extra: ToolExtra) => unknown> })._requestHandlers;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    handlers.set('tools/call', async (r, extra) => {
      const early = (r as { params: { name: string } }).params.name === 'early';
      const signal = early ? extra.signal : undefined;
      await released;
      const aborted = (signal ?? extra.signal).aborted;
      const asked = await extra.sendRequest({ method: 'ping' }, EmptyResultSchema).then(() => 'answered', (ex: Error) => ex.message);
      seen.push({ early, aborted, reason: extra.signal.reason, asked });
      return { content: [] };
    });
    const answers: unknown[] = [];
    clientSide.onmessage = (m) => void ('id' in m && answers.push(m.id));
    await clientSide.start();
    await clientSide.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'early', arguments: {} } });
    await clientSide.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'late', arguments: {} } });
    for (const id of [1, 2]) await clientSide.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'enough' } });
    release();
    await settle(() => seen.length === 2);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(seen.sort((a, b) => Number(b.early) - Number(a.early)), [
      { early: true, aborted: true, reason: 'enough', asked: 'MCP error -32000: Request was cancelled' },
      { early: false, aborted: true, reason: 'enough', asked: 'MCP error -32000: Request was cancelled' },
    ]);
    assert.deepEqual(answers, [], 'no answer to a cancelled call');
    await clientSide.close();
  });

  it("a call's notifications and requests carry it as their related request; a close aborts it", async () => {
    const s = new McpServer({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await connectServer(s, serverSide);
    const handlers = (s.server as unknown as { _requestHandlers: Map<string, (r: unknown, extra: ToolExtra) => unknown> })._requestHandlers;
    let signal: AbortSignal | undefined;
    let closed!: () => void;
    const waiting = new Promise<void>((r) => (closed = r));
    handlers.set('tools/call', async (r, extra) => {
      if ((r as { params: { name: string } }).params.name === 'wait') {
        signal = extra.signal;
        signal.addEventListener('abort', () => closed());
        await waiting;
        return { content: [] };
      }
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } });
      const answer = await extra.sendRequest({ method: 'ping' }, EmptyResultSchema);
      return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
    });
    const client = new Client({ name: 'c', version: '1' });
    const progress: unknown[] = [];
    await client.connect(clientSide);
    const res = await client.callTool({ name: 'talk', arguments: {} }, undefined, { onprogress: (p) => void progress.push(p) });
    assert.deepEqual(res.content, [{ type: 'text', text: '{}' }], "the client's answer to the call's own request");
    const pending = client.callTool({ name: 'wait', arguments: {} }).catch((ex: Error) => ex.message);
    await settle(() => signal !== undefined);
    await serverSide.close();
    await waiting;
    assert.equal(signal!.aborted, true, 'closing the connection aborted the running call');
    assert.match(String(await pending), /closed/i);
  });

  it("keeps the SDK's dispatch when the Protocol lacks the methods it dispatches to", async () => {
    const [, serverSide] = InMemoryTransport.createLinkedPair();
    let sdkDispatch: unknown;
    const fake = { server: {}, connect: async (t: typeof serverSide) => void (t.onmessage = sdkDispatch = () => undefined) };
    await connectServer(fake, serverSide);
    assert.equal(serverSide.onmessage, sdkDispatch);
  });
});

/** What a request handler gets beside the request (the parts these tests use). */
interface ToolExtra {
  signal: AbortSignal;
  sendNotification(notification: object): Promise<void>;
  sendRequest(request: object, schema: object): Promise<unknown>;
}

/** Waits (up to 2 s) for `done()` to hold. */
async function settle(done: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 2000; !done(); await new Promise((r) => setTimeout(r, 5))) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
  }
}
