// Rule: an agent whose Baton connection ends while it holds a step leaves the step to the next agent that asks, at
// once, with real processes: its forwarding `baton mcp` exits and ends its session with the owner (as when the editor
// or `baton serve` owns the database), or is killed and ends nothing (the owner knows its pid from its initialize);
// or its own `baton mcp`, the owner, is killed, and another agent's takes over.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { ensureBuilt, startMcp, tempSetup, type CliSession } from '../fixtures/mcp/cliHarness.js';

type Step = { status: string; execution_id: string; new_step_token: string; next_step_contract?: { step_name: string } };

describe('a step held by an agent whose connection ended', () => {
  const setup = tempSetup('baton-closed-');
  const args = ['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off'];
  const sessions: CliSession[] = [];
  ensureBuilt();
  after(async () => {
    for (const s of sessions) await s.client.close().catch(() => undefined);
    rmSync(setup.dir, { recursive: true, force: true });
  });
  const call = async (s: CliSession, a: Record<string, unknown>) =>
    (await s.client.callTool({ name: 'workflow_next_step', arguments: a })).structuredContent as Step;

  it('goes to the next agent that asks once that agent\'s baton mcp has exited', async () => {
    const owner = await startMcp(args, 'owner');
    const gone = await startMcp(args, 'agent-gone');
    const next = await startMcp(args, 'agent-next');
    sessions.push(owner, next);
    const first = await call(gone, { template_name: 'bug-fix', task_description: 'its agent goes away' });
    assert.equal(first.status, 'ok');
    assert.equal((await call(next, { task_id: first.execution_id })).status, 'no_op', 'held while its agent is there');
    await gone.client.close(); // the agent's session ends: its baton mcp ends its session with the owner, and exits
    // Its session ends as its process exits: the next ask, or one soon after, gets the step.
    let taken: Step | undefined;
    for (const deadline = Date.now() + 10_000; !taken && Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      const r = await call(next, { task_id: first.execution_id });
      if (r.status === 'ok') taken = r;
    }
    assert.equal(taken?.next_step_contract?.step_name, 'analyze-root-cause', 'handed on within 10 s, not once the token expired');
  });

  it('goes to the next agent that asks at once when that agent\'s forwarding baton mcp was killed (no session end)', async () => {
    const held = tempSetup('baton-closed-killed-');
    const own = ['--db', held.db, '--workspace', held.workspace, '--rate-limits', 'off'];
    try {
      const owner = await startMcp(own, 'owner');
      const gone = await startMcp(own, 'agent-killed');
      const next = await startMcp(own, 'agent-next');
      sessions.push(owner, next);
      const first = await call(gone, { template_name: 'bug-fix', task_description: 'its baton mcp is killed' });
      assert.equal(first.status, 'ok');
      assert.equal((await call(next, { task_id: first.execution_id })).status, 'no_op', 'held while its agent is there');
      process.kill(gone.pid!, 'SIGKILL'); // no DELETE reaches the owner: its session stays open until it times out
      let taken: Step | undefined;
      for (const deadline = Date.now() + 15_000; !taken && Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        const r = await call(next, { task_id: first.execution_id });
        if (r.status === 'ok') taken = r;
      }
      assert.equal(taken?.next_step_contract?.step_name, 'analyze-root-cause', 'handed on once its process is gone, not once the session timed out');
    } finally {
      rmSync(held.dir, { recursive: true, force: true });
    }
  });

  it('goes to the next agent at once when the owner whose own client held it was killed, once another owns the database', async () => {
    const held = tempSetup('baton-closed-owner-');
    const own = ['--db', held.db, '--workspace', held.workspace, '--rate-limits', 'off'];
    try {
      const gone = await startMcp(own, 'agent-gone'); // the first: it owns the database, its own client is this agent
      const next = await startMcp(own, 'agent-next');
      sessions.push(gone, next);
      const first = await call(gone, { template_name: 'bug-fix', task_description: 'its agent and owner die' });
      assert.equal(first.status, 'ok');
      assert.equal((await call(next, { task_id: first.execution_id })).status, 'no_op');
      process.kill(gone.pid!, 'SIGKILL'); // no goodbye: the next owner learns it from the process being gone
      // agent-next's baton mcp takes the database over, and hands it the step: its holder's process has gone.
      let taken: Step | undefined;
      for (const deadline = Date.now() + 15_000; !taken && Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
        const r = await call(next, { task_id: first.execution_id }).catch(() => null);
        if (r?.status === 'ok') taken = r;
      }
      assert.equal(taken?.next_step_contract?.step_name, 'analyze-root-cause', 'handed on once the owner is gone');
    } finally {
      rmSync(held.dir, { recursive: true, force: true });
    }
  });
});
