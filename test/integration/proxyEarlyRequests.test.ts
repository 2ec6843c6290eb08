// Rule: a request sent before `initialize` (Claude Code sends `server/discover` first) gets through a forwarding
// `baton mcp` the answer the owner's own stdio gives it, not the owner endpoint's "no session" error: Method not found
// for a method Baton does not know, the real answer for one it knows; and the client's session then starts as usual.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { readDiscovery } from '../../src/host/discovery.js';
import { ensureBuilt, rawMcp, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';

/** What an agent CLI may send before it initializes: a method Baton does not know, one it knows, and a ping. */
const EARLY = [
  { id: 1, method: 'server/discover', params: {} },
  { id: 2, method: 'tools/list', params: {} },
  { id: 3, method: 'ping' },
  { id: 4, method: 'resources/templates/list', params: {} },
];

describe('requests before initialize through a forwarding baton mcp', () => {
  const setup = tempSetup('baton-proxy-early-');
  const args = ['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off'];
  const children: ChildProcess[] = [];
  before(() => ensureBuilt());
  after(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it("get the owner's stdio answers (Method not found for server/discover), and the session starts after them", async () => {
    const owner = rawMcp(args);
    children.push(owner.child);
    for (const m of EARLY) owner.send(m);
    const overStdio = await Promise.all(EARLY.map((m) => owner.answer(m.id)));
    assert.equal(overStdio[0]!.error?.code, -32601);
    assert.match(overStdio[0]!.error!.message, /^Method not found: "server\/discover" is not a method this server answers; its methods: ping, initialize, /);
    await waitFor(() => readDiscovery(setup.db), 10_000, 'discovery file');

    const proxied = rawMcp(args);
    children.push(proxied.child);
    await waitFor(() => /forwarding stdio to http:\/\/127\.0\.0\.1/.test(proxied.stderr()), 10_000, 'the second process forwarding');
    for (const m of EARLY) proxied.send(m);
    const throughProxy = await Promise.all(EARLY.map((m) => proxied.answer(m.id)));
    for (const [i, m] of EARLY.entries()) assert.deepEqual(throughProxy[i], overStdio[i], `${m.method} before initialize`);

    // Then the client's own handshake and calls, as usual.
    proxied.send({ id: 10, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    assert.equal((await proxied.answer(10)).result?.protocolVersion, LATEST_PROTOCOL_VERSION);
    proxied.send({ method: 'notifications/initialized' });
    proxied.send({ id: 11, method: 'tools/list', params: {} });
    assert.deepEqual((await proxied.answer(11)).result, overStdio[1]!.result);
    proxied.send({ id: 12, method: 'tools/call', params: { name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'after an early probe' } } });
    const started = (await proxied.answer(12)).result as { structuredContent?: { status?: string } };
    assert.equal(started.structuredContent?.status, 'ok', JSON.stringify(started).slice(0, 300));
    proxied.send({ id: 13, method: 'server/discover', params: {} });
    assert.equal((await proxied.answer(13)).error?.code, -32601, 'after initialize too, as the owner answers it');
  });
});
