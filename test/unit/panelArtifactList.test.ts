// Rule: the panel lists a run's newest ARTIFACTS_SHOWN artifacts, newest first, read so from the database (not every
// artifact read and then cut), with the run's count; `panel/moreArtifacts` lists ARTIFACTS_SHOWN more; the message
// is validated like every other one from the webview. The status the panel reads leaves the steps' artifacts out
// (unread: they would be every artifact of the run, content and all), here and through an owner's workflow_status.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ArtifactQuery, WorkflowStatusResource } from '../../src/core/api.js';
import { silentLog } from '../../src/core/ports.js';
import { handleControl } from '../../src/host/controlOps.js';
import { parseFromWebview, type PanelState, type ToWebview } from '../../src/shared/protocol.js';
import { LocalSource } from '../../src/vscode/batonSource.js';
import { ARTIFACTS_SHOWN, loadPanelState, PanelController } from '../../src/vscode/panels/panelController.js';
import { makeBaton } from '../helpers/coreHarness.js';

/** A run with `n` artifacts, one a second (a1 oldest); the source records the artifact queries. */
async function runWith(n: number) {
  const { baton, store } = await makeBaton();
  const id = (await baton.startWorkflow('bug-fix', 'Many artifacts')).execution_id;
  const step = baton.workflowStatus(id).steps[0]!.step_name;
  await store.transaction(() => {
    for (let i = 1; i <= n; i++) {
      store.run(`INSERT INTO artifacts (artifact_id, execution_id, step_name, agent_name, artifact_type, title, content, created_at, content_size_bytes)
        VALUES (?, ?, ?, 'a', 'markdown', ?, 'text', ?, 4)`, [`a${i}`, id, i % 2 ? step : null, `Artifact ${i}`, new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString()]);
    }
  });
  const source = new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never);
  const queries: ArtifactQuery[] = [];
  const read = source.artifacts.bind(source);
  source.artifacts = async (q) => {
    const r = await read(q);
    queries.push(q);
    assert.ok(r.artifacts.length <= q.limit);
    return r;
  };
  const statusReads: unknown[] = [];
  const status = source.workflowStatus.bind(source);
  source.workflowStatus = async (execId, opts) => (statusReads.push(opts), status(execId, opts));
  return { baton, store, id, source, queries, statusReads };
}

describe('the panel\'s artifact list', () => {
  it('holds the newest ARTIFACTS_SHOWN, newest first, with the count, read capped', async () => {
    const { id, source, queries } = await runWith(ARTIFACTS_SHOWN * 2 + 50);
    const state = await loadPanelState(source, id, null);
    assert.equal(state.artifacts.length, ARTIFACTS_SHOWN);
    assert.equal(state.artifactsTotal, ARTIFACTS_SHOWN * 2 + 50);
    assert.deepEqual(state.artifacts.slice(0, 2).map((a) => a.id), [`a${ARTIFACTS_SHOWN * 2 + 50}`, `a${ARTIFACTS_SHOWN * 2 + 49}`]);
    assert.equal(state.artifacts.at(-1)!.id, `a${ARTIFACTS_SHOWN + 51}`, 'the older ones of the steps are not added back');
    assert.deepEqual(queries, [{ type: 'execution', execution_id: id, limit: ARTIFACTS_SHOWN, newest_first: true }]);
  });

  it('sorts the ids of the run\'s artifacts, not their rows, to find the newest (only those rows are read)', async () => {
    const { store, id, source } = await runWith(20);
    const statements: Array<[string, unknown[]]> = [];
    const all = store.all.bind(store);
    store.all = ((sql: string, params: unknown[] = []) => (statements.push([sql, params]), all(sql, params as never))) as typeof store.all;
    await source.artifacts({ type: 'execution', execution_id: id, limit: 5, newest_first: true });
    store.all = all;
    const [sql, params] = statements.find(([q]) => /FROM artifacts/.test(q) && !/COUNT/.test(q))!;
    const plan = all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params as never).map((r) => r.detail);
    const sorted = plan.findIndex((d) => d.includes('TEMP B-TREE FOR ORDER BY'));
    if (sorted > 0) assert.match(plan[sorted - 1]!, /COVERING INDEX/, `what is sorted is read from an index alone: ${plan.join(' | ')}`);
    assert.ok(plan.some((d) => /INTEGER PRIMARY KEY|COVERING INDEX|SCAN artifacts/.test(d)), plan.join(' | '));
  });

  it('panel/moreArtifacts lists ARTIFACTS_SHOWN more each time', async () => {
    const { id, source, queries } = await runWith(ARTIFACTS_SHOWN + 30);
    const posted: ToWebview[] = [];
    const controller = new PanelController(source, id, { post: (m) => posted.push(m), openArtifact: async () => undefined, log: { warn: () => undefined, error: () => undefined } });
    const listed = () => {
      const last = posted.at(-1)!;
      assert.ok(last.type === 'panel/init' || last.type === 'panel/update', JSON.stringify(last).slice(0, 200));
      const s: PanelState = last.state;
      return [s.artifacts.length, s.artifactsTotal];
    };
    await controller.receive({ type: 'panel/ready' });
    assert.deepEqual(listed(), [ARTIFACTS_SHOWN, ARTIFACTS_SHOWN + 30]);
    await controller.receive({ type: 'panel/moreArtifacts' });
    assert.deepEqual(listed(), [ARTIFACTS_SHOWN + 30, ARTIFACTS_SHOWN + 30]);
    assert.equal(queries.at(-1)!.limit, ARTIFACTS_SHOWN * 2);
    controller.dispose();
  });

  it('reads the status without the steps\' artifacts, here and from an owner that is asked so', async () => {
    const { baton, id, source, statusReads } = await runWith(10);
    await loadPanelState(source, id, null);
    assert.deepEqual(statusReads, [{ artifacts: false }]);
    assert.deepEqual(baton.workflowStatus(id, { artifacts: false }).steps.flatMap((st) => st.artifacts), []);
    assert.equal(baton.workflowStatus(id).steps.flatMap((st) => st.artifacts).length, 5, 'the resource still carries them');
    const asked = await handleControl(baton, JSON.stringify({ op: 'workflow_status', id, artifacts: false }), silentLog);
    assert.deepEqual((asked.body as { result: WorkflowStatusResource }).result.steps.flatMap((st) => st.artifacts), []);
    const bad = await handleControl(baton, JSON.stringify({ op: 'workflow_status', id, artifacts: 'no' }), silentLog);
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /artifacts must be true or false/);
  });

  it('panel/moreArtifacts carries nothing else', () => {
    assert.deepEqual(parseFromWebview({ type: 'panel/moreArtifacts' }), { type: 'panel/moreArtifacts' });
    assert.equal(parseFromWebview({ type: 'panel/moreArtifacts', limit: 100000 }), null);
  });
});
