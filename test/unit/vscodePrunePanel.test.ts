// Rule: an execution panel whose run retention deleted (a 'pruned' event naming it) says so once, reads nothing more
// (no pending or later update, nor on panel/ready or panel/refresh), and a prune of other runs leaves it alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ArtifactQuery, ArtifactsResource, CurrentStepResource, WorkflowStatusResource } from '../../src/core/api.js';
import type { BatonEvent } from '../../src/core/types.js';
import type { ToWebview } from '../../src/shared/protocol.js';
import type { BatonSource } from '../../src/vscode/batonSource.js';
import { PanelController, PRUNED_MESSAGE } from '../../src/vscode/panels/panelController.js';

class FakeSource {
  reads = 0;
  listeners: Array<(e: BatonEvent) => void> = [];
  async workflowStatus(id: string): Promise<WorkflowStatusResource> {
    this.reads++;
    if (id !== 'e1' && id !== 't1') throw new Error(`No execution or task "${id}"`);
    return {
      execution_id: 'e1', task_id: 't1', workflow: 'bug-fix', status: 'completed', current_step: null, progress: 100,
      started_at: '2026-01-01T00:00:00Z', completed_at: '2026-01-01T01:00:00Z',
      steps: [{ step_name: 'fix', status: 'completed', agent_name: 'implementer', dependencies: [], started_at: null, completed_at: null, duration_ms: null, outcome_summary: null, feedback: null, attempt: 1, artifacts: [] }],
    };
  }
  async currentStep(): Promise<CurrentStepResource> {
    return { execution_id: 'e1', task_id: 't1', workflow: 'bug-fix', status: 'completed', progress: 100, current_step: null, active_steps: [], artifacts: [] };
  }
  async events() { return []; }
  async artifacts(q: ArtifactQuery): Promise<ArtifactsResource> { return { artifacts: [], total: 0, query: { ...q } }; }
  async guardrails() { return ''; }
  async templates() { return []; }
  onEvent(l: (e: BatonEvent) => void) {
    this.listeners.push(l);
    return { dispose: () => { this.listeners = this.listeners.filter((x) => x !== l); } };
  }
  emit(e: BatonEvent) { for (const l of this.listeners) l(e); }
}

async function openPanel(id = 'e1') {
  const source = new FakeSource();
  const posted: ToWebview[] = [];
  const controller = new PanelController(source as unknown as BatonSource, id, {
    post: (m) => posted.push(m),
    openArtifact: async () => undefined,
    log: { warn: () => undefined, error: () => undefined },
  }, null, 5);
  await controller.receive({ type: 'panel/ready' });
  assert.deepEqual(posted.map((m) => m.type), ['panel/init']);
  return { source, posted, controller };
}

describe('execution panel: its run pruned by retention', () => {
  it('says the run was pruned, drops the update pending for it and reads nothing after', async () => {
    const { source, posted, controller } = await openPanel();
    const readsBefore = source.reads;
    source.emit({ type: 'execution', execution_id: 'e1', task_id: 't1', status: 'completed' });
    source.emit({ type: 'pruned', execution_ids: ['e0', 'e1'] });
    await sleep(20);
    assert.deepEqual(posted.slice(1), [{ type: 'panel/error', message: PRUNED_MESSAGE }]);
    source.emit({ type: 'step', execution_id: 'e1', step_name: 'fix', status: 'running' });
    await controller.receive({ type: 'panel/refresh' });
    controller.detach();
    await controller.receive({ type: 'panel/ready' });
    await sleep(20);
    assert.equal(source.reads, readsBefore, 'no read of a run that is gone');
    assert.deepEqual(posted.slice(1).map((m) => m.type), ['panel/error', 'panel/error', 'panel/error']);
    assert.ok(posted.slice(1).every((m) => m.type === 'panel/error' && m.message === PRUNED_MESSAGE));
    controller.dispose();
  });

  it('matches the run however the panel was opened (by its task id) and ignores a prune of other runs', async () => {
    const { source, posted, controller } = await openPanel('t1');
    source.emit({ type: 'pruned', execution_ids: ['e7', 'e8'] });
    source.emit({ type: 'step', execution_id: 'e1', step_name: 'fix', status: 'completed' });
    await sleep(20);
    assert.deepEqual(posted.map((m) => m.type), ['panel/init', 'panel/update'], 'other runs pruned: this one still updates');
    source.emit({ type: 'pruned', execution_ids: ['e1'] });
    assert.deepEqual(posted.at(-1), { type: 'panel/error', message: PRUNED_MESSAGE });
    controller.dispose();
  });
});
