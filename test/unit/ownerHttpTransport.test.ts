// Rule: the connection a forwarding `baton mcp` keeps to its owner speaks MCP's Streamable HTTP client side as the
// SDK's transport does where the proxy relies on it: the owner's headers, session id and protocol version on every
// request; JSON, SSE (any line ending, split anywhere) and 202 answers; the GET stream opened once `initialized` is
// accepted and opened again from its Last-Event-ID when it drops; a POST stream resumed the same way before its
// answer; failures shaped as the SDK's (OwnerHttpError as its StreamableHTTPError, with the status and the body;
// fetch's TypeError with the socket's error as cause; AbortError on close); nothing is sent or retried after close.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { OwnerHttpError, OwnerHttpTransport, SseParser } from '../../src/host/ownerHttpTransport.js';
import { connectionRefused } from '../../src/host/requestWithin.js';
import { ownerRefusal } from '../../src/host/proxyAnswers.js';
import { until } from '../helpers/until.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** An owner stand-in on a free port: each request is recorded with its body and handed to `handle`. */
async function owner(handle: Handler) {
  const seen: Array<{ method: string; headers: IncomingMessage['headers']; body: string }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method!, headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  return {
    url, seen,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const FAST = { initialDelayMs: 10, maxDelayMs: 50, growFactor: 2, maxRetries: 2 };
const call = (id: number, method = 'tools/call'): JSONRPCMessage => ({ jsonrpc: '2.0', id, method, params: { name: 'workflow_next_step', arguments: {} } });
const result = (id: number | string, text = 'ok') => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
const initialized: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/initialized' };

function transportTo(url: URL, reconnection = FAST) {
  const t = new OwnerHttpTransport(url, { authorization: 'Bearer secret', 'x-baton-holder-pid': '77' }, reconnection);
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let closed = 0;
  t.onmessage = (m) => messages.push(m);
  t.onerror = (e) => errors.push(e);
  t.onclose = () => closed++;
  return { t, messages, errors, closed: () => closed };
}

test('a JSON answer: delivered before send resolves; the session id and protocol version go on every later request', async () => {
  const o = await owner((req, res, body) => {
    const m = JSON.parse(body) as { id: number };
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'mcp-session-id': 'S1' }).end(JSON.stringify(result(m.id)));
  });
  const { t, messages, errors } = transportTo(o.url);
  try {
    await t.start();
    await t.send(call(1));
    assert.deepEqual(messages, [result(1)]);
    assert.equal(t.sessionId, 'S1');
    t.setProtocolVersion('2025-06-18');
    await t.send(call(2));
    assert.deepEqual(messages, [result(1), result(2)]);
    const [first, second] = o.seen;
    assert.equal(first!.headers.authorization, 'Bearer secret');
    assert.equal(first!.headers['x-baton-holder-pid'], '77');
    assert.equal(first!.headers['content-type'], 'application/json');
    assert.equal(first!.headers.accept, 'application/json, text/event-stream');
    assert.equal(first!.headers['mcp-session-id'], undefined);
    assert.equal(second!.headers['mcp-session-id'], 'S1');
    assert.equal(second!.headers['mcp-protocol-version'], '2025-06-18');
    assert.deepEqual(JSON.parse(second!.body), call(2));
    assert.deepEqual(errors, []);
  } finally {
    await t.close();
    await o.close();
  }
});

test('an SSE answer with CRLF and CR line endings, a comment, an id-only priming event and data split over lines', async () => {
  const o = await owner((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': keep-alive\r\n\r\nid: 1\r\ndata:\r\n\r\n');
    res.write(`event: message\rid: 2\rdata: {"jsonrpc":"2.0","method":"notifications/progress",\rdata: "params":{"progressToken":7,"progress":1}}\r\r`);
    res.end(`id: 3\ndata: ${JSON.stringify(result(5, 'done'))}\n\n`);
  });
  const { t, messages, errors } = transportTo(o.url);
  const tokens: string[] = [];
  try {
    await t.start();
    await t.send(call(5), { onresumptiontoken: (id) => tokens.push(id) });
    await until('two messages', () => messages.length === 2);
    assert.deepEqual(messages, [
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1 } },
      result(5, 'done'),
    ]);
    assert.deepEqual(tokens, ['1', '2', '3']);
    assert.deepEqual(errors, []);
  } finally {
    await t.close();
    await o.close();
  }
});

test('the SSE parser takes an event split at any point, a CRLF split between chunks included, and a leading BOM', () => {
  const text = '\ufeffid: a\r\nevent: message\r\ndata: one\r\ndata: two\r\n\r\n:c\r\ndata: three\n\nretry: 250\n\n';
  for (let cut = 0; cut <= text.length; cut++) {
    const events: unknown[] = [];
    const retries: number[] = [];
    const p = new SseParser((e) => events.push(e), (ms) => retries.push(ms));
    p.push(text.slice(0, cut));
    p.push(text.slice(cut));
    p.end();
    assert.deepEqual(events, [
      { id: 'a', event: 'message', data: 'one\ntwo' },
      { id: undefined, event: undefined, data: 'three' },
      { id: undefined, event: undefined, data: '' },
    ], `cut at ${cut}`);
    assert.deepEqual(retries, [250], `cut at ${cut}`);
  }
});

test('the SSE parser takes a 4 MB event over 64 KB chunks, and many short lines in one chunk, whole and in order', () => {
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(4 * 1024 * 1024) } });
  const text = `id: 1\ndata: ${big}\n\n${Array.from({ length: 2000 }, (_, i) => `data: ${i}\n\n`).join('')}`;
  const events: Array<{ data: string }> = [];
  const p = new SseParser((e) => events.push(e));
  for (let at = 0; at < text.length; at += 64 * 1024) p.push(text.slice(at, at + 64 * 1024));
  p.end();
  assert.equal(events.length, 2001);
  assert.equal(events[0]!.data, big);
  assert.deepEqual(events.slice(1).map((e) => e.data), Array.from({ length: 2000 }, (_, i) => String(i)));
});

test('202 for initialized opens the GET stream; its messages are delivered, and a dropped stream resumes at its last id', async () => {
  let gets = 0;
  const o = await owner((req, res) => {
    if (req.method === 'POST') return void res.writeHead(202).end();
    gets++;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (gets === 1) {
      res.write(`id: g1\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' })}\n\n`);
      setTimeout(() => res.socket?.destroy(), 20);
    } else {
      res.write(`id: g2\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`);
    }
  });
  const { t, messages, errors } = transportTo(o.url);
  try {
    await t.start();
    await t.send(initialized);
    await until('two messages', () => messages.length === 2);
    assert.deepEqual(messages.map((m) => (m as { method: string }).method), ['notifications/resources/list_changed', 'notifications/tools/list_changed']);
    const streams = o.seen.filter((s) => s.method === 'GET');
    assert.equal(streams[0]!.headers.accept, 'text/event-stream');
    assert.equal(streams[0]!.headers['last-event-id'], undefined);
    assert.equal(streams[1]!.headers['last-event-id'], 'g1');
    assert.match(errors[0]!.message, /^SSE stream disconnected: /);
  } finally {
    await t.close();
    await o.close();
  }
});

test('a POST stream that drops after an event id and before its answer is resumed by a GET, the answer under its id', async () => {
  const o = await owner((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (req.method === 'POST') {
      res.write('id: p1\ndata:\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    res.end(`id: p2\ndata: ${JSON.stringify(result('replayed'))}\n\n`);
  });
  const { t, messages } = transportTo(o.url);
  try {
    await t.start();
    await t.send(call(9));
    await until('the answer', () => messages.length === 1);
    assert.deepEqual(messages, [result(9)]);
    assert.equal(o.seen.find((s) => s.method === 'GET')!.headers['last-event-id'], 'p1');
  } finally {
    await t.close();
    await o.close();
  }
});

test('a GET stream the owner does not offer (405) is no error; one refused otherwise is reported', async () => {
  for (const [status, expected] of [[405, 0], [500, 1]] as const) {
    const o = await owner((req, res) => res.writeHead(req.method === 'POST' ? 202 : status).end());
    const { t, errors } = transportTo(o.url, { ...FAST, maxRetries: 0 });
    try {
      await t.start();
      await t.send(initialized);
      await until('a GET', () => o.seen.some((s) => s.method === 'GET'));
      await new Promise((r) => setTimeout(r, 30));
      assert.equal(errors.length, expected, `GET answered ${status}`);
      if (expected) assert.ok(errors[0] instanceof OwnerHttpError && errors[0].code === 500);
    } finally {
      await t.close();
      await o.close();
    }
  }
});

test('an HTTP error is an OwnerHttpError with the status, its body in the message as the proxy reads it', async () => {
  const refusal = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Bad Request: no session' } };
  const o = await owner((_req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(refusal)));
  const { t, errors } = transportTo(o.url);
  try {
    await t.start();
    const ex = await t.send(call(1)).then(() => assert.fail('sent'), (e: unknown) => e);
    assert.ok(ex instanceof OwnerHttpError);
    assert.equal(ex.code, 400);
    assert.deepEqual(ownerRefusal(ex), { code: -32600, message: 'Bad Request: no session' });
    assert.equal(errors[0], ex);
  } finally {
    await t.close();
    await o.close();
  }
});

test('an answer of another media type is refused (code -1); a message that is no JSON-RPC is an error, not delivered', async () => {
  const o = await owner((_req, res, body) => {
    const { id } = JSON.parse(body) as { id: number };
    if (id === 1) return void res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, oops: true }));
  });
  const { t, messages } = transportTo(o.url);
  try {
    await t.start();
    await assert.rejects(t.send(call(1)), (e: unknown) => e instanceof OwnerHttpError && e.code === -1 && /Unexpected content type: text\/plain/.test(e.message));
    await assert.rejects(t.send(call(2)));
    assert.deepEqual(messages, []);
  } finally {
    await t.close();
    await o.close();
  }
});

test("a refused connection fails as fetch's does: TypeError('fetch failed') with the socket's ECONNREFUSED as cause", async () => {
  const o = await owner((_req, res) => res.end());
  const url = o.url;
  await o.close();
  const { t, errors } = transportTo(url);
  await t.start();
  const ex = await t.send(call(1)).then(() => assert.fail('sent'), (e: unknown) => e);
  assert.ok(ex instanceof TypeError);
  assert.equal(ex.message, 'fetch failed');
  assert.ok(connectionRefused(ex));
  assert.equal(errors.length, 1);
  await t.close();
});

test('close() ends a send in flight with an AbortError and the GET stream without a retry; later sends fail the same', async () => {
  let gets = 0;
  const o = await owner((req, res) => {
    if (req.method === 'GET') {
      gets++;
      return void res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': open\n\n');
    }
    const { method } = JSON.parse((o.seen.at(-1)!).body) as { method: string };
    if (method === 'notifications/initialized') return void res.writeHead(202).end();
    // a call the owner never answers
  });
  const { t, closed } = transportTo(o.url);
  try {
    await t.start();
    await t.send(initialized);
    await until('the GET stream', () => gets === 1);
    const pending = t.send(call(3));
    await until('the call', () => o.seen.length === 3);
    await t.close();
    await assert.rejects(pending, (e: unknown) => (e as Error).name === 'AbortError');
    await assert.rejects(t.send(call(4)), (e: unknown) => (e as Error).name === 'AbortError');
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(gets, 1);
    assert.equal(closed(), 1);
  } finally {
    await o.close();
  }
});

test('terminateSession sends DELETE with the session id and forgets it; 405 is fine; without a session nothing is sent', async () => {
  for (const status of [200, 405]) {
    const o = await owner((req, res) => {
      if (req.method === 'DELETE') return void res.writeHead(status).end();
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'S9' }).end(JSON.stringify(result(1)));
    });
    const { t } = transportTo(o.url);
    try {
      await t.start();
      await t.terminateSession();
      assert.equal(o.seen.length, 0);
      await t.send(call(1));
      await t.terminateSession();
      const del = o.seen.find((s) => s.method === 'DELETE')!;
      assert.equal(del.headers['mcp-session-id'], 'S9');
      assert.equal(t.sessionId, undefined);
    } finally {
      await t.close();
      await o.close();
    }
  }
});
