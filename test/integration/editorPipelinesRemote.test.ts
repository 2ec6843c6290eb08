// Rule: an editor that is a client of a terminal owner starts a pipeline run through the owner's /control
// (`pipeline_start`, as `baton pipeline run` does) — the owner drives it — and its panel shows the run's graph, spend
// and gate from the owner (`pipeline_run`), approves the review there, and reports the owner's refusals. A step the
// budget stopped shows there what its attempt streamed in the owner, marked stopped, as the owner's own window does.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { silentLog } from '../../src/core/ports.js';
import { RunEventQueue } from '../../src/core/pipelines/runEvents.js';
import { ZERO_USAGE, type AgentRun, type AgentRunRequest, type AgentRunner } from '../../src/core/pipelines/runner.js';
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
    pipelines = new RemotePipelines(remote);
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
    assert.equal(p.drivenElsewhere, true, 'the owner drives the run while it waits at the review');
    assert.deepEqual(p.nodes.map((n) => [n.name, n.status]), [['draft', 'completed'], ['ok', 'awaiting_approval']]);
    assert.match(p.nodes[0]!.output!, /draft for the fix/);
    assert.deepEqual(p.total, { tokens: 10, costUsd: 0.5 });
    assert.equal(p.budgetUsedPercent, 25);
    await controller.receive({ type: 'panel/approve', stepName: 'ok' });
    await until('the run completed in the owner', () => opened.baton.workflowStatus(runId).status === 'completed', 20_000);
    await until('the completed run in the panel', () => last()?.status === 'completed', 20_000);
    const runs = await pipelines.runs();
    assert.equal(runs.find((r) => r.runId === runId)?.status, 'completed');
    // The owner refuses to resume a completed run; the panel says why.
    await controller.receive({ type: 'pipeline/resume', tokens: 100, usd: null });
    const refused = [...posted].reverse().find((m) => m.type === 'panel/error');
    assert.ok(refused && refused.type === 'panel/error' && /is completed; only a paused or interrupted run can be resumed/.test(refused.message), JSON.stringify(refused));
    assert.deepEqual(errors, []);
    controller.dispose();
  });

  it('a step the budget stopped shows what it streamed in the owner, marked stopped, in the client\'s panel', async () => {
    // An agent that writes, then reports more tokens than the budget allows, and waits until it is stopped.
    const streaming: AgentRunner = {
      kind: 'command',
      run(req: AgentRunRequest): AgentRun {
        const q = new RunEventQueue();
        q.push({ type: 'text', text: 'writer: read the cart code' });
        q.push({ type: 'text', text: 'writer: the total ' });
        q.push({ type: 'text', text: 'rounds twice', delta: true });
        q.push({ type: 'tool_call', id: '1', name: 'Read', server: null, input: {} });
        q.push({ type: 'usage', usage: { ...ZERO_USAGE, input: 2000, output: 468 } });
        req.signal?.addEventListener('abort', () => q.finish({
          status: 'aborted', text: '', usage: { ...ZERO_USAGE, input: 2000, output: 468 }, costUsd: null, costSource: null, toolCalls: 0,
          malformedLines: 0, error: 'aborted', exitCode: null, sessionId: null, durationMs: 1, stderr: '',
        }), { once: true });
        return q;
      },
    };
    opened.baton.pipelines.setRunners(() => streaming);
    try {
      const runId = await pipelines.start(SYSTEM, { input: 'the fix', cwd: tmpdir(), budget: { tokens: 2000 } });
      await until('the run paused at its budget in the owner', () => opened.baton.workflowStatus(runId).status === 'paused', 20_000);
      const posted: ToWebview[] = [];
      const controller = new PanelController(remote, runId, {
        post: (m) => posted.push(m), openArtifact: async () => undefined, log: { warn: () => undefined, error: () => undefined },
        pipelines: { source: async () => pipelines, feed: new PipelineFeed() },
      }, null, 10);
      await controller.receive({ type: 'panel/ready' });
      const state = await until<PanelState>('the pause in the panel', () => {
        const m = posted.at(-1);
        return m && (m.type === 'panel/init' || m.type === 'panel/update') && m.state.pipeline?.pausedForBudget ? m.state : undefined;
      }, 20_000);
      const draft = state.pipeline!.nodes[0]!;
      assert.deepEqual([draft.status, draft.output, draft.stopped, draft.toolCalls],
        ['pending', 'writer: read the cart code\nwriter: the total rounds twice', '2,468 tokens used, budget 2,000 tokens', ['Read']], 'not "aborted"');
      assert.deepEqual(state.pipeline!.raise && [state.pipeline!.raise.tokens, state.pipeline!.raise.usd], [4500, null]);
      controller.dispose();
    } finally {
      opened.baton.pipelines.setRunners(() => runner);
    }
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
    }, 20_000);
    assert.equal(state.executionId, exec.execution_id);
    assert.equal(state.pipeline, null);
    controller.dispose();
  });
});
