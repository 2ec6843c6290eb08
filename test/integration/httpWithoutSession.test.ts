// Rule: `baton serve` answers a request to /mcp that names no session and starts none (400) with what is wrong with
// it, not "send initialize first" to a client that sent one: an initialize whose params are malformed names the
// fields (as stdio does), an initialize in a batch is told to come alone, a body that is no JSON-RPC message names the
// fix, and only a well-formed request without the Mcp-Session-Id header is told to initialize first.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { readDiscovery, type DiscoveryInfo } from '../../src/host/discovery.js';
import { CLI, ensureBuilt, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';

const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };

describe('baton serve: a request without a session is told what is wrong with it', () => {
  const setup = tempSetup('baton-http-nosession-');
  const child = () => spawn(process.execPath, [CLI, 'serve', '--db', setup.db, '--workspace', setup.workspace], { stdio: 'ignore' });
  let serve: ReturnType<typeof child>;
  let info: DiscoveryInfo;
  before(async () => {
    ensureBuilt();
    serve = child();
    info = await waitFor(() => readDiscovery(setup.db), 10_000, 'the discovery file');
  });
  after(async () => {
    const exited = new Promise((resolve) => serve.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
    rmSync(setup.dir, { recursive: true, force: true });
  });

  const post = async (body: unknown) => {
    const res = await fetch(info.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any>, session: res.headers.get('mcp-session-id') };
  };

  it('an initialize with malformed params: Invalid params naming each field, with its id', async () => {
    const { clientInfo: _, ...noClient } = params;
    assert.deepEqual(await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { ...noClient, clientInfo: { name: 'raw' } } }), {
      status: 400, session: null,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params for initialize: params.clientInfo.version is required (a string).' } },
    });
    const numeric = await post({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { ...params, protocolVersion: 20250618 } });
    assert.equal(numeric.status, 400);
    assert.match(numeric.body.error.message, /^Invalid params for initialize: params\.protocolVersion: .*expected string/);
    assert.equal(numeric.body.id, 'i');
  });

  it('an initialize in a batch is told to come alone; a body that is no message names the fix', async () => {
    const batch = await post([{ jsonrpc: '2.0', id: 1, method: 'initialize', params }]);
    assert.equal(batch.status, 400);
    assert.deepEqual(batch.body.error, { code: -32600, message: 'Invalid Request: send initialize alone, not in a batch: nothing may come before the session it starts' });
    assert.deepEqual((await post(42)).body, { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: each message must be a JSON object' } });
    assert.deepEqual((await post({ jsonrpc: '2.0', id: null, method: 'initialize', params })).body.error.message, 'Invalid Request: id must be a string or an integer (MCP allows no null id)');
  });

  it('a well-formed call without a session is told to initialize first and send the session header; then one works', async () => {
    const ping = await post({ jsonrpc: '2.0', id: 2, method: 'ping' });
    assert.equal(ping.status, 400);
    assert.match(ping.body.error.message, /^Bad Request: no Mcp-Session-Id header: send initialize first, then the Mcp-Session-Id header of its answer with every request$/);
    const init = await post({ jsonrpc: '2.0', id: 3, method: 'initialize', params });
    assert.equal(init.status, 200);
    assert.equal(init.body.result.protocolVersion, '2025-06-18');
    assert.ok(init.session);
  });
});
