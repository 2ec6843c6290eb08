// Rule: the official SDK client loses nothing when its connections to Baton drop: a GET stream cut while Baton sends
// resources/updated gets them after the client reconnects on its own (with Last-Event-ID), from a real `baton serve`;
// and a call whose SSE answer stream is cut while it waits on a gate still gets its answer, on the GET the client
// resumes that stream with.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, type StreamableHTTPReconnectionOptions } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { silentLog } from '../../src/core/ports.js';
import type { NextStepResponse } from '../../src/core/types.js';
import { readDiscovery } from '../../src/host/discovery.js';
import { openBaton } from '../../src/host/openBaton.js';
import { startOwnerServer } from '../../src/host/ownerServer.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { makeWorkspace } from '../helpers/coreHarness.js';
import { hearUpdates, network } from '../helpers/sseNetwork.js';
import { until } from '../helpers/until.js';
import { validOutput } from '../fixtures/mcp/badInput.js';
import { CLI, ensureBuilt, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';

/** Reconnect soon and patiently, so that a test waits on Baton, not on the SDK's default 1 s back-off. */
const RECONNECT: StreamableHTTPReconnectionOptions = { initialReconnectionDelay: 50, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1, maxRetries: 5 };
const T = { timeout: 60_000 };

describe('the SDK client resumes its streams from Baton (Last-Event-ID)', () => {
  let setup: ReturnType<typeof tempSetup>;
  let child: ReturnType<typeof spawn>;
  let url: URL;
  let headers: Record<string, string>;

  before(async () => {
    ensureBuilt();
    setup = tempSetup('baton-resume-sdk-');
    child = spawn(process.execPath, [CLI, 'serve', '--db', setup.db, '--workspace', setup.workspace], { stdio: ['ignore', 'ignore', 'ignore'] });
    const info = await waitFor(() => readDiscovery(setup.db), 10_000, 'discovery file');
    url = new URL(info.url);
    headers = { authorization: `Bearer ${info.token}` };
  });
  after(() => {
    child.kill('SIGKILL');
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it('gets the resources/updated sent while its GET stream was cut, once it reconnects', T, async () => {
    const net = network();
    const watcher = new Client({ name: 'watcher', version: '1' });
    await watcher.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: net.fetchFn, reconnectionOptions: RECONNECT }));
    // Another agent, on a connection of its own, advances the run and hears the update too.
    const driver = new Client({ name: 'driver', version: '1' });
    await driver.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    try {
      const start = (await driver.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } })).structuredContent as unknown as NextStepResponse;
      const uri = `workflow-status://${start.task_id}`;
      const { heard, driverHeard } = await hearUpdates(watcher, driver, uri);
      const advance = async (step: NextStepResponse) =>
        (await driver.callTool({ name: 'workflow_next_step', arguments: { step_token: step.new_step_token, model_output_so_far: validOutput } })).structuredContent as unknown as NextStepResponse;
      // A first step, heard live on the watcher's GET stream.
      const second = await advance(start);
      await until('the first step\'s updates, live', () => driverHeard.length > 0 && heard.length === driverHeard.length);
      const live = heard.length;

      net.hold();
      net.cut('GET');
      await until('the watcher to try to reconnect', () => net.attempts.filter((a) => a.method === 'GET').length === 2);
      await advance(second);
      await until('the second step\'s update to be sent (the driver heard it)', () => driverHeard.length > live);
      assert.equal(heard.length, live, 'nothing reached the watcher while its stream was cut');

      net.release();
      await until('the watcher to hear the updates after reconnecting', () => heard.length >= driverHeard.length);
      const retry = net.attempts.filter((a) => a.method === 'GET')[1]!;
      assert.match(retry.lastEventId ?? '', /^[0-9a-f-]{36}\.0\.\d+$/, 'it reconnected with the Last-Event-ID of its GET stream');
      assert.deepEqual(heard, driverHeard, 'each update the step made, once');
    } finally {
      await watcher.close();
      await driver.close();
    }
  });
});

describe('the SDK client and a call whose SSE stream was cut or cancelled', () => {
  /** A client of a fresh core with a bug-fix run at its gate; `waitOnGate` calls the step that waits there. */
  async function atGate() {
    const opened = await openBaton({ dbPath: null, workspace: makeWorkspace(), rateLimits: false, approvalWaitMs: 30_000, log: silentLog });
    const owner = await startOwnerServer({
      baton: opened.baton,
      createServer: () => createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog, gateProgressMs: 50 }),
      log: silentLog,
    });
    const net = network();
    const client = new Client({ name: 'gated', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(owner.url), { requestInit: { headers: { authorization: `Bearer ${owner.token}` } }, fetch: net.fetchFn, reconnectionOptions: RECONNECT }));
    const next = async (args: Record<string, unknown>, onprogress?: (p: Progress) => void, signal?: AbortSignal) =>
      (await client.callTool({ name: 'workflow_next_step', arguments: args }, undefined, { onprogress, signal })).structuredContent as unknown as NextStepResponse;
    let r = await next({ template_name: 'bug-fix' });
    while (r.status === 'ok') r = await next({ step_token: r.new_step_token, model_output_so_far: validOutput });
    assert.equal(r.status, 'awaiting_approval');
    const heard: Progress[] = [];
    const waitOnGate = async (signal?: AbortSignal) => {
      const waiting = next({ step_token: r.new_step_token }, (p) => void heard.push(p), signal);
      waiting.catch(() => undefined);
      await until('progress on the waiting call', () => heard.length >= 1);
      assert.equal(net.connections.filter((c) => c.method === 'POST' && c.body.includes('notifications/progress')).length, 1, 'the waiting call answers on an SSE stream');
      return { waiting };
    };
    const close = async () => {
      await client.close();
      await owner.close();
      await opened.close();
    };
    return { opened, net, gate: r, waitOnGate, close };
  }
  /** The GETs that resumed a POST's stream (a Last-Event-ID of a stream other than 0). */
  const resumes = (net: ReturnType<typeof network>) => net.connections.filter((c) => c.method === 'GET' && /\.[1-9]\d*\.\d+$/.test(c.lastEventId ?? ''));

  it('resumes the call\'s stream with a GET and its Last-Event-ID, and gets the answer there', T, async () => {
    const s = await atGate();
    try {
      const { waiting } = await s.waitOnGate();
      s.net.cut('POST');
      await until('the client to resume that stream', () => resumes(s.net).length > 0);
      await s.opened.baton.decide({ execution_id: s.gate.execution_id!, decision: 'approve', by: 'tester' });
      assert.equal((await waiting).status, 'task_closed');
    } finally {
      await s.close();
    }
  });

  it('a cancelled call: the client resumes its ended stream and is told 204, nothing left, not 409 on a plain GET', T, async () => {
    const s = await atGate();
    try {
      const cancel = new AbortController();
      const { waiting } = await s.waitOnGate(cancel.signal);
      cancel.abort('the user stopped the agent');
      await assert.rejects(waiting, /the user stopped the agent/);
      await until('a resume told the stream is over', () => resumes(s.net).some((c) => c.status === 204));
      assert.deepEqual(s.net.connections.filter((c) => c.status === 409), [], 'no plain GET refused for the open GET stream');
    } finally {
      await s.close();
    }
  });
});
