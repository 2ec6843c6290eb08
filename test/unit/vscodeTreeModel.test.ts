// Rule: the Baton tree is built from the core's listings into nodes with stable, unique ids, the documented labels
// ("<workflow> · <status> · <progress>%"), status icons, and context values the menus match on; a workflow that has not
// run opens onto its steps, which look unlike a run's steps and get no step actions. Two runs of one workflow are told
// apart by the task typed for them; a cancelled run says "cancelled"; counts take the right plural. In a run whose
// owner died (orphaned) a step recorded running does not spin: it shows interrupted until the run is resumed; a
// pipeline step its run stopped when it paused shows stopped, with why.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ArtifactRecord, ExecutionSummary, WorkflowStatusResource } from '../../src/core/api.js';
import type { StepStatus, WorkflowTemplate } from '../../src/core/types.js';
import { buildPanelState } from '../../src/vscode/panels/panelState.js';
import { stoppedByCancel } from '../../src/core/broker/executionRepo.js';
import { makeBaton } from '../helpers/coreHarness.js';
import {
  artifactNodes, cancelQuestion, executionLabel, executionNodes, FINISHED_SHOWN, findingNodes, folderNodes, rootNodes, statusIcon, stepNodes, templateStepNodes,
  UNFINISHED_SHOWN,
} from '../../src/vscode/views/treeModel.js';

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'));

/** The commands package.json's `view/item/context` menu offers for a tree item with this context value. */
function menuCommands(contextValue: string): string[] {
  const items: Array<{ command: string; when: string }> = manifest.contributes.menus['view/item/context'];
  return items
    .filter((item) => {
      const eq = /viewItem == ([\w:]+)/.exec(item.when);
      const re = /viewItem =~ \/(.+)\//.exec(item.when);
      assert.ok(eq || re, `a when clause this test cannot read: ${item.when}`);
      return eq ? eq[1] === contextValue : new RegExp(re![1]!).test(contextValue);
    })
    .map((item) => item.command);
}

const bugFix: WorkflowTemplate = {
  name: 'bug-fix', description: 'Fix a bug', type: 'sequential', tags: [], estimated_duration_minutes: 30,
  steps: [
    { name: 'analyze-root-cause', agent: 'debugger', dependencies: [], human_gate: false },
    { name: 'implement-fix', agent: 'implementer', dependencies: ['analyze-root-cause'], human_gate: false },
    { name: 'review-code', agent: 'reviewer', dependencies: ['implement-fix'], human_gate: true },
  ].map((s) => ({ ...s, description: s.name, allowed_actions: [], required_output_format: '', path_patterns: [], tags: [] })),
};

const workflows = [
  { name: 'security-audit', description: 'Audit', type: 'sequential', steps_count: 3, estimated_duration_minutes: null, tags: [] },
  { name: 'bug-fix', description: 'Fix a bug', type: 'sequential', steps_count: 4, estimated_duration_minutes: 30, tags: [] },
];

function exec(id: string, over: Partial<ExecutionSummary> = {}): ExecutionSummary {
  return {
    execution_id: id, task_id: `t-${id}`, workflow: 'bug-fix', kind: 'template', status: 'running', progress: 50,
    current_step: 'implement-fix', started_at: '2026-11-22T07:00:00.000Z', updated_at: '2026-11-22T07:05:00.000Z',
    steps: [{ step_name: 'implement-fix', status: 'running', agent_name: 'implementer' }], ...over,
  };
}

function artifact(id: string, over: Partial<ArtifactRecord> = {}): ArtifactRecord {
  return {
    id: 1, artifact_id: id, execution_id: 'e1', step_name: 'analyze', agent_name: 'debugger', type: 'design_doc', title: 'Root cause',
    content: '# x', description: null, is_final: false, metadata: {}, created_at: '2026-11-22T07:00:00.000Z', content_size_bytes: 3, ...over,
  };
}

describe('tree model', () => {
  it('lists templates sorted by name, with a "Start a workflow…" entry while nothing has run', () => {
    const nodes = rootNodes(workflows, []);
    assert.deepEqual(nodes.map((n) => n.id), ['message:empty', 'template:bug-fix:outline', 'template:security-audit:outline']);
    assert.equal(nodes[0]!.command?.id, 'baton.startWorkflow');
    assert.equal(nodes[1]!.description, '4 steps');
    assert.equal(nodes[1]!.collapsible, 'collapsed', 'folded: it opens onto its steps');
    assert.equal(nodes[1]!.contextValue, 'template');
  });

  it('gives a template its first run under a new id, so the editor shows that run expanded rather than folded away', () => {
    const before = rootNodes(workflows, []).find((n) => n.label === 'bug-fix')!;
    const after = rootNodes(workflows, [exec('e1')]).find((n) => n.label === 'bug-fix')!;
    assert.notEqual(after.id, before.id);
    assert.equal(after.id, 'template:bug-fix');
    assert.equal(after.collapsible, 'expanded');
    assert.deepEqual(after.ref, before.ref);
    assert.equal(rootNodes(workflows, [exec('e1')]).find((n) => n.label === 'security-audit')!.id, 'template:security-audit:outline');
  });

  it('opens a template without runs onto its steps: numbered, grey, with agent and gate, no command and no step menu', () => {
    const nodes = templateStepNodes(bugFix);
    assert.deepEqual(nodes.map((n) => n.label), ['1. analyze-root-cause', '2. implement-fix', '3. review-code']);
    assert.deepEqual(nodes.map((n) => n.description), ['debugger', 'implementer', 'reviewer · approval gate']);
    assert.deepEqual(nodes.map((n) => n.id), ['templateStep:bug-fix:analyze-root-cause', 'templateStep:bug-fix:implement-fix', 'templateStep:bug-fix:review-code']);
    assert.match(nodes[1]!.tooltip!, /Step 2 of 3 of the bug-fix workflow \(not started\), for the implementer agent\nafter analyze-root-cause/);
    assert.match(nodes[2]!.tooltip!, /waits for a person to approve it/);
    const statusIcons = new Set((['pending', 'ready', 'running', 'awaiting_approval', 'completed', 'failed', 'skipped'] as StepStatus[]).map((s) => statusIcon(s).id));
    for (const n of nodes) {
      assert.equal(n.contextValue, 'templateStep');
      assert.equal(n.collapsible, 'none');
      assert.equal(n.command, undefined, `${n.label} runs nothing on click`);
      assert.ok(!statusIcons.has(n.icon.id), `${n.label}: ${n.icon.id} is a run step's status icon`);
      assert.equal(n.icon.color, 'baton.iconMuted');
      assert.deepEqual(menuCommands(n.contextValue), [], `${n.label} is offered step actions`);
      assert.deepEqual(Object.keys(n.ref).sort(), ['kind', 'step_name', 'template']);
    }
    // The menus this test reads are the real ones: a run's steps do get their actions.
    assert.ok(menuCommands('step:awaiting_approval').includes('baton.approveStep'));
    assert.ok(menuCommands('step:ready').includes('baton.advanceStep'));
    assert.ok(menuCommands('template').includes('baton.startWorkflow'));
  });

  it('expands a template with active runs and groups executions of no known template under "Other executions"', () => {
    // (Pipeline runs have a group of their own: pipelineTreeModel.test.ts.)
    const list = [exec('e1'), exec('e2', { status: 'completed', progress: 100 }), exec('e3', { workflow: null, kind: 'adhoc' })];
    const nodes = rootNodes(workflows, list);
    assert.deepEqual(nodes.map((n) => n.id), ['template:bug-fix', 'template:security-audit:outline', 'group:other']);
    assert.equal(nodes[0]!.collapsible, 'expanded');
    assert.equal(nodes[0]!.description, '1 active · 2 runs');
    const names = new Set(workflows.map((w) => w.name));
    assert.deepEqual(executionNodes(list, nodes[0]!.ref, names).map((n) => n.id), ['execution:e1', 'execution:e2']);
    assert.deepEqual(executionNodes(list, nodes[2]!.ref, names).map((n) => n.label), ['adhoc · running · 50%']);
  });

  it('lists the unfinished runs and the newest finished ones of a workflow run hundreds of times, then a node to find the rest', () => {
    const list = [
      ...Array.from({ length: 30 }, (_, i) => exec(`d${i}`, { status: 'completed', progress: 100 })),
      ...Array.from({ length: 40 }, (_, i) => exec(`r${i}`, { status: 'awaiting_approval' })),
    ];
    const nodes = executionNodes(list, { kind: 'template', template: 'bug-fix' }, new Set(['bug-fix']));
    assert.equal(nodes.filter((n) => n.ref.kind === 'execution' && n.ref.status === 'awaiting_approval').length, 40, 'every gate');
    assert.equal(nodes.filter((n) => n.ref.kind === 'execution' && n.ref.status === 'completed').length, FINISHED_SHOWN);
    assert.equal(nodes[0]!.id, 'execution:r0', 'unfinished runs first');
    assert.deepEqual(nodes.filter((n) => n.collapsible === 'expanded').map((n) => n.id), ['r0', 'r1', 'r2', 'r3', 'r4'].map((r) => `execution:${r}`),
      'only the newest unfinished runs open: the editor reads the steps of each open one on every refresh');
    const last = nodes.at(-1)!;
    assert.equal(last.label, `${30 - FINISHED_SHOWN} older finished runs…`);
    assert.equal(last.command?.id, 'baton.showExecution');
    assert.equal(last.id, 'message:older:bug-fix');
    const more = executionNodes(list.slice(0, 3), { kind: 'template', template: 'bug-fix' }, new Set(['bug-fix']), true);
    assert.equal(more.at(-1)!.label, 'Older finished runs…', 'runs older than the listing are one click away too');
    assert.equal(rootNodes(workflows, list, true)[0]!.description, '40 active · 70+ runs', 'a count the listing stopped short of says so');
    assert.equal(executionNodes(list.slice(0, 3), { kind: 'template', template: 'bug-fix' }, new Set(['bug-fix'])).length, 3, 'no node when all are shown');
  });

  it('lists the newest UNFINISHED_SHOWN unfinished runs of thousands waiting at their gates, then one node counting the rest', () => {
    const list = [
      ...Array.from({ length: 2500 }, (_, i) => exec(`r${i}`, { status: 'awaiting_approval' })),
      ...Array.from({ length: 3 }, (_, i) => exec(`d${i}`, { status: 'completed', progress: 100 })),
    ];
    const nodes = executionNodes(list, { kind: 'template', template: 'bug-fix' }, new Set(['bug-fix']));
    assert.deepEqual(nodes.slice(0, UNFINISHED_SHOWN).map((n) => n.id), list.slice(0, UNFINISHED_SHOWN).map((e) => `execution:${e.execution_id}`));
    const more = nodes[UNFINISHED_SHOWN]!;
    assert.deepEqual([more.id, more.label, more.description, more.command?.id, more.collapsible], [
      'message:more-unfinished:bug-fix', `${2500 - UNFINISHED_SHOWN} more unfinished runs…`, 'find one with Show Execution',
      'baton.showExecution', 'none',
    ]);
    assert.deepEqual(nodes.slice(UNFINISHED_SHOWN + 1).map((n) => n.id), ['execution:d0', 'execution:d1', 'execution:d2'], 'then the finished ones');
    assert.equal(nodes.filter((n) => n.collapsible === 'expanded').length, 5);
    const one = executionNodes(list.slice(0, UNFINISHED_SHOWN + 1), { kind: 'pipeline', name: 'p', path: null }, new Set(['bug-fix']));
    assert.equal(one.length, 0, 'a pipeline group lists pipeline runs only');
    const justOver = executionNodes(list.slice(0, UNFINISHED_SHOWN + 1), { kind: 'template', template: 'bug-fix' }, new Set(['bug-fix']));
    assert.equal(justOver.at(-1)!.label, '1 more unfinished run…');
    assert.equal(rootNodes(workflows, list)[0]!.description, '2500 active · 2503 runs', 'the workflow counts them all');
  });

  it('labels an execution "<workflow> · <status> · <progress>%" with its status icon and context value', () => {
    const [running, gated, done] = executionNodes(
      [exec('e1'), exec('e2', { status: 'awaiting_approval', progress: 66.6 }), exec('e3', { status: 'completed', progress: 100 })],
      { kind: 'template', template: 'bug-fix' }, new Set(['bug-fix']),
    );
    assert.equal(running!.label, 'bug-fix · running · 50%');
    assert.equal(running!.description, 'implement-fix');
    assert.deepEqual(running!.icon, { id: 'sync~spin', color: 'charts.blue' });
    assert.equal(running!.contextValue, 'execution:running');
    assert.equal(running!.collapsible, 'expanded');
    assert.equal(running!.command?.id, 'baton.showExecution');
    assert.equal(gated!.label, 'bug-fix · awaiting approval · 67%');
    assert.equal(gated!.icon.id, 'bell');
    assert.equal(done!.collapsible, 'collapsed');
    assert.equal(done!.icon.id, 'pass');
  });

  it('maps every status to its codicon', () => {
    const expected = {
      running: 'sync~spin', awaiting_approval: 'bell', completed: 'pass', failed: 'error', pending: 'circle-outline',
      ready: 'circle-large-outline', skipped: 'debug-step-over', paused: 'debug-pause', timeout: 'watch', escalated: 'warning',
    } as const;
    for (const [status, icon] of Object.entries(expected)) assert.equal(statusIcon(status as keyof typeof expected).id, icon, status);
    assert.equal(statusIcon('completed').color, 'baton.iconPassed');
    assert.equal(statusIcon('failed').color, 'testing.iconFailed');
  });

  it('builds steps in order with status descriptions, and artifacts under them', () => {
    const status: WorkflowStatusResource = {
      execution_id: 'e1', task_id: 't', workflow: 'bug-fix', status: 'awaiting_approval', current_step: 'review', progress: 50,
      started_at: '2026-11-22T07:00:00.000Z', completed_at: null,
      steps: [
        { step_name: 'analyze', status: 'completed', agent_name: 'debugger', dependencies: [], started_at: null, completed_at: null, duration_ms: 5, outcome_summary: 'found it', feedback: null, attempt: 1, artifacts: [artifact('a1')] },
        { step_name: 'review', status: 'awaiting_approval', agent_name: 'reviewer', dependencies: ['analyze'], started_at: null, completed_at: null, duration_ms: null, outcome_summary: null, feedback: 'tighten', attempt: 2, artifacts: [] },
      ],
    };
    const [analyze, review] = stepNodes(status);
    assert.equal(analyze!.id, 'step:e1:analyze');
    assert.equal(analyze!.description, 'completed');
    assert.equal(analyze!.collapsible, 'collapsed');
    assert.equal(review!.description, 'awaiting approval · attempt 2');
    assert.equal(review!.contextValue, 'step:awaiting_approval');
    assert.match(review!.tooltip!, /after analyze/);
    assert.match(review!.tooltip!, /Feedback: tighten/);
    assert.equal(review!.collapsible, 'none');
    const [a] = artifactNodes('e1', status.steps[0]!.artifacts);
    assert.equal(a!.id, 'artifact:a1');
    assert.equal(a!.label, 'Root cause');
    assert.equal(a!.contextValue, 'artifact');
    assert.equal(a!.command?.id, 'baton.openArtifact');
    assert.deepEqual(a!.ref, { kind: 'artifact', execution_id: 'e1', artifact_id: 'a1', title: 'Root cause', type: 'design_doc' });
    assert.equal(artifactNodes('e1', [artifact('a2', { title: null, type: 'yaml', is_final: true })])[0]!.label, 'yaml');
  });

  it('a step recorded running in an orphaned run shows interrupted (paused, no spinner), and running once resumed', () => {
    const status: WorkflowStatusResource = {
      execution_id: 'p1', task_id: null, workflow: 'sys', status: 'running', current_step: 'draft', progress: 0, started_at: '', completed_at: null,
      steps: [
        { step_name: 'draft', status: 'running', agent_name: 'writer', dependencies: [], started_at: null, completed_at: null, duration_ms: null, outcome_summary: null, feedback: null, attempt: 2, artifacts: [] },
        { step_name: 'plan', status: 'completed', agent_name: 'writer', dependencies: [], started_at: null, completed_at: null, duration_ms: null, outcome_summary: null, feedback: null, attempt: 1, artifacts: [] },
      ],
    };
    const [draft, plan] = stepNodes(status, [], true);
    assert.equal(draft!.description, 'interrupted · attempt 2');
    assert.equal(draft!.icon.id, 'debug-pause');
    assert.match(draft!.tooltip!, /Interrupted: the Baton process running it ended; Resume the run/);
    assert.equal(plan!.icon.id, 'pass', 'a finished step keeps its state');
    const [resumed] = stepNodes(status, [], false);
    assert.equal(resumed!.description, 'running · attempt 2');
    assert.equal(resumed!.icon.id, 'sync~spin');
  });

  it('a pipeline run and its steps, which Baton drives, offer no agent\'s step actions; a review is decided, the run cancelled', () => {
    const row = (step_name: string, status: StepStatus) => ({
      step_name, status, agent_name: 'planner', dependencies: [], started_at: null, completed_at: null, duration_ms: null, outcome_summary: null,
      feedback: null, attempt: 1, artifacts: [],
    });
    const status: WorkflowStatusResource = {
      execution_id: 'p1', task_id: null, workflow: 'sys', status: 'running', current_step: 'draft', progress: 0, started_at: '', completed_at: null,
      steps: [row('draft', 'running'), row('review', 'awaiting_approval'), row('next', 'ready')],
    };
    const [draft, review, next] = stepNodes(status, [], false, {}, true);
    assert.deepEqual(menuCommands(draft!.contextValue), [], 'no Advance, Copy Agent Prompt or Release on a step its run\'s agent holds');
    assert.deepEqual(menuCommands(next!.contextValue), []);
    assert.deepEqual(menuCommands(review!.contextValue).sort(), ['baton.approveStep', 'baton.approveStep', 'baton.rejectStep', 'baton.rejectStep']);
    // The same steps of a workflow run keep their actions.
    const [own] = stepNodes(status);
    assert.deepEqual(menuCommands(own!.contextValue).sort(), ['baton.advanceStep', 'baton.copyHandoffPrompt', 'baton.releaseStep']);
    const [pipelineRun] = executionNodes([exec('p1', { kind: 'pipeline', workflow: 'sys' })], { kind: 'pipeline', name: 'sys', path: null }, new Set());
    assert.deepEqual(menuCommands(pipelineRun!.contextValue).sort(), ['baton.cancelExecution', 'baton.showExecution', 'baton.showExecution']);
  });

  it('a pipeline step its run stopped when it paused shows stopped with why, not as a step never reached', () => {
    const row = (step_name: string, status: StepStatus) => ({
      step_name, status, agent_name: 'planner', dependencies: [], started_at: null, completed_at: null, duration_ms: null, outcome_summary: 'aborted',
      feedback: null, attempt: 1, artifacts: [],
    });
    const status: WorkflowStatusResource = {
      execution_id: 'p1', task_id: null, workflow: 'sys', status: 'paused', current_step: 'plan', progress: 0, started_at: '', completed_at: null,
      steps: [row('plan', 'pending'), row('later', 'pending')],
    };
    const [plan, later] = stepNodes(status, [], false, { plan: { reason: 'budget_exceeded: 2468 tokens used, budget 2000' } });
    assert.equal(plan!.description, 'stopped (2,468 tokens used, budget 2,000 tokens)');
    assert.equal(plan!.icon.id, 'debug-pause');
    assert.match(plan!.tooltip!, /Stopped before it ended: 2,468 tokens used, budget 2,000 tokens$/);
    assert.equal(plan!.contextValue, 'step:pending', 'its menus are a pending step\'s');
    assert.equal(later!.description, 'pending', 'a step not reached yet');
    assert.equal(stepNodes(status)[0]!.description, 'pending', 'no view: as recorded');
  });

  it('a step a cancelled or failed run left unfinished says so and offers no step actions (Advance, Release, a gate)', () => {
    const row = (step_name: string, status: StepStatus) => ({
      step_name, status, agent_name: 'reviewer', dependencies: [], started_at: null, completed_at: null, duration_ms: null, outcome_summary: null,
      feedback: null, attempt: 1, artifacts: [],
    });
    const steps = [row('scan', 'completed'), row('design', 'ready'), row('apply', 'running'), row('review', 'awaiting_approval'), row('verify', 'pending')];
    const run = (over: Partial<WorkflowStatusResource>): WorkflowStatusResource => ({
      execution_id: 'e9', task_id: 't', workflow: 'security-audit', status: 'failed', current_step: null, progress: 20, started_at: '',
      completed_at: '2026-11-22T08:00:00.000Z', steps, ...over,
    });
    const cancelled = stepNodes(run({ cancelled: true }));
    assert.deepEqual(cancelled.map((n) => n.description), [
      'completed', 'not run (run cancelled)', 'stopped (run cancelled)', 'stopped (run cancelled)', 'not run (run cancelled)',
    ]);
    assert.deepEqual(cancelled.map((n) => n.contextValue), ['step:completed', 'step:ended', 'step:ended', 'step:ended', 'step:ended']);
    assert.equal(cancelled[1]!.icon.id, 'circle-slash', 'no ready circle, no spinner');
    assert.equal(cancelled[2]!.icon.id, 'circle-slash');
    assert.match(cancelled[1]!.tooltip!, /The run was cancelled before this step ended$/);
    assert.equal(stepNodes(run({}))[1]!.description, 'not run (run failed)');
    assert.equal(stepNodes(run({ status: 'completed' }))[4]!.description, 'not run (run completed)', 'a branch the run did not take');
    const moving = stepNodes(run({ status: 'running', completed_at: null }));
    assert.deepEqual(moving.map((n) => n.contextValue), ['step:completed', 'step:ready', 'step:running', 'step:awaiting_approval', 'step:pending']);
  });

  it('puts a step\'s findings under it with a severity icon, and makes the step expandable', () => {
    const f = {
      id: 'f1', executionId: 'e1', stepId: null, stepName: 'review', projectId: 1, isGlobal: false, severity: 'high', category: 'bug',
      title: null, description: 'off by one', tags: [], location: 'src/a.ts:3', metadata: {}, createdAt: '2026-11-22T07:00:00.000Z',
    };
    const [node] = findingNodes('e1', 'review', [f, { ...f, id: 'f2', stepName: 'other' }]);
    assert.equal(node!.id, 'finding:f1');
    assert.equal(node!.label, '[high] off by one');
    assert.equal(node!.description, 'src/a.ts:3');
    assert.equal(node!.icon.id, 'error');
    assert.equal(findingNodes('e1', 'review', [{ ...f, severity: 'medium' }])[0]!.icon.id, 'warning');
    const status: WorkflowStatusResource = {
      execution_id: 'e1', task_id: null, workflow: 'x', status: 'running', current_step: null, progress: 0, started_at: '', completed_at: null,
      steps: [{ step_name: 'review', status: 'completed', agent_name: 'r', dependencies: [], started_at: null, completed_at: null, duration_ms: null, outcome_summary: null, feedback: null, attempt: 1, artifacts: [] }],
    };
    assert.equal(stepNodes(status)[0]!.collapsible, 'none');
    assert.equal(stepNodes(status, [f])[0]!.collapsible, 'collapsed');
  });

  it('keeps ids unique across a whole tree, including "no steps" messages of different executions', () => {
    const empty = (id: string): WorkflowStatusResource => ({
      execution_id: id, task_id: null, workflow: 'x', status: 'pending', current_step: null, progress: 0, started_at: '', completed_at: null, steps: [],
    });
    const ids = [
      ...stepNodes(empty('e1')), ...stepNodes(empty('e2')), ...rootNodes(workflows, [exec('e1')]), ...templateStepNodes(bugFix),
      ...stepNodes({ ...empty('e1'), steps: [{ step_name: 'implement-fix', status: 'ready', agent_name: 'i', dependencies: [], started_at: null, completed_at: null, duration_ms: null, outcome_summary: null, feedback: null, attempt: 1, artifacts: [] }] }),
    ].map((n) => n.id);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('shows folders as groups in a multi-root workspace, the first one served', () => {
    const [a, b] = folderNodes(['app', 'lib']);
    assert.equal(a!.collapsible, 'expanded');
    assert.equal(b!.description, 'not served');
    assert.equal(executionLabel({ workflow: null, kind: 'spec', status: 'paused', progress: 0 }), 'spec · paused · 0%');
  });

  it('tells two runs of one workflow apart by their task, says "cancelled" for a cancelled run, and counts "1 step"', () => {
    const [a, b, gone] = executionNodes([
      exec('e1', { task_description: 'Fix the cart total rounding when a coupon and a gift card are both applied' }),
      exec('e2', { task_description: 'Fix the login redirect loop' }),
      exec('e3', { status: 'failed', cancelled: true, progress: 25, task_description: 'old run' }),
    ], { kind: 'template', template: 'bug-fix' }, new Set(['bug-fix']));
    assert.equal(a!.description, 'Fix the cart total rounding when a coupon and a g… · implement-fix');
    assert.equal(b!.description, 'Fix the login redirect loop · implement-fix');
    assert.match(a!.tooltip!, /^Fix the cart total rounding when a coupon and a gift card are both applied\n/);
    assert.equal(gone!.label, 'bug-fix · cancelled · 25%');
    assert.equal(gone!.icon.id, 'circle-slash');
    assert.equal(gone!.contextValue, 'execution:failed', 'the menus still see a finished execution');
    assert.equal(exec('x').task_description, undefined);
    assert.equal(executionNodes([exec('e4')], { kind: 'template', template: 'bug-fix' }, new Set(['bug-fix']))[0]!.description, 'implement-fix', 'an older owner sends no task');
    const one = rootNodes([{ name: 'spec_execution_v1', description: '', type: 'spec', steps_count: 1, estimated_duration_minutes: null, tags: [] }], [exec('e1')]);
    assert.equal(one.find((n) => n.label === 'spec_execution_v1')!.description, '1 step');
  });

  it('asks to cancel a run by its task, status and step, not only the workflow name', () => {
    const q = cancelQuestion(exec('e1', { status: 'awaiting_approval', current_step: 'review-code', task_description: 'Fix the login redirect loop' }));
    assert.equal(q, 'Cancel bug-fix “Fix the login redirect loop”? It is awaiting approval at review-code, started 2026-11-22 07:00.');
  });
});

describe('a run cancelled with a step under way (the real core)', () => {
  it('says the step was stopped by the cancel, not failed, in the tree and the panel; a step its agent failed stays failed', async () => {
    const { baton } = await makeBaton();
    const r = await baton.nextStep({ template_name: 'bug-fix' });
    await baton.cancel(r.execution_id!, 'not needed', 'tester');
    // The core fails the step under way as it cancels the run (at the run's end), and marks it stopped.
    const status = baton.workflowStatus(r.execution_id!);
    assert.equal(status.steps[0]!.status, 'failed');
    assert.equal(status.steps[0]!.stopped, true);
    assert.equal(status.steps[0]!.completed_at, status.completed_at);
    const [stopped, later] = stepNodes(status);
    assert.equal(stopped!.description, 'stopped (run cancelled)');
    assert.equal(stopped!.contextValue, 'step:ended');
    assert.equal(later!.description, 'not run (run cancelled)');
    // The panel tells it the same way (webviewPanel.test.ts): its step carries the mark.
    const panel = buildPanelState(status, null, [], [], '');
    assert.equal(panel.steps[0]!.stopped, true);
    assert.equal(panel.steps[1]!.stopped, undefined);
    // A step that failed before the run was cancelled ended earlier than the run: not the cancel's, it failed.
    const earlier = { ...status.steps[0]!, completed_at: '2000-01-01T00:00:00.000Z' };
    assert.equal(stoppedByCancel(earlier, status.completed_at), false);
    assert.equal(stoppedByCancel(status.steps[0]!, status.completed_at), true);
    assert.equal(stoppedByCancel(status.steps[0]!, null), false, 'a run not cancelled');
    const { stopped: _, ...unmarked } = status.steps[0]!;
    assert.equal(stepNodes({ ...status, steps: [unmarked, ...status.steps.slice(1)] })[0]!.description, 'failed');
  });
});
