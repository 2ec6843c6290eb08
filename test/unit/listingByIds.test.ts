// Rule: a listing can ask for given executions (`ids`), in the core and through the owner's control endpoint, with
// bad ids refused by a message that names the fix; and where listing every unfinished run is costly, the editor's
// shared listing reads again only the runs events named, and shows what a whole reading would: over a real core
// through runs started, moved, gated, approved, closed and cancelled, and over an owner that predates `ids`.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { MAX_LISTED_IDS, type ExecutionFilter, type ExecutionSummary } from '../../src/core/api.js';
import type { Baton } from '../../src/core/baton.js';
import { silentLog } from '../../src/core/ports.js';
import type { BatonEvent } from '../../src/core/types.js';
import { handleControl } from '../../src/host/controlOps.js';
import { ALL_ACTIVE } from '../../src/vscode/runListing.js';
import { SharedRunListing, type RunListingSource } from '../../src/vscode/sharedRunListing.js';
import { makeBaton, okStep, output } from '../helpers/coreHarness.js';

/** Always in parts after the first whole reading, and whole again after a minute. */
const IN_PARTS = { belowRuns: 0, everyMs: 60_000 };
const ACTIVE: ExecutionFilter = { active_only: true, limit: ALL_ACTIVE };
/** Lets the listeners' awaits run (setImmediate is not mocked). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** The editor's connection over a real core, recording each listing it is asked for. */
function coreSource(baton: Baton) {
  const asked: ExecutionFilter[] = [];
  const changes = new Set<() => void>();
  const listeners = new Set<(event: BatonEvent) => void>();
  const source: RunListingSource = {
    async listExecutions(f: ExecutionFilter = {}) {
      asked.push(f);
      return baton.listExecutions(f);
    },
    onEvent(l: (event: BatonEvent) => void) {
      listeners.add(l);
      const off = baton.onEvent(l);
      return { dispose: () => void (off(), listeners.delete(l)) };
    },
    onDidChange: (l: () => void) => (changes.add(l), { dispose: () => void changes.delete(l) }),
  };
  /** Sends `event` to the listeners as if the owner had (an event the core does not make). */
  const send = (event: unknown) => listeners.forEach((l) => l(event as BatonEvent));
  return { source, asked, change: () => changes.forEach((l) => l()), send };
}

/** Starts a bug-fix run and claims its first step; its execution id and token. */
async function start(baton: Baton, task: string): Promise<{ id: string; token: string }> {
  const r = await baton.nextStep({ template_name: 'bug-fix', task_description: task });
  return { id: r.execution_id!, token: okStep(r).token };
}

/** Submits the step `token` holds; the next step's token (the gate's, once there). */
async function advance(baton: Baton, token: string): Promise<string> {
  const r = await baton.nextStep({ step_token: token, model_output_so_far: output('done') });
  return r.new_step_token!;
}

const ids = (runs: ExecutionSummary[]) => runs.map((e) => e.execution_id);

describe('listing executions by id', () => {
  it('the core lists only the runs asked for, newest first, with active_only and limit applied', async () => {
    const { baton } = await makeBaton();
    const a = await start(baton, 'a');
    const b = await start(baton, 'b');
    const c = await start(baton, 'c');
    await baton.cancel(b.id, 'not needed');
    assert.deepEqual(ids(baton.listExecutions({ ids: [a.id, c.id, 'no-such-run'] })), [c.id, a.id], 'unknown ids left out');
    assert.deepEqual(ids(baton.listExecutions({ ids: [a.id, b.id], active_only: true })), [a.id], 'the cancelled one is finished');
    assert.deepEqual(ids(baton.listExecutions({ ids: [a.id, b.id, c.id], limit: 2 })), [c.id, b.id]);
    assert.deepEqual(baton.listExecutions({ ids: [] }), []);
    assert.throws(
      () => baton.listExecutions({ ids: Array.from({ length: MAX_LISTED_IDS + 1 }, (_, i) => `e${i}`) }),
      (ex: Error) => ex.message === `ids names ${MAX_LISTED_IDS + 1} executions; list at most ${MAX_LISTED_IDS} at a time (or leave ids out)`,
    );
  });

  it('the control endpoint passes ids on, and refuses ids that are not a list of strings', async () => {
    const { baton } = await makeBaton();
    const a = await start(baton, 'a');
    await start(baton, 'b');
    const listed = await handleControl(baton, JSON.stringify({ op: 'executions', ids: [a.id], limit: 10 }), silentLog);
    assert.equal(listed.status, 200);
    assert.deepEqual(ids((listed.body as { executions: ExecutionSummary[] }).executions), [a.id]);
    for (const bad of ['e1', [1], { e1: true }, null]) {
      const refused = await handleControl(baton, JSON.stringify({ op: 'executions', ids: bad }), silentLog);
      assert.equal(refused.status, 400, JSON.stringify(bad));
      assert.deepEqual((refused.body as { error: unknown }).error, {
        reason: 'invalid_input', message: 'ids must be an array of execution ids (strings), or left out to list the newest',
      });
    }
    const tooMany = await handleControl(baton, JSON.stringify({ op: 'executions', ids: Array.from({ length: 1001 }, (_, i) => `e${i}`) }), silentLog);
    assert.equal(tooMany.status, 400);
    assert.match((tooMany.body as { error: { message: string } }).error.message, /list at most 1000 at a time/);
  });
});

describe('the shared listing read in parts', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() }));
  afterEach(() => mock.timers.reset());

  it('over a real core, reads again only the runs events named, and shows what a whole reading shows', async () => {
    const { baton } = await makeBaton();
    const { source, asked } = coreSource(baton);
    const shared = new SharedRunListing(source, { quietMs: 100, maxWaitMs: 500 }, IN_PARTS);
    const runs: Array<{ id: string; token: string }> = [];
    for (let i = 0; i < 6; i++) runs.push(await start(baton, `run ${i}`));
    assert.deepEqual(ids(await shared.unfinished()), ids(baton.listExecutions(ACTIVE)), 'the first reading is whole');
    assert.deepEqual(asked, [ACTIVE]);

    // Run 0 goes to its gate, run 1 is cancelled, run 2 moves a step, and two runs start (in the same ms as the rest:
    // the fake clock stands still, so the order is the core's newest row first).
    let gate = runs[0]!.token;
    for (let i = 0; i < 4; i++) gate = await advance(baton, gate);
    await baton.cancel(runs[1]!.id, 'not needed');
    await advance(baton, runs[2]!.token);
    const late = [await start(baton, 'late 1'), await start(baton, 'late 2')];
    await settle();
    mock.timers.tick(100);
    const parts = await shared.unfinished();
    assert.deepEqual(parts, baton.listExecutions(ACTIVE), 'the same runs, states and order as a whole reading');
    assert.equal(parts.find((e) => e.execution_id === runs[0]!.id)?.status, 'awaiting_approval');
    assert.equal(parts.some((e) => e.execution_id === runs[1]!.id), false, 'the cancelled run left');
    const part = asked.at(-1)!;
    assert.equal(part.active_only, true);
    assert.deepEqual(new Set(part.ids), new Set([runs[0]!.id, runs[1]!.id, runs[2]!.id, late[0]!.id, late[1]!.id]), 'only the named runs');
    assert.equal(asked.length, 2);

    // The gate approved and the run closed: it leaves; no event, no reading.
    await baton.decide({ execution_id: runs[0]!.id, decision: 'approve', by: 'test' });
    await baton.nextStep({ step_token: gate });
    await settle();
    mock.timers.tick(100);
    assert.deepEqual(await shared.unfinished(), baton.listExecutions(ACTIVE));
    assert.deepEqual(asked.at(-1)!.ids, [runs[0]!.id]);
    assert.equal(asked.length, 3);
    shared.dispose();
  });

  it('reads whole after the connection changed, on Refresh, after an event of a kind it does not know, and every everyMs', async () => {
    const { baton } = await makeBaton();
    const { source, asked, change, send } = coreSource(baton);
    const shared = new SharedRunListing(source, { quietMs: 100, maxWaitMs: 500 }, IN_PARTS);
    const a = await start(baton, 'a');
    await shared.unfinished();
    change();
    await shared.unfinished();
    assert.deepEqual(asked, [ACTIVE, ACTIVE], 'a changed connection is read whole');
    shared.refresh();
    await shared.unfinished();
    assert.equal(asked.length, 2, 'a refresh without events reads no run again');
    shared.refresh({ whole: true });
    await shared.unfinished();
    assert.deepEqual(asked, [ACTIVE, ACTIVE, ACTIVE], 'Refresh reads them all');
    await advance(baton, a.token);
    await settle();
    mock.timers.tick(100);
    await shared.unfinished();
    assert.deepEqual(asked.at(-1)!.ids, [a.id]);
    // The project's active task cleared, and content synced: no run changed.
    const before = asked.length;
    send({ type: 'project', project_id: 1 });
    send({ type: 'content', kinds: ['workflows'] });
    mock.timers.tick(100);
    await shared.unfinished();
    assert.equal(asked.length, before, 'no run named: nothing read');
    // A newer owner's event of a kind this build does not know may concern any run.
    send({ type: 'quota', limit: 3 });
    mock.timers.tick(100);
    await shared.unfinished();
    assert.deepEqual(asked.at(-1), ACTIVE);
    await start(baton, 'b');
    await settle();
    mock.timers.tick(60_000);
    await shared.unfinished();
    assert.deepEqual(asked.at(-1), ACTIVE, 'a minute after the last whole reading');
    assert.deepEqual(await shared.unfinished(), baton.listExecutions(ACTIVE));
    shared.dispose();
  });

  it('an owner that predates ids (it answers with its newest unfinished runs) has the list read whole', async () => {
    const runs: ExecutionSummary[] = Array.from({ length: 4 }, (_, i) => ({
      execution_id: `e${i}`, task_id: null, workflow: 'bug-fix', kind: 'template', status: 'running', progress: 0, current_step: null,
      started_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), updated_at: '2026-01-01T00:00:00.000Z', steps: [],
    }));
    const asked: ExecutionFilter[] = [];
    const events = new Set<(event: BatonEvent) => void>();
    const older: RunListingSource = {
      async listExecutions({ active_only, limit = 50 }: ExecutionFilter = {}) {
        asked.push({ active_only, limit });
        return [...runs].reverse().filter((e) => !active_only || e.status === 'running').slice(0, limit);
      },
      onEvent: (l) => (events.add(l), { dispose: () => void events.delete(l) }),
      onDidChange: () => ({ dispose: () => undefined }),
    };
    const shared = new SharedRunListing(older, { quietMs: 100, maxWaitMs: 500 }, IN_PARTS);
    assert.deepEqual(ids(await shared.unfinished()), ['e3', 'e2', 'e1', 'e0']);
    runs[0]!.status = 'completed';
    events.forEach((l) => l({ type: 'execution', execution_id: 'e0', task_id: null, status: 'completed' }));
    mock.timers.tick(100);
    assert.deepEqual(ids(await shared.unfinished()), ['e3', 'e2', 'e1'], 'e3, not asked for, had the list read whole');
    assert.deepEqual(asked, [ACTIVE, { active_only: true, limit: 1 }, ACTIVE]);
    shared.dispose();
  });

  it('a part reading that fails has the next refresh read whole; an event during a reading is read at the next', async () => {
    const { baton } = await makeBaton();
    const { source, asked } = coreSource(baton);
    let fail = false;
    let during: (() => Promise<void>) | undefined;
    const flaky: RunListingSource = {
      ...source,
      async listExecutions(f) {
        if (fail && f?.ids) throw new Error('the owner went away');
        const listed = await source.listExecutions(f);
        const then = during;
        during = undefined;
        await then?.();
        return listed;
      },
    };
    const shared = new SharedRunListing(flaky, { quietMs: 100, maxWaitMs: 500 }, IN_PARTS);
    const a = await start(baton, 'a');
    await shared.unfinished();
    fail = true;
    await advance(baton, a.token);
    await settle();
    mock.timers.tick(100);
    await assert.rejects(shared.unfinished(), /the owner went away/);
    fail = false;
    shared.refresh();
    await shared.unfinished();
    assert.deepEqual(asked.at(-1), ACTIVE, 'read whole after the failure');

    let b: { id: string } | undefined;
    during = async () => void (b = await start(baton, 'b'));
    await advance(baton, (await start(baton, 'c')).token);
    await settle();
    mock.timers.tick(100);
    const first = await shared.unfinished();
    assert.equal(first.some((e) => e.execution_id === b!.id), false, 'b started after the reading');
    await settle();
    mock.timers.tick(100);
    assert.deepEqual(await shared.unfinished(), baton.listExecutions(ACTIVE), 'b, named during the reading, read at the next');
    assert.deepEqual(asked.at(-1)!.ids, [b!.id]);
    shared.dispose();
  });
});
