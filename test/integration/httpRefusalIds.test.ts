// Rule: when `baton serve` refuses an HTTP request for its headers or session (a wrong Content-Type or Accept, no
// Mcp-Session-Id or one it does not know, a protocol version it does not speak, a second initialize), the JSON-RPC
// error carries the id of the request in the body, so a raw client waiting on that id gets the refusal; a body with
// no id it can read (a notification, a batch) is answered under a null id. The process serves the next call after.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { readDiscovery } from '../../src/host/discovery.js';
import { CLI, ensureBuilt, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';

const T = { timeout: 60_000 };
const init = (id: number) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });

describe('baton serve: refusals of HTTP requests carry the id of the request in the body', () => {
  const setup = tempSetup('baton-http-refusal-ids-');
  let child: ReturnType<typeof spawn>;
  let url: string;
  let base: Record<string, string>;
  let session: Record<string, string>;

  const post = async (headers: Record<string, string>, body: unknown) => {
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { id?: unknown; result?: unknown; error?: { code: number; message: string } } };
  };

  before(async () => {
    ensureBuilt();
    child = spawn(process.execPath, [CLI, 'serve', '--db', setup.db, '--workspace', setup.workspace], { stdio: ['ignore', 'ignore', 'ignore'] });
    const info = await waitFor(() => readDiscovery(setup.db), 20_000, 'discovery file');
    url = info.url;
    base = { authorization: `Bearer ${info.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const res = await fetch(url, { method: 'POST', headers: base, body: JSON.stringify(init(0)) });
    assert.equal(res.status, 200);
    session = { ...base, 'mcp-session-id': res.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    await res.text();
    assert.equal((await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status, 202);
  });
  after(() => {
    child.kill('SIGKILL');
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it('answers each refusal under the request\'s id, with the status and code it had', T, async () => {
    const cases: Array<[string, Record<string, string>, unknown, number, number]> = [
      ['a Content-Type that is not JSON', { ...session, 'content-type': 'text/plain' }, ping(1), 415, -32000],
      ['an Accept of neither JSON nor SSE', { ...session, accept: 'text/html' }, ping('two'), 406, -32000],
      ['no Mcp-Session-Id', base, ping(3), 400, -32000],
      ['an Mcp-Session-Id the server does not know', { ...session, 'mcp-session-id': 'nope' }, ping(4), 404, -32001],
      ['a protocol version the server does not speak', { ...session, 'mcp-protocol-version': '1999-01-01' }, ping(5), 400, -32000],
      ['a second initialize in the session', session, init(6), 400, -32600],
      ['an initialize with a wrong Content-Type', { ...base, 'content-type': 'text/plain' }, init(7), 415, -32000],
    ];
    for (const [what, headers, body, status, code] of cases) {
      const res = await post(headers, body);
      assert.equal(res.status, status, what);
      assert.equal(res.body.error?.code, code, what);
      assert.equal(res.body.id, (body as { id: unknown }).id, `${what}: ${JSON.stringify(res.body)}`);
    }
    // Nothing in the body names a request: a notification, a batch.
    const notification = await post({ ...session, 'content-type': 'text/plain' }, { jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.deepEqual([notification.status, notification.body.id], [415, null]);
    const batch = await post({ ...session, 'mcp-session-id': 'nope' }, [ping(8)]);
    assert.deepEqual([batch.status, batch.body.id], [404, null]);
  });

  it('serves the next call, and a workflow starts, after the refusals', T, async () => {
    assert.deepEqual((await post(session, ping(10))).body, { jsonrpc: '2.0', id: 10, result: {} });
    const start = await post(session, {
      jsonrpc: '2.0', id: 11, method: 'tools/call',
      params: { name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'after the refusals' } },
    });
    const result = start.body.result as { isError?: boolean; structuredContent?: { status?: string } };
    assert.equal(result.isError, undefined, JSON.stringify(start.body));
    assert.ok(result.structuredContent?.status, JSON.stringify(start.body));
  });
});
