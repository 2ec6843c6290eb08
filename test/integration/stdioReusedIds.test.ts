// Rule: `baton mcp` on stdio refuses a request whose id is still waiting for its answer (-32600, as the HTTP
// transport refuses it in a session), and answers the first as usual: the server would otherwise answer both under
// one id, the client would take the second's answer for the first's, and a cancel of that id would no longer reach a
// call waiting on a gate. In a JSON-RPC batch (MCP 2025-03-26) the reused member's refusal is in the batch's array.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ensureBuilt, runCli, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';
import { rawStdio } from '../fixtures/mcp/rawStdio.js';

const init = (protocolVersion: string) => ({ protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
const output = (step: string) => ({ summary: step, artifacts: [{ type: 'markdown', title: step, content: `# ${step}` }], references: [], confidence: 0.9 });
const REUSED = /^Invalid Request: id "g" is already used by a request in flight; give every request an id of its own until it is answered$/;

describe('baton mcp on stdio refuses a request id still in flight', () => {
  const setup = tempSetup('baton-stdio-ids-');
  const db = ['--db', setup.db, '--workspace', setup.workspace];
  before(() => ensureBuilt());
  after(() => rmSync(setup.dir, { recursive: true, force: true }));

  it('a ping reusing the id of a call waiting on a gate is refused; the cancel then ends that wait', async () => {
    const mcp = rawStdio([...db, '--rate-limits', 'off']);
    try {
      mcp.send({ id: 0, method: 'initialize', params: init('2025-06-18') });
      mcp.send({ method: 'notifications/initialized' });
      const step = async (id: number, args: Record<string, unknown>) => {
        mcp.send({ id, method: 'tools/call', params: { name: 'workflow_next_step', arguments: args } });
        return (await mcp.answer(id, 20_000)).result?.structuredContent as Record<string, any>;
      };
      let r = await step(1, { template_name: 'bug-fix' });
      for (let id = 2; r.status === 'ok'; id++) r = await step(id, { step_token: r.new_step_token, model_output_so_far: output(r.next_step_contract.step_name) });
      assert.equal(r.status, 'awaiting_approval');
      const gate = { name: 'workflow_next_step', arguments: { step_token: r.new_step_token } };
      mcp.send({ id: 'g', method: 'tools/call', params: { ...gate, _meta: { progressToken: 'g' } } });
      await mcp.answer('g', 500).then(() => assert.fail('the gate answered at once'), () => undefined);
      mcp.send({ id: 'g', method: 'ping' });
      const refused = await mcp.answer('g');
      assert.equal(refused.error?.code, -32600, JSON.stringify(refused));
      assert.match(refused.error?.message, REUSED);
      mcp.send({ method: 'notifications/cancelled', params: { requestId: 'g', reason: 'the user stopped it' } });
      // Once cancelled, the id is free again; and the gate, decided now, answers the new wait only.
      mcp.send({ id: 'g2', method: 'tools/call', params: gate });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const approved = await runCli(['approve', r.execution_id, ...db]);
      assert.equal(approved.code, 0, approved.stderr);
      assert.equal((await mcp.answer('g2', 20_000)).result?.structuredContent.status, 'task_closed');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(mcp.answersTo('g'), [refused], 'the cancelled call was not answered, the ping only refused');
      mcp.send({ id: 'g', method: 'ping' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(mcp.answersTo('g').at(-1), { jsonrpc: '2.0', id: 'g', result: {} }, 'an id answered or cancelled may be used again');
      assert.deepEqual(mcp.notJson, []);
    } finally {
      await mcp.close();
    }
  });

  it('a batch (MCP 2025-03-26) that uses one id twice gets one array: the first answered, the second refused', async () => {
    const mcp = rawStdio([...db, '--rate-limits', 'off']);
    try {
      mcp.send({ id: 0, method: 'initialize', params: init('2025-03-26') });
      mcp.send({ method: 'notifications/initialized' });
      await mcp.answer(0);
      mcp.write(`${JSON.stringify([{ jsonrpc: '2.0', id: 'g', method: 'ping' }, { jsonrpc: '2.0', id: 'g', method: 'ping' }])}\n`);
      // The batch comes as one array; a call after it shows that no stray answer follows it.
      const batch = await waitFor(() => mcp.lines.find(Array.isArray), 10_000, 'the batch\'s answer');
      mcp.send({ id: 'after', method: 'tools/list' });
      await mcp.answer('after');
      assert.equal(batch?.length, 2, JSON.stringify(mcp.lines));
      assert.deepEqual(batch.find((m) => 'result' in m), { jsonrpc: '2.0', id: 'g', result: {} });
      assert.match(batch.find((m) => 'error' in m)?.error.message, REUSED);
      assert.equal(mcp.answersTo('g').length, 2, 'no answer outside the array');
      // Answered in the array, the id is free again, alone or in another batch.
      mcp.send({ id: 'g', method: 'ping' });
      await waitFor(() => mcp.answersTo('g').length === 3 || undefined, 10_000, 'the ping after the batch');
      assert.deepEqual(mcp.answersTo('g').at(-1), { jsonrpc: '2.0', id: 'g', result: {} });
    } finally {
      await mcp.close();
    }
  });
});
