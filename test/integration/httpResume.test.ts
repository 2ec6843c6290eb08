// Rule: every SSE event of an HTTP session carries an id naming its session, stream and place; the session keeps its
// latest events (1,000 / 1 MiB) so that a GET with Last-Event-ID gets, in order, what its stream sent after that id:
// the GET stream's messages sent while none was open, and a POST stream's rest and answer after its connection
// dropped. A Last-Event-ID the session cannot place (garbage, unknown, another session's) replays nothing anyone had:
// such a GET, like a plain one, gets only the messages never written to a connection, and never another stream's.
import assert from 'node:assert/strict';
import { request, type ClientRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpHttpTransport } from '../../src/host/mcpHttpTransport.js';
import { REPLAY_MAX_EVENTS } from '../../src/host/sseReplay.js';
import type { OpenedBaton } from '../../src/host/openBaton.js';
import type { OwnerServer } from '../../src/host/ownerServer.js';
import { closeOwnerEndpoint, openOwnerEndpoint } from '../helpers/ownerEndpoint.js';
import { until } from '../helpers/until.js';

/** Releases the calls of the 'hold' tool that wait. */
const held: Array<() => void> = [];
/** Every server the owner made, so a test can see when one's transport saw its GET stream's connection drop. */
const servers: McpServer[] = [];

function testServer(): McpServer {
  const server = new McpServer({ name: 'resume-test', version: '1' }, { capabilities: { logging: {} } });
  servers.push(server);
  // Log messages about no call go on the session's GET stream; `data` numbers them.
  server.registerTool('log', { description: 'sends `count` log messages', inputSchema: { from: z.number(), count: z.number() } }, async ({ from, count }) => {
    for (let i = from; i < from + count; i++) await server.server.notification({ method: 'notifications/message', params: { level: 'info', data: i } });
    return { content: [{ type: 'text', text: 'logged' }] };
  });
  server.registerTool('hold', { description: 'reports progress, waits for the test, reports progress again, answers' }, async (extra) => {
    const progress = (p: number) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: extra._meta?.progressToken ?? 0, progress: p } });
    await progress(1);
    await new Promise<void>((resolve) => held.push(resolve));
    await progress(2);
    return { content: [{ type: 'text', text: 'released' }] };
  });
  return server;
}

interface SseEvent { id?: string; data: string }

/** An SSE response read as it comes. */
interface Stream {
  status: number;
  events: SseEvent[];
  ended: Promise<void>;
  /** Drops the connection (the client's network going away). */
  drop: () => void;
}

const parseEvents = (text: string): SseEvent[] =>
  text.split('\n\n').filter(Boolean).map((block) => {
    const lines = block.split('\n');
    const id = lines.find((l) => l.startsWith('id: '))?.slice(4);
    return { ...(id === undefined ? {} : { id }), data: lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n') };
  });

/** The `data` of the log messages among `events`, in order. */
const logged = (events: SseEvent[]) => events.filter((e) => e.data.includes('notifications/message')).map((e) => (JSON.parse(e.data) as { params: { data: number } }).params.data);

/** Each test's limit: without resumption a stream it waits on would never end. */
const T = { timeout: 30_000 };

describe('Streamable HTTP resumability (Last-Event-ID)', () => {
  let workspace: string;
  let opened: OpenedBaton;
  let owner: OwnerServer;
  let base: Record<string, string>;

  function open(method: string, headers: Record<string, string>, body?: unknown): Promise<Stream> {
    return new Promise((resolve, reject) => {
      let req: ClientRequest | undefined;
      req = request({ host: '127.0.0.1', port: owner.port, method, path: '/mcp', headers: { ...base, ...headers } }, (res) => {
        const stream: Stream = { status: res.statusCode ?? 0, events: [], ended: new Promise((r) => res.once('close', () => r())), drop: () => req!.destroy() };
        let text = '';
        res.on('data', (d) => {
          text += d;
          const cut = text.lastIndexOf('\n\n');
          if (cut < 0) return;
          stream.events.push(...parseEvents(text.slice(0, cut + 2)));
          text = text.slice(cut + 2);
        });
        res.on('error', () => undefined);
        resolve(stream);
      });
      req.on('error', (ex: NodeJS.ErrnoException) => (ex.code === 'ECONNRESET' ? undefined : reject(ex)));
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }
  const post = async (headers: Record<string, string>, body: unknown) => {
    const s = await open('POST', headers, body);
    await s.ended;
    return s;
  };
  const log = (headers: Record<string, string>, from: number, count = 1) =>
    post(headers, { jsonrpc: '2.0', id: `log-${from}`, method: 'tools/call', params: { name: 'log', arguments: { from, count } } });
  /** Drops a GET stream and waits until the server saw it go (else a message may still be written to it). */
  async function drop(stream: Stream, headers: Record<string, string>): Promise<void> {
    stream.drop();
    const transport = servers.map((s) => s.server.transport as McpHttpTransport).find((t) => t?.sessionId === headers['mcp-session-id'])!;
    await until('the server to see the GET stream drop', () => !transport.streaming);
  }
  const get = (headers: Record<string, string>, lastEventId?: string) =>
    open('GET', { ...headers, accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) });

  /** A raw session of `version`: initialize + initialized; returns the headers later requests carry. */
  async function session(version = '2025-11-25'): Promise<Record<string, string>> {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    let sessionId = '';
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: owner.port, method: 'POST', path: '/mcp', headers: base }, (res) => {
        sessionId = String(res.headers['mcp-session-id']);
        res.resume().once('end', resolve);
      });
      req.on('error', reject);
      req.end(JSON.stringify(init));
    });
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': version };
    assert.equal((await post(headers, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
    return headers;
  }

  before(async () => {
    ({ workspace, opened, owner, headers: base } = await openOwnerEndpoint('baton-resume-', { createServer: () => testServer }));
  });
  after(() => closeOwnerEndpoint({ workspace, opened, owner }));

  it('puts an id on every SSE event: <session>.<stream>.<seq>, a priming event first on a 2025-11-25 GET stream', T, async () => {
    const headers = await session();
    const sid = headers['mcp-session-id'];
    const stream = await get(headers);
    assert.equal(stream.status, 200);
    await log(headers, 1, 2);
    await until('two log messages', () => logged(stream.events).length === 2);
    assert.deepEqual(stream.events.map((e) => e.id), [`${sid}.0.1`, `${sid}.0.2`, `${sid}.0.3`]);
    assert.equal(stream.events[0]!.data, '', 'a priming event: an id and no data');
    // A POST answered over SSE: its stream has a number of its own, every event an id.
    const sse = await post({ ...headers, accept: 'text/event-stream' }, { jsonrpc: '2.0', id: 5, method: 'ping' });
    assert.deepEqual(sse.events.map((e) => e.id), [`${sid}.1.4`, `${sid}.1.5`]);
    assert.deepEqual(sse.events.map((e) => e.data && JSON.parse(e.data)), ['', { jsonrpc: '2.0', id: 5, result: {} }]);
    stream.drop();
    // Before 2025-11-25 a client may not take an event with no data: no priming event, ids on the rest.
    const old = await session('2025-06-18');
    const oldStream = await get(old);
    await log(old, 1);
    await until('a log message', () => oldStream.events.length === 1);
    assert.equal(oldStream.events[0]!.id, `${old['mcp-session-id']}.0.1`);
    oldStream.drop();
  });

  it('replays, after a Last-Event-ID, the messages sent while the GET stream was away, in order, then goes on live', T, async () => {
    const headers = await session();
    const first = await get(headers);
    await log(headers, 1);
    await until('message 1', () => logged(first.events).length === 1);
    const lastSeen = first.events.at(-1)!.id!;
    await drop(first, headers);
    await log(headers, 2, 3);
    const second = await get(headers, lastSeen);
    assert.equal(second.status, 200);
    await until('messages 2-4', () => logged(second.events).length === 3);
    await log(headers, 5);
    await until('message 5', () => logged(second.events).length === 4);
    assert.deepEqual(logged(second.events), [2, 3, 4, 5]);
    second.drop();
  });

  it('a GET without Last-Event-ID (a 2025-06-18 client has no priming id) gets the messages no connection had', T, async () => {
    const headers = await session('2025-06-18');
    await log(headers, 1); // before any GET stream
    const first = await get(headers);
    await until('message 1', () => logged(first.events).length === 1);
    await log(headers, 2);
    await until('message 2', () => logged(first.events).length === 2);
    await drop(first, headers);
    await log(headers, 3, 2);
    const second = await get(headers);
    await until('messages 3-4', () => logged(second.events).length === 2);
    assert.deepEqual([logged(first.events), logged(second.events)], [[1, 2], [3, 4]]);
    second.drop();
  });

  it('takes a garbage, unknown or other session\'s Last-Event-ID as none, with 200: no message twice, none of another stream', T, async () => {
    const other = await session();
    const otherStream = await get(other);
    await log(other, 100);
    await until('the other session\'s message', () => logged(otherStream.events).length === 1);
    const otherId = otherStream.events.at(-1)!.id!;
    otherStream.drop();

    const headers = await session();
    const sid = headers['mcp-session-id'];
    const first = await get(headers);
    await log(headers, 1);
    await until('message 1', () => logged(first.events).length === 1);
    // A POST stream of this session: its id names a stream that is not the GET stream.
    const sse = await post({ ...headers, accept: 'text/event-stream' }, { jsonrpc: '2.0', id: 9, method: 'ping' });
    const postId = sse.events.at(-1)!.id!;
    await drop(first, headers);
    let n = 2;
    for (const lastEventId of ['garbage', `${sid}.0.999999`, `${sid}.7.1`, `${sid}.0.-1`, otherId, '']) {
      await log(headers, n);
      const s = await get(headers, lastEventId);
      assert.equal(s.status, 200, lastEventId);
      await until(`message ${n} after ${lastEventId}`, () => logged(s.events).length === 1);
      assert.deepEqual(logged(s.events), [n], `${lastEventId}: only the message no connection had`);
      await drop(s, headers);
      n++;
    }
    // The Last-Event-ID of a POST stream that is over replays nothing of the GET stream: 204, nothing to resume.
    await log(headers, n);
    const resumed = await get(headers, postId);
    await resumed.ended;
    assert.deepEqual([resumed.status, resumed.events], [204, []]);
  });

  it(`keeps the latest ${REPLAY_MAX_EVENTS} GET-stream messages of a session that has opened no GET stream yet, the oldest dropped first`, T, async () => {
    const headers = await session();
    const total = REPLAY_MAX_EVENTS + 250;
    await log(headers, 1, total);
    const s = await get(headers);
    await until('the kept messages', () => logged(s.events).length === REPLAY_MAX_EVENTS);
    const got = logged(s.events);
    assert.deepEqual([got[0], got.at(-1)], [251, total]);
    assert.ok(got.every((v, i) => i === 0 || v === got[i - 1]! + 1), 'in order, none missing after the first kept');
    s.drop();
  });

  it('a GET with the stream\'s Last-Event-ID takes over a GET stream the server still holds, replaying what was written on it after that id', T, async () => {
    const headers = await session();
    const first = await get(headers);
    await log(headers, 1);
    await until('message 1', () => logged(first.events).length === 1);
    const refused = await get(headers);
    await refused.ended;
    assert.equal(refused.status, 409, 'without a Last-Event-ID, a second GET stream is refused');
    // The client lost message 1 (a connection the server still holds, though nothing reaches the client).
    const second = await get(headers, first.events[0]!.id!);
    assert.equal(second.status, 200);
    await first.ended;
    await log(headers, 2);
    await until('message 2', () => logged(second.events).length === 2);
    assert.deepEqual([logged(first.events), logged(second.events)], [[1], [1, 2]]);
    second.drop();
  });

  it("resumes a POST's SSE stream dropped before its answer: a GET with its Last-Event-ID gets the rest and the answer", T, async () => {
    const headers = await session();
    const call = { jsonrpc: '2.0', id: 'h', method: 'tools/call', params: { name: 'hold', arguments: {}, _meta: { progressToken: 't' } } };
    const first = await open('POST', headers, call);
    await until('the first progress', () => first.events.some((e) => e.data.includes('"progress":1')));
    assert.ok(first.events.every((e) => e.id), 'every event has an id');
    const lastSeen = first.events.at(-1)!.id!;
    first.drop();
    await first.ended;
    // The call goes on (a dropped stream is no cancellation); what it sends meanwhile is kept.
    while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
    held.shift()!();
    const resumed = await get(headers, lastSeen);
    await resumed.ended;
    const messages = resumed.events.map((e) => JSON.parse(e.data) as { method?: string; params?: { progress: number }; id?: string; result?: unknown });
    assert.deepEqual(messages.map((m) => m.method ?? `answer ${m.id}`), ['notifications/progress', 'answer h']);
    assert.equal(messages[0]!.params!.progress, 2);
    assert.deepEqual(messages[1]!.result, { content: [{ type: 'text', text: 'released' }] });
    // The session's GET stream is not that stream: it is still free to open.
    const stream = await get(headers);
    assert.equal(stream.status, 200);
    stream.drop();
  });

  it('a GET resuming a POST stream before its answer waits for it there, and the call\'s id stays in use meanwhile', T, async () => {
    const headers = await session();
    const call = { jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'hold', arguments: {}, _meta: { progressToken: 't' } } };
    const first = await open('POST', headers, call);
    await until('the first progress', () => first.events.some((e) => e.data.includes('"progress":1')));
    first.drop();
    await first.ended;
    const reused = await post(headers, call);
    assert.equal(reused.status, 400, 'the call is still open after its connection dropped');
    const resumed = await get(headers, first.events.at(-1)!.id!);
    assert.equal(resumed.status, 200);
    held.shift()!();
    await resumed.ended;
    assert.deepEqual(resumed.events.map((e) => (JSON.parse(e.data) as { id?: string }).id ?? 'progress'), ['progress', 'w']);
  });
});
