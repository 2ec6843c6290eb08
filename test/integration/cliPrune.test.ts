// Rule: `baton prune` deletes finished runs past the policy, on the file when nobody owns it and through the owner
// when one runs (whose tree and resources then drop them); it cancels the unfinished runs idle past the policy (which
// are pruned later as finished runs); it says what it did, counts on --dry-run, refuses bad numbers with exit 2 and a
// missing database with exit 1, and creates nothing. Counts read as words ("1 finished run", "30 days"), not "0 kept".
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openBaton } from '../../src/host/openBaton.js';
import { silentLog } from '../../src/core/ports.js';
import { ensureBuilt, runCli, startMcp, tempSetup, waitFor, type CliSession } from '../fixtures/mcp/cliHarness.js';
import { readDiscovery } from '../../src/host/discovery.js';
import { ONE_STEP_YAML } from '../helpers/coreHarness.js';


/** Runs `count` one-step workflows to the end on `db`, finished at `at` (ms); returns their execution ids. */
async function finishedRuns(db: string, workspace: string, count: number, at: number): Promise<string[]> {
  const opened = await openBaton({ dbPath: db, workspace, log: silentLog, clock: { now: () => at }, rateLimits: false, approvalWaitMs: 0 });
  const ids: string[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const first = await opened.baton.nextStep({ template_name: 'one', task_description: `task ${i}` });
      assert.equal(first.status, 'ok', JSON.stringify(first));
      let r = await opened.baton.nextStep({
        step_token: first.new_step_token!,
        model_output_so_far: { summary: 'done', artifacts: [{ type: 'markdown', title: 'notes', content: '# notes' }], references: [], confidence: 0.9 },
      });
      if (r.status !== 'task_closed') r = await opened.baton.nextStep({ step_token: r.new_step_token! });
      assert.equal(r.status, 'task_closed', JSON.stringify(r));
      ids.push(first.execution_id!);
    }
  } finally {
    await opened.close();
  }
  return ids;
}

/** Starts a one-step workflow on `db` at `at` (ms) and leaves it unfinished, its agent gone; returns its execution id. */
async function unfinishedRun(db: string, workspace: string, at: number): Promise<string> {
  const opened = await openBaton({ dbPath: db, workspace, log: silentLog, clock: { now: () => at }, rateLimits: false, approvalWaitMs: 0 });
  try {
    const first = await opened.baton.nextStep({ template_name: 'one', task_description: 'left unfinished' });
    assert.equal(first.status, 'ok', JSON.stringify(first));
    return first.execution_id!;
  } finally {
    await opened.close();
  }
}

function workspaceWithOneStep(workspace: string): void {
  mkdirSync(join(workspace, '.baton', 'workflows'), { recursive: true });
  writeFileSync(join(workspace, '.baton', 'workflows', 'one.yaml'), ONE_STEP_YAML);
}

const LONG_AGO = Date.parse('2020-01-01T00:00:00Z');

describe('baton prune', () => {
  const setup = tempSetup('baton-prune-');
  let session: CliSession | undefined;

  before(() => {
    ensureBuilt();
    workspaceWithOneStep(setup.workspace);
  });
  after(async () => {
    await session?.client.close().catch(() => undefined);
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it('on the file: --dry-run counts, then prune deletes the old runs and keeps the recent ones', async () => {
    const old = await finishedRuns(setup.db, setup.workspace, 3, LONG_AGO);
    const recent = await finishedRuns(setup.db, setup.workspace, 1, Date.now());
    const dry = await runCli(['prune', '--db', setup.db, '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^Would prune 3 finished runs older than 30 days or past the newest 1000; 1 finished run would be kept\.\n/);
    assert.match(dry.stdout, /rows that would be deleted: steps 3, artifacts [36], events \d+, step_tokens 3, executions 3, agent_tasks 3\n/);
    assert.match(dry.stdout, /Nothing was cancelled or deleted \(--dry-run\)\./);
    for (const id of old) assert.ok(dry.stdout.includes(id), `the dry run names ${id}`);

    const r = await runCli(['prune', '--db', setup.db, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as { pruned: number; execution_ids: string[]; kept: number; dry_run: boolean; rows: Record<string, number> };
    assert.equal(result.pruned, 3);
    assert.deepEqual([...result.execution_ids].sort(), [...old].sort());
    assert.equal(result.kept, 1);
    assert.equal(result.rows.executions, 3);
    const status = JSON.parse((await runCli(['status', '--all', '--json', '--db', setup.db])).stdout) as { executions: Array<{ execution_id: string }> };
    assert.deepEqual(status.executions.map((e) => e.execution_id), recent, 'only the recent run is left, after a reopen');
  });

  it('--keep and --compact: keeps the newest N and gives the space back', async () => {
    const r = await runCli(['prune', '--db', setup.db, '--keep', '0', '--days', '0', '--compact']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^No finished run is pruned: pruning is off \(--days 0 --keep 0\); 1 finished run kept\.\nCompacted the database from [\d.]+ MiB to [\d.]+ MiB\.\n$/);
  });

  it('cancels a run left unfinished for longer than --idle-days and keeps it as a finished run', async () => {
    const db = join(setup.dir, 'idle.db');
    const idle = await unfinishedRun(db, setup.workspace, LONG_AGO);
    const active = await unfinishedRun(db, setup.workspace, Date.now());
    const dry = await runCli(['prune', '--db', db, '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(dry.stdout, [
      'Would cancel 1 unfinished run idle for more than 30 days; it is pruned later, as a finished run.',
      `  runs: ${idle}`,
      // The run it would cancel is then finished, and kept, as the prune itself says.
      'No finished run is older than 30 days or past the newest 1000; 1 finished run would be kept.',
      'Nothing was cancelled or deleted (--dry-run).',
      '',
    ].join('\n'));
    const off = JSON.parse((await runCli(['prune', '--db', db, '--idle-days', '0', '--json'])).stdout) as { cancelled: number; policy: unknown };
    assert.equal(off.cancelled, 0, '--idle-days 0 cancels nothing');
    assert.deepEqual(off.policy, { days: 30, maxRuns: 1000, idleDays: 0 });
    // No run has finished: nothing to prune, said as such (not "0 kept").
    const none = await runCli(['prune', '--db', db, '--idle-days', '0', '--dry-run']);
    assert.equal(none.stdout, 'There is no finished run to prune.\n');

    const r = await runCli(['prune', '--db', db, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as { cancelled: number; cancelled_ids: string[]; pruned: number; kept: number };
    assert.deepEqual({ cancelled: result.cancelled, ids: result.cancelled_ids, pruned: result.pruned, kept: result.kept }, { cancelled: 1, ids: [idle], pruned: 0, kept: 1 });
    const status = JSON.parse((await runCli(['status', '--all', '--json', '--db', db])).stdout) as { executions: Array<{ execution_id: string; status: string }> };
    const byId = new Map(status.executions.map((e) => [e.execution_id, e.status]));
    assert.equal(byId.get(idle), 'failed', 'the idle run is cancelled (failed), and kept until it is past the policy');
    assert.equal(byId.get(active), 'running', 'a run with recent activity goes on');
  });

  it('through the owner: its policy applies unless the flags say otherwise; its listing drops the pruned runs', async () => {
    const old = await finishedRuns(setup.db, setup.workspace, 2, LONG_AGO);
    session = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--retention-days', '0', '--retention-runs', '0']);
    await waitFor(() => readDiscovery(setup.db), 10_000, 'discovery file');
    const off = await runCli(['prune', '--db', setup.db, '--json']);
    assert.equal(off.code, 0, off.stderr);
    assert.deepEqual(JSON.parse(off.stdout).policy, { days: 0, maxRuns: 0, idleDays: 30 }, "the owner's policy (pruning off)");
    assert.equal(JSON.parse(off.stdout).pruned, 0);
    const r = await runCli(['prune', '--db', setup.db, '--days', '365']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Pruned 2 finished runs older than 365 days; 1 finished run kept\./);
    const status = JSON.parse((await runCli(['status', '--all', '--json', '--db', setup.db])).stdout) as { executions: Array<{ execution_id: string }> };
    for (const id of old) assert.ok(!status.executions.some((e) => e.execution_id === id), `${id} is gone from the owner's listing`);
  });

  it('refuses bad numbers (exit 2) and a missing database (exit 1), creating nothing', async () => {
    for (const args of [['--days', 'x'], ['--keep=-1'], ['--days', '1.5']]) {
      const r = await runCli(['prune', ...args, '--db', setup.db]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^baton: --(days|keep) must be a whole number of (days|runs), 0 or more, e\.g\. --(days 30|keep 1000) \(got "[^"]+"\)\n\nUsage: baton prune/);
      assert.equal(r.stdout, '');
    }
    const missing = join(setup.dir, 'nowhere', 'baton.db');
    const r = await runCli(['prune', '--db', missing]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no Baton database at .*There is nothing to prune, and nothing was created\./);
    assert.equal(existsSync(missing), false);
    assert.equal(existsSync(join(setup.dir, 'nowhere')), false);
  });
});
