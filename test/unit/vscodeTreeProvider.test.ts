// Rule: the tree's provider shows a pipeline step its run stopped under it (when it paused or stopped) as stopped,
// with why, read from the run's view through the connection (in a follower window, from the owner): one read per
// listing of the run's steps, none for a workflow run's; a view that cannot be read leaves the steps as recorded.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecutionSummary, WorkflowStatusResource } from '../../src/core/api.js';
import { BatonError } from '../../src/core/errors.js';
import type { PipelineRunView } from '../../src/core/pipelines/pipelineRuns.js';
import type { StepStatus } from '../../src/core/types.js';
import { BatonConnection } from '../../src/vscode/ownership.js';
import type { PipelineSource } from '../../src/vscode/pipelines/pipelineSource.js';
import type { TreeNode } from '../../src/vscode/views/treeModel.js';
import { SharedRunListing } from '../../src/vscode/sharedRunListing.js';
import { WorkflowsTreeProvider } from '../../src/vscode/views/workflowsTreeProvider.js';

const REASON = 'budget_exceeded: 2468 tokens used, budget 2000';

function run(id: string, kind: ExecutionSummary['kind'], workflow: string): ExecutionSummary {
  return {
    execution_id: id, task_id: null, workflow, kind, status: 'paused', progress: 0, current_step: 'plan',
    started_at: '2026-11-22T07:00:00.000Z', updated_at: '2026-11-22T07:05:00.000Z', steps: [],
  };
}

function status(id: string, workflow: string): WorkflowStatusResource {
  const row = (step_name: string, s: StepStatus) => ({
    step_name, status: s, agent_name: 'planner', dependencies: [], started_at: null, completed_at: null, duration_ms: null,
    outcome_summary: null, feedback: null, attempt: 1, artifacts: [],
  });
  return {
    execution_id: id, task_id: null, workflow, status: 'paused', current_step: 'plan', progress: 0, started_at: '', completed_at: null,
    steps: [row('plan', 'pending'), row('later', 'pending')],
  };
}

/**
 * A connection in a follower window as far as the tree reads it: BatonConnection's own methods over a fake owner
 * (`pipelines()` answers with a source whose `view` is the call to the owner, recorded in `asked`).
 */
function followerConnection(view: (runId: string) => Promise<Partial<PipelineRunView>>) {
  const asked: string[] = [];
  const executions = [run('p1', 'pipeline', 'sys'), run('w1', 'template', 'bug-fix')];
  const source: Partial<PipelineSource> = { live: false, view: async (runId) => (asked.push(runId), (await view(runId)) as PipelineRunView) };
  const fakes = {
    state: 'ready',
    onEvent: () => ({ dispose: () => undefined }),
    onDidChange: () => ({ dispose: () => undefined }),
    listExecutions: async () => executions,
    availableWorkflows: async () => ({
      workflows: [{ name: 'bug-fix', description: '', type: 'sequential', steps_count: 2, estimated_duration_minutes: null, tags: [] }],
    }),
    templates: async () => [],
    workflowStatus: async (id: string) => status(id, id === 'p1' ? 'sys' : 'bug-fix'),
    findings: async () => [],
    pipelines: async () => source as PipelineSource,
  };
  const connection = Object.assign(Object.create(BatonConnection.prototype) as BatonConnection, fakes);
  return { connection, asked };
}

/** Expands the tree from its root along `ids` (each a node id, found among the children so far) and lists the last. */
async function expand(tree: WorkflowsTreeProvider, ...ids: string[]): Promise<TreeNode[]> {
  let children = await tree.getChildren();
  for (const id of ids) {
    const node = children.find((n) => n.id === id);
    assert.ok(node, `${id} among ${children.map((n) => n.id).join(', ')}`);
    children = await tree.getChildren(node);
  }
  return children;
}

const shown = (tree: WorkflowsTreeProvider, nodes: TreeNode[]) => nodes.map((n) => tree.getTreeItem(n).accessibilityInformation?.label);
const PIPELINE_RUN = ['group:pipelines', 'pipeline:sys', 'execution:p1'];

describe('the tree provider: a pipeline run\'s stopped steps', () => {
  it('shows a step the run stopped as stopped with why, asking the owner once per listing', async () => {
    const { connection, asked } = followerConnection(async () => ({ stopped: { plan: { reason: REASON, text: '', toolCalls: [] } } }));
    const tree = new WorkflowsTreeProvider(connection, new SharedRunListing(connection));
    const steps = await expand(tree, ...PIPELINE_RUN);
    assert.deepEqual(shown(tree, steps), ['plan, stopped (2,468 tokens used, budget 2,000 tokens)', 'later, pending']);
    assert.match(String(tree.getTreeItem(steps[0]!).tooltip), /Stopped before it ended: 2,468 tokens used, budget 2,000 tokens$/);
    assert.deepEqual(asked, ['p1'], 'one read of the run, for its steps');
    tree.refresh();
    await expand(tree, ...PIPELINE_RUN);
    assert.deepEqual(asked, ['p1', 'p1'], 'read again on the next listing, once');
    tree.dispose();
  });

  it('asks nothing of the owner for a workflow run\'s steps', async () => {
    const { connection, asked } = followerConnection(async () => ({ stopped: {} }));
    const tree = new WorkflowsTreeProvider(connection, new SharedRunListing(connection));
    const steps = await expand(tree, 'template:bug-fix', 'execution:w1');
    assert.deepEqual(shown(tree, steps), ['plan, pending', 'later, pending']);
    assert.deepEqual(asked, []);
    tree.dispose();
  });

  it('lists the steps as recorded when the owner does not answer', async () => {
    const { connection, asked } = followerConnection(async () => {
      throw new BatonError('owner_unreachable', 'Baton process 4242 owns the database but its endpoint does not answer');
    });
    const tree = new WorkflowsTreeProvider(connection, new SharedRunListing(connection));
    const steps = await expand(tree, ...PIPELINE_RUN);
    assert.deepEqual(shown(tree, steps), ['plan, pending', 'later, pending']);
    assert.deepEqual(asked, ['p1']);
    tree.dispose();
  });
});
