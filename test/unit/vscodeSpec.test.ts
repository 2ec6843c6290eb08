// Rule: the editor shows a spec workflow as phases → tasks with their state (done / current / locked / ticked in
// source), its status bar names the phase ("Phase 2/5: …"), the panel gets the current phase's tasks, its gate with
// the evidence handed in and the drift of tasks.md, and the CodeLens sits on tasks.md files only, starting a workflow
// or showing the one running on the file.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecutionSummary } from '../../src/core/api.js';
import type { SpecPhaseView, SpecStatus, SpecSummary, SpecTaskView } from '../../src/core/specTypes.js';
import type { BatonSource } from '../../src/vscode/batonSource.js';
import { loadPanelState } from '../../src/vscode/panels/panelController.js';
import { buildPanelSpec, PANEL_WARNINGS_LIMIT } from '../../src/vscode/panels/panelSpec.js';
import { isTasksFile, specLenses, workspaceRelative } from '../../src/vscode/specSources.js';
import { statusBarView } from '../../src/vscode/statusBarText.js';
import { phaseNodes, phaseTitle, specTaskNodes } from '../../src/vscode/views/specTreeModel.js';

const task = (number: number, id: string, name: string, state: SpecTaskView['state'], done_in_source = false): SpecTaskView => ({ number, id, name, state, done_in_source, line: 3 + number });

function phase(n: number, name: string, status: SpecPhaseView['status'], over: Partial<SpecPhaseView> = {}): SpecPhaseView {
  return { phase: n, name, source_label: null, step_name: `phase-${n}`, status, human_signoff: false, line: n ? 2 + n : null, tasks: [], gate: [], last_refusal: null, ...over };
}

function spec(over: Partial<SpecStatus> = {}): SpecStatus {
  return {
    execution_id: 'e1', task_id: 't1', workflow: 'spec_execution_v1', status: 'running', progress: 40, source: 'specs/cart/tasks.md',
    parser: 'checkbox_tasks_parser', title: 'Tasks', current_phase: 2, total_phases: 6,
    phases: [
      phase(0, 'Read the spec', 'completed', { gate: [{ text: 'Spec read', evidence: 'read spec.md' }] }),
      phase(1, 'Fix the total', 'completed', { tasks: [task(1, '1.1', 'Multiply', 'completed'), task(2, '1.2', 'Test', 'completed')] }),
      phase(2, 'Document', 'running', {
        tasks: [task(1, '2.1', 'Note it', 'active'), task(2, '2.2', 'Old note', 'active', true)],
        gate: [{ text: 'Docs updated', evidence: null }, { text: 'Reviewed', evidence: null }],
        last_refusal: { at: '2026-11-23T00:00:00Z', missing: ['Reviewed'] },
      }),
      phase(3, 'Ship', 'pending', { tasks: [task(1, '3.1', 'Release', 'pending')], human_signoff: true }),
      phase(4, 'Watch', 'pending'),
      phase(5, 'Close', 'pending'),
    ],
    drift: { state: 'in_sync', source: 'specs/cart/tasks.md' },
    write_backs: [],
    ...over,
  };
}

function exec(over: Partial<ExecutionSummary>): ExecutionSummary {
  return {
    execution_id: 'e1', task_id: 't1', workflow: 'spec_execution_v1', kind: 'spec', status: 'running', progress: 40, current_step: 'phase-2',
    started_at: '2026-11-23T00:00:00Z', updated_at: '2026-11-23T00:00:00Z', steps: [{ step_name: 'phase-2', status: 'running', agent_name: 'implementer' }], ...over,
  };
}

describe('spec workflows in the tree', () => {
  it('lists the phases as steps, titled "Phase n/N: name", locked until reached, the current one open', () => {
    const nodes = phaseNodes(spec());
    assert.deepEqual(nodes.map((n) => n.label), ['Phase 0/5: Read the spec', 'Phase 1/5: Fix the total', 'Phase 2/5: Document', 'Phase 3/5: Ship', 'Phase 4/5: Watch', 'Phase 5/5: Close']);
    assert.equal(nodes[2]!.description, 'current · running · 0/2 tasks');
    assert.equal(nodes[1]!.description, 'completed · 2/2 tasks');
    assert.equal(nodes[3]!.description, 'locked · 0/1 tasks · sign-off');
    assert.deepEqual(nodes.map((n) => n.collapsible), ['none', 'collapsed', 'expanded', 'collapsed', 'none', 'none']);
    assert.equal(nodes[3]!.icon.id, 'lock');
    // Step menus (Approve / Reject on a waiting phase) apply: the context value and ref are those of a step.
    assert.equal(nodes[2]!.contextValue, 'step:running');
    assert.deepEqual(nodes[2]!.ref, { kind: 'step', execution_id: 'e1', step_name: 'phase-2', status: 'running', phase: 2 });
    assert.match(nodes[2]!.tooltip!, /Last submission lacked evidence for: Reviewed/);
  });

  it('shows each task as done, current or locked, and says when tasks.md had it ticked already', () => {
    const s = spec();
    assert.deepEqual(specTaskNodes(s, 1).map((n) => [n.label, n.description, n.icon.id]), [['1.1 Multiply', 'done', 'pass'], ['1.2 Test', 'done', 'pass']]);
    assert.deepEqual(specTaskNodes(s, 2).map((n) => [n.label, n.description]), [['2.1 Note it', 'current'], ['2.2 Old note', 'current · ticked in source']]);
    assert.deepEqual(specTaskNodes(s, 3).map((n) => [n.description, n.icon.id, n.contextValue]), [['locked', 'lock', 'specTask']]);
    assert.deepEqual(specTaskNodes(s, 9), []);
    assert.equal(specTaskNodes(s, 2)[0]!.id, 'specTask:e1:2:1');
  });
});

describe('spec workflows in the status bar', () => {
  it('names the current phase with its number out of the phases of tasks.md', () => {
    const v = statusBarView([exec({})], spec())!;
    assert.equal(v.text, '$(sync~spin) Baton: Phase 2/5: Document · 40%');
    assert.match(v.tooltip, /specs\/cart\/tasks\.md/);
  });

  it('rings the bell for a phase waiting for its sign-off', () => {
    const s = spec();
    s.phases[2]!.status = 'awaiting_approval';
    const v = statusBarView([exec({ status: 'awaiting_approval', steps: [{ step_name: 'phase-2', status: 'awaiting_approval', agent_name: 'implementer' }] })], s)!;
    assert.equal(v.text, '$(bell) Baton: Phase 2/5: Document awaiting approval · 40%');
  });

  it('names the step as for any workflow when the spec status is of another execution or unknown', () => {
    assert.equal(statusBarView([exec({})])!.text, '$(sync~spin) Baton: phase-2 · 40%');
    assert.equal(statusBarView([exec({})], spec({ execution_id: 'other' }))!.text, '$(sync~spin) Baton: phase-2 · 40%');
  });
});

describe('spec workflows in the panel', () => {
  it('carries the phases with tasks, gate, evidence, what the last submission lacked, and the titles', () => {
    const p = buildPanelSpec(spec());
    assert.equal(p.currentPhase, 2);
    assert.equal(p.phaseCount, 5);
    assert.equal(p.phases[2]!.title, 'Phase 2/5: Document');
    assert.deepEqual(p.phases[2]!.tasks.map((t) => [t.id, t.state, t.doneInSource]), [['2.1', 'current', false], ['2.2', 'current', true]]);
    assert.deepEqual(p.phases[0]!.gate, [{ text: 'Spec read', evidence: 'read spec.md' }]);
    assert.deepEqual(p.phases[2]!.missing, ['Reviewed']);
    assert.equal(p.phases[3]!.signoff, true);
    assert.deepEqual(p.drift, { state: 'in_sync', line: null, snapshot: null, current: null });
    assert.equal(p.writeBackProblem, null);
    assert.deepEqual([p.warnings, p.warningCount], [[], 0]);
  });

  it('carries the parse\'s warnings, the first PANEL_WARNINGS_LIMIT of them clipped, and how many there are', () => {
    const warnings = Array.from({ length: PANEL_WARNINGS_LIMIT + 3 }, (_, i) => ({ line: 10 + i, message: `task id T${i} is written on two lines ${'x'.repeat(400)}` }));
    const p = buildPanelSpec(spec({ warnings }));
    assert.equal(p.warningCount, PANEL_WARNINGS_LIMIT + 3);
    assert.equal(p.warnings.length, PANEL_WARNINGS_LIMIT);
    assert.equal(p.warnings[0]!.line, 10);
    assert.ok(p.warnings[0]!.message.startsWith('task id T0 is written on two lines') && p.warnings[0]!.message.length === 300 && p.warnings[0]!.message.endsWith('…'));
  });

  it('reports drift at its first line, the boxes ticked, and a write-back that was refused', () => {
    const p = buildPanelSpec(spec({
      drift: { state: 'drifted', source: 'specs/cart/tasks.md', first_difference: { line: 7, snapshot: '- [ ] 2.1 Note it', current: '- [ ] 2.1 Note it twice' } },
      write_backs: [
        { at: 'a', phase: 1, ticked: 3, refused: [] },
        { at: 'b', phase: 2, ticked: 0, refused: [{ line: 7, reason: 'the line "- [ ] 2.1 Note it" is no longer in the file' }] },
      ],
    }));
    assert.deepEqual(p.drift, { state: 'drifted', line: 7, snapshot: '- [ ] 2.1 Note it', current: '- [ ] 2.1 Note it twice' });
    assert.equal(p.ticked, 3);
    assert.equal(p.writeBackProblem, '1 box not ticked: line 7: the line "- [ ] 2.1 Note it" is no longer in the file');
    assert.equal(buildPanelSpec(spec({ write_backs: [{ at: 'c', phase: 1, ticked: 0, refused: [], error: 'tasks.md changed since it was read' }] })).writeBackProblem, 'tasks.md changed since it was read');
  });

  it('keeps long names and evidence bounded', () => {
    const s = spec();
    s.phases[0]!.gate[0]!.evidence = 'e'.repeat(10_000);
    s.phases[2]!.tasks[0]!.name = 'n'.repeat(1000);
    const p = buildPanelSpec(s);
    assert.equal(p.phases[0]!.gate[0]!.evidence!.length, 2000);
    assert.ok(p.phases[2]!.tasks[0]!.name.length <= 300);
  });
});

describe('the CodeLens over tasks.md', () => {
  it('is for files named tasks.md anywhere (spec-kit, Kiro, spec-workflow-mcp), and nothing else', () => {
    for (const p of ['tasks.md', 'specs/001-cart/tasks.md', '.kiro/specs/cart/tasks.md', '.spec-workflow/specs/cart/tasks.md', 'C:\\w\\specs\\tasks.md']) assert.equal(isTasksFile(p), true, p);
    for (const p of ['TASKS.md', 'my-tasks.md', 'tasks.md.bak', 'tasks.json', 'specs/tasks.md/notes.md']) assert.equal(isTasksFile(p), false, p);
  });

  it('takes paths relative to the workspace folder and refuses those outside it', () => {
    assert.equal(workspaceRelative('/w', '/w/specs/cart/tasks.md'), 'specs/cart/tasks.md');
    assert.equal(workspaceRelative('/w', '/other/tasks.md'), undefined);
    assert.equal(workspaceRelative('/w', '/w'), undefined);
  });

  it('offers Start with no workflow running on the file, else shows the running one (done ones do not count)', () => {
    const s = (over: Partial<SpecSummary>): SpecSummary => ({ execution_id: 'e1', source: 'tasks.md', status: 'running', current_phase: 2, total_phases: 6, started_at: 'x', ...over });
    assert.deepEqual(specLenses([]), [{ title: '$(play) Start with Baton', command: 'baton.startSpecWorkflow' }]);
    assert.deepEqual(specLenses([s({ status: 'completed', current_phase: null })]), [{ title: '$(play) Start with Baton', command: 'baton.startSpecWorkflow' }]);
    assert.deepEqual(specLenses([s({})]), [{ title: '$(sync) Baton: Phase 2/5 · Show', command: 'baton.showExecution', executionId: 'e1' }]);
    assert.equal(specLenses([s({ status: 'awaiting_approval' })])[0]!.title, '$(bell) Baton: Phase 2/5 awaiting approval · Show');
  });

  it('titles phases by their number out of the phases of tasks.md', () => {
    assert.equal(phaseTitle({ total_phases: 3 }, { phase: 0, name: 'Read the spec', source_label: null }), 'Phase 0/2: Read the spec');
    // spec-kit's `## Phase 3.1: Setup` is the workflow's Phase 1: the file's number stays in view, to find it there.
    assert.equal(phaseTitle({ total_phases: 3 }, { phase: 1, name: 'Setup', source_label: 'Phase 3.1' }), 'Phase 1/2: Setup (Phase 3.1 in the file)');
  });
});

describe('the panel state of a spec workflow', () => {
  const status = {
    execution_id: 'e1', task_id: 't1', workflow: 'spec_execution_v1', status: 'running' as const, current_step: 'phase-2', progress: 40,
    started_at: '2026-01-01T00:00:00Z', completed_at: null, steps: [],
  };
  const source = (templates: unknown[], specStatus: () => Promise<SpecStatus>) => ({
    workflowStatus: async () => status, currentStep: async () => null, events: async () => [],
    artifacts: async () => ({ artifacts: [], total: 0, query: {} }), guardrails: async () => '', templates: async () => templates, specStatus,
  }) as unknown as BatonSource;

  it('carries the spec section for a template with dynamic phases, and none for others or when the status cannot be read', async () => {
    const dynamic = [{ name: 'spec_execution_v1', dynamic_phases: true, steps: [] }];
    assert.equal((await loadPanelState(source(dynamic, async () => spec()), 'e1', null)).spec?.phases[2]!.title, 'Phase 2/5: Document');
    assert.equal((await loadPanelState(source([{ name: 'spec_execution_v1', steps: [] }], async () => spec()), 'e1', null)).spec, undefined);
    assert.equal((await loadPanelState(source(dynamic, async () => { throw new Error('gone'); }), 'e1', null)).spec, null);
  });
});
