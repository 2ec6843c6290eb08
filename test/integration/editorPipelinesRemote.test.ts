// Rule: an editor that is a client of a terminal owner starts a pipeline run through the owner's /control
// (`pipeline_start`, as `baton pipeline run` does) — the owner drives it — and its panel shows the run's graph, spend
// and gate from the owner (`pipeline_run`), approves the review there, and reports the owner's refusals.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { silentLog } from '../../src/core/ports.js';
import type { System } from '../../src/core/pipelines/types.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer, type OwnerServer } from '../../src/host/ownerServer.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import type { PanelState, ToWebview } from '../../src/shared/protocol.js';
import { PanelController } from '../../src/vscode/panels/panelController.js';
import { PipelineFeed } from '../../src/vscode/pipelines/pipelineFeed.js';
import { RemotePipelines } from '../../src/vscode/pipelines/pipelineSource.js';
import { RemoteSource } from '../../src/vscode/remoteSource.js';
import { FakeRunner } from '../helpers/fakeRunner.js';
import { until } from '../helpers/until.js';

const SYSTEM: System = {
  name: 'remote-review', description: '', agents: [{ id: 'writer', role: 'custom', runner: 'command', command: ['x'] }],
  workflow: [{ id: 'draft', type: 'agent', agentId: 'writer' }, { id: 'ok', type: 'human_review', inputTemplate: 'Ship?' }],
};

describe('pipelines from an editor that is a client of the owner', () => {
  let opened: OpenedBaton;
  let owner: OwnerServer;
  let remote: RemoteSource;
  let pipelines: RemotePipelines;
  const runner = new FakeRunner((req) => ({ text: `draft for ${req.prompt}`, usage: { input: 4, output: 6 }, costUsd: 0.5 }));

  before(async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'baton-remote-pipe-'));
    opened = await openBaton({ dbPath: null, workspace, rateLimits: false, log: silentLog, approvalWaitMs: 0 });
    opened.baton.pipelines.setRunners(() => runner);
    owner = await startOwnerServer({
      baton: opened.baton,
      createServer: () => createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog }),
      log: silentLog,
    });
    const info = { url: owner.url, token: owner.token, pid: process.pid };
    remote = new RemoteSource(info);
    pipelines = new RemotePipelines(info);
  });
  after(async () => {
    remote.dispose();
    await owner.close();
    await opened.close();
  });

  it('starts the run in the owner, shows it in the panel from there and approves its review through it', async () => {
    const runId = await pipelines.start(SYSTEM, { input: 'the fix', cwd: tmpdir(), budget: { usd: 2 } });
    assert.ok(opened.baton.pipelines.run(runId), 'the run is in the owner\'s database');
    const posted: ToWebview[] = [];
    const errors: string[] = [];
    const controller = new PanelController(remote, runId, {
      post: (m) => posted.push(m), openArtifact: async () => undefined, log: { warn: () => undefined, error: (m) => errors.push(m) },
      pipelines: { source: async () => pipelines, feed: new PipelineFeed() },
    }, null, 10);
    await controller.receive({ type: 'panel/ready' });
    const last = () => {
      const m = posted.at(-1);
      return m && (m.type === 'panel/init' || m.type === 'panel/update') ? m.state : undefined;
    };
    // The owner's events reach the panel over /events; no polling.
    const waiting = await until<PanelState>('the review waiting in the panel', () => last()?.awaiting.includes('ok') && last());
    const p = waiting.pipeline!;
    assert.equal(p.live, false, 'streamed output stays with the owner');
    assert.deepEqual(p.nodes.map((n) => [n.name, n.status]), [['draft', 'completed'], ['ok', 'awaiting_approval']]);
    assert.match(p.nodes[0]!.output!, /draft for the fix/);
    assert.deepEqual(p.total, { tokens: 10, costUsd: 0.5 });
    assert.equal(p.budgetUsedPercent, 25);
    await controller.receive({ type: 'panel/approve', stepName: 'ok' });
    await until('the run completed in the owner', () => opened.baton.workflowStatus(runId).status === 'completed', 5000);
    await until('the completed run in the panel', () => last()?.status === 'completed', 5000);
    const runs = await pipelines.runs();
    assert.equal(runs.find((r) => r.runId === runId)?.status, 'completed');
    // The owner refuses to resume a completed run; the panel says why.
    await controller.receive({ type: 'pipeline/resume', tokens: 100, usd: null });
    const refused = [...posted].reverse().find((m) => m.type === 'panel/error');
    assert.ok(refused && refused.type === 'panel/error' && /is completed; only a paused or interrupted run can be resumed/.test(refused.message), JSON.stringify(refused));
    assert.deepEqual(errors, []);
    controller.dispose();
  });

  it('a workflow execution is not a pipeline: its panel has no pipeline part; an unknown run is refused by the owner', async () => {
    await assert.rejects(pipelines.view('nope'), (ex: unknown) => BatonError.is(ex, 'execution_not_found') && /No pipeline run "nope"/.test((ex as Error).message));
    const exec = await remote.startWorkflow('bug-fix', 'a bug');
    const posted: ToWebview[] = [];
    const controller = new PanelController(remote, exec.execution_id, {
      post: (m) => posted.push(m), openArtifact: async () => undefined, log: { warn: () => undefined, error: () => undefined },
      pipelines: { source: async () => pipelines, feed: new PipelineFeed() },
    }, null, 10);
    await controller.receive({ type: 'panel/ready' });
    // The start's events may still be arriving: the newest read wins (an update may supersede the init).
    const state = await until('the panel\'s state', () => {
      const m = posted.at(-1);
      return m && (m.type === 'panel/init' || m.type === 'panel/update') && m.state;
    }, 5000);
    assert.equal(state.executionId, exec.execution_id);
    assert.equal(state.pipeline, null);
    controller.dispose();
  });
});
