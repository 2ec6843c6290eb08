// Rule: a client that can answer forms is asked to decide a gate (MCP elicitation); its answer decides the
// step like the editor's or the CLI's would, and the question is withdrawn when someone else decides first.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { silentLog } from '../../src/core/ports.js';
import type { NextStepResponse } from '../../src/core/types.js';
import { openBaton } from '../../src/host/openBaton.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { makeWorkspace } from '../helpers/coreHarness.js';

const out = (s: string) => ({ summary: s, artifacts: [{ type: 'markdown', title: s, content: `# ${s}` }], references: [], confidence: 0.9 });

async function setup(answer: (signal: AbortSignal, message: string) => Promise<ElicitResult>) {
  const opened = await openBaton({ dbPath: null, workspace: makeWorkspace(), rateLimits: false, approvalWaitMs: 5_000, log: silentLog });
  const server = createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog });
  const client = new Client({ name: 'form-client', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (req, extra) => answer(extra.signal, String(req.params.message)));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  const call = async (args: Record<string, unknown>) =>
    (await client.callTool({ name: 'workflow_next_step', arguments: args })).structuredContent as unknown as NextStepResponse;
  let r = await call({ template_name: 'bug-fix' });
  while (r.status === 'ok') r = await call({ step_token: r.new_step_token, model_output_so_far: out(r.next_step_contract!.step_name) });
  assert.equal(r.status, 'awaiting_approval');
  return { opened, client, call, gate: r, close: async () => { await client.close(); await opened.close(); } };
}

describe('gate decisions through MCP elicitation', () => {
  it('an accepted form approves the step; the waiting agent gets task_closed', async () => {
    const asked: string[] = [];
    const s = await setup(async (_signal, message) => {
      asked.push(message);
      return { action: 'accept', content: { decision: 'approve' } };
    });
    try {
      const closed = await s.call({ step_token: s.gate.new_step_token });
      assert.equal(closed.status, 'task_closed');
      assert.equal(asked.length, 1);
      assert.match(asked[0]!, /review-code/);
      const approved = s.opened.baton.events(s.gate.execution_id!).find((e) => e.event_type === 'gate_approved');
      assert.equal((approved?.event_data as { by?: string }).by, 'mcp-elicitation');
    } finally {
      await s.close();
    }
  });

  it('a rejection with feedback sends the step back to the agent', async () => {
    const s = await setup(async () => ({ action: 'accept', content: { decision: 'reject', feedback: 'Test the empty password too.' } }));
    try {
      const redo = await s.call({ step_token: s.gate.new_step_token });
      assert.equal(redo.status, 'ok');
      assert.equal(redo.context!.feedback, 'Test the empty password too.');
    } finally {
      await s.close();
    }
  });

  it('is withdrawn when a person decides elsewhere first', async () => {
    let asked = false;
    let withdrawn = false;
    const s = await setup((signal) => new Promise((resolve) => {
      asked = true;
      signal.addEventListener('abort', () => {
        withdrawn = true;
        resolve({ action: 'cancel' });
      });
    }));
    try {
      // The question goes out after the answer that left the gate waiting (and a ping): decide once the client has it.
      const asking = Date.now() + 3000;
      while (!asked && Date.now() < asking) await new Promise((r) => setTimeout(r, 5));
      assert.ok(asked, 'the client was asked');
      await s.opened.baton.decide({ execution_id: s.gate.execution_id!, decision: 'approve', by: 'editor' });
      const deadline = Date.now() + 3000;
      while (!withdrawn && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(withdrawn, true, 'the client was told to drop the question');
      assert.equal((await s.call({ step_token: s.gate.new_step_token })).status, 'task_closed');
    } finally {
      await s.close();
    }
  });

  it('a declined form leaves the gate waiting for someone else', async () => {
    const s = await setup(async () => ({ action: 'decline' }));
    try {
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(s.opened.baton.currentStep(s.gate.execution_id!).status, 'awaiting_approval');
    } finally {
      await s.close();
    }
  });
});
