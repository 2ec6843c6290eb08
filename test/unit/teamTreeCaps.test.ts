// Rule: the tree's Agent Teams group stays a screenful however large the teams: a run lists at most
// TEAM_AGENTS_SHOWN agents (the working and failed ones first, in the order they joined) and a node that counts the
// others and opens the team's panel; the group lists its unfinished runs and the newest FINISHED_SHOWN finished ones,
// then a node for the older ones. The agents are capped where they are read (the database), not read and then cut,
// and the tree reads the team runs once per refresh.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecutionSummary } from '../../src/core/api.js';
import { teamHost } from '../../src/core/worker/host.js';
import type { TeamRunSummary } from '../../src/core/worker/teamRuns.js';
import { silentLog } from '../../src/core/ports.js';
import { handleControl } from '../../src/host/controlOps.js';
import { BatonConnection } from '../../src/vscode/ownership.js';
import { SharedRunListing } from '../../src/vscode/sharedRunListing.js';
import type { TeamSource } from '../../src/vscode/teams/teamSource.js';
import { TEAM_AGENTS_SHOWN, teamAgentNodes, teamRunNodes } from '../../src/vscode/views/teamTreeModel.js';
import { FINISHED_SHOWN, type TreeNode } from '../../src/vscode/views/treeModel.js';
import { WorkflowsTreeProvider } from '../../src/vscode/views/workflowsTreeProvider.js';
import { makeBaton } from '../helpers/coreHarness.js';

function summary(runId: string, status: TeamRunSummary['status'], agents = 2): TeamRunSummary {
  return {
    runId, instance: runId, workflow: 'review', status, source: null, contextDir: null, startedAt: '2026-01-01T00:00:00.000Z', messages: 0,
    agents: Array.from({ length: agents }, (_, i) => ({ agent: `a${i}`, backend: 'claude', model: '', state: 'idle', readCursor: null })),
  };
}

describe('a team of 300 in the tree', () => {
  it('reads at most TEAM_AGENTS_SHOWN agents of a run, the working and failed first, and counts them all', async () => {
    const { baton } = await makeBaton();
    const teams = teamHost(baton)!.teams;
    const runId = await teams.start({ workflow: 'big', instance: 'big', agents: Array.from({ length: 300 }, (_, i) => ({ name: `agent${i}`, backend: 'claude' })) });
    await teams.setAgentState(runId, 'agent250', 'running');
    await teams.setAgentState(runId, 'agent299', 'failed');
    const [run] = teams.list({ agentLimit: TEAM_AGENTS_SHOWN });
    assert.equal(run!.agents.length, TEAM_AGENTS_SHOWN, 'capped as read');
    assert.equal(run!.agentCount, 300);
    assert.deepEqual(run!.agents.slice(-3).map((a) => a.agent), ['agent47', 'agent250', 'agent299'], 'the working and failed kept, in join order');
    assert.equal(teams.list()[0]!.agents.length, 300, 'unlimited unless asked (baton list)');

    const nodes = teamAgentNodes(run!);
    assert.equal(nodes.length, TEAM_AGENTS_SHOWN + 1);
    const more = nodes.at(-1)!;
    assert.deepEqual([more.label, more.description, more.collapsible], ['250 more agents...', 'open the team to see them all', 'none']);
    assert.deepEqual([more.command?.id, more.ref], ['baton.showExecution', { kind: 'execution', execution_id: runId, workflow: 'big', status: 'running' }]);
  });

  it('caps the agents of an older owner that sent them all (no agentCount)', () => {
    const nodes = teamAgentNodes(summary('r1', 'running', 300));
    assert.equal(nodes.length, TEAM_AGENTS_SHOWN + 1);
    assert.equal(nodes.at(-1)!.label, '250 more agents...');
    assert.equal(teamAgentNodes(summary('r2', 'running', 3)).length, 3, 'a small team lists all, with no extra node');
  });

  it('lists every unfinished team run and the newest finished ones, then a node for the older', () => {
    const runs = [
      ...Array.from({ length: 3 }, (_, i) => summary(`live${i}`, 'running')),
      ...Array.from({ length: FINISHED_SHOWN + 10 }, (_, i) => summary(`done${i}`, 'completed')),
    ];
    const nodes = teamRunNodes(runs);
    assert.equal(nodes.length, 3 + FINISHED_SHOWN + 1);
    assert.deepEqual(nodes.slice(0, 4).map((n) => n.id), ['team:live0', 'team:live1', 'team:live2', 'team:done0:done']);
    assert.deepEqual([nodes.at(-1)!.label, nodes.at(-1)!.command?.id], ['10 older finished team runs...', 'baton.showExecution']);
    assert.equal(teamRunNodes(runs, true).at(-1)!.label, '10+ older finished team runs...', 'more exist than were read');
    assert.equal(teamRunNodes(runs.slice(0, 5)).length, 5, 'no extra node when all are listed');
  });

  it('the tree reads the team runs once per refresh, asking for the capped agents', async () => {
    const asked: unknown[] = [];
    const worker = {
      execution_id: 'big', task_id: null, workflow: 'review', kind: 'worker', status: 'running', progress: 0, current_step: null,
      started_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', steps: [],
    } satisfies ExecutionSummary;
    const teams: Partial<TeamSource> = { runs: async (opts) => (asked.push(opts), [summary('big', 'running', 300)]) };
    const connection = Object.assign(Object.create(BatonConnection.prototype) as BatonConnection, {
      state: 'ready',
      onEvent: () => ({ dispose: () => undefined }),
      onDidChange: () => ({ dispose: () => undefined }),
      listExecutions: async () => [worker],
      availableWorkflows: async () => ({ workflows: [] }),
      templates: async () => [],
      teams: async () => teams as TeamSource,
    });
    const tree = new WorkflowsTreeProvider(connection, new SharedRunListing(connection));
    const roots = await tree.getChildren();
    const group = roots.find((n) => n.id === 'group:teams')!;
    const [run] = await tree.getChildren(group);
    const agents = await tree.getChildren(run as TreeNode);
    assert.equal(agents.length, TEAM_AGENTS_SHOWN + 1);
    assert.deepEqual(asked, [{ agentLimit: TEAM_AGENTS_SHOWN }], 'one reading for the group, its runs and their agents');
    tree.dispose();
  });

  it('a follower editor asks the owner for capped agents; the owner refuses a limit that is not a whole number >= 1', async () => {
    const { baton } = await makeBaton();
    await teamHost(baton)!.teams.start({ workflow: 'big', instance: 'big', agents: Array.from({ length: 300 }, (_, i) => ({ name: `agent${i}`, backend: 'claude' })) });
    const ok = await handleControl(baton, JSON.stringify({ op: 'team_runs', agent_limit: 5 }), silentLog);
    const [run] = (ok.body as { result: TeamRunSummary[] }).result;
    assert.deepEqual([run!.agents.length, run!.agentCount], [5, 300]);
    const bad = await handleControl(baton, JSON.stringify({ op: 'team_runs', agent_limit: 0 }), silentLog);
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /agent_limit must be a whole number of at least 1 \(or left out for every agent\)/);
  });
});
