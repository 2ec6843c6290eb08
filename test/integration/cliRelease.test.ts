// Rule: `baton release EXECUTION` takes a running step from the agent that holds it (one that went away), as the
// editor's Release Step does: through the live owner or in the database when none runs. The step is ready at once for
// the next agent that asks; the released token is refused with why. What it cannot release is refused with what to do
// (a team run: baton send or baton stop; a run the lifecycle tools drive: start_step takes its step over).
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { silentLog } from '../../src/core/ports.js';
import { teamHost } from '../../src/core/worker/host.js';
import { openBaton } from '../../src/host/openBaton.js';
import { ensureBuilt, runCli, startMcp, tempSetup, type CliSession } from '../fixtures/mcp/cliHarness.js';

describe('baton release', () => {
  const setup = tempSetup('baton-release-');
  const db = ['--db', setup.db];
  let session: CliSession | undefined;
  ensureBuilt();
  after(async () => {
    await session?.client.close().catch(() => undefined);
    rmSync(setup.dir, { recursive: true, force: true });
  });

  type Step = { status: string; execution_id: string; new_step_token: string; next_step_contract?: { step_name: string }; error?: { code: string; message: string } };
  const call = async (s: CliSession, args: Record<string, unknown>) =>
    (await s.client.callTool({ name: 'workflow_next_step', arguments: args })).structuredContent as Step;

  it('releases the step an agent holds through the live owner: the next caller gets it, the old token is refused', async () => {
    session = await startMcp([...db, '--workspace', setup.workspace, '--rate-limits', 'off']);
    const first = await call(session, { template_name: 'bug-fix', task_description: 'to release' });
    const id = first.execution_id;
    assert.equal((await call(session, { task_id: id })).status, 'no_op', 'held: nothing for another caller');
    const released = await runCli(['release', id, ...db]);
    assert.equal(released.code, 0, released.stderr);
    assert.match(released.stdout, new RegExp(`^Released analyze-root-cause of ${id} from \\S+ \\(held since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\): it is ready, and the next agent that asks for work gets it\\.\\n$`));
    const status = await runCli(['status', ...db]);
    assert.match(status.stdout, /^ {2}○ analyze-root-cause \(ready, debugger\)$/m);
    const late = await call(session, { step_token: first.new_step_token, model_output_so_far: { summary: 'late', artifacts: [], references: [], confidence: 1 } });
    assert.equal(late.error?.code, 'token_out_of_order');
    assert.match(late.error!.message, /^A person released step "analyze-root-cause" \(at [^)]+\) from this token/);
    const again = await call(session, { task_id: id });
    assert.equal(again.status, 'ok');
    assert.equal(again.next_step_contract?.step_name, 'analyze-root-cause');
    await session.client.close();
    session = undefined;
  });

  it('releases in the database when no process owns it; --json prints what was released', async () => {
    const s = await startMcp([...db, '--workspace', setup.workspace, '--rate-limits', 'off']);
    const first = await call(s, { template_name: 'bug-fix', task_description: 'owner gone' });
    await s.client.close();
    const released = await runCli(['release', first.execution_id, '--json', ...db]);
    assert.equal(released.code, 0, released.stderr);
    const r = JSON.parse(released.stdout) as { execution_id: string; step_name: string; held_by: string | null; execution_status: string };
    assert.deepEqual([r.execution_id, r.step_name, r.execution_status], [first.execution_id, 'analyze-root-cause', 'running']);
    assert.ok(r.held_by, 'who held it');
    // The next agent's server picks the step up at once.
    session = await startMcp([...db, '--workspace', setup.workspace, '--rate-limits', 'off']);
    const next = await call(session, { task_id: first.execution_id });
    assert.equal(next.next_step_contract?.step_name, 'analyze-root-cause');
    const twice = await runCli(['release', first.execution_id, '--step', 'implement-fix', ...db]);
    assert.equal(twice.code, 1);
    assert.equal(twice.stderr, `baton: Step "implement-fix" of execution ${first.execution_id} is pending; only a running step can be released: analyze-root-cause.\n`);
    await session.client.close();
    session = undefined;
  });

  it('refuses what it cannot release, saying what to do', async () => {
    const unknown = await runCli(['release', 'nope', ...db]);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, `baton: No execution or task "nope"; list them with \`baton status --db ${setup.db}\`.\n`);
    const none = await runCli(['release']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^baton: release needs exactly one EXECUTION/);
    const missing = await runCli(['release', 'x', '--db', `${setup.dir}/absent/baton.db`]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /\. There is no execution x whose step to release\.\n/);
    const help = await runCli(['release', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: baton release EXECUTION \[--step NAME\]/);
  });
});

describe('baton release of a team run', () => {
  const setup = tempSetup('baton-release-team-');
  after(() => rmSync(setup.dir, { recursive: true, force: true }));

  it('is refused naming what to do instead, baton send or baton stop with the --db given; the run is left as it was', async () => {
    const opened = await openBaton({ dbPath: setup.db, log: silentLog, timeoutSweepMs: 0 });
    const runId = await teamHost(opened.baton)!.teams.start({ workflow: 'review', instance: 'pr-1', agents: [{ name: 'coder', backend: 'command' }], source: 'review.yaml', contextDir: '.workflow/pr-1/' });
    await opened.close();
    const refused = await runCli(['release', runId, '--db', setup.db]);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, `baton: ${runId} is a team run: its agents take turns and hold no steps, so there is none to release. `
      + `Talk to it with \`baton send MESSAGE --to @pr-1 --db ${setup.db}\`, or stop it with \`baton stop @pr-1 --db ${setup.db}\`.\n`);
    const status = await runCli(['status', '--db', setup.db]);
    assert.match(status.stdout, new RegExp(`^${runId} {2}review@pr-1 {2}running `, 'm'));
  });
});

describe('baton release of a run the lifecycle tools drive', () => {
  const setup = tempSetup('baton-release-lifecycle-');
  let session: CliSession | undefined;
  after(async () => {
    await session?.client.close().catch(() => undefined);
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it('is refused saying how another agent takes the step over; the step stays running and complete_step takes it', async () => {
    session = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--tools', 'lifecycle']);
    const tool = async (name: string, args: Record<string, unknown>) =>
      (await session!.client.callTool({ name, arguments: args })).structuredContent as { id: string };
    const { id } = await tool('start_execution', { workflowName: 'bug-fix' });
    await tool('transition_workflow_state', { executionId: id, newState: 'running' });
    const step = await tool('start_step', { executionId: id, stepName: 'analyze' });
    const refused = await runCli(['release', id, '--db', setup.db]);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, `baton: Execution ${id} is driven by the lifecycle tools (start_step, complete_step): its steps hold `
      + 'no step token, so there is nothing to release. Another agent takes a running step over with start_step (the same '
      + "executionId and stepName: it answers with the step's id), then complete_step; to end the run, "
      + `\`baton cancel ${id} --db ${setup.db}\`.\n`);
    const status = await runCli(['status', '--db', setup.db]);
    assert.match(status.stdout, /^ {2}▶ analyze \(running, unassigned\)$/m);
    const again = await tool('start_step', { executionId: id, stepName: 'analyze' });
    assert.equal(again.id, step.id, 'start_step answers with the running step');
    const done = await session.client.callTool({ name: 'complete_step', arguments: { stepId: step.id, output: { summary: 'taken over' } } });
    assert.equal(done.isError, undefined, JSON.stringify(done.content));
  });
});
