// Rule: a continue that waits on a human gate tells a client that asked (a progressToken) why it takes a while, with
// MCP progress notifications until it answers, and a client that cancels the call ends the wait at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import type { BatonApi } from '../../src/core/api.js';
import { silentLog } from '../../src/core/ports.js';
import type { NextStepResponse } from '../../src/core/types.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer } from '../../src/host/ownerServer.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { makeWorkspace } from '../helpers/coreHarness.js';

const WAIT_MS = 2_000;
const PROGRESS_MS = 100;
const out = (s: string) => ({ summary: s, artifacts: [{ type: 'markdown', title: s, content: `# ${s}` }], references: [], confidence: 0.9 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client on a fresh core, with a bug-fix workflow run up to its gate (review-code awaiting approval). */
async function atGate(connect: (opened: OpenedBaton, server: () => ReturnType<typeof createMcpServer>) => Promise<{ client: Client; close: () => Promise<void> }>, api?: (baton: BatonApi) => BatonApi) {
  const opened = await openBaton({ dbPath: null, workspace: makeWorkspace(), rateLimits: false, approvalWaitMs: WAIT_MS, log: silentLog });
  const baton = api ? api(opened.baton) : opened.baton;
  const { client, close } = await connect(opened, () => createMcpServer(baton, { toolGroups: ['broker'], version: 't', log: silentLog, gateProgressMs: PROGRESS_MS }));
  const submitProgress: Progress[] = [];
  const next = async (args: Record<string, unknown>, onprogress?: (p: Progress) => void, signal?: AbortSignal) =>
    (await client.callTool({ name: 'workflow_next_step', arguments: args }, undefined, { onprogress, signal })).structuredContent as unknown as NextStepResponse;
  let r = await next({ template_name: 'bug-fix' });
  while (r.status === 'ok') r = await next({ step_token: r.new_step_token, model_output_so_far: out(r.next_step_contract!.step_name) }, (p) => submitProgress.push(p));
  assert.equal(r.status, 'awaiting_approval');
  assert.deepEqual(submitProgress, [], 'a call that does not wait reports no progress');
  return { opened, next, gate: r, close: async () => { await close(); await opened.close(); } };
}

const inMemory = async (_opened: OpenedBaton, server: () => ReturnType<typeof createMcpServer>) => {
  const client = new Client({ name: 'progress-client', version: '1' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server().connect(a), client.connect(b)]);
  return { client, close: () => client.close() };
};

const overHttp = async (opened: OpenedBaton, server: () => ReturnType<typeof createMcpServer>) => {
  const owner = await startOwnerServer({ baton: opened.baton, createServer: server, log: silentLog });
  const client = new Client({ name: 'progress-client', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(owner.url), { requestInit: { headers: { authorization: `Bearer ${owner.token}` } } });
  await client.connect(transport as Transport);
  return { client, close: async () => { await client.close(); await owner.close(); } };
};

/** Waits on the gate with progress, decides it after `decideAfterMs`, and checks what the client heard. */
async function progressUntilDecided(s: Awaited<ReturnType<typeof atGate>>, decideAfterMs: number) {
  const heard: Progress[] = [];
  const started = Date.now();
  const decided = sleep(decideAfterMs).then(() => s.opened.baton.decide({ execution_id: s.gate.execution_id!, decision: 'approve', by: 'tester' }));
  const closed = await s.next({ step_token: s.gate.new_step_token }, (p) => heard.push(p));
  await decided;
  assert.equal(closed.status, 'task_closed');
  assert.ok(Date.now() - started < WAIT_MS, 'the decision ended the wait');
  assert.ok(heard.length >= 3, `progress every ${PROGRESS_MS} ms while waiting (heard ${heard.length})`);
  assert.equal(heard[0]!.progress, 0);
  for (let i = 1; i < heard.length; i++) assert.ok(heard[i]!.progress > heard[i - 1]!.progress, 'progress grows with each notification');
  for (const p of heard) {
    assert.equal(p.total, WAIT_MS);
    assert.ok(p.progress <= WAIT_MS);
    assert.match(p.message ?? '', /^Waiting for a person to approve step "review-code" \(Baton answers when they decide, or in [0-9]+ s\)$/);
  }
  const count = heard.length;
  await sleep(PROGRESS_MS * 3);
  assert.equal(heard.length, count, 'nothing after the answer');
}

describe('progress while a continue waits on a human gate', () => {
  const transports = [
    ['in-memory SDK client: progress until a person decides, none after the answer', inMemory],
    ['over Streamable HTTP: the waiting call answers on an SSE stream that carries the progress first', overHttp],
  ] as const;
  for (const [title, connect] of transports) {
    it(title, async () => {
      const s = await atGate(connect);
      try {
        await progressUntilDecided(s, 450);
      } finally {
        await s.close();
      }
    });
  }

  it('a waiting call without a progressToken hears nothing and still answers when the wait runs out', async () => {
    const s = await atGate(inMemory);
    try {
      const started = Date.now();
      const r = await s.next({ step_token: s.gate.new_step_token });
      assert.equal(r.status, 'awaiting_approval');
      assert.ok(Date.now() - started >= WAIT_MS - 50, 'it waited the whole approval wait');
    } finally {
      await s.close();
    }
  });

  it('a client that cancels the call ends the wait on the server at once', async () => {
    // The server's side of the call, seen through the facade it was built on.
    let waitEnded: number | undefined;
    const watch = (baton: BatonApi): BatonApi => new Proxy(baton, {
      get(target, prop, receiver) {
        if (prop !== 'nextStep') return Reflect.get(target, prop, receiver) as unknown;
        return async (...args: Parameters<BatonApi['nextStep']>) => {
          const res = await target.nextStep(...args);
          if (args[0].step_token && !args[0].model_output_so_far) waitEnded = Date.now();
          return res;
        };
      },
    });
    const s = await atGate(inMemory, watch);
    try {
      const cancel = new AbortController();
      const heard: Progress[] = [];
      const waiting = s.next({ step_token: s.gate.new_step_token }, (p) => heard.push(p), cancel.signal);
      await sleep(150);
      const cancelledAt = Date.now();
      cancel.abort('the user stopped the agent');
      await assert.rejects(waiting, /the user stopped the agent/);
      const deadline = Date.now() + 1_000;
      while (waitEnded === undefined && Date.now() < deadline) await sleep(10);
      assert.ok(waitEnded !== undefined && waitEnded - cancelledAt < 500, 'the server stopped waiting well before the approval wait ran out');
      assert.ok(heard.length >= 1, 'it was reporting progress before the cancel');
      const count = heard.length;
      await sleep(PROGRESS_MS * 3);
      assert.equal(heard.length, count, 'no progress after the cancel');
      // The gate itself is untouched: a person still decides it, and the next poll gets the outcome.
      await s.opened.baton.decide({ execution_id: s.gate.execution_id!, decision: 'approve', by: 'tester' });
      assert.equal((await s.next({ step_token: s.gate.new_step_token })).status, 'task_closed');
    } finally {
      await s.close();
    }
  });
});
