// Rule: the owner's Streamable HTTP transport answers each call with one JSON body, switches a call's answer to
// an SSE stream only when the client accepts nothing else or the server says something about the call before
// answering it (never for a client that accepts only JSON), sends everything else on the session's GET stream,
// follows the MCP specification's session and version headers (2025-03-26 and 2025-06-18), refuses malformed
// requests as it says (406, 415, 400, 409, 404) and a request id that is still in flight in the session, and a
// real SDK client works in every mode, elicitation included.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { NextStepResponse } from '../../src/core/types.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { makeWorkspace } from '../helpers/coreHarness.js';
import { until } from '../helpers/until.js';
import { silentLog } from '../../src/core/ports.js';
import { HOLDER_PID_HEADER } from '../../src/host/discovery.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer, type OwnerServer } from '../../src/host/ownerServer.js';
import { closeOwnerEndpoint, openOwnerEndpoint } from '../helpers/ownerEndpoint.js';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const call = (id: number, name = 'echo') => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

interface Reply { status: number; type: string; session: string; connection: string; keepAlive: string; body: string }

/** Releases the calls of the 'hold' tool that wait. */
const held: Array<() => void> = [];

function testServer(): McpServer {
  const server = new McpServer({ name: 'transport-test', version: '1' });
  server.registerTool('hold', { description: 'answers once the test releases it' }, async () => {
    await new Promise<void>((resolve) => held.push(resolve));
    return { content: [{ type: 'text', text: 'released' }] };
  });
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
        res.on('end', () => resolve({
          status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), session: String(res.headers['mcp-session-id'] ?? ''), connection: String(res.headers.connection ?? ''), keepAlive: String(res.headers['keep-alive'] ?? ''), body,
        }));
      });
      req.on('error', reject);
      req.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
    });

  /** A raw session: initialize + initialized; returns the headers later requests carry. */
  async function session(version = '2025-06-18'): Promise<Record<string, string>> {
    const init = await raw({ body: { ...INIT, params: { ...INIT.params, protocolVersion: version } } });
    assert.equal(init.status, 200, init.body);
    const headers = { 'mcp-session-id': init.session, 'mcp-protocol-version': version };
    assert.equal((await raw({ headers, body: INITIALIZED })).status, 202);
    return headers;
  }

  before(async () => {
    ({ workspace, opened, owner, headers: base } = await openOwnerEndpoint('baton-transport-', { createServer: () => testServer }));
  });
  after(() => closeOwnerEndpoint({ workspace, opened, owner }));

  it('answers a call with one JSON body carrying the session id', async () => {
    const headers = await session();
    const r = await raw({ headers, body: call(2) });
    assert.equal(r.status, 200);
    assert.match(r.type, /^application\/json/);
    assert.equal(r.session, headers['mcp-session-id']);
    assert.deepEqual(JSON.parse(r.body), { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'echoed' }] } });
  });

  it('answers a batch with an array in request order (MCP 2025-03-26), and notifications alone with 202', async () => {
    const headers = await session('2025-03-26');
    const r = await raw({ headers, body: [call(7), call(3)] });
    assert.equal(r.status, 200);
    assert.deepEqual((JSON.parse(r.body) as Array<{ id: number }>).map((m) => m.id), [7, 3]);
    const { 'mcp-protocol-version': _, ...noVersionHeader } = headers;
    assert.equal((await raw({ headers: noVersionHeader, body: [call(8)] })).status, 200, "the session's version when the request names none");
    assert.equal((await raw({ headers, body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } } })).status, 202);
  });

  it('streams the answer as SSE to a client that accepts only text/event-stream', async () => {
    const headers = await session();
    const r = await raw({ headers: { ...headers, accept: 'text/event-stream' }, body: call(4) });
    assert.equal(r.status, 200);
    assert.match(r.type, /^text\/event-stream/);
    // Its stream is the session's first POST stream (1), and its answer the session's first event (seq 1).
    assert.equal(r.body, `event: message\nid: ${headers['mcp-session-id']}.1.1\ndata: {"result":{"content":[{"type":"text","text":"echoed"}]},"jsonrpc":"2.0","id":4}\n\n`);
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
    const events = r.body.split('\n\n').filter(Boolean).map((e) => JSON.parse(e.replace(/^event: message\nid: \S+\ndata: /, '')) as { method?: string; id?: number });
    assert.deepEqual(events.map((e) => e.method ?? `answer ${e.id}`), ['notifications/progress', 'answer 5']);
  });

  it('refuses a request whose id is still waiting for its answer in the session, and answers the first as usual', async () => {
    const headers = await session();
    const first = raw({ headers, body: call(20, 'hold') });
    while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
    const again = await raw({ headers, body: call(20) });
    assert.equal(again.status, 400);
    assert.deepEqual(JSON.parse(again.body), {
      jsonrpc: '2.0', id: 20,
      error: { code: -32600, message: 'Invalid Request: id 20 is already used by a request in flight in this session; give every request an id of its own until it is answered' },
    });
    const named = await raw({ headers, body: { ...call(21), id: 'x'.repeat(500) } });
    assert.equal(named.status, 200, 'a long string id not in flight is answered');
    held.shift()!();
    assert.deepEqual(JSON.parse((await first).body), { jsonrpc: '2.0', id: 20, result: { content: [{ type: 'text', text: 'released' }] } });
    assert.equal((await raw({ headers, body: call(20) })).status, 200, 'the id is free again once answered');
    // Twice in one 2025-03-26 batch: refused whole (one answer would have been lost and the POST never ended).
    const older = await session('2025-03-26');
    const batch = await raw({ headers: older, body: [call(22), call(23), call(22)] });
    assert.equal(batch.status, 400);
    assert.deepEqual(JSON.parse(batch.body), {
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request: id 22 is already used by another request in this batch; give every request an id of its own until it is answered' },
    });
  });

  it('ends the POST of a call the client cancelled (an empty SSE stream, 202 for JSON only): its socket is not held for good', async () => {
    const headers = await session();
    const cancel = (requestId: number) => raw({ headers, body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'test' } } });
    const both = raw({ headers, body: call(30, 'hold') });
    while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
    assert.equal((await cancel(30)).status, 202);
    const empty = await both;
    assert.deepEqual([empty.status, empty.type, empty.body], [200, 'text/event-stream', ''], 'no answer for a cancelled call, in a form a request may get');
    held.shift()!();
    const json = raw({ headers: { ...headers, accept: 'application/json' }, body: call(32, 'hold') });
    while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
    assert.equal((await cancel(32)).status, 202);
    const ended = await json;
    assert.deepEqual([ended.status, ended.body], [202, ''], 'a client that takes only JSON: no body at all');
    held.shift()!();
    const sse = raw({ headers: { ...headers, accept: 'text/event-stream' }, body: call(31, 'hold') });
    while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
    assert.equal((await cancel(31)).status, 202);
    const closed = await sse;
    assert.deepEqual([closed.status, closed.type, closed.body], [200, 'text/event-stream', '']);
    held.shift()!();
    assert.equal((await raw({ headers, body: call(30) })).status, 200, 'the id is free again');
  });

  it('answers every call still open when its session closes, on an SSE stream too (its client would wait for its timeout)', async () => {
    const headers = await session();
    const sse = raw({ headers: { ...headers, accept: 'text/event-stream' }, body: call(32, 'hold') });
    while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
    assert.equal((await raw({ method: 'DELETE', headers })).status, 200);
    const r = await sse;
    assert.deepEqual(JSON.parse(r.body.replace(/^event: message\nid: \S+\ndata: /, '')), {
      jsonrpc: '2.0', id: 32,
      error: { code: -32001, message: 'Session closed before this call was answered (the server is stopping, or the session was deleted); call again in a new session' },
    });
    held.shift()!();
  });

  it('closes the connection after an SSE answer when the client asked to (Connection: close)', async () => {
    const headers = await session();
    const r = await raw({ headers: { ...headers, accept: 'text/event-stream', connection: 'close' }, body: call(24) });
    assert.match(r.type, /^text\/event-stream/);
    assert.equal(r.connection, 'close');
    const kept = await raw({ headers: { ...headers, accept: 'text/event-stream' }, body: call(25) });
    assert.equal(kept.connection, 'keep-alive', 'HTTP/1.1 keeps it open otherwise');
  });

  it("tells a forwarding baton mcp (its requests name its pid) to keep an idle connection 4 minutes, and other clients 5 s", async () => {
    const headers = await session();
    // The owner keeps one for 5 minutes (keepAliveTimeout): each hint leaves a margin for an owner busy for seconds.
    assert.equal((await raw({ headers, body: call(26) })).keepAlive, 'timeout=5');
    assert.equal((await raw({ headers: { ...headers, [HOLDER_PID_HEADER]: String(process.pid) }, body: call(27) })).keepAlive, 'timeout=240');
  });

  it('refuses what the specification refuses', async () => {
    const headers = await session();
    assert.equal((await raw({ headers: { ...headers, accept: 'text/plain' }, body: call(2) })).status, 406);
    assert.equal((await raw({ headers: { ...headers, 'content-type': 'text/plain' }, body: call(2) })).status, 415);
    assert.equal((await raw({ headers, body: { hello: 'world' } })).status, 400);
    // A body that is JSON but not JSON-RPC: Invalid Request naming the field, with the id when it has a usable one.
    const refused = async (body: unknown) => {
      const r = await raw({ headers, body });
      assert.equal(r.status, 400, JSON.stringify(body));
      return JSON.parse(r.body) as unknown;
    };
    assert.deepEqual(await refused({ id: 3, method: 'ping' }), { jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' } });
    assert.deepEqual(await refused({ jsonrpc: '2.0', id: 1.5, method: 'ping' }), { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: id must be a string or an integer' } });
    // MCP 2025-06-18 removed batches: the whole array is refused (the conformance suite's json-rpc-batch-rejection).
    assert.deepEqual(await refused([call(8), call(9)]), {
      jsonrpc: '2.0', id: null,
      error: { code: -32600, message: 'Invalid Request: MCP 2025-06-18 takes one JSON-RPC message at a time, not a batch (only 2025-03-26 had batches); send the messages one by one' },
    });
    const older = await session('2025-03-26');
    const r = await raw({ headers: older, body: [call(8), { jsonrpc: '2.0', id: 9, method: 'ping', params: [] }] });
    assert.equal(r.status, 400);
    assert.deepEqual(JSON.parse(r.body), { jsonrpc: '2.0', id: 9, error: { code: -32600, message: 'Invalid Request: params must be an object' } }, 'a bad member of a 2025-03-26 batch');
    assert.equal((await raw({ headers: { ...headers, 'mcp-protocol-version': '1999-01-01' }, body: call(2) })).status, 400);
    // So are the session's GET stream and its DELETE with a version this server does not speak.
    assert.equal((await raw({ method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'mcp-protocol-version': '2099-01-01' } })).status, 400);
    assert.equal((await raw({ method: 'DELETE', headers: { ...headers, 'mcp-protocol-version': '1999-01-01' } })).status, 400);
    assert.equal((await raw({ headers, body: call(2) })).status, 200, 'the session is still open');
    assert.equal((await raw({ headers, body: { ...INIT, id: 9 } })).status, 400, 'a second initialize');
    assert.equal((await raw({ method: 'PUT', headers, body: call(2) })).status, 405);
  });

  it('closes the server an initialize made when the transport refuses that initialize (no session, nothing kept)', async () => {
    let made = 0;
    let closed = 0;
    const counting = await startOwnerServer({
      baton: opened.baton, log: silentLog,
      createServer: () => {
        made++;
        const server = testServer();
        server.server.onclose = () => void closed++;
        return server;
      },
    });
    try {
      const post = (headers: Record<string, string>) => new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: counting.port, method: 'POST', path: '/mcp', headers: { ...base, host: `127.0.0.1:${counting.port}`, authorization: `Bearer ${counting.token}`, ...headers } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(JSON.stringify(INIT));
      });
      assert.equal(await post({ 'content-type': 'text/plain' }), 415);
      assert.equal(await post({ accept: 'text/html' }), 406);
      await until('both refused servers closed', () => closed === 2);
      assert.equal(made, 2);
      assert.equal(await post({}), 200, 'an accepted initialize keeps its server');
      assert.equal(made, 3);
      assert.equal(closed, 2);
    } finally {
      await counting.close();
    }
  });

  it('answers the calls in flight before it closes their sessions (a graceful stop tells no agent its call may not have run)', async () => {
    const stopping = await startOwnerServer({ baton: opened.baton, createServer: testServer, log: silentLog });
    const client = new Client({ name: 'drain', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(stopping.url), { requestInit: { headers: { authorization: `Bearer ${stopping.token}` } } }));
    const call = client.callTool({ name: 'hold', arguments: {} });
    while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
    const closed = stopping.close();
    await new Promise((r) => setTimeout(r, 50));
    // Nothing new starts meanwhile: 503, and the connection closes after it (a forwarding process sends it elsewhere).
    const late = await new Promise<{ status: number; connection: string; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: stopping.port, method: 'POST', path: '/mcp', headers: { ...base, host: `127.0.0.1:${stopping.port}`, authorization: `Bearer ${stopping.token}` } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: String(res.headers.connection), body }));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ ...INIT, id: 'late-1' }));
    });
    assert.deepEqual([late.status, late.connection], [503, 'close']);
    assert.match(late.body, /Baton is stopping: this process no longer takes calls for its database; call again/);
    assert.equal(JSON.parse(late.body).id, 'late-1', "the refusal answers the request's id, which a client matches it by");
    held.shift()!();
    assert.deepEqual((await call).content, [{ type: 'text', text: 'released' }]);
    await closed;
    await client.close();
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
  it('names the session on the initialize answer, and takes 2025-03-26 clients and requests without a version header', async () => {
    const init = await raw({ body: { ...INIT, params: { ...INIT.params, protocolVersion: '2025-03-26' } } });
    assert.equal(init.status, 200, init.body);
    assert.match(init.session, /^[0-9a-f-]{36}$/);
    assert.equal((JSON.parse(init.body) as { result: { protocolVersion: string } }).result.protocolVersion, '2025-03-26');
    const session = { 'mcp-session-id': init.session };
    assert.equal((await raw({ headers: { ...session, 'mcp-protocol-version': '2025-03-26' }, body: INITIALIZED })).status, 202);
    const versioned = await raw({ headers: { ...session, 'mcp-protocol-version': '2025-03-26' }, body: call(2) });
    assert.equal(versioned.status, 200, versioned.body);
    // No MCP-Protocol-Version header: the server assumes 2025-03-26 and answers.
    const bare = await raw({ headers: session, body: call(3) });
    assert.equal(bare.status, 200, bare.body);
    assert.equal((JSON.parse(bare.body) as { id: number }).id, 3);
  });

  it('refuses a request without a session (400), an unknown session (404) and a GET that takes no SSE (406)', async () => {
    const noSession = await raw({ headers: { 'mcp-protocol-version': '2025-06-18' }, body: call(2) });
    assert.equal(noSession.status, 400, noSession.body);
    const unknown = { 'mcp-session-id': '00000000-0000-4000-8000-000000000000', 'mcp-protocol-version': '2025-06-18' };
    assert.equal((await raw({ headers: unknown, body: call(2) })).status, 404);
    assert.equal((await raw({ method: 'GET', headers: { ...unknown, accept: 'text/event-stream' } })).status, 404);
    assert.equal((await raw({ method: 'DELETE', headers: unknown })).status, 404);
    const headers = await session();
    assert.equal((await raw({ method: 'GET', headers: { ...headers, accept: 'application/json' } })).status, 406);
  });

  it('answers a client that accepts only JSON with JSON even when the server reports progress on its call', async () => {
    const headers = await session();
    const r = await raw({ headers: { ...headers, accept: 'application/json' }, body: { ...call(6, 'progress'), params: { name: 'progress', arguments: {}, _meta: { progressToken: 'p' } } } });
    assert.equal(r.status, 200);
    assert.match(r.type, /^application\/json/);
    assert.deepEqual(JSON.parse(r.body), { jsonrpc: '2.0', id: 6, result: { content: [{ type: 'text', text: 'done' }] } });
  });

  it('the SDK client ends its session with DELETE (terminateSession); the session is gone after', async () => {
    const client = new Client({ name: 'ending', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(owner.url), { requestInit: { headers: { authorization: `Bearer ${owner.token}` } } });
    await client.connect(transport);
    const sessionId = transport.sessionId!;
    assert.equal(transport.protocolVersion, LATEST_PROTOCOL_VERSION);
    assert.deepEqual((await client.callTool({ name: 'echo', arguments: {} })).content, [{ type: 'text', text: 'echoed' }]);
    await transport.terminateSession();
    assert.equal(transport.sessionId, undefined);
    await client.close();
    assert.equal((await raw({ headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION }, body: call(2) })).status, 404);
  });
});

describe('owner Streamable HTTP transport: elicitation during a call (real core, SDK client)', () => {
  it('a gate is decided through a form the server asks for while the agent waits on its call', async () => {
    const opened = await openBaton({ dbPath: null, workspace: makeWorkspace(), rateLimits: false, approvalWaitMs: 10_000, log: silentLog });
    const owner = await startOwnerServer({
      baton: opened.baton,
      createServer: () => createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog }),
      log: silentLog,
    });
    const client = new Client({ name: 'form-client', version: '1' }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(String(req.params.message));
      return { action: 'accept', content: { decision: 'approve' } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(owner.url), { requestInit: { headers: { authorization: `Bearer ${owner.token}` } } }));
    try {
      const out = (s: string) => ({ summary: s, artifacts: [{ type: 'markdown', title: s, content: `# ${s}` }], references: [], confidence: 0.9 });
      const next = async (args: Record<string, unknown>) =>
        (await client.callTool({ name: 'workflow_next_step', arguments: args })).structuredContent as unknown as NextStepResponse;
      let r = await next({ template_name: 'bug-fix' });
      while (r.status === 'ok') r = await next({ step_token: r.new_step_token, model_output_so_far: out(r.next_step_contract!.step_name) });
      assert.equal(r.status, 'awaiting_approval');
      // The agent waits on the gate; the form goes out and its answer comes back (a response-only POST, 202).
      const closed = await next({ step_token: r.new_step_token });
      assert.equal(closed.status, 'task_closed');
      assert.equal(asked.length, 1);
      assert.match(asked[0]!, /review-code/);
    } finally {
      await client.close();
      await owner.close();
      await opened.close();
    }
  });
});
