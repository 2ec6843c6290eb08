// Rule: connectServer dispatches a plain request or notification straight to the SDK's handlers (no zod parse to tell
// its kind) with the same outcome as the SDK's own dispatch: calls answer, notifications arrive, a handler set on the
// transport before connecting still hears every message; a client's answer to a server request (an elicitation) still
// goes through the SDK's dispatch; and without the SDK internals it relies on, the SDK's dispatch stays as it was.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
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

  it("keeps the SDK's dispatch when the Protocol lacks the methods it dispatches to", async () => {
    const [, serverSide] = InMemoryTransport.createLinkedPair();
    let sdkDispatch: unknown;
    const fake = { server: {}, connect: async (t: typeof serverSide) => void (t.onmessage = sdkDispatch = () => undefined) };
    await connectServer(fake, serverSide);
    assert.equal(serverSide.onmessage, sdkDispatch);
  });
});
