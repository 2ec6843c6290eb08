// Rule: an idle SSE stream of Baton's Streamable HTTP transport stays open: a client whose fetch gives up on a body
// that is silent for a while (Node's undici after its bodyTimeout, a proxy after its idle timeout) keeps its GET stream
// and a call's SSE answer, and gets what comes on them later, because Baton writes a comment line on a stream that has
// been idle for an interval. The comments take no event id: a stream resumed with Last-Event-ID gets exactly the events
// it missed. Their timers go with the streams, and `baton serve` still stops at once with streams open.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before, describe, it, mock } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, type StreamableHTTPReconnectionOptions } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { silentLog } from '../../src/core/ports.js';
import type { NextStepResponse } from '../../src/core/types.js';
import { readDiscovery } from '../../src/host/discovery.js';
import type { OpenedBaton } from '../../src/host/openBaton.js';
import { KEEP_ALIVE_COMMENT } from '../../src/host/sseKeepAlive.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { closeOwnerEndpoint, openOwnerEndpoint, type OwnerEndpoint } from '../helpers/ownerEndpoint.js';
import { hearUpdates, network } from '../helpers/sseNetwork.js';
import { settlesAfter, until } from '../helpers/until.js';
import { validOutput } from '../fixtures/mcp/badInput.js';
import { CLI, ensureBuilt, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';

/** Baton's keep-alive interval in these tests. */
const KEEP_MS = 200;
/** The clients' bodyTimeout: a body silent for this long is given up (undici's default is 300 s). */
const BODY_MS = 1500;
/** How long a stream stays idle in a test: past the client's bodyTimeout twice over. */
const IDLE_MS = 2 * BODY_MS + 1000;
/**
 * A client that does not reconnect a stream that died, so a test sees whether the stream itself lived: the SDK's
 * default reconnects within seconds with Last-Event-ID, which would hide a stream cut every bodyTimeout.
 */
const NO_RECONNECT: StreamableHTTPReconnectionOptions = { initialReconnectionDelay: 50, maxReconnectionDelay: 50, reconnectionDelayGrowFactor: 1, maxRetries: 0 };
/** Reconnect soon, so that a test waits on Baton, not on the SDK's default 1 s back-off. */
const RECONNECT: StreamableHTTPReconnectionOptions = { initialReconnectionDelay: 50, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1, maxRetries: 5 };
const T = { timeout: 60_000 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Settles with `value` after `ms`, keeping no process alive meanwhile. */
const comments = (body: string) => body.split(KEEP_ALIVE_COMMENT).length - 1;
/** The seqs of the event ids in an SSE body (`<session>.<stream>.<seq>`), in order. */
const seqs = (body: string) => [...body.matchAll(/^id: [^\n]*\.(\d+)$/gm)].map((m) => Number(m[1]));

/** Opens an owner endpoint whose streams get a keep-alive every KEEP_MS and whose gates report progress once. */
const openEndpoint = () => openOwnerEndpoint('baton-keepalive-', {
  sseKeepAliveMs: KEEP_MS,
  approvalWaitMs: 30_000,
  // One progress note as a call starts waiting on a gate, then silence: the answer's stream idles until a decision.
  createServer: (opened: OpenedBaton) => () => createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog, gateProgressMs: 60_000 }),
});

/** A connected SDK client of the endpoint, through `net`, and the errors its transport reported. */
async function connect(ep: OwnerEndpoint, net: ReturnType<typeof network>, reconnection: StreamableHTTPReconnectionOptions) {
  const client = new Client({ name: 'keepalive', version: '1' });
  const errors: string[] = [];
  client.onerror = (ex) => void errors.push(ex.message);
  const transport = new StreamableHTTPClientTransport(new URL(ep.owner.url), {
    requestInit: { headers: { authorization: `Bearer ${ep.owner.token}` } }, fetch: net.fetchFn, reconnectionOptions: reconnection,
  });
  await client.connect(transport);
  return { client, errors };
}

/** One workflow_next_step call; one whose stream died fails in 20 s (the SDK's own limit is 60 s, the test's too). */
const next = async (client: Client, args: Record<string, unknown>, onprogress?: (p: Progress) => void) =>
  (await client.callTool({ name: 'workflow_next_step', arguments: args }, undefined, { onprogress, timeout: 20_000 })).structuredContent as unknown as NextStepResponse;

describe('idle SSE streams of the owner endpoint', () => {
  let ep: OwnerEndpoint;
  let driver: Client;
  before(async () => {
    ep = await openEndpoint();
    driver = new Client({ name: 'driver', version: '1' });
    await driver.connect(new StreamableHTTPClientTransport(new URL(ep.owner.url), { requestInit: { headers: { authorization: `Bearer ${ep.owner.token}` } } }));
  });
  after(async () => {
    await driver.close();
    await closeOwnerEndpoint(ep);
  });

  it('a GET stream idle past the client\'s bodyTimeout stays open and gets the update sent after it', T, async () => {
    const net = network({ bodyTimeoutMs: BODY_MS });
    const { client: watcher, errors } = await connect(ep, net, NO_RECONNECT);
    try {
      const start = await next(driver, { template_name: 'bug-fix' });
      const uri = `workflow-status://${start.task_id}`;
      const { heard, driverHeard } = await hearUpdates(watcher, driver, uri);
      await sleep(IDLE_MS);
      await next(driver, { step_token: start.new_step_token, model_output_so_far: validOutput });
      await until('the driver to hear the step\'s updates', () => driverHeard.length > 0);
      await until('the watcher to hear them on its idle GET stream', () => heard.length >= driverHeard.length);
      assert.deepEqual(heard, driverHeard, 'each update, once');
      const gets = net.connections.filter((c) => c.method === 'GET');
      assert.equal(gets.length, 1, 'on the GET stream it opened first: it was never cut');
      assert.deepEqual(errors, [], 'the client saw no stream error');
      const body = gets[0]!.body;
      assert.ok(comments(body.slice(0, body.indexOf('resources/updated'))) >= 2, 'keep-alive comments went out while it idled');
      const ids = seqs(body);
      assert.deepEqual(ids, ids.map((_, i) => ids[0]! + i), 'the comments took no event id: the ids run on one by one');
    } finally {
      await watcher.close();
      await net.close();
    }
  });

  it('a call\'s SSE answer idle past the client\'s bodyTimeout (waiting on a gate) gets its answer on that stream', T, async () => {
    const net = network({ bodyTimeoutMs: BODY_MS });
    const { client, errors } = await connect(ep, net, NO_RECONNECT);
    try {
      let r = await next(client, { template_name: 'bug-fix' });
      while (r.status === 'ok') r = await next(client, { step_token: r.new_step_token, model_output_so_far: validOutput });
      assert.equal(r.status, 'awaiting_approval');
      const heard: Progress[] = [];
      const waiting = next(client, { step_token: r.new_step_token }, (p) => void heard.push(p));
      waiting.catch(() => undefined);
      await until('the waiting call\'s progress note', () => heard.length >= 1);
      await sleep(IDLE_MS);
      await ep.opened.baton.decide({ execution_id: r.execution_id!, decision: 'approve', by: 'tester' });
      assert.equal((await waiting).status, 'task_closed');
      const answer = net.connections.filter((c) => c.method === 'POST' && c.body.includes('notifications/progress'));
      assert.equal(answer.length, 1, 'the call answered over SSE');
      assert.ok(comments(answer[0]!.body) >= 2, 'keep-alive comments went out while it waited');
      assert.deepEqual(net.connections.filter((c) => c.method === 'GET' && c.lastEventId !== null), [], 'no stream was resumed: none was cut');
      assert.deepEqual(errors, [], 'the client saw no stream error');
    } finally {
      await client.close();
      await net.close();
    }
  });

  it('a GET stream that had keep-alive comments, then was cut, is resumed with exactly the events it missed', T, async () => {
    const net = network();
    const { client: watcher } = await connect(ep, net, RECONNECT);
    try {
      const start = await next(driver, { template_name: 'bug-fix' });
      const uri = `workflow-status://${start.task_id}`;
      const { heard, driverHeard } = await hearUpdates(watcher, driver, uri);
      const advance = async (step: NextStepResponse) => next(driver, { step_token: step.new_step_token, model_output_so_far: validOutput });
      const second = await advance(start);
      await until('the first step\'s updates, live', () => driverHeard.length > 0 && heard.length === driverHeard.length);
      const live = heard.length;
      const first = net.connections.find((c) => c.method === 'GET')!;
      await until('keep-alive comments after the last event', () => comments(first.body.slice(first.body.lastIndexOf('id: '))) >= 2);
      const lastId = [...first.body.matchAll(/^id: (.+)$/gm)].at(-1)![1];

      net.hold();
      net.cut('GET');
      await until('the watcher to try to reconnect', () => net.attempts.filter((a) => a.method === 'GET').length === 2);
      await advance(second);
      await until('the second step\'s update to be sent (the driver heard it)', () => driverHeard.length > live);
      net.release();
      await until('the watcher to hear the updates after reconnecting', () => heard.length >= driverHeard.length);
      const resumed = net.connections.filter((c) => c.method === 'GET')[1]!;
      assert.equal(resumed.lastEventId, lastId, 'it resumed from the last event it had: the comments after it moved nothing');
      assert.equal(resumed.body.split('event: message').length - 1, heard.length - live, 'the resumed stream replayed the missed events only');
      assert.deepEqual(heard, driverHeard, 'each update, once');
    } finally {
      await watcher.close();
      await net.close();
    }
  });
});

it('the keep-alive timers are unref\'d and gone once the owner closes with streams open', T, async () => {
  const set = mock.method(globalThis, 'setInterval');
  const clear = mock.method(globalThis, 'clearInterval');
  const ep = await openEndpoint();
  const net = network();
  const { client } = await connect(ep, net, NO_RECONNECT);
  try {
    let r = await next(client, { template_name: 'bug-fix' });
    while (r.status === 'ok') r = await next(client, { step_token: r.new_step_token, model_output_so_far: validOutput });
    const heard: Progress[] = [];
    const waiting = next(client, { step_token: r.new_step_token }, (p) => void heard.push(p));
    waiting.catch(() => undefined);
    await until('the call waiting on the gate, on an SSE answer', () => heard.length >= 1);
    const timers = set.mock.calls.filter((c) => c.arguments[1] === KEEP_MS).map((c) => c.result as ReturnType<typeof setInterval>);
    assert.equal(timers.length, 2, 'one for the GET stream, one for the waiting call\'s answer');
    assert.deepEqual(timers.map((t) => t.hasRef()), [false, false], 'none keeps the process alive');
    await ep.owner.close();
    const cleared = new Set(clear.mock.calls.map((c) => c.arguments[0]));
    assert.deepEqual(timers.filter((t) => !cleared.has(t)), [], 'every one cleared');
  } finally {
    set.mock.restore();
    clear.mock.restore();
    await client.close();
    await closeOwnerEndpoint(ep);
    await net.close();
  }
});

it('baton serve stops at once on SIGTERM with an SDK client\'s GET stream open', T, async () => {
  ensureBuilt();
  const setup = tempSetup('baton-keepalive-serve-');
  const child = spawn(process.execPath, [CLI, 'serve', '--db', setup.db, '--workspace', setup.workspace], { stdio: ['ignore', 'ignore', 'ignore'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const net = network();
  const client = new Client({ name: 'serve-client', version: '1' });
  try {
    const info = await waitFor(() => readDiscovery(setup.db), 10_000, 'discovery file');
    await client.connect(new StreamableHTTPClientTransport(new URL(info.url), {
      requestInit: { headers: { authorization: `Bearer ${info.token}` } }, fetch: net.fetchFn, reconnectionOptions: NO_RECONNECT,
    }));
    await until('the GET stream to be open', () => net.connections.some((c) => c.method === 'GET' && c.status === 200));
    child.kill('SIGTERM');
    assert.equal(await Promise.race([exited, settlesAfter(10_000, 'still running')]), 0, 'it exited, with status 0');
  } finally {
    child.kill('SIGKILL');
    await client.close();
    rmSync(setup.dir, { recursive: true, force: true });
  }
});
