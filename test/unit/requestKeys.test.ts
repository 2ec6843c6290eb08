// Rule: a start that carries a request key starts at most one run, however often it is sent: the same key again is
// answered as the first start was (the same execution, step and token), even after the database was closed and opened
// again; other keys start runs of their own; a key goes with its execution when runs are pruned.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Baton } from '../../src/core/baton.js';
import type { Store } from '../../src/core/ports.js';
import { loadMigrations } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { makeBaton, makeWorkspace, okStep, ONE_STEP_YAML, output } from '../helpers/coreHarness.js';

const DAY = 86_400_000;
const MIGRATIONS = join(__dirname, '..', '..', 'src', 'store', 'migrations');

/** How many executions the database holds. */
const runs = (store: Store) => store.get<{ n: number }>('SELECT COUNT(*) AS n FROM executions')!.n;

/** The request-key rows, as key → execution. */
const keys = (store: Store) =>
  Object.fromEntries(store.all<{ request_key: string; execution_id: string }>('SELECT request_key, execution_id FROM request_keys').map((r) => [r.request_key, r.execution_id]));

/**
 * A Baton on `path` (closed after `fn`), its clock at `ms` (a token handed out before, at that time, has not expired).
 */
async function reopened(path: string, workspace: string, ms: number, fn: (baton: Baton, store: Store) => Promise<void>): Promise<void> {
  const store = await openStore({ path });
  const opened = await makeBaton({ store, workspacePath: workspace });
  opened.clock.ms = ms;
  try {
    await fn(opened.baton, store);
  } finally {
    await opened.baton.close();
    await store.close();
  }
}

describe('workflow_next_step starts with a request key', () => {
  it('the same key twice: one run, and the second call gets the first answer (same execution, step and token)', async () => {
    const { baton, store } = await makeBaton();
    const start = { template_name: 'bug-fix', task_description: 'Login fails' };
    const first = await baton.nextStep(start, { request_key: 'k-1' });
    const again = await baton.nextStep(start, { request_key: 'k-1' });
    assert.equal(runs(store), 1, 'the key was sent twice; one run');
    assert.equal(again.status, 'ok', JSON.stringify(again));
    assert.equal(again.execution_id, first.execution_id);
    assert.equal(again.task_id, first.task_id);
    assert.equal(okStep(again).step, okStep(first).step);
    assert.equal(again.new_step_token, first.new_step_token, 'the same token: the first answer, given again');
    assert.match(again.human_message!, /^This start's request key \(k-1\) had already started this workflow, so no second run was started; here is that start's answer\. /);
    // The token answered again is the step's own: it moves the workflow on.
    const next = await baton.nextStep({ step_token: again.new_step_token, model_output_so_far: output('root cause') });
    assert.equal(okStep(next).step, 'implement-fix');
    assert.deepEqual(keys(store), { 'k-1': first.execution_id });
  });

  it('the same key after the token expired: the same step with a fresh token, the expired one superseded', async () => {
    const { baton, store, clock } = await makeBaton({ tokenTtlMs: 60_000 });
    const start = { template_name: 'bug-fix', task_description: 'slow retry' };
    const first = await baton.nextStep(start, { request_key: 'k-late' });
    clock.advance(61_000);
    const again = await baton.nextStep(start, { request_key: 'k-late' });
    assert.equal(runs(store), 1);
    assert.equal(again.execution_id, first.execution_id);
    assert.equal(okStep(again).step, 'analyze-root-cause');
    assert.notEqual(again.new_step_token, first.new_step_token);
    const old = await baton.nextStep({ request: 'refresh_token', step_token: first.new_step_token });
    assert.equal(old.error?.code, 'token_out_of_order', 'the expired token was superseded');
    // And asked once more, the fresh token comes back (it follows the key too).
    assert.equal((await baton.nextStep(start, { request_key: 'k-late' })).new_step_token, again.new_step_token);
  });

  it('different keys, and no key: a run each', async () => {
    const { baton, store } = await makeBaton();
    const start = { template_name: 'bug-fix', task_description: 'two runs' };
    const a = await baton.nextStep(start, { request_key: 'k-a' });
    const b = await baton.nextStep(start, { request_key: 'k-b' });
    const none = await baton.nextStep(start);
    assert.equal(new Set([a.execution_id, b.execution_id, none.execution_id]).size, 3);
    assert.equal(runs(store), 3);
    assert.deepEqual(keys(store), { 'k-a': a.execution_id, 'k-b': b.execution_id });
  });

  it('a key sent again after its run moved on: no second run, nothing handed out again, where the run stands', async () => {
    const { baton, store } = await makeBaton();
    const start = { template_name: 'bug-fix', task_description: 'moved on' };
    const first = await baton.nextStep(start, { request_key: 'k-moved' });
    await baton.nextStep({ step_token: first.new_step_token, model_output_so_far: output('root cause') });
    const again = await baton.nextStep(start, { request_key: 'k-moved' });
    assert.equal(runs(store), 1);
    assert.equal(again.status, 'no_op', JSON.stringify(again));
    assert.equal(again.execution_id, first.execution_id);
    assert.equal(again.new_step_token, undefined);
    assert.match(again.human_message!, new RegExp(`^This start's request key \\(k-moved\\) had already started this workflow, which has moved on since \\(it is running\\).*current-step://${first.execution_id}`));
  });

  it('the key survives closing and opening the database again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-request-keys-'));
    const workspace = makeWorkspace();
    const path = join(dir, 'baton.db');
    try {
      const start = { template_name: 'bug-fix', task_description: 'across a restart' };
      const s1 = await openStore({ path });
      const one = await makeBaton({ store: s1, workspacePath: workspace });
      const first = await one.baton.nextStep(start, { request_key: 'k-durable' });
      await one.baton.close();
      await s1.close();

      // The token has not expired: the very same token comes back.
      await reopened(path, workspace, one.clock.ms, async (baton, store) => {
        const again = await baton.nextStep(start, { request_key: 'k-durable' });
        assert.equal(runs(store), 1);
        assert.equal(again.execution_id, first.execution_id);
        assert.equal(again.new_step_token, first.new_step_token);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('a v9 database opens at the latest version: its run goes on, and keyed starts are kept from then on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-mig10-'));
    const workspace = makeWorkspace();
    const v9 = join(dir, 'v9');
    const path = join(dir, 'baton.db');
    try {
      mkdirSync(v9);
      for (const m of loadMigrations(MIGRATIONS).filter((m) => m.version <= 9)) copyFileSync(join(MIGRATIONS, m.name), join(v9, m.name));
      const s1 = await openStore({ path, migrationsDir: v9 });
      const one = await makeBaton({ store: s1, workspacePath: workspace });
      const old = await one.baton.nextStep({ template_name: 'bug-fix', task_description: 'before the upgrade' });
      await one.baton.close();
      await s1.close();

      await reopened(path, workspace, one.clock.ms, async (baton, store) => {
        assert.equal(store.get<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")!.value, String(loadMigrations(MIGRATIONS).at(-1)!.version));
        assert.equal(okStep(await baton.nextStep({ step_token: old.new_step_token, model_output_so_far: output('root cause') })).step, 'implement-fix');
        const start = { template_name: 'bug-fix', task_description: 'after the upgrade' };
        const first = await baton.nextStep(start, { request_key: 'k-v10' });
        assert.equal((await baton.nextStep(start, { request_key: 'k-v10' })).execution_id, first.execution_id);
        assert.equal(runs(store), 2);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('a key goes with its pruned run (the same key then starts a new one)', async () => {
    const { baton, store, clock } = await makeBaton({ workflows: { one: ONE_STEP_YAML }, retention: { days: 30, maxRuns: 0, idleDays: 0 } });
    const first = await baton.nextStep({ template_name: 'one' }, { request_key: 'k-old' });
    const done = await baton.nextStep({ step_token: okStep(first).token, model_output_so_far: output('did it') });
    assert.equal(done.status, 'task_closed');
    const kept = await baton.nextStep({ template_name: 'one' }, { request_key: 'k-kept' });
    assert.deepEqual(Object.keys(keys(store)).sort(), ['k-kept', 'k-old']);
    clock.advance(31 * DAY);

    assert.equal((await baton.prune({ dry_run: true })).rows.request_keys, 1, 'a dry run counts the key');
    const pruned = await baton.prune({});
    assert.deepEqual(pruned.execution_ids, [first.execution_id]);
    assert.equal(pruned.rows.request_keys, 1);
    assert.deepEqual(keys(store), { 'k-kept': kept.execution_id }, 'the unfinished run keeps its key');
    const anew = await baton.nextStep({ template_name: 'one' }, { request_key: 'k-old' });
    assert.notEqual(anew.execution_id, first.execution_id);
  });
});

describe('start_execution (lifecycle) with a request key', () => {
  it('the same key twice: one execution, the second call gets it as it is now', async () => {
    const { baton, store } = await makeBaton();
    const first = await baton.lifecycle.startExecution({ workflowName: 'bug-fix' }, 'k-lc');
    await baton.lifecycle.transition(first.id, 'running');
    const again = await baton.lifecycle.startExecution({ workflowName: 'bug-fix' }, 'k-lc');
    assert.equal(runs(store), 1);
    assert.equal(again.id, first.id);
    assert.equal(again.state, 'running', 'where it stands now');
    const other = await baton.lifecycle.startExecution({ workflowName: 'bug-fix' }, 'k-lc-2');
    assert.notEqual(other.id, first.id);
    assert.deepEqual(keys(store), { 'k-lc': first.id, 'k-lc-2': other.id });
  });
});
