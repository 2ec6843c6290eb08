// Rule: the owner's Streamable HTTP transport answers each call with one JSON body, switches a call's answer to
// an SSE stream only when the client accepts nothing else or the server says something about the call before
// answering it, sends everything else on the session's GET stream, and refuses malformed requests as the MCP
// specification says (406, 415, 400, 409, 404 after DELETE).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { silentLog } from '../../src/core/ports.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer, type OwnerServer } from '../../src/host/ownerServer.js';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const call = (id: number, name = 'echo') => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

interface Reply { status: number; type: string; session: string; body: string }

function testServer(): McpServer {
  const server = new McpServer({ name: 'transport-test', version: '1' });
  server.registerTool('echo', { description: 'answers at once' }, async () => ({ content: [{ type: 'text', text: 'echoed' }] }));
  server.registerTool('progress', { description: 'reports progress, then answers' }, async (extra) => {
    await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: extra._meta?.progressToken ?? 0, progress: 1, total: 2 } });
    return { content: [{ type: 'text', text: 'done' }] };
  });
  server.registerTool('announce', { description: 'tells clients the tool list changed' }, async () => {
    server.sendToolListChanged();
    return { content: [{ type: 'text', text: 'announced' }] };
  });
  return server;
}

describe('owner Streamable HTTP transport', () => {
  let workspace: string;
  let opened: OpenedBaton;
  let owner: OwnerServer;
  let base: Record<string, string>;

  const raw = (opts: { method?: string; headers?: Record<string, string>; body?: unknown }): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: owner.port, method: opts.method ?? 'POST', path: '/mcp', headers: { ...base, ...opts.headers } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), session: String(res.headers['mcp-session-id'] ?? ''), body }));
      });
      req.on('error', reject);
      req.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
    });

  /** A raw session: initialize + initialized; returns the headers later requests carry. */
  async function session(): Promise<Record<string, string>> {
    const init = await raw({ body: INIT });
    assert.equal(init.status, 200, init.body);
    const headers = { 'mcp-session-id': init.session, 'mcp-protocol-version': '2025-06-18' };
    assert.equal((await raw({ headers, body: INITIALIZED })).status, 202);
    return headers;
  }

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'baton-transport-'));
    opened = await openBaton({ dbPath: null, workspace, rateLimits: false, log: silentLog });
    owner = await startOwnerServer({ baton: opened.baton, createServer: testServer, log: silentLog });
    base = { host: `127.0.0.1:${owner.port}`, authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  });
  after(async () => {
    await owner.close();
    await opened.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('answers a call with one JSON body carrying the session id', async () => {
    const headers = await session();
    const r = await raw({ headers, body: call(2) });
    assert.equal(r.status, 200);
    assert.match(r.type, /^application\/json/);
    assert.equal(r.session, headers['mcp-session-id']);
    assert.deepEqual(JSON.parse(r.body), { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'echoed' }] } });
  });

  it('answers a batch with an array in request order, and notifications alone with 202', async () => {
    const headers = await session();
    const r = await raw({ headers, body: [call(7), call(3)] });
    assert.equal(r.status, 200);
    assert.deepEqual((JSON.parse(r.body) as Array<{ id: number }>).map((m) => m.id), [7, 3]);
    assert.equal((await raw({ headers, body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } } })).status, 202);
  });

  it('streams the answer as SSE to a client that accepts only text/event-stream', async () => {
    const headers = await session();
    const r = await raw({ headers: { ...headers, accept: 'text/event-stream' }, body: call(4) });
    assert.equal(r.status, 200);
    assert.match(r.type, /^text\/event-stream/);
    assert.match(r.body, /^event: message\ndata: \{"result":\{"content":\[\{"type":"text","text":"echoed"\}\]\},"jsonrpc":"2.0","id":4\}\n\n$/);
  });

  it("switches a call's answer to SSE when the server reports progress on it first; the SDK client gets both", async () => {
    const client = new Client({ name: 'progress', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(owner.url), { requestInit: { headers: { authorization: `Bearer ${owner.token}` } } }));
    try {
      const progress: number[] = [];
      const res = await client.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: (p) => void progress.push(p.progress) });
      assert.deepEqual(res.content, [{ type: 'text', text: 'done' }]);
      assert.deepEqual(progress, [1]);
    } finally {
      await client.close();
    }
    const headers = await session();
    const r = await raw({ headers, body: { ...call(5, 'progress'), params: { name: 'progress', arguments: {}, _meta: { progressToken: 'p' } } } });
    assert.match(r.type, /^text\/event-stream/);
    const events = r.body.split('\n\n').filter(Boolean).map((e) => JSON.parse(e.replace(/^event: message\ndata: /, '')) as { method?: string; id?: number });
    assert.deepEqual(events.map((e) => e.method ?? `answer ${e.id}`), ['notifications/progress', 'answer 5']);
  });

  it('refuses what the specification refuses', async () => {
    const headers = await session();
    assert.equal((await raw({ headers: { ...headers, accept: 'text/plain' }, body: call(2) })).status, 406);
    assert.equal((await raw({ headers: { ...headers, 'content-type': 'text/plain' }, body: call(2) })).status, 415);
    assert.equal((await raw({ headers, body: { hello: 'world' } })).status, 400);
    assert.equal((await raw({ headers: { ...headers, 'mcp-protocol-version': '1999-01-01' }, body: call(2) })).status, 400);
    assert.equal((await raw({ headers, body: { ...INIT, id: 9 } })).status, 400, 'a second initialize');
    assert.equal((await raw({ method: 'PUT', headers, body: call(2) })).status, 405);
  });

  it('keeps one GET stream per session, sends unrelated server messages on it, and closes the session on DELETE', async () => {
    const client = new Client({ name: 'stream', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(owner.url), { requestInit: { headers: { authorization: `Bearer ${owner.token}` } } });
    const listChanged = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    await client.connect(transport);
    try {
      // The client opens its GET stream after initializing; a second one is refused.
      const headers = { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' };
      let second: Reply | undefined;
      for (let i = 0; i < 100 && second?.status !== 409; i++) {
        if (i) await new Promise((r) => setTimeout(r, 20));
        second = await raw({ method: 'GET', headers: { ...headers, accept: 'text/event-stream' } });
      }
      assert.equal(second?.status, 409);
      // 'announce' tells every client the tool list changed (a message about no call): its answer stays JSON and
      // the notification arrives on the client's GET stream.
      const r = await raw({ headers, body: call(11, 'announce') });
      assert.match(r.type, /^application\/json/);
      await listChanged;
    } finally {
      await client.close();
    }
    const headers = await session();
    assert.equal((await raw({ method: 'DELETE', headers })).status, 200);
    assert.equal((await raw({ headers, body: call(2) })).status, 404);
  });
});
