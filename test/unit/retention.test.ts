// Retention: finished runs past the policy go with every row recorded for them; unfinished runs, findings, global
// memory and other runs stay; unfinished runs idle past the policy are cancelled (and pruned later as finished runs);
// the tick prunes on its own, hourly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Baton } from '../../src/core/baton.js';
import type { PruneResult, RetentionPolicy } from '../../src/core/retention.js';
import type { BatonEvent } from '../../src/core/types.js';
import { renderStatus } from '../../src/cli/statusCommand.js';
import { makeBaton, okStep, ONE_STEP_YAML, output } from '../helpers/coreHarness.js';

const DAY = 86_400_000;

/** Starts a run of `one`; finishes it unless `finish` is false. Returns its execution and task ids. */
async function run(baton: Baton, finish = true): Promise<{ id: string; task: string }> {
  const first = await baton.nextStep({ template_name: 'one', task_description: 'a task' });
  const { token } = okStep(first);
  const id = first.execution_id!;
  // Everything a run records besides its steps: memory of its own, a finding, a rate bucket.
  await baton.memory.store({ runId: id, agent: 'implementer' }, { key: 'note', value: 'run memory' });
  await baton.lifecycle.storeFinding({ executionId: id, severity: 'low', category: 'style', title: `finding of ${id}`, description: 'kept as knowledge' });
  if (finish) {
    const done = await baton.nextStep({ step_token: token, model_output_so_far: output('did it') });
    assert.notEqual(done.status, 'ok');
    if (done.status !== 'task_closed') assert.equal((await baton.nextStep({ step_token: done.new_step_token! })).status, 'task_closed');
  }
  return { id, task: baton.workflowStatus(id).task_id! };
}

/** How many rows each run table holds for `id`. */
function rowsOf(baton: Baton, id: string): Record<string, number> {
  const store = (baton as unknown as { ports: { store: import('../../src/core/ports.js').Store } }).ports.store;
  const count = (sql: string) => store.get<{ n: number }>(sql, [id])!.n;
  const out: Record<string, number> = {};
  for (const t of ['executions', 'steps', 'artifacts', 'events', 'step_tokens']) out[t] = count(`SELECT COUNT(*) AS n FROM ${t} WHERE execution_id = ?`);
  out.memory = count('SELECT COUNT(*) AS n FROM memory_entries WHERE scope_key = ?');
  out.findings = count('SELECT COUNT(*) AS n FROM findings WHERE execution_id = ?');
  return out;
}

/** A core with the one-step workflow and `retention` over a policy of 30 days, no count limit, no idle cancelling. */
async function setup(retention: Partial<RetentionPolicy> = {}) {
  const made = await makeBaton({ workflows: { one: ONE_STEP_YAML }, retention: { days: 30, maxRuns: 0, idleDays: 0, ...retention } });
  const events: BatonEvent[] = [];
  made.baton.onEvent((e) => events.push(e));
  return { ...made, events };
}

test('runs finished longer ago than the policy go with their rows; recent, unfinished runs, findings and global memory stay', async () => {
  const { baton, clock, store, events } = await setup();
  const old = await run(baton);
  const oldUnfinished = await run(baton, false);
  await baton.memory.store({ runId: old.id, agent: null }, { key: 'shared', value: 'global memory', global: true });
  clock.advance(31 * DAY);
  const recent = await run(baton);
  const before = rowsOf(baton, old.id);
  assert.ok(before.steps! > 0 && before.events! > 0 && before.artifacts! > 0 && before.memory === 1);

  const dry = await baton.prune({ dry_run: true });
  assert.equal(dry.pruned, 1);
  assert.deepEqual(dry.execution_ids, [old.id]);
  assert.equal(dry.dry_run, true);
  assert.deepEqual(rowsOf(baton, old.id).executions, 1, 'a dry run deletes nothing');

  const r = await baton.prune();
  assert.equal(r.pruned, 1);
  assert.deepEqual(r.execution_ids, [old.id]);
  assert.deepEqual(r.rows, dry.rows, 'the dry run counted exactly what went');
  assert.equal(r.rows.executions, 1);
  assert.equal(r.rows.agent_tasks, 1);
  assert.equal(r.kept, 1);
  assert.deepEqual(rowsOf(baton, old.id), { executions: 0, steps: 0, artifacts: 0, events: 0, step_tokens: 0, memory: 0, findings: 1 });
  assert.equal(store.get<{ n: number }>('SELECT COUNT(*) AS n FROM agent_tasks WHERE task_id = ?', [old.task])!.n, 0);
  assert.equal(store.get<{ n: number }>("SELECT COUNT(*) AS n FROM memory_entries WHERE scope_key = ''")!.n, 1, 'global memory stays');
  assert.equal(baton.lifecycle.queryFindings({ executionId: old.id }).findings.length, 1, 'findings are knowledge: they stay');
  assert.equal(rowsOf(baton, recent.id).executions, 1);
  assert.equal(rowsOf(baton, oldUnfinished.id).executions, 1, 'an unfinished run is never pruned, however old');
  assert.deepEqual(events.filter((e) => e.type === 'pruned'), [{ type: 'pruned', execution_ids: [old.id] }]);
  assert.throws(() => baton.workflowStatus(old.id), /No execution or task/);
  // Nothing more to do: a second prune finds nothing.
  assert.equal((await baton.prune()).pruned, 0);
});

test('max runs keeps the newest finished runs, oldest pruned first', async () => {
  const { baton, clock } = await setup({ days: 0, maxRuns: 2 });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    ids.push((await run(baton)).id);
    clock.advance(1000);
  }
  const r = await baton.prune();
  assert.deepEqual(r.execution_ids, ids.slice(0, 3));
  assert.equal(r.kept, 2);
  assert.deepEqual(baton.listExecutions().map((e) => e.execution_id).sort(), ids.slice(3).sort());
  // The request may override the policy.
  assert.deepEqual((await baton.prune({ max_runs: 1 })).execution_ids, [ids[3]]);
});

test('a policy of 0 and 0 keeps everything; a bad policy is refused with the fix', async () => {
  const { baton, clock } = await setup({ days: 0, maxRuns: 0 });
  await run(baton);
  clock.advance(3650 * DAY);
  assert.equal((await baton.prune()).pruned, 0);
  await assert.rejects(baton.prune({ days: -1 }), /retention days must be a whole number ≥ 0/);
  await assert.rejects(baton.prune({ max_runs: 1.5 }), /retention max_runs must be a whole number ≥ 0/);
  await assert.rejects(baton.prune({ idle_days: -2 }), /retention idle_days must be a whole number ≥ 0/);
  await assert.rejects(makeBaton({ retention: { days: Number.NaN, maxRuns: 1, idleDays: 0 } }), /retention days must be a whole number/);
});

test('unfinished runs idle past the policy are cancelled, longest idle first, and pruned once finished long enough', async () => {
  const { baton, clock, store, events } = await setup({ days: 30, idleDays: 10 });
  const leftStep = await baton.nextStep({ template_name: 'one', task_description: 'left unfinished' });
  const left = { id: leftStep.execution_id!, token: okStep(leftStep).token };
  const first = await baton.nextStep({ template_name: 'one', task_description: 'worked on' });
  const { token } = okStep(first);
  clock.advance(5 * DAY);
  const later = await run(baton, false);
  clock.advance(6 * DAY);
  // `left` and `first` have been idle 11 days, `later` 6; `first`'s agent comes back.
  const heartbeat = await baton.nextStep({ step_token: token, request: 'refresh_token' });
  assert.equal(heartbeat.status, 'ok', JSON.stringify(heartbeat));

  const dry = await baton.prune({ dry_run: true });
  assert.deepEqual({ cancelled: dry.cancelled, ids: dry.cancelled_ids }, { cancelled: 1, ids: [left.id] });
  assert.equal(baton.workflowStatus(left.id).status, 'running', 'a dry run cancels nothing');

  const r = await baton.prune();
  assert.deepEqual({ cancelled: r.cancelled, ids: r.cancelled_ids, pruned: r.pruned, kept: r.kept }, { cancelled: 1, ids: [left.id], pruned: 0, kept: 1 });
  assert.equal(baton.workflowStatus(left.id).status, 'failed');
  const meta = JSON.parse(store.get<{ m: string }>('SELECT metadata AS m FROM executions WHERE execution_id = ?', [left.id])!.m) as { cancelled: { by: string; reason: string } };
  assert.equal(meta.cancelled.by, 'retention');
  assert.equal(meta.cancelled.reason, 'no activity for more than 10 days');
  // baton status (and --json) says why, as the agent's next call and the editor's panel do.
  const listed = baton.listExecutions({}).find((e) => e.execution_id === left.id)!;
  assert.deepEqual([listed.cancelled, listed.cancel_reason], [true, 'no activity for more than 10 days, by the retention policy']);
  assert.match(renderStatus([listed], '', false), new RegExp(`^${left.id} {2}one {2}cancelled \\(no activity for more than 10 days, by the retention policy\\) {2}`));
  // Its agent, back with its (long expired) token, is told what became of the run.
  const back = await baton.nextStep({ step_token: left.token, model_output_so_far: output('back at last') });
  assert.match(back.error!.message, /was cancelled at \S+ by retention \(no activity for more than 10 days\)/);
  assert.ok(events.some((e) => e.type === 'execution' && e.execution_id === left.id && e.status === 'failed'), 'the views hear of it');
  assert.equal(baton.workflowStatus(later.id).status, 'running');
  assert.equal(baton.workflowStatus(first.execution_id!).status, 'running', 'activity since counts');
  assert.equal((await baton.prune()).cancelled, 0, 'nothing more to cancel');

  clock.advance(31 * DAY);
  const again = await baton.prune();
  assert.deepEqual(again.execution_ids, [left.id], 'cancelled 31 days ago: pruned like any finished run');
  assert.deepEqual(again.cancelled_ids, [later.id, first.execution_id!], 'longest idle first');
  assert.equal(rowsOf(baton, left.id).executions, 0);
});

test('many runs are pruned, batch by batch, with nothing of theirs left but their findings', async () => {
  const { baton, clock, store } = await setup({ days: 1, maxRuns: 0 });
  const ids: string[] = [];
  for (let i = 0; i < 60; i++) ids.push((await run(baton)).id);
  clock.advance(2 * DAY);
  const r = await baton.prune();
  assert.equal(r.pruned, 60);
  assert.equal(r.rows.executions, 60);
  assert.equal(store.get<{ n: number }>('SELECT COUNT(*) AS n FROM executions')!.n, 0);
  assert.equal(store.get<{ n: number }>('SELECT COUNT(*) AS n FROM steps')!.n, 0);
  assert.equal(store.get<{ n: number }>('SELECT COUNT(*) AS n FROM findings')!.n, 60);
  assert.equal(store.get<{ n: number }>('SELECT COUNT(*) AS n FROM step_texts')!.n, 0, 'no step names a stored definition or contract any more');
  assert.ok(r.rows.step_texts! > 0);

  // The texts the earlier runs stored are gone: the next run of the same workflow stores them again (the repository
  // had seen them stored, and forgot that with the prune), and reads its step back whole.
  const next = await run(baton, false);
  assert.ok(store.get<{ n: number }>('SELECT COUNT(*) AS n FROM step_texts')!.n >= 2);
  const dangling = store.all("SELECT s.step_name FROM steps s WHERE (s.definition_ref IS NOT NULL AND s.definition_ref NOT IN (SELECT hash FROM step_texts)) OR (s.contract_ref IS NOT NULL AND s.contract_ref NOT IN (SELECT hash FROM step_texts))");
  assert.deepEqual(dangling, [], 'every ref names a stored text');
  assert.equal(baton.workflowStatus(next.id).steps[0]!.step_name, 'only');
});

test('stored definitions and contracts go once no step names them; those a kept run names stay', async () => {
  const { baton, clock, store } = await setup({ days: 1, maxRuns: 0 });
  const texts = () => store.get<{ n: number }>('SELECT COUNT(*) AS n FROM step_texts')!.n;
  await run(baton);
  const shared = texts();
  assert.ok(shared >= 2, 'the one step\'s definition and contract');
  clock.advance(2 * DAY);
  const kept = await run(baton);
  assert.equal(texts(), shared, 'a second run of the same workflow stores nothing new');
  const r = await baton.prune();
  assert.equal(r.pruned, 1);
  assert.equal(r.rows.step_texts, undefined, 'the kept run names them all');
  assert.equal(texts(), shared);
  assert.equal(baton.workflowStatus(kept.id).steps[0]!.step_name, 'only');
});

test('a dry run counts every row the prune then deletes, the stored texts no kept step names included', async () => {
  const other = ONE_STEP_YAML.replace('name: one', 'name: two').replace('Do it', 'Do the other thing');
  const made = await makeBaton({ workflows: { one: ONE_STEP_YAML, two: other }, retention: { days: 0, maxRuns: 1, idleDays: 0 } });
  const { baton, store } = made;
  const texts = () => store.get<{ n: number }>('SELECT COUNT(*) AS n FROM step_texts')!.n;
  // Two runs of `two` (texts only they name), then one of `one` (kept: its texts stay).
  for (const template of ['two', 'two', 'one']) {
    const first = await baton.nextStep({ template_name: template, task_description: `a ${template} task` });
    const done = await baton.nextStep({ step_token: okStep(first).token, model_output_so_far: output('did it') });
    if (done.status !== 'task_closed') assert.equal((await baton.nextStep({ step_token: done.new_step_token! })).status, 'task_closed');
  }
  const before = texts();
  const dry = await baton.prune({ dry_run: true });
  assert.equal(texts(), before, 'a dry run deletes nothing');
  assert.ok((dry.rows.step_texts ?? 0) > 0, `the texts only the pruned runs name are counted: ${JSON.stringify(dry.rows)}`);
  const real = await baton.prune();
  assert.equal(real.pruned, dry.pruned);
  assert.deepEqual(real.rows, dry.rows, 'the dry run counted what the prune deleted, table by table');
  assert.equal(texts(), before - dry.rows.step_texts!);
});

test('a dry run that would cancel idle runs counts what the prune then does: they take the newest places of max runs', async () => {
  // max runs 2: as many places as idle runs; 1: fewer (the runs a prune cancels are pruned later, not by it).
  for (const maxRuns of [2, 1]) {
    const { baton, clock } = await setup({ days: 0, maxRuns, idleDays: 10 });
    const idle = [(await run(baton, false)).id, (await run(baton, false)).id];
    clock.advance(11 * DAY);
    const finished: string[] = [];
    for (let i = 0; i < 3; i++) {
      finished.push((await run(baton)).id);
      clock.advance(1000);
    }
    const facts = (r: PruneResult) => ({ cancelled: r.cancelled_ids, pruned: r.execution_ids, rows: r.rows, kept: r.kept });
    const dry = await baton.prune({ dry_run: true });
    const real = await baton.prune();
    assert.deepEqual(facts(dry), facts(real), `max runs ${maxRuns}: the dry run counted what the prune did`);
    assert.deepEqual(facts(real), { cancelled: idle, pruned: finished, rows: real.rows, kept: 2 }, `max runs ${maxRuns}`);
    assert.deepEqual(baton.listExecutions().map((e) => e.execution_id).sort(), [...idle].sort(), 'the cancelled runs stay');
  }
});

test('tick prunes by the policy a minute after start, then hourly', async () => {
  const { baton, clock, events } = await setup({ days: 0, maxRuns: 1 });
  const pruned = () => events.filter((e) => e.type === 'pruned').length;
  await run(baton);
  await run(baton);
  clock.advance(59_000);
  await baton.tick();
  assert.equal(pruned(), 0, 'nothing is pruned in the first minute: start-up and the first calls come first');
  clock.advance(1000);
  await baton.tick();
  assert.equal(pruned(), 1);
  assert.equal(baton.listExecutions().length, 1);
  await run(baton);
  clock.advance(30 * 60_000);
  await baton.tick();
  assert.equal(pruned(), 1, 'not again within the hour');
  assert.equal(baton.listExecutions().length, 2);
  clock.advance(30 * 60_000);
  await baton.tick();
  assert.equal(pruned(), 2);
  assert.equal(baton.listExecutions().length, 1);
});

test('closing the core stops a prune under way after its batch: no error, and what it pruned is gone for good', async () => {
  const { baton, clock, store } = await setup({ days: 1, maxRuns: 0 });
  for (let i = 0; i < 60; i++) await run(baton);
  clock.advance(2 * DAY);
  const pruning = baton.prune();
  await baton.close();
  const r = await pruning;
  assert.ok(r.pruned < 60, `stopped early (pruned ${r.pruned})`);
  assert.equal(store.get<{ n: number }>('SELECT COUNT(*) AS n FROM executions')!.n, 60 - r.pruned);
  assert.equal(store.get<{ n: number }>('SELECT COUNT(*) AS n FROM steps')!.n, 60 - r.pruned, 'no run is half pruned');
  assert.equal(r.compacted, null);
});
