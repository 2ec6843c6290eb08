// Rule: `baton cancel EXECUTION` ends an unfinished workflow from a terminal, as the editor's Cancel Execution does:
// through the live owner (the agent working on it is refused its next step) or in the database when none runs;
// `baton status` then reads it cancelled. An unknown id, a finished execution and a missing database are refused
// with what to do (`baton status` with the --db it was given); a team run is pointed at `baton stop`, with that --db,
// unless it has ended.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { silentLog } from '../../src/core/ports.js';
import { teamHost } from '../../src/core/worker/host.js';
import { openBaton } from '../../src/host/openBaton.js';
import { ensureBuilt, runCli, startMcp, tempSetup, type CliSession } from '../fixtures/mcp/cliHarness.js';

describe('baton cancel', () => {
  const setup = tempSetup('baton-cancel-');
  const db = ['--db', setup.db];
  let session: CliSession | undefined;
  ensureBuilt();
  after(async () => {
    await session?.client.close().catch(() => undefined);
    rmSync(setup.dir, { recursive: true, force: true });
  });

  const start = async (s: CliSession) => {
    const r = await s.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'to cancel' } });
    return r.structuredContent as { execution_id: string; new_step_token: string };
  };

  it('cancels a workflow in the live owner: the agent is refused its next step, and status reads it cancelled', async () => {
    session = await startMcp([...db, '--workspace', setup.workspace, '--rate-limits', 'off']);
    const { execution_id: id, new_step_token: token } = await start(session);
    const cancelled = await runCli(['cancel', id, ...db]);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.equal(cancelled.stdout, `Cancelled execution ${id} (bug-fix).\n`);
    const next = await session.client.callTool({ name: 'workflow_next_step', arguments: { step_token: token, model_output_so_far: { summary: 'done' } } });
    assert.equal((next.structuredContent as { status: string }).status, 'error', JSON.stringify(next).slice(0, 300));
    const status = await runCli(['status', '--all', ...db]);
    assert.match(status.stdout, new RegExp(`^${id} {2}bug-fix {2}cancelled \\(by baton cancel\\) `, 'm'));
    const again = await runCli(['cancel', id, ...db]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, new RegExp(`^baton: Execution ${id} is already (cancelled|failed); only an unfinished execution can be cancelled\\.\\n`));
    // The owner's refusal of an unknown id names the database this command was given, as `baton status` needs it.
    const unknown = await runCli(['cancel', 'nope', ...db]);
    assert.equal(unknown.stderr, `baton: No execution or task "nope"; list them with \`baton status --db ${setup.db}\`.\n`);
    await session.client.close();
    session = undefined;
  });

  it('cancels in the database when no process owns it; --json prints the execution', async () => {
    const s = await startMcp([...db, '--workspace', setup.workspace, '--rate-limits', 'off']);
    const { execution_id: id } = await start(s);
    await s.client.close();
    const cancelled = await runCli(['cancel', id, '--json', ...db]);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    const summary = JSON.parse(cancelled.stdout) as { execution_id: string; cancelled?: boolean; status: string };
    assert.equal(summary.execution_id, id);
    assert.equal(summary.cancelled, true);
  });

  it('refuses what it cannot cancel, saying what to do', async () => {
    const unknown = await runCli(['cancel', 'nope', ...db]);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, `baton: No execution or task "nope"; list them with \`baton status --db ${setup.db}\`.\n`);
    // So do the listings of pipeline runs and spec workflows that their commands' refusals name.
    const run = await runCli(['pipeline', 'cancel', 'nope', ...db]);
    assert.equal(run.stderr, `baton: No pipeline run "nope"; list runs with \`baton pipeline list --db ${setup.db}\`.\n`,
      run.stderr);
    const spec = await runCli(['spec', 'status', 'nope', ...db]);
    assert.ok(spec.stderr.includes(`see the latest with \`baton spec status --db ${setup.db}\`.`), spec.stderr);
    assert.ok(spec.stderr.includes(`start one with \`baton spec start <tasks.md> --db ${setup.db}\``), spec.stderr);
    // A resume takes the database to drive the run (not through withCore): its refusal names the database too.
    const resume = await runCli(['pipeline', 'resume', 'nope', ...db]);
    assert.equal(resume.stderr, `baton: No pipeline run "nope"; list runs with \`baton pipeline list --db ${setup.db}\`.\n`);
    const none = await runCli(['cancel']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^baton: cancel needs exactly one EXECUTION \(an execution or task id; baton status lists them\)/);
    const noneHere = await runCli(['cancel', ...db]);
    assert.ok(noneHere.stderr.startsWith(`baton: cancel needs exactly one EXECUTION (an execution or task id; baton status --db ${setup.db} lists them)`), noneHere.stderr);
    const missing = await runCli(['cancel', 'x', '--db', `${setup.dir}/absent/baton.db`]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /\. There is no execution x to cancel\.\n/);
  });
});

describe('baton cancel of a team run', () => {
  const setup = tempSetup('baton-cancel-team-');
  after(() => rmSync(setup.dir, { recursive: true, force: true }));

  it('is pointed at baton stop (with the --db given), which stops its agents too; the run is left as it was', async () => {
    const opened = await openBaton({ dbPath: setup.db, log: silentLog, timeoutSweepMs: 0 });
    const runId = await teamHost(opened.baton)!.teams.start({ workflow: 'review', instance: 'pr-1', agents: [{ name: 'coder', backend: 'command' }], source: 'review.yaml', contextDir: '.workflow/pr-1/' });
    await opened.close();
    const refused = await runCli(['cancel', runId, '--db', setup.db]);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, `baton: ${runId} is a team run: stop it with baton stop @pr-1 --db ${setup.db}\n`);
    const approve = await runCli(['approve', runId, '--db', setup.db]);
    assert.ok(approve.stderr.endsWith(
      `Talk to it with \`baton send MESSAGE --to @pr-1 --db ${setup.db}\`, or stop it with \`baton stop @pr-1 --db ${setup.db}\`.\n`), approve.stderr);
    const status = await runCli(['status', '--db', setup.db]);
    assert.match(status.stdout, new RegExp(`^${runId} {2}review@pr-1 {2}running `, 'm'));
  });

  it('one that has ended is said to have ended, not pointed at a baton stop that finds no team', async () => {
    const opened = await openBaton({ dbPath: setup.db, log: silentLog, timeoutSweepMs: 0 });
    const teams = teamHost(opened.baton)!.teams;
    const runId = await teams.start({ workflow: 'review', instance: 'pr-2', agents: [{ name: 'coder', backend: 'command' }], source: 'review.yaml', contextDir: '.workflow/pr-2/' });
    await teams.finish(runId, 'completed');
    await opened.close();
    const refused = await runCli(['cancel', runId, '--db', setup.db]);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, `baton: ${runId} is a team run that has already ended (completed): there is nothing to stop or cancel.\n`);
  });
});
