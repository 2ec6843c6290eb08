// Rule: the tree's Pipelines group lists the workspace's systems and every pipeline run under its system (runs of a
// system no file holds under its name), marks invalid files (a click shows the problem), and keeps pipeline runs out of
// "Other executions".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExecutionSummary } from '../../src/core/api.js';
import { pipelineNodes, pipelineRunNodes, pipelinesGroupNode, type PipelineFile } from '../../src/vscode/views/pipelineTreeModel.js';
import { executionNodes, rootNodes } from '../../src/vscode/views/treeModel.js';

function exec(id: string, workflow: string, kind: string, status: ExecutionSummary['status'] = 'running'): ExecutionSummary {
  return { execution_id: id, task_id: null, workflow, kind, status, progress: 50, current_step: 'draft', started_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', steps: [] };
}

const FILES: PipelineFile[] = [
  { name: 'review', path: '/ws/.baton/pipelines/review.yaml', relPath: '.baton/pipelines/review.yaml', problem: null },
  { name: 'broken', path: '/ws/.baton/pipelines/broken.yaml', relPath: '.baton/pipelines/broken.yaml', problem: '/ws/.baton/pipelines/broken.yaml:4: workflow[0].type: must be one of agent, …' },
  { name: 'idle', path: '/ws/.baton/pipelines/idle.yaml', relPath: '.baton/pipelines/idle.yaml', problem: null },
];

test('systems with their runs, invalid files marked, blueprint runs under their own name', () => {
  const executions = [exec('r1', 'review', 'pipeline'), exec('r2', 'review', 'pipeline', 'completed'), exec('r3', 'research-pipeline', 'pipeline'), exec('w1', 'bug-fix', 'workflow')];
  const group = pipelinesGroupNode(FILES, executions)!;
  assert.equal(group.label, 'Pipelines');
  assert.equal(group.description, '4 pipelines · 2 running');
  const nodes = pipelineNodes(FILES, executions);
  assert.deepEqual(nodes.map((n) => [n.label, n.description, n.contextValue, n.collapsible]), [
    ['broken', 'not valid', 'pipeline:other', 'none'],
    ['idle', 'not run yet · .baton/pipelines/idle.yaml', 'pipeline', 'none'],
    ['review', '1 running · 2 runs · .baton/pipelines/review.yaml', 'pipeline', 'expanded'],
    ['research-pipeline', '1 running · 1 run', 'pipeline:other', 'expanded'],
  ]);
  assert.match(nodes[0]!.tooltip!, /broken\.yaml:4: workflow\[0\]\.type/);
  assert.deepEqual(nodes.map((n) => n.command?.id), ['baton.runPipeline', undefined, undefined, undefined], 'a click on an invalid file shows its problem');
  assert.equal(nodes[0]!.icon.id, 'error');
  assert.notEqual(nodes[1]!.id, nodes[2]!.id);
  assert.equal(nodes[1]!.id, 'pipeline:idle:idle', 'a system without runs has an id of its own (its first run unfolds a new node)');
  const runs = pipelineRunNodes(executions, 'review');
  assert.deepEqual(runs.map((r) => [r.id, r.contextValue, r.command?.id]), [['execution:r1', 'execution:running:driven', 'baton.showExecution'], ['execution:r2', 'execution:completed:driven', 'baton.showExecution']]);
  assert.deepEqual(pipelineRunNodes(executions, 'bug-fix'), [], 'a workflow execution is not a pipeline run');
});

test('paused runs are counted as paused, not running', () => {
  const executions = [exec('r1', 'review', 'pipeline', 'paused'), exec('r2', 'review', 'pipeline'), exec('r3', 'review', 'pipeline', 'paused')];
  assert.equal(pipelinesGroupNode(FILES, executions)!.description, '3 pipelines · 1 running · 2 paused');
  assert.equal(pipelineNodes(FILES, executions).find((n) => n.label === 'review')!.description, '1 running · 2 paused · 3 runs · .baton/pipelines/review.yaml');
  assert.equal(pipelineNodes(FILES, [exec('r1', 'review', 'pipeline', 'paused')]).find((n) => n.label === 'review')!.description, '1 paused · 1 run · .baton/pipelines/review.yaml');
});

test('a run the process that drove it left (orphaned) reads interrupted, with the pause icon, and waits with the paused', () => {
  const left = { ...exec('r1', 'review', 'pipeline'), orphaned: true, task_description: 'fix the login bug' };
  assert.equal(pipelinesGroupNode(FILES, [left, exec('r2', 'review', 'pipeline')])!.description, '3 pipelines · 1 running · 1 paused');
  const [node] = pipelineRunNodes([left], 'review');
  assert.equal(node!.label, 'review · interrupted · 50%');
  assert.equal(node!.description, 'fix the login bug · draft', 'the run\'s input is its task');
  assert.equal(node!.icon.id, 'debug-pause');
  assert.match(node!.tooltip!, /The Baton process that drove it ended: open it and Resume/);
});

test('no group without systems or runs; pipeline runs stay out of "Other executions" and templates', () => {
  assert.equal(pipelinesGroupNode([], [exec('w1', 'bug-fix', 'workflow')]), null);
  const onlyPipelines = [exec('r1', 'review', 'pipeline'), exec('r2', 'bug-fix', 'pipeline')];
  const roots = rootNodes([{ name: 'bug-fix', description: '', steps_count: 3 } as never], onlyPipelines);
  assert.ok(!roots.some((n) => n.id === 'group:other'), JSON.stringify(roots.map((n) => n.id)));
  assert.equal(roots.find((n) => n.label === 'bug-fix')!.id, 'template:bug-fix:outline', 'a pipeline named like a template is not its run');
  assert.deepEqual(executionNodes(onlyPipelines, { kind: 'group', group: 'other' }, new Set(['bug-fix'])), []);
  assert.deepEqual(executionNodes(onlyPipelines, { kind: 'template', template: 'bug-fix' }, new Set(['bug-fix'])), []);
});
