// Rule: a request of a method Baton does not answer gets Method not found (-32601) whose message names the fix, from
// a real `baton mcp` before its engine loads and after, and from `baton serve`: a notification sent with an id (a
// request no server answers) is told to go without one; any other method is told the methods there are. The process
// serves the next call, and a workflow still starts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { readDiscovery } from '../../src/host/discovery.js';
import { CLI, ensureBuilt, rawMcp, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';

const T = { timeout: 60_000 };
const INIT = { method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const START = { method: 'tools/call', params: { name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'after Method not found' } } };
const UNKNOWN = /^Method not found: "foo\/bar" is not a method this server answers; its methods: ping, initialize, .*tools\/call/;
const NOTIFICATION = 'Method not found: "notifications/initialized" is a notification; send it without an id (a notification gets no answer)';

describe('Method not found names the fix', () => {
  const setups: Array<{ dir: string }> = [];
  const kills: Array<() => void> = [];
  before(() => ensureBuilt());
  after(() => {
    for (const kill of kills) kill();
    for (const setup of setups) rmSync(setup.dir, { recursive: true, force: true });
  });

  it('over stdio, before the engine loads and after', T, async () => {
    const setup = tempSetup('baton-method-not-found-');
    setups.push(setup);
    const mcp = rawMcp(['--db', setup.db, '--workspace', setup.workspace]);
    kills.push(() => mcp.child.kill('SIGKILL'));
    mcp.send({ id: 1, method: 'foo/bar' }); // before initialize: the stdio front answers from the catalog
    const early = await mcp.answer(1);
    assert.equal(early.error?.code, -32601);
    assert.match(early.error!.message, UNKNOWN);
    mcp.send({ id: 2, ...INIT });
    await mcp.answer(2);
    mcp.send({ method: 'notifications/initialized' });
    mcp.send({ id: 3, method: 'resources/list' }); // needs the engine: its answer means the server has the session
    assert.ok((await mcp.answer(3)).result);
    mcp.send({ id: 4, method: 'foo/bar' });
    mcp.send({ id: 5, method: 'notifications/initialized' });
    const [unknown, notification] = [await mcp.answer(4), await mcp.answer(5)];
    assert.equal(unknown.error?.code, -32601);
    assert.match(unknown.error!.message, UNKNOWN);
    assert.deepEqual(notification.error, { code: -32601, message: NOTIFICATION });
    mcp.send({ id: 6, ...START });
    const started = (await mcp.answer(6)).result as { structuredContent?: { status?: string } };
    assert.equal(started.structuredContent?.status, 'ok', JSON.stringify(started).slice(0, 300));
  });

  it('over HTTP from baton serve', T, async () => {
    const setup = tempSetup('baton-method-not-found-http-');
    setups.push(setup);
    const child = spawn(process.execPath, [CLI, 'serve', '--db', setup.db, '--workspace', setup.workspace], { stdio: ['ignore', 'ignore', 'ignore'] });
    kills.push(() => child.kill('SIGKILL'));
    const info = await waitFor(() => readDiscovery(setup.db), 20_000, 'discovery file');
    const headers: Record<string, string> = { authorization: `Bearer ${info.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const post = async (body: Record<string, unknown>) => {
      const res = await fetch(info.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', ...body }) });
      const text = await res.text();
      return { res, body: (text ? JSON.parse(text) : null) as { result?: { structuredContent?: { status?: string } }; error?: { code: number; message: string } } };
    };
    const init = await post({ id: 1, ...INIT });
    headers['mcp-session-id'] = init.res.headers.get('mcp-session-id')!;
    headers['mcp-protocol-version'] = '2025-06-18';
    assert.equal((await post({ method: 'notifications/initialized' })).res.status, 202);
    const unknown = await post({ id: 2, method: 'foo/bar' });
    assert.equal(unknown.body.error?.code, -32601);
    assert.match(unknown.body.error!.message, UNKNOWN);
    assert.deepEqual((await post({ id: 3, method: 'notifications/initialized' })).body.error, { code: -32601, message: NOTIFICATION });
    const started = await post({ id: 4, ...START });
    assert.equal(started.body.result?.structuredContent?.status, 'ok', JSON.stringify(started.body).slice(0, 300));
  });
});
