// Rule: `baton serve` refuses a foreign Host or Origin (DNS rebinding) with 403, even with the token, and its message
// names the header it got and what to do instead: the host and port it takes, or that a client which is no browser
// sends no Origin. The next well-formed call is served.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { readDiscovery, type DiscoveryInfo } from '../../src/host/discovery.js';
import { CLI, ensureBuilt, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('baton serve: a foreign Host or Origin is refused, saying what to call instead', () => {
  const setup = tempSetup('baton-http-rebinding-');
  let serve: ReturnType<typeof spawn>;
  let info: DiscoveryInfo;
  let port: number;
  before(async () => {
    ensureBuilt();
    serve = spawn(process.execPath, [CLI, 'serve', '--db', setup.db, '--workspace', setup.workspace], { stdio: 'ignore' });
    info = await waitFor(() => readDiscovery(setup.db), 10_000, 'the discovery file');
    port = Number(new URL(info.url).port);
  });
  after(async () => {
    const exited = new Promise((resolve) => serve.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
    rmSync(setup.dir, { recursive: true, force: true });
  });

  /** An initialize POST with these Host and Origin headers (fetch cannot set Host). */
  const post = (host: string, origin?: string) => new Promise<{ status: number; body: any }>((resolve, reject) => {
    const headers = {
      host, ...(origin ? { origin } : {}), authorization: `Bearer ${info.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
    };
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers, setHost: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(INIT));
  });

  it('a Host of another name, or of another port (a port forward), names the host and port to call', async () => {
    for (const host of ['evil.example.com', `localhost:${port + 1}`]) {
      const refused = await post(host);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.message, `Host ${JSON.stringify(host)} is not allowed: call 127.0.0.1:${port} or localhost:${port} (the url in server.json beside the database); other host names are refused against DNS rebinding`);
    }
  });

  it('an Origin of a web page is refused, saying a client that is no browser sends none; a loopback call is served', async () => {
    const refused = await post(`127.0.0.1:${port}`, 'http://evil.example.com');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.message, `Origin "http://evil.example.com" is not allowed: Baton's endpoint takes no calls from web pages but its own (http://127.0.0.1:${port}); a client that is not a browser sends no Origin header`);
    const served = await post(`localhost:${port}`, `http://localhost:${port}`);
    assert.equal(served.status, 200);
    assert.equal(served.body.result.protocolVersion, '2025-06-18');
  });
});
