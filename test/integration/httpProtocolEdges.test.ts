// Rule: the owner's /mcp endpoint reads HTTP as its RFCs write it, not only as the SDK's client sends it: a bearer
// scheme in any case, with any number of spaces before the token; a method MCP does not use is 405 with or without a
// session; a Host in any case; Expect: 100-continue for a body over the limit is 413 before the body is sent; an
// Accept with q=0 refuses that type; batches are taken or refused by the version the session's initialize settled on,
// not by a request's header; a compressed body is 415, naming the fix.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { OpenedBaton } from '../../src/host/openBaton.js';
import type { OwnerServer } from '../../src/host/ownerServer.js';
import { closeOwnerEndpoint, openOwnerEndpoint } from '../helpers/ownerEndpoint.js';

const init = (protocolVersion = '2025-06-18') => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

interface Reply { status: number; body: string; type: string; session: string; allow: string }

describe('owner /mcp endpoint: HTTP as its RFCs write it', () => {
  let workspace: string;
  let opened: OpenedBaton;
  let owner: OwnerServer;
  let headers: Record<string, string>;

  before(async () => {
    ({ workspace, opened, owner, headers } = await openOwnerEndpoint('baton-http-edges-', { approvalWaitMs: 0, maxBodyBytes: 4096 }));
  });
  after(() => closeOwnerEndpoint({ workspace, opened, owner }));

  const raw = (opts: { method?: string; headers?: Record<string, string>; body?: unknown }): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: owner.port, method: opts.method ?? 'POST', path: '/mcp', headers: { ...headers, ...opts.headers } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({
          status: res.statusCode ?? 0, body, type: String(res.headers['content-type'] ?? ''), session: String(res.headers['mcp-session-id'] ?? ''),
          allow: String(res.headers.allow ?? ''),
        }));
      });
      req.on('error', reject);
      req.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
    });

  /** A session of this protocol version (initialize + initialized); the headers its later requests carry. */
  async function session(version = '2025-06-18'): Promise<Record<string, string>> {
    const started = await raw({ body: init(version) });
    assert.equal(started.status, 200, started.body);
    const negotiated = JSON.parse(started.body).result.protocolVersion as string;
    const next = { 'mcp-session-id': started.session, 'mcp-protocol-version': negotiated };
    assert.equal((await raw({ headers: next, body: { jsonrpc: '2.0', method: 'notifications/initialized' } })).status, 202);
    return next;
  }

  it('takes the bearer scheme in any case and with more than one space before the token (RFC 9110 11.1)', async () => {
    const s = await session();
    for (const authorization of [`bearer ${owner.token}`, `BEARER ${owner.token}`, `Bearer   ${owner.token}`]) {
      const res = await raw({ headers: { ...s, authorization }, body: ping(2) });
      assert.equal(res.status, 200, `${authorization.slice(0, 10)}: ${res.body}`);
    }
    for (const authorization of [`Basic ${owner.token}`, `Bearer${owner.token}`, owner.token, `Bearer ${owner.token} x`]) {
      assert.equal((await raw({ headers: { ...s, authorization }, body: ping(3) })).status, 401, authorization.slice(0, 10));
    }
  });

  it('takes a run token with a lowercase scheme, and its session only with that token', async () => {
    const grant = owner.issueRunToken({ runId: 'run-edges', agent: 'a' });
    try {
      const started = await raw({ headers: { authorization: `bearer ${grant.token}` }, body: init() });
      assert.equal(started.status, 200, started.body);
      const s = { 'mcp-session-id': started.session, 'mcp-protocol-version': '2025-06-18' };
      assert.equal((await raw({ headers: { ...s, authorization: `Bearer  ${grant.token}` }, body: ping(2) })).status, 200);
      assert.equal((await raw({ headers: s, body: ping(3) })).status, 404, "the owner's token does not reach a run token's session");
    } finally {
      grant.revoke();
    }
  });

  it('answers PUT, PATCH, HEAD and OPTIONS with 405 and the methods MCP takes, with a session or without one', async () => {
    const s = await session();
    for (const method of ['PUT', 'PATCH', 'OPTIONS', 'HEAD']) {
      for (const extra of [{}, s]) {
        const res = await raw({ method, headers: extra });
        assert.deepEqual([res.status, res.allow], [405, 'GET, POST, DELETE'], `${method} ${extra === s ? 'with' : 'without'} a session`);
        if (method !== 'HEAD') {
          assert.equal(JSON.parse(res.body).error.message, `Method not allowed: ${method} ${owner.url}; MCP over Streamable HTTP takes POST (a message), GET (the session's stream of server messages) and DELETE (end the session)`);
        }
      }
    }
    assert.equal((await raw({ headers: s, body: ping(2) })).status, 200, 'the session goes on');
  });

  it('takes a Host in any case (host names are case-insensitive); another name is still refused', async () => {
    const s = await session();
    assert.equal((await raw({ headers: { ...s, host: `LocalHost:${owner.port}` }, body: ping(2) })).status, 200);
    assert.equal((await raw({ headers: { ...s, host: `LOCALHOST.evil:${owner.port}` }, body: ping(3) })).status, 403);
  });

  it('answers Expect: 100-continue for a body over the limit with 413 and a closed connection, before the body is sent', async () => {
    const s = await session();
    /** Sends the request's head only, and reads until the server closes the connection. */
    const ask = (length: number) => new Promise<string>((resolve, reject) => {
      const socket = connect(owner.port, '127.0.0.1');
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      const lines = Object.entries({ ...headers, ...s, 'content-length': String(length), expect: '100-continue' }).map(([k, v]) => `${k}: ${v}`);
      socket.write(`POST /mcp HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
      // A body that fits is sent once the server says to go on; then the connection is closed from this side.
      socket.on('data', () => {
        if (text.startsWith('HTTP/1.1 100 Continue\r\n\r\n') && length > 0 && !socket.writableEnded) {
          socket.end(JSON.stringify(ping(2)).padEnd(length));
        }
      });
    });
    const refused = await ask(4097);
    assert.match(refused, /^HTTP\/1\.1 413 /, refused.slice(0, 100));
    assert.doesNotMatch(refused, /100 Continue/);
    assert.match(refused, /\r\nconnection: close\r\n/i);
    assert.match(refused, /Request too large: the body is over 4096 bytes/);
    const served = await ask(JSON.stringify(ping(2)).length + 2);
    assert.match(served, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /, served.slice(0, 100));
    assert.match(served, /"id":2/);
  });

  it('reads q=0 in Accept as "not this type": application/json;q=0 gets an SSE answer, both refused get 406', async () => {
    const s = await session();
    const sse = await raw({ headers: { ...s, accept: 'application/json;q=0, text/event-stream' }, body: ping(2) });
    assert.equal(sse.status, 200);
    assert.match(sse.type, /^text\/event-stream/);
    assert.match(sse.body, /^event: message\nid: \S+\ndata: .*"id":2/);
    const json = await raw({ headers: { ...s, accept: 'text/event-stream; q=0, */*' }, body: ping(3) });
    assert.deepEqual([json.status, json.type], [200, 'application/json']);
    const none = await raw({ headers: { ...s, accept: 'application/json;q=0, text/event-stream;q=0.0, text/html' }, body: ping(4) });
    assert.equal(none.status, 406, none.body);
    const weighted = await raw({ headers: { ...s, accept: 'Application/JSON;q=0.5, text/event-stream;q=0.1' }, body: ping(5) });
    assert.deepEqual([weighted.status, weighted.type], [200, 'application/json']);
  });

  it("decides batches by the session's version, whatever version another request's MCP-Protocol-Version names", async () => {
    const s = await session('2025-06-18');
    const other = { ...s, 'mcp-protocol-version': '2025-03-26' };
    // The transport specification asks only that the header SHOULD be the negotiated version: a call is taken...
    assert.equal((await raw({ headers: other, body: ping(2) })).status, 200);
    // ...but batches, which came with 2025-03-26 and went with 2025-06-18, are not brought back by the header.
    const batch = await raw({ headers: other, body: [ping(3), ping(4)] });
    assert.equal(batch.status, 400);
    assert.match(JSON.parse(batch.body).error.message, /^Invalid Request: MCP 2025-06-18 takes one JSON-RPC message at a time, not a batch/);
    const old = await session('2025-03-26');
    const taken = await raw({ headers: { ...old, 'mcp-protocol-version': '2025-06-18' }, body: [ping(5), ping(6)] });
    assert.equal(taken.status, 200, 'a 2025-03-26 session takes batches, whatever its header says');
    assert.deepEqual(JSON.parse(taken.body).map((m: { id: number }) => m.id), [5, 6]);
  });

  it('holds a session to the version its initialize settled on, not the one the client asked for', async () => {
    const s = await session('2099-01-01');
    assert.equal(s['mcp-protocol-version'], LATEST_PROTOCOL_VERSION);
    const { 'mcp-protocol-version': _v, ...bare } = s;
    const batch = await raw({ headers: bare, body: [ping(2), ping(3)] });
    assert.equal(batch.status, 400);
    assert.match(JSON.parse(batch.body).error.message, new RegExp(`^Invalid Request: MCP ${LATEST_PROTOCOL_VERSION} takes one JSON-RPC message at a time`));
    assert.equal((await raw({ headers: s, body: ping(5) })).status, 200);
  });

  it('refuses a compressed body with 415 naming the fix, not as a body that is not JSON; identity is taken', async () => {
    const s = await session();
    const gzipped = gzipSync(JSON.stringify(ping(2)));
    const refused = await new Promise<Reply>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: owner.port, method: 'POST', path: '/mcp', headers: { ...headers, ...s, 'content-encoding': 'gzip' } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: '', session: '', allow: '' }));
      });
      req.on('error', reject);
      req.end(gzipped);
    });
    assert.equal(refused.status, 415);
    assert.equal(JSON.parse(refused.body).error.message, 'Unsupported Media Type: Content-Encoding "gzip" is not taken; send the body uncompressed, without a Content-Encoding header');
    assert.equal((await raw({ headers: { ...s, 'content-encoding': 'identity' }, body: ping(3) })).status, 200);
  });
});
