// Rule: an agent that lost the token of the step it holds (a compacted context, say) gets the step again with
// `{ task_id, request: "reclaim" }` on the connection it was handed to: a new token, the lost one superseded; a
// step waiting for approval gets a new wait token. Another connection gets nothing (the step is not its), and a
// connection holding several steps of the workflow is told it cannot say which; a claim that finds only its own step
// held says how to reclaim it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { silentLog } from '../../src/core/ports.js';
import type { NextStepResponse } from '../../src/core/types.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { FakeClock, makeWorkspace, SPEC_EXAMPLE_YAML } from '../helpers/coreHarness.js';

const out = (s: string) => ({ summary: s, artifacts: [], references: [], confidence: 0.9 });

describe('reclaim: a lost token, handed back to its connection', () => {
  let opened: OpenedBaton;
  const clients: Client[] = [];

  /** A client on a connection of its own (its own MCP server, as each HTTP session or stdio process has). */
  async function connect(name: string) {
    const server = createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog });
    const client = new Client({ name, version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    clients.push(client);
    return async (args: Record<string, unknown>) => {
      const res = await client.callTool({ name: 'workflow_next_step', arguments: args });
      return res.structuredContent as unknown as NextStepResponse;
    };
  }

  before(async () => {
    opened = await openBaton({ dbPath: null, workspace: makeWorkspace({ 'spec-example': SPEC_EXAMPLE_YAML }), rateLimits: false, clock: new FakeClock(), approvalWaitMs: 0, log: silentLog });
  });
  after(async () => {
    for (const c of clients) await c.close();
    await opened.close();
  });

  it('hands the running step back to its connection only, with a new token; the lost one no longer works', async () => {
    const a = await connect('agent-a');
    const b = await connect('agent-b');
    const first = await a({ template_name: 'bug-fix', task_description: 'fix it' });
    assert.equal(first.status, 'ok');
    const id = first.execution_id!;

    // The agent lost its token and claims: only its own step is held, and the answer says how to get it back.
    const claim = await a({ task_id: id });
    assert.equal(claim.status, 'no_op');
    assert.match(claim.human_message!, new RegExp(`analyze-root-cause was handed to this connection: if you lost its token, call workflow_next_step\\(\\{ task_id: "${id}", request: "reclaim" \\}\\)`));
    const other = await b({ task_id: id });
    assert.equal(other.status, 'no_op');
    assert.doesNotMatch(other.human_message!, /reclaim/, 'not a hint for another connection');

    const refused = await b({ task_id: id, request: 'reclaim' });
    assert.equal(refused.status, 'error');
    assert.equal(refused.error!.code, 'invalid_state');
    assert.match(refused.error!.message, /No step of execution .* was handed to this connection, so none is handed back/);

    const back = await a({ task_id: id, request: 'reclaim' });
    assert.equal(back.status, 'ok');
    assert.equal(back.next_step_contract!.step_name, 'analyze-root-cause');
    assert.notEqual(back.new_step_token, first.new_step_token);
    const stale = await a({ step_token: first.new_step_token, model_output_so_far: out('root cause') });
    assert.equal(stale.status, 'error', 'the lost token was superseded');
    const next = await a({ step_token: back.new_step_token, model_output_so_far: out('root cause') });
    assert.equal(next.status, 'ok');
    assert.equal(next.next_step_contract!.step_name, 'implement-fix');

    const withToken = await a({ task_id: id, request: 'reclaim', step_token: next.new_step_token });
    assert.equal(withToken.status, 'error');
    assert.match(withToken.error!.message, /request 'reclaim' is for a step whose token you lost; with the token, use request 'refresh_token'/);
  });

  it('a step waiting for approval: a new wait token, which the decision then moves on', async () => {
    const a = await connect('agent-c');
    let r = await a({ template_name: 'bug-fix', task_description: 'fix it' });
    const id = r.execution_id!;
    while (r.status === 'ok') r = await a({ step_token: r.new_step_token, model_output_so_far: out(r.next_step_contract!.step_name) });
    assert.equal(r.status, 'awaiting_approval');
    const back = await a({ task_id: id, request: 'reclaim' });
    assert.equal(back.status, 'awaiting_approval');
    assert.notEqual(back.new_step_token, r.new_step_token);
    await opened.baton.decide({ execution_id: id, decision: 'approve' });
    const closed = await a({ step_token: back.new_step_token });
    assert.equal(closed.status, 'task_closed');
  });

  it('a connection holding two steps of a workflow is told that reclaim cannot say which', async () => {
    const a = await connect('agent-d');
    const first = await a({ template_name: 'spec-example' });
    const id = first.execution_id!;
    const one = await a({ step_token: first.new_step_token, model_output_so_far: out('analysis') });
    const two = await a({ task_id: id });
    assert.deepEqual([one.status, two.status], ['ok', 'ok']);
    const refused = await a({ task_id: id, request: 'reclaim' });
    assert.equal(refused.status, 'error');
    assert.match(refused.error!.message, /This connection holds (implement-fix, design-refactor|design-refactor, implement-fix) of execution .*; 'reclaim' cannot tell which token was lost/);
  });
});
