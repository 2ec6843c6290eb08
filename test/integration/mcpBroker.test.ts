// Rule: through a real MCP client, every token failure is an error result with its reason code and the
// recovery call, the spec's ready-set example and tie-break hold, and a rejected gate comes back with feedback.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { silentLog } from '../../src/core/ports.js';
import type { NextStepResponse } from '../../src/core/types.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { FakeClock, makeWorkspace, SPEC_EXAMPLE_YAML, tamperedToken } from '../helpers/coreHarness.js';

const out = (s: string) => ({ summary: s, artifacts: [{ type: 'markdown', title: s, content: `# ${s}` }], references: [], confidence: 0.9 });

describe('broker through an MCP client', () => {
  let opened: OpenedBaton;
  let client: Client;
  const clock = new FakeClock();
  const call = async (args: Record<string, unknown>) => {
    const res = await client.callTool({ name: 'workflow_next_step', arguments: args });
    return { isError: res.isError === true, sc: res.structuredContent as unknown as NextStepResponse, text: (res.content as Array<{ text?: string }>)[0]?.text ?? '' };
  };
  const expectError = async (args: Record<string, unknown>, code: string, recovery: RegExp) => {
    const r = await call(args);
    assert.equal(r.isError, true, `${code}: isError`);
    assert.equal(r.sc.status, 'error');
    assert.equal(r.sc.error?.code, code);
    assert.match(r.sc.error!.recovery, recovery);
    assert.ok(r.text.length > 0, 'a text an agent can read');
  };

  before(async () => {
    opened = await openBaton({ dbPath: null, workspace: makeWorkspace({ 'spec-example': SPEC_EXAMPLE_YAML }), rateLimits: false, clock, approvalWaitMs: 0, log: silentLog, tokenTtlMs: 60_000 });
    const server = createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog });
    client = new Client({ name: 'agent', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
  });
  after(async () => {
    await client.close();
    await opened.close();
  });

  it('reports every token failure with its reason and recovery', async () => {
    const a = (await call({ template_name: 'spec-example' })).sc;
    const b = (await call({ template_name: 'spec-example' })).sc;
    await expectError({ step_token: 'garbage', model_output_so_far: out('x') }, 'token_malformed', /new_step_token/);
    const tampered = tamperedToken(a.new_step_token!, { step_name: 'review-code' });
    await expectError({ step_token: tampered, model_output_so_far: out('x') }, 'token_forged', /new_step_token|current-step/);
    await expectError({ step_token: a.new_step_token, task_id: b.execution_id, model_output_so_far: out('x') }, 'token_wrong_execution', /drop task_id|belongs/);
    const next = (await call({ step_token: a.new_step_token, model_output_so_far: out('a') })).sc;
    assert.equal(next.status, 'ok');
    // Asked again for its step, `next`'s token is replaced: the answer of a's call was used, so a's replay is refused.
    const redelivered = (await call({ step_token: next.new_step_token })).sc;
    await expectError({ step_token: a.new_step_token, model_output_so_far: out('a') }, 'token_replayed', /current-step/);
    await expectError({ step_token: next.new_step_token, model_output_so_far: out('b') }, 'token_out_of_order', /current-step|task_id/);
    clock.advance(60_000);
    await expectError({ step_token: redelivered.new_step_token, model_output_so_far: out('b') }, 'token_expired', /refresh_token/);
    const refreshed = (await call({ request: 'refresh_token', step_token: redelivered.new_step_token })).sc;
    assert.equal(refreshed.status, 'ok');
    assert.equal((await call({ step_token: refreshed.new_step_token, model_output_so_far: out('b') })).sc.status, 'ok');
  });

  it('hands out the spec example in its order, with the tie broken alphabetically', async () => {
    let r = (await call({ template_name: 'spec-example' })).sc;
    const seen: Array<[string, string]> = [];
    while (r.status === 'ok') {
      seen.push([r.next_step_contract!.step_name, r.selection!.tie_broken_by]);
      r = (await call({ step_token: r.new_step_token, model_output_so_far: out(r.next_step_contract!.step_name) })).sc;
    }
    assert.deepEqual(seen, [['analyze-root-cause', 'none'], ['design-refactor', 'alphabetical'], ['implement-fix', 'none'], ['review-code', 'none']]);
    assert.equal(r.status, 'task_closed');
  });

  it('sends a rejected gate back with the feedback and closes after approval', async () => {
    let r = (await call({ template_name: 'bug-fix' })).sc;
    while (r.status === 'ok') r = (await call({ step_token: r.new_step_token, model_output_so_far: out(r.next_step_contract!.step_name) })).sc;
    assert.equal(r.status, 'awaiting_approval');
    await opened.baton.decide({ execution_id: r.execution_id!, decision: 'reject', feedback: 'Cover the expired-session path too.' });
    const redo = await call({ step_token: r.new_step_token });
    assert.equal(redo.sc.status, 'ok');
    assert.match(redo.text, /Cover the expired-session path too\./);
    const again = (await call({ step_token: redo.sc.new_step_token, model_output_so_far: out('review 2') })).sc;
    await opened.baton.decide({ execution_id: again.execution_id!, decision: 'approve' });
    const closed = (await call({ step_token: again.new_step_token })).sc;
    assert.equal(closed.status, 'task_closed');
    assert.match(closed.synthesis!.outcome_summary!, /2 attempts/);
  });
});

describe('a workflow started by a person, picked up by an agent', () => {
  it('a bare workflow_next_step call claims the first ready step', async () => {
    const opened = await openBaton({ dbPath: null, workspace: makeWorkspace(), rateLimits: false, log: silentLog });
    const server = createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog });
    const client = new Client({ name: 'agent', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      // Before anything runs, the bare call says why it has nothing to pick up, then what to pass instead.
      const idle = await client.callTool({ name: 'workflow_next_step', arguments: {} });
      assert.equal(idle.isError, true);
      assert.match(JSON.stringify(idle.content), /Nothing to do: no workflow is active in this project for a call without template_name, step_token or task_id to pick up; pass template_name to start a workflow/);
      const started = await opened.baton.startWorkflow('bug-fix', 'Fix the login crash');
      const res = await client.callTool({ name: 'workflow_next_step', arguments: {} });
      const sc = res.structuredContent as unknown as NextStepResponse;
      assert.notEqual(res.isError, true);
      assert.equal(sc.status, 'ok');
      assert.equal(sc.execution_id, started.execution_id);
      assert.equal(sc.next_step_contract?.step_name, 'analyze-root-cause');
    } finally {
      await client.close();
      await opened.close();
    }
  });
});

describe('structured results match the declared output schema', () => {
  it('every kind of broker answer parses against workflow_next_step outputSchema', async () => {
    const { nextStepOutputSchema } = await import('../../src/mcp/tools/nextStepSchema.js');
    const opened = await openBaton({ dbPath: null, workspace: makeWorkspace(), rateLimits: false, approvalWaitMs: 0, log: silentLog });
    const server = createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog });
    const client = new Client({ name: 'agent', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    const seen = new Set<string>();
    const call = async (args: Record<string, unknown>) => {
      const sc = (await client.callTool({ name: 'workflow_next_step', arguments: args })).structuredContent;
      const parsed = nextStepOutputSchema.safeParse(sc);
      assert.ok(parsed.success, `${JSON.stringify(sc).slice(0, 300)}: ${parsed.success ? '' : parsed.error.message}`);
      const r = sc as unknown as NextStepResponse;
      seen.add(r.status);
      return r;
    };
    try {
      await call({ step_token: 'bad', model_output_so_far: out('x') });
      let r = await call({ template_name: 'bug-fix' });
      await call({ task_id: r.execution_id });
      while (r.status === 'ok') r = await call({ step_token: r.new_step_token, model_output_so_far: out(r.next_step_contract!.step_name) });
      await opened.baton.decide({ execution_id: r.execution_id!, decision: 'approve' });
      await call({ step_token: r.new_step_token });
      assert.deepEqual([...seen].sort(), ['awaiting_approval', 'error', 'no_op', 'ok', 'task_closed']);
    } finally {
      await client.close();
      await opened.close();
    }
  });
});

describe('error texts carry what the recovery needs (the text alone, as Claude Code passes an isError result)', () => {
  const NEXT_CALL = 'Next call: workflow_next_step ';
  const clock = new FakeClock();
  let opened: OpenedBaton;
  let client: Client;
  /** Only the text of a result, as a client that drops structuredContent sees it. */
  const text = async (args: Record<string, unknown>) => {
    const res = await client.callTool({ name: 'workflow_next_step', arguments: args });
    return { isError: res.isError === true, text: (res.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n') };
  };
  const nextCall = (t: string) => {
    const line = t.split('\n').find((l) => l.startsWith(NEXT_CALL));
    assert.ok(line, `a next call in:\n${t}`);
    return JSON.parse(line.slice(NEXT_CALL.length)) as Record<string, unknown>;
  };
  const tokenOf = (t: string) => nextCall(t).step_token as string;

  before(async () => {
    opened = await openBaton({ dbPath: null, workspace: makeWorkspace(), rateLimits: true, clock, approvalWaitMs: 0, log: silentLog, tokenTtlMs: 60_000 });
    const server = createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog });
    client = new Client({ name: 'claude-code', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
  });
  after(async () => {
    await client.close();
    await opened.close();
  });

  it('rate_limited carries retry_after_ms', async () => {
    let t = (await text({ template_name: 'bug-fix' })).text;
    // Re-asking for the running step without output is a continue: it draws, and the task bucket holds 3.
    for (let i = 0; i < 3; i++) t = (await text({ step_token: tokenOf(t) })).text;
    const limited = await text({ step_token: tokenOf(t) });
    assert.equal(limited.isError, true);
    assert.match(limited.text, /^Error rate_limited: Rate limit exceeded for task:/);
    assert.match(limited.text, /^retry_after_ms: 2000$/m);
    assert.match(limited.text, /^Recovery: wait retry_after_ms milliseconds, then repeat the same call$/m);
    clock.advance(60_000);
  });

  it('token errors carry the current step and the token or call to use; invalid_state while awaiting carries the token', async () => {
    const first = (await text({ template_name: 'bug-fix' })).text;
    const exec = /execution_id: (\S+)/.exec(first)![1]!;
    const t1 = tokenOf(first);
    clock.advance(60_000);
    const expired = await text({ step_token: t1, model_output_so_far: out('late') });
    assert.equal(expired.isError, true);
    assert.match(expired.text, /^Error token_expired: /);
    assert.match(expired.text, /^current step: analyze-root-cause \(running\)$/m);
    assert.ok(expired.text.includes(`execution_id: ${exec}`));
    assert.deepEqual(nextCall(expired.text), { request: 'refresh_token', step_token: t1 });
    const refreshed = (await text(nextCall(expired.text))).text;
    assert.match(refreshed, /^status: ok/m);
    const t2 = tokenOf(refreshed);
    const reissued = (await text({ step_token: t2 })).text;
    const superseded = await text({ step_token: t2, model_output_so_far: out('old') });
    assert.match(superseded.text, /^Error token_out_of_order: .*latest new_step_token/m);
    assert.match(superseded.text, /^current step: analyze-root-cause \(running\)$/m);
    clock.advance(2_000);
    const t3 = tokenOf(reissued);
    const submitted = (await text({ step_token: t3, model_output_so_far: out('a') })).text;
    // Its step asked for again (a new token replaces the one handed out): t3's answer was used, so t3 is refused.
    clock.advance(2_000);
    const second = (await text({ step_token: tokenOf(submitted) })).text;
    assert.match(second, /^status: ok/m);
    clock.advance(2_000);
    const replayed = await text({ step_token: t3, model_output_so_far: out('a') });
    assert.match(replayed.text, /^Error token_replayed: /);
    assert.match(replayed.text, /^current step: implement-fix \(running\)$/m);
    assert.match(replayed.text, /^Recovery: use the new_step_token from the result of the call that used this token/m);
    // On to the gate, then a second submission with the wait token.
    let t = second;
    while (/^status: ok/m.test(t)) {
      clock.advance(2_000);
      t = (await text({ step_token: tokenOf(t), model_output_so_far: out('s') })).text;
    }
    assert.match(t, /^status: awaiting_approval/m);
    const wait = tokenOf(t);
    clock.advance(2_000);
    const again = await text({ step_token: wait, model_output_so_far: out('again') });
    assert.match(again.text, /^Error invalid_state: Step "review-code" was already submitted/);
    assert.match(again.text, /^current step: review-code \(awaiting_approval\)$/m);
    assert.deepEqual(nextCall(again.text), { step_token: wait });
  });
});
