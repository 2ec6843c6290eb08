// Rule: the tree and the status bar read the runs once per refresh between them (one reading of the unfinished runs,
// one of the newest), the status bar alone only the unfinished ones; a burst of events is one refresh, the next burst
// reads again, so no view is served a reading older than the events it was refreshed for; every unfinished run is
// listed and counted, however many newer runs there are.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { ExecutionSummary } from '../../src/core/api.js';
import type { BatonEvent } from '../../src/core/types.js';
import { BatonConnection } from '../../src/vscode/ownership.js';
import { ALL_ACTIVE, RECENT_RUNS } from '../../src/vscode/runListing.js';
import { SharedRunListing } from '../../src/vscode/sharedRunListing.js';
import { registerStatusBar } from '../../src/vscode/statusBar.js';
import { WorkflowsTreeProvider } from '../../src/vscode/views/workflowsTreeProvider.js';
import { fakeWindow } from '../helpers/fakeVscode.js';

function run(i: number, status: ExecutionSummary['status']): ExecutionSummary {
  return {
    execution_id: `e${i}`, task_id: null, workflow: 'bug-fix', kind: 'template', status, progress: 75, current_step: 'review-code',
    started_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), updated_at: '2026-01-01T00:00:00.000Z',
    steps: status === 'awaiting_approval' ? [{ step_name: 'review-code', status: 'awaiting_approval', agent_name: 'reviewer' }] : [],
  };
}

/** A connection over `runs` answering as the core does (newest first, `limit`, active_only), recording each listing. */
function fakeConnection(runs: ExecutionSummary[]) {
  const asked: Array<{ active_only?: boolean; limit?: number }> = [];
  const events = new Set<(event: BatonEvent) => void>();
  const changes = new Set<() => void>();
  const fakes = {
    state: 'ready',
    onEvent: (l: (event: BatonEvent) => void) => (events.add(l), { dispose: () => void events.delete(l) }),
    onDidChange: (l: () => void) => (changes.add(l), { dispose: () => void changes.delete(l) }),
    async listExecutions(f: { active_only?: boolean; limit?: number } = {}) {
      asked.push(f);
      const newestFirst = [...runs].sort((a, b) => b.started_at.localeCompare(a.started_at));
      const kept = f.active_only ? newestFirst.filter((e) => e.status !== 'completed' && e.status !== 'failed') : newestFirst;
      return kept.slice(0, f.limit ?? 50);
    },
    availableWorkflows: async () => ({
      workflows: [{ name: 'bug-fix', description: '', type: 'sequential', steps_count: 4, estimated_duration_minutes: null, tags: [] }],
    }),
    templates: async () => [],
  };
  const connection = Object.assign(Object.create(BatonConnection.prototype) as BatonConnection, fakes);
  const stepped: BatonEvent = { type: 'step', execution_id: 'e1', step_name: 'review-code', status: 'awaiting_approval' };
  return { connection, asked, event: () => events.forEach((l) => l(stepped)), change: () => changes.forEach((l) => l()) };
}

const ACTIVE = { active_only: true, limit: ALL_ACTIVE };
const NEWEST = { limit: RECENT_RUNS };
/** Lets the listeners' awaits run (setImmediate is not mocked). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the shared run listing', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  it('a burst of events is one refresh, whose views share one reading; the next burst reads again', async () => {
    const runs = [run(1, 'awaiting_approval'), run(2, 'completed')];
    const { connection, asked, event } = fakeConnection(runs);
    const shared = new SharedRunListing(connection, { quietMs: 100, maxWaitMs: 500 });
    let refreshes = 0;
    shared.onRefresh(() => refreshes++);
    for (let i = 0; i < 5; i++) event();
    mock.timers.tick(100);
    assert.equal(refreshes, 1);
    const [a, b, listing] = await Promise.all([shared.unfinished(), shared.unfinished(), shared.runs()]);
    assert.equal(a, b, 'one reading for both views');
    assert.deepEqual(listing.executions.map((e) => e.execution_id), ['e2', 'e1']);
    assert.deepEqual(asked, [ACTIVE, NEWEST]);

    runs.push(run(3, 'running'));
    event();
    assert.equal((await shared.runs()).executions.length, 2, 'until the refresh, the views keep what they were shown');
    mock.timers.tick(100);
    assert.equal(refreshes, 2);
    assert.deepEqual((await shared.runs()).executions.map((e) => e.execution_id), ['e3', 'e2', 'e1'], 'read again');
    assert.deepEqual(asked, [ACTIVE, NEWEST, ACTIVE, NEWEST]);
    shared.dispose();
  });

  it('the status bar alone reads only the unfinished runs', async () => {
    const { connection, asked } = fakeConnection([run(1, 'running'), run(2, 'completed')]);
    const shared = new SharedRunListing(connection);
    assert.deepEqual((await shared.unfinished()).map((e) => e.execution_id), ['e1']);
    assert.deepEqual(asked, [ACTIVE]);
    shared.dispose();
  });

  it('a change of the connection, or refresh(), reads again at once; after dispose events refresh nothing', async () => {
    const { connection, asked, event, change } = fakeConnection([run(1, 'running')]);
    const shared = new SharedRunListing(connection);
    let refreshes = 0;
    shared.onRefresh(() => refreshes++);
    await shared.unfinished();
    change();
    assert.equal(refreshes, 1, 'no wait for a quiet time');
    await shared.unfinished();
    shared.refresh();
    await shared.unfinished();
    assert.deepEqual(asked, [ACTIVE, ACTIVE, ACTIVE]);
    shared.dispose();
    event();
    change();
    mock.timers.tick(1000);
    assert.equal(refreshes, 2);
  });

  it('the tree and the status bar refreshed by events read the runs once, and count every unfinished run', async () => {
    // 3 runs at a gate, older than the 250 newest (finished) runs: outside the newest RECENT_RUNS, still counted.
    const runs = [...[1, 2, 3].map((i) => run(i, 'awaiting_approval')), ...Array.from({ length: 250 }, (_, i) => run(100 + i, 'completed'))];
    const { connection, asked, event } = fakeConnection(runs);
    const shared = new SharedRunListing(connection, { quietMs: 100, maxWaitMs: 500 });
    const tree = new WorkflowsTreeProvider(connection, shared);
    let treeChanged = 0;
    tree.onDidChangeTreeData(() => treeChanged++);
    const bar = registerStatusBar(connection, shared);
    const item = fakeWindow.statusItems.at(-1)!;
    event();
    event();
    mock.timers.tick(100);
    // The editor asks for the tree's children after it changed (as it does once the view is shown).
    assert.equal(treeChanged, 1);
    const root = await tree.getChildren();
    await settle();
    assert.deepEqual(asked, [ACTIVE, NEWEST], 'one reading of each, not one per view');
    assert.equal(item.visible, true);
    assert.equal(item.text, '$(bell) Baton: 3 steps await approval', 'every gate counted');
    const bugFix = root.map((n) => tree.getTreeItem(n).accessibilityInformation?.label).find((l) => l?.startsWith('bug-fix'));
    assert.match(bugFix ?? '', /^bug-fix, 3 active/);
    bar.dispose();
    tree.dispose();
    shared.dispose();
  });
});
