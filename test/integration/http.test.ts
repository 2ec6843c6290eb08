// Rule: the owner's 127.0.0.1 endpoint serves only callers holding the bearer token, on a loopback Host, from no
// foreign Origin (DNS rebinding), within a 10 MiB body; /control decides gates and lists executions for the CLI;
// idle MCP sessions are closed, never one with a request open. A caller refused (no token, an OAuth client, a path
// that is not /mcp) is told the fix: the header and where its token is, or the one URL MCP is served at.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { silentLog } from '../../src/core/ports.js';
import { decideViaOwner, statusViaOwner } from '../../src/host/controlClient.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer, type OwnerServer } from '../../src/host/ownerServer.js';
import { closeOwnerEndpoint, openOwnerEndpoint } from '../helpers/ownerEndpoint.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { discoveryPath, readDiscovery } from '../../src/host/discovery.js';
import { validOutput } from '../fixtures/mcp/badInput.js';
import { FakeBaton } from '../fixtures/mcp/fakeBaton.js';
import { CLI, ensureBuilt, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

/** A raw HTTP request, so tests can set Host and Origin freely. */
function raw(port: number, opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<{ status: number; body: string; session: string; authenticate: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: opts.method ?? 'POST', path: opts.path ?? '/mcp', headers: opts.headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, session: String(res.headers['mcp-session-id'] ?? ''), authenticate: String(res.headers['www-authenticate'] ?? '') }));
    });
    req.on('error', (ex: NodeJS.ErrnoException) => (ex.code === 'EPIPE' || ex.code === 'ECONNRESET' ? undefined : reject(ex)));
    if (opts.body !== undefined) req.end(opts.body);
    else req.end();
  });
}

describe('owner HTTP endpoint (real core)', () => {
  let workspace: string;
  let opened: OpenedBaton;
  let owner: OwnerServer;
  let headers: Record<string, string>;

  before(async () => {
    ({ workspace, opened, owner, headers } = await openOwnerEndpoint('baton-http-', { approvalWaitMs: 0 }));
  });
  after(() => closeOwnerEndpoint({ workspace, opened, owner }));

  it('listens on 127.0.0.1 with a 64-hex-digit token', () => {
    assert.match(owner.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.match(owner.token, /^[0-9a-f]{64}$/);
  });

  it('refuses a missing token and a wrong token with 401, saying how to authenticate (WWW-Authenticate, RFC 6750)', async () => {
    const { authorization: _a, ...noAuth } = headers;
    const none = await raw(owner.port, { headers: noAuth, body: JSON.stringify(INIT) });
    assert.deepEqual([none.status, none.authenticate], [401, 'Bearer realm="baton"'], 'no token: no error code');
    const wrong = { ...headers, authorization: `Bearer ${'0'.repeat(64)}` };
    const refused = await raw(owner.port, { headers: wrong, body: JSON.stringify(INIT) });
    assert.equal(refused.status, 401);
    assert.match(refused.authenticate, /^Bearer realm="baton", error="invalid_token", error_description="[^"]*server\.json[^"]*"$/);
    assert.match(JSON.parse(refused.body).error.message, /^missing or wrong bearer token: send the header "Authorization: Bearer <token>" with the token of server\.json/);
    assert.equal((await raw(owner.port, { headers: { ...headers, authorization: owner.token }, body: JSON.stringify(INIT) })).status, 401);
  });

  it('refuses a foreign Host with 403 (DNS rebinding), even with the token', async () => {
    for (const host of ['evil.example:80', `evil.example:${owner.port}`, '127.0.0.1:1']) {
      assert.equal((await raw(owner.port, { headers: { ...headers, host }, body: JSON.stringify(INIT) })).status, 403, host);
    }
  });

  it('refuses a foreign Origin with 403; a loopback Origin is fine', async () => {
    const evil = await raw(owner.port, { headers: { ...headers, origin: 'http://evil.example' }, body: JSON.stringify(INIT) });
    assert.equal(evil.status, 403);
    const local = await raw(owner.port, { headers: { ...headers, origin: `http://localhost:${owner.port}`, host: `localhost:${owner.port}` }, body: JSON.stringify(INIT) });
    assert.equal(local.status, 200);
  });

  it('refuses a body over 10 MiB (a stdio line\'s limit too, which a forwarding baton mcp sends on) with 413 and a JSON-RPC error saying what to do', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 10, 0x20);
    const res = await raw(owner.port, { headers, body: big });
    assert.equal(res.status, 413);
    assert.deepEqual(JSON.parse(res.body), {
      jsonrpc: '2.0', id: null,
      error: { code: -32600, message: 'Request too large: the body is over 10 MiB, the most one message may be; split large content over several calls, or keep it in a file and pass its path' },
    });
  });

  it('reads a body sent in pieces, and stops reading one that grows past 10 MiB with no declared length; the next call is served', async () => {
    /** A POST whose body goes out as chunks (no Content-Length), a few milliseconds apart. */
    const chunked = (pieces: Buffer[]) =>
      new Promise<{ status: number; body: string } | { closed: string }>((resolve) => {
        const req = request({ host: '127.0.0.1', port: owner.port, method: 'POST', path: '/mcp', headers }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          res.on('close', () => resolve({ status: res.statusCode ?? 0, body })); // cut short: what came of it
        });
        req.on('error', (ex: NodeJS.ErrnoException) => resolve({ closed: ex.code ?? ex.message }));
        // A connection the server closed mid-body may end with neither an answer nor an error (it hung this test once
        // in CI, with no socket left open): the request's close settles it.
        req.on('close', () => resolve({ closed: 'closed' }));
        const next = (i: number) => {
          if (i === pieces.length) return void req.end();
          if (!req.write(pieces[i]!)) req.once('drain', () => setTimeout(() => next(i + 1), 2));
          else setTimeout(() => next(i + 1), 2);
        };
        next(0);
      });
    const text = Buffer.from(JSON.stringify(INIT));
    const whole = await chunked([text.subarray(0, 10), text.subarray(10, 40), text.subarray(40)]);
    assert.ok('status' in whole && whole.status === 200, JSON.stringify(whole));
    const mib = Buffer.alloc(1024 * 1024, 0x20);
    const huge = await chunked(Array.from({ length: 12 }, () => mib));
    assert.ok('closed' in huge || huge.status === 413, `the server read on: ${JSON.stringify(huge).slice(0, 200)}`);
    assert.equal((await raw(owner.port, { headers, body: JSON.stringify(INIT) })).status, 200);
  });

  it('takes a body that starts with a byte order mark (RFC 8259 lets a parser ignore it)', async () => {
    const res = await raw(owner.port, { headers, body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(INIT))]) });
    assert.equal(res.status, 200, res.body);
    assert.equal(JSON.parse(res.body).result.serverInfo.name, 'baton');
  });

  it('logs a client that hangs up in the middle of its body as a debug line, not an error', async () => {
    const lines: Array<[string, string]> = [];
    const log = { debug: (m: string) => lines.push(['debug', m]), info: () => {}, warn: (m: string) => lines.push(['warn', m]), error: (m: string) => lines.push(['error', m]) };
    const second = await startOwnerServer({ baton: opened.baton, createServer: () => createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog }), log });
    try {
      const req = request({ host: '127.0.0.1', port: second.port, method: 'POST', path: '/mcp', headers: { ...headers, host: `127.0.0.1:${second.port}`, authorization: `Bearer ${second.token}`, 'content-length': '1000' } });
      req.on('error', () => {});
      req.write('{"jsonrpc":');
      await new Promise((r) => setTimeout(r, 50));
      req.destroy();
      await waitFor(() => lines.length > 0, 20_000);
      assert.deepEqual(lines, [['debug', 'owner endpoint: the client hung up during its request']]);
    } finally {
      await second.close();
    }
  });

  it('answers an OAuth client (discovery, registration) in OAuth\'s error form, naming the bearer token to send', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const res = await raw(owner.port, { method: 'GET', path, headers: { host: `127.0.0.1:${owner.port}` } });
      assert.equal(res.status, 404, path);
      assert.equal(JSON.parse(res.body).error, 'invalid_request', path);
    }
    const registered = await raw(owner.port, { path: '/register', headers: { host: `127.0.0.1:${owner.port}`, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(registered.status, 400);
    assert.match(JSON.parse(registered.body).error_description, /^Baton takes no OAuth sign-in: send the header "Authorization: Bearer <token>"/);
    // What mcp-cli and mcp-remote do with a wrong token: the SDK's OAuth flow, which used to end in "Invalid OAuth
    // error response" with Baton's own error object; now it ends in Baton's sentence.
    const provider: OAuthClientProvider = {
      redirectUrl: 'http://127.0.0.1:1/callback',
      clientMetadata: { redirect_uris: ['http://127.0.0.1:1/callback'], client_name: 'oauth-test' },
      clientInformation: () => undefined,
      saveClientInformation: () => undefined,
      tokens: () => undefined,
      saveTokens: () => undefined,
      redirectToAuthorization: () => assert.fail('no sign-in page to open'),
      saveCodeVerifier: () => undefined,
      codeVerifier: () => '',
    };
    const transport = new StreamableHTTPClientTransport(new URL(owner.url), { authProvider: provider, requestInit: { headers: { authorization: 'Bearer stale' } } });
    const client = new Client({ name: 'oauth-test', version: '1' });
    await assert.rejects(client.connect(transport), /Baton takes no OAuth sign-in: send the header "Authorization: Bearer <token>"/);
    await client.close();
  });

  it('answers a path that is not /mcp (the bare address, the older transport\'s GET /sse) with the URL MCP is served at', async () => {
    for (const [method, path] of [['GET', '/sse'], ['POST', '/messages'], ['POST', '/'], ['GET', '/mcp/']] as const) {
      const res = await raw(owner.port, { method, path, headers, body: method === 'POST' ? JSON.stringify(INIT) : undefined });
      assert.equal(res.status, 404, path);
      const message = JSON.parse(res.body).error.message as string;
      assert.ok(message.startsWith(`no route ${method} ${path}: Baton serves MCP at ${owner.url} only, over Streamable HTTP`), message);
      assert.match(message, /GET \/sse, is not served/);
    }
  });

  it('answers /healthz without a token', async () => {
    const res = await raw(owner.port, { method: 'GET', path: '/healthz', headers: { host: `127.0.0.1:${owner.port}` } });
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), { ok: true, pid: process.pid });
  });

  it('with the token, a real SDK client works over Streamable HTTP', async () => {
    const client = new Client({ name: 'http-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(owner.url), { requestInit: { headers: { authorization: `Bearer ${owner.token}` } } }));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['workflow_next_step']);
    const res = await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } });
    assert.equal((res.structuredContent as { status: string }).status, 'ok');
    await client.close();
  });

  it('/control lists executions and decides a gate; errors are 4xx JSON with reason and message', async () => {
    const info = { url: owner.url, token: owner.token, pid: process.pid };
    let r = await opened.baton.nextStep({ template_name: 'bug-fix' });
    while (r.status === 'ok') r = await opened.baton.nextStep({ step_token: r.new_step_token, model_output_so_far: validOutput as never });
    assert.equal(r.status, 'awaiting_approval');
    const listed = await statusViaOwner(info, true);
    assert.ok(listed.some((e) => e.execution_id === r.execution_id && e.status === 'awaiting_approval'));
    await assert.rejects(decideViaOwner(info, { execution_id: 'no-such-execution', decision: 'approve' }), (ex: Error & { reason?: string }) => ex.reason !== undefined && /no-such-execution|not found/i.test(ex.message));
    const bad = await raw(owner.port, { path: '/control', headers, body: JSON.stringify({ op: 'decide', execution_id: r.execution_id, decision: 'maybe' }) });
    assert.equal(bad.status, 400);
    assert.deepEqual(JSON.parse(bad.body), { error: { reason: 'invalid_input', message: 'decision must be "approve" or "reject"' } });
    const rejected = await decideViaOwner(info, { execution_id: r.execution_id!, decision: 'reject', feedback: 'cover the null case' });
    assert.equal(rejected.step_name, 'review-code');
    assert.equal(rejected.decision, 'reject');
    const noAuth = await raw(owner.port, { path: '/control', headers: { ...headers, authorization: '' }, body: '{"op":"status"}' });
    assert.equal(noAuth.status, 401);
  });

  it('records the pid a forwarding baton mcp names only when it is another live process that may be Baton', async () => {
    const seen: Array<number | undefined> = [];
    const server = await startOwnerServer({
      baton: opened.baton, log: silentLog,
      createServer: (_scope, holderPid) => {
        seen.push(holderPid);
        return createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog });
      },
    });
    const node = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    const exited = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((r) => exited.once('exit', r));
    try {
      const ask = (pid: string) => raw(server.port, {
        headers: { ...headers, host: `127.0.0.1:${server.port}`, authorization: `Bearer ${server.token}`, 'baton-holder-pid': pid },
        body: JSON.stringify(INIT),
      });
      for (const pid of [String(node.pid), ` ${node.pid} `, String(sleeper.pid), String(exited.pid), String(process.pid), '1', 'abc', '12e3', '-5']) {
        assert.equal((await ask(pid)).status, 200, pid);
      }
      assert.deepEqual(seen, [node.pid, node.pid, undefined, undefined, undefined, undefined, undefined, undefined, undefined],
        'a live node process is recorded; a live program that is not Baton, a gone one, this one, init and no number are not');
    } finally {
      node.kill('SIGKILL');
      sleeper.kill('SIGKILL');
      await server.close();
    }
  });
});

describe('owner endpoint session cleanup', () => {
  it('closes a session whose client vanished without DELETE, and keeps one that holds its stream open', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'baton-idle-'));
    const opened = await openBaton({ dbPath: null, workspace, rateLimits: false, log: silentLog });
    const owner = await startOwnerServer({
      baton: opened.baton,
      createServer: () => createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog }),
      log: silentLog,
      idleSessionMs: 200,
    });
    const headers = { host: `127.0.0.1:${owner.port}`, authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const live = new Client({ name: 'live', version: '1' });
    try {
      const sessionId = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: owner.port, method: 'POST', path: '/mcp', headers }, (res) => {
          res.resume();
          resolve(String(res.headers['mcp-session-id']));
        });
        req.on('error', reject);
        req.end(JSON.stringify(INIT));
      });
      await live.connect(new StreamableHTTPClientTransport(new URL(owner.url), { requestInit: { headers: { authorization: `Bearer ${owner.token}` } } }));
      await new Promise((r) => setTimeout(r, 700));
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
      const gone = await raw(owner.port, { headers: { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }, body: ping });
      assert.equal(gone.status, 404, 'the abandoned session was closed');
      assert.deepEqual((await live.listTools()).tools.map((t) => t.name), ['workflow_next_step'], 'the live client still works');
    } finally {
      await live.close();
      await owner.close();
      await opened.close();
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

describe('owner endpoint: sessions with nothing open are capped', () => {
  it('past maxIdleSessions, a new session closes the ones with nothing open that were seen least recently', async () => {
    const baton = new FakeBaton();
    const owner = await startOwnerServer({
      baton, log: silentLog, maxIdleSessions: 2,
      createServer: () => createMcpServer(baton, { toolGroups: ['broker'], version: 't', log: silentLog }),
    });
    const headers = { host: `127.0.0.1:${owner.port}`, authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const open = async () => {
      const r = await raw(owner.port, { headers, body: JSON.stringify(INIT) });
      assert.equal(r.status, 200, r.body);
      return { ...headers, 'mcp-session-id': r.session, 'mcp-protocol-version': '2025-06-18' };
    };
    const ping = (session: Record<string, string>) => raw(owner.port, { headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }) }).then((r) => r.status);
    try {
      const first = await open();
      const second = await open();
      assert.equal(await ping(first), 200, 'first seen again: second is now the least recent');
      await open();
      assert.equal(await ping(second), 404, 'closed to stay within two');
      assert.equal(await ping(first), 200);
    } finally {
      await owner.close();
    }
  });
});

describe('owner endpoint: a long call is not idleness', () => {
  it('keeps a session whose call outlasts the idle time, and counts idleness from the answer', async () => {
    const baton = new FakeBaton();
    baton.nextStepImpl = async () => {
      await new Promise((r) => setTimeout(r, 600));
      return { status: 'no_op', human_message: 'slow' };
    };
    const owner = await startOwnerServer({
      baton, log: silentLog, idleSessionMs: 200,
      createServer: () => createMcpServer(baton, { toolGroups: ['broker'], version: 't', log: silentLog }),
    });
    const headers = { host: `127.0.0.1:${owner.port}`, authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    try {
      const init = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: owner.port, method: 'POST', path: '/mcp', headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(String(res.headers['mcp-session-id'])));
        });
        req.on('error', reject);
        req.end(JSON.stringify(INIT));
      });
      const session = { ...headers, 'mcp-session-id': init, 'mcp-protocol-version': '2025-06-18' };
      assert.equal((await raw(owner.port, { headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status, 202);
      // No GET stream is open: only the call in flight keeps the session.
      const slow = await raw(owner.port, { headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'workflow_next_step', arguments: { template_name: 'demo' } } }) });
      assert.equal(slow.status, 200);
      assert.match(slow.body, /slow/);
      const next = await raw(owner.port, { headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }) });
      assert.equal(next.status, 200, 'the session was not closed while its call ran');
    } finally {
      await owner.close();
    }
  });
});

describe('baton serve (built dist/cli.js)', () => {
  before(() => ensureBuilt());

  it('owns the database, serves HTTP MCP to a token holder, never prints the token, and cleans up on SIGTERM', async () => {
    const setup = tempSetup('baton-serve-');
    const child = spawn(process.execPath, [CLI, 'serve', '--db', setup.db, '--workspace', setup.workspace], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const info = await waitFor(() => readDiscovery(setup.db), 10_000, 'discovery file');
      assert.equal(info.pid, child.pid);
      const client = new Client({ name: 'serve-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(info.url), { requestInit: { headers: { authorization: `Bearer ${info.token}` } } }));
      const res = await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } });
      assert.equal((res.structuredContent as { status: string }).status, 'ok');
      await client.close();
      const refused = await raw(Number(new URL(info.url).port), { headers: { host: new URL(info.url).host, 'content-type': 'application/json' }, body: JSON.stringify(INIT) });
      assert.equal(refused.status, 401);
      assert.ok((JSON.parse(refused.body).error.message as string).includes(`with the token of ${discoveryPath(setup.db)} (a new one each time Baton starts`), refused.body);
      await waitFor(() => out.includes('discovery'), 20_000, 'serve banner');
      assert.ok(out.includes(info.url), 'the URL is printed');
      assert.ok(!out.includes(info.token), 'the token is not printed');
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      assert.equal(readDiscovery(setup.db), null);
    } finally {
      child.kill('SIGKILL');
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });
});
