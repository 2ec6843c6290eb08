// Rule: tasks.md files written by others (spec-kit, OpenSpec, Kiro, kiro-spec-engine, BMAD, Agent OS, prAxIs OS, plans;
// see test/fixtures/specs/others/SOURCES.md) parse into the phases and tasks a person reading them counts, with their
// ids, their ticked boxes read as done and none lost or invented; a file Baton cannot use is refused with where and
// why; ticking every box of every phase changes only those marks (BOM, CRLF, tabs and every other byte kept).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ParsedSpec } from '../../src/core/specTypes.js';
import { parseSource } from '../../src/core/specs/sourceParser.js';
import { SPEC_PARSERS } from '../../src/core/specs/specWorkflows.js';
import { applyEdits, phaseCheckboxes, planTicks } from '../../src/core/specs/writeBack.js';

const dir = join(__dirname, '..', 'fixtures', 'specs', 'others');
const read = (name: string) => readFileSync(join(dir, name), 'utf8');
const parse = (text: string, path: string): ParsedSpec => parseSource(SPEC_PARSERS, 'auto', text, path);
const shape = (p: ParsedSpec) => p.phases.map((ph) => `${ph.name} [${ph.tasks.map((t) => t.id).join(' ')}]`);
const seq = (prefix: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${String(from + i).padStart(3, '0')}`).join(' ');
const count = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1)).join(' ');

/** Each file, what a person counts in it: the phases with their task ids, how many tasks are ticked, and its title. */
const TABLE: Array<{ file: string; phases: string[]; done: number; title?: string | null; gate?: number; parser?: string; labels?: string[] }> = [
  {
    file: 'speckit-template.tasks.md', done: 0, title: 'Tasks: [FEATURE NAME]',
    phases: [
      `Setup (Shared Infrastructure) [${seq('T', 1, 3)}]`, `Foundational (Blocking Prerequisites) [${seq('T', 4, 9)}]`,
      `User Story 1 - [Title] (Priority: P1) 🎯 MVP [${seq('T', 10, 17)}]`, `User Story 2 - [Title] (Priority: P2) [${seq('T', 18, 23)}]`,
      `User Story 3 - [Title] (Priority: P3) [${seq('T', 24, 28)}]`,
      // The template's `TXXX` placeholders are no ids: the tasks are numbered by position, their text kept.
      `Polish & Cross-Cutting Concerns [${count(6)}]`,
    ],
  },
  {
    // spec-kit's first template numbers its phases 3.1 to 3.5 (Phase 3 of its plan): each keeps its label.
    file: 'speckit-template-v0.tasks.md', done: 0, title: 'Tasks: [FEATURE NAME]', gate: 6,
    phases: [
      `Setup [${seq('T', 1, 3)}]`, `Tests First (TDD) ⚠️ MUST COMPLETE BEFORE 3.3 [${seq('T', 4, 7)}]`,
      `Core Implementation (ONLY after tests are failing) [${seq('T', 8, 14)}]`, `Integration [${seq('T', 15, 18)}]`, `Polish [${seq('T', 19, 23)}]`,
    ],
    labels: ['Phase 3.1', 'Phase 3.2', 'Phase 3.3', 'Phase 3.4', 'Phase 3.5'],
  },
  {
    // Its `- Task T004: …` lines (a parallel example outside a code block) made it look like the spec's format, which
    // refused it ("Phase 3.1 has no tasks"): the checkbox list is read, the example adds no task.
    file: 'speckit-v0-parallel-unfenced.tasks.md', done: 0, title: 'Tasks: [FEATURE NAME]', gate: 6,
    phases: [
      `Setup [${seq('T', 1, 3)}]`, `Tests First (TDD) ⚠️ MUST COMPLETE BEFORE 3.3 [${seq('T', 4, 7)}]`,
      `Core Implementation (ONLY after tests are failing) [${seq('T', 8, 14)}]`, `Integration [${seq('T', 15, 18)}]`, `Polish [${seq('T', 19, 23)}]`,
    ],
  },
  {
    // A spec-kit version that repeated its story phases (same headings, ids T005–T023 again): each heading is a phase,
    // as written; tasks are handed out by position, so a repeated id confuses nothing Baton does.
    file: 'speckit-template-duplicated.tasks.md', done: 0, title: 'Tasks: [FEATURE NAME]',
    phases: [
      `Setup (Shared Infrastructure) [${seq('T', 1, 3)}]`, `Foundational (Blocking Prerequisites) [${seq('T', 4, 9)}]`,
      `User Story 1 - [Title] (Priority: P1) 🎯 MVP [${seq('T', 10, 17)}]`, `User Story 2 - [Title] (Priority: P2) [${seq('T', 18, 23)}]`,
      `User Story 3 - [Title] (Priority: P3) [${seq('T', 24, 28)}]`, `User Story 1 - [Title] (Priority: P1) 🎯 MVP [${seq('T', 5, 12)}]`,
      `User Story 2 - [Title] (Priority: P2) [${seq('T', 13, 18)}]`, `User Story 3 - [Title] (Priority: P3) [${seq('T', 19, 23)}]`,
      `Polish & Cross-Cutting Concerns [${count(6)}]`,
    ],
    labels: ['Phase 1', 'Phase 2', 'Phase 3', 'Phase 4', 'Phase 5', 'Phase 3', 'Phase 3', 'Phase 4', 'Phase N'],
  },
  { file: 'speckit-hooks-oneline.tasks.md', done: 0, title: null, phases: ['Tasks [T001]'] },
  {
    file: 'speckit-frontmatter.tasks.md', done: 20, title: 'Tasks: v1.1.0 Enhancements', gate: 10,
    phases: [`Dependencies & Research Validation [${seq('T', 1, 6)}]`, `Enhanced Hint Visibility (US1 - Priority P1) [${seq('T', 7, 20)}]`],
  },
  {
    file: 'speckit-tilde.tasks.md', done: 51, title: 'Tasks: Claude Code Memory Plugin', gate: 10,
    phases: [
      `Research & Setup [${seq('T', 1, 10)}]`, `Health, Quality & Commands (US5 - Priority P3) [${seq('T', 123, 146)}]`,
      `Plugin Packaging & Distribution [${seq('T', 147, 166)}]`,
    ],
  },
  {
    file: 'openspec-gate-heading.tasks.md', done: 27, title: 'Tasks',
    phases: [
      '1. #1182 — validate resolves changes like status (membership gate) [1.1 1.2 1.3 1.4 1.5 1.6]',
      '2. #1182b — nested multi-area delta discovery [2.1 2.2 2.3]',
      '3. #1202 — task progress through the tracked-tasks artifact glob (view + archive + list) [3.1 3.2 3.3 3.4 3.5 3.6 3.7]',
      '4. #1202 — archive incomplete-task gate (data safety) [4.1 4.2 4.3]',
      '5. #1156 — SHALL/MUST hint on main specs (header recovery + remove refine) [5.1 5.2 5.3 5.4 5.5 5.6]',
      '6. Parity guard and verification [6.1 6.2]',
    ],
  },
  ...['openspec-nested.tasks.md', 'openspec-nested-crlf-bom.tasks.md'].map((file) => ({
    file, done: 14, title: 'Implementation Tasks',
    phases: [
      '1. Core Implementation [1.1.1 1.1.2 1.1.3 1.2.1 1.2.2]', '2. Error Handling [2.1 2.2 2.3]', '3. Testing [3.1.1 3.1.2 3.1.3 3.1.4]',
      '4. Documentation [4.1 4.2]',
    ],
  })),
  {
    file: 'openspec-long.tasks.md', done: 69, title: 'Context Store And Initiatives Tasks',
    phases: [
      ['1. Lock The Direction', 7], ['2. Stabilize Workspace As Local View', 8], ['3. Add Context Store Foundation', 5],
      ['4. Add Collection Foundation', 3], ['5. Ship Initiative MVP', 4], ['6. Add Minimal Context Store UX', 8],
      ['7. Add Agent-First Initiative Discovery', 4], ['8. Connect Repo-Local Changes To Initiatives', 7], ['9. Reject Initiative Resolve', 6],
      ['Proposed Discussion: Initiative Next / Agent Handoff UX', 4], ['10. Let Workspaces Open Initiatives', 11],
      ['11. Manual Beta Reality Pass', 4], ['12. Context Store First-Run And Cleanup UX', 5], ['13. Agent Handoff Output And Delivery Polish', 3],
      ['14. Workspaces Beta Guide Split', 5], ['15. Context Store Project Roots And Schema-Led Initiatives', 14], ['16. Add Escalation UX', 3],
      ['17. Harden Team-Shared Coordination', 3], ['18. Explore Initiative-Hosted Target-Bound Change Artifacts', 8],
      ['19. Review Workspace Beta Compatibility Before Public Release', 5],
    ].map(([name, n]) => `${name} [${count(n as number)}]`),
  },
  ...['kiro-trail-effect.tasks.md', 'kiro-trail-effect-tabs.tasks.md'].map((file) => ({
    file, done: 0, title: 'Implementation Plan for Player Trail Effect',
    phases: [
      'Create the Particle System [1.1 1.2 1.3 1.4 1.5]', 'Integrate Particle System with Game Store [2.1 2.2 2.3 2.4]',
      'Performance Optimization and Testing [6.1 6.2 6.3 6.4]',
    ],
  })),
  {
    file: 'kiro-optional-trailer.tasks.md', done: 10, title: 'Implementation Plan: npm and GitHub Release Pipeline',
    phases: ['Tasks [1 2.1 2.2 3.1 3.2 3.3 3.4 4.1 4.2 4.3 4.4 5]', 'SCE Status Markers [1 2 3 4]'],
  },
  {
    file: 'kiro-in-progress.tasks.md', done: 6, title: 'Implementation Plan: User Onboarding and Documentation',
    phases: ['Tasks [1 1.1 2.1 2.2 5]', 'SCE Status Markers [1 2 3 4]'],
  },
  {
    file: 'kiro-completion-criteria.tasks.md', done: 11, title: 'Implementation Plan: Scene Contract and Kind Model', gate: 3,
    phases: ['Baseline and Scope [1 2 3]', 'Multi-Ecosystem Adaptation (ERP + Robot) [14 15 16 17 18 19 20 21]'],
  },
  {
    file: 'kiro-zh-gate-heading.tasks.md', done: 0, title: '实现任务',
    phases: ['任务 1：矩阵构建 [1.1]', '任务 2：Gate 校验 [2.1 2.2 2.3]', '任务 3：发布结论 [3.1 3.2 3.3]'],
  },
  // `### Phase 3.1 (…) - 22 tasks` under "Task Completion Checklist" is that phase's checklist, not a sixth phase:
  // with the Validation Checklist after it, the last phase's gate.
  {
    file: 'speckit-completion-checklist.tasks.md', done: 3, title: 'Tasks: Codex 0.44 兼容性检查与修复', gate: 22,
    phases: [
      '完成契约定义（22 个任务，TDD 第一步） [T001]', '基础设施与核心模块（8 个任务，部分并行） [T023]', 'MCP 方法实现（18 个任务，部分并行） [T031]',
      '集成测试与验收（6 个任务，顺序执行） [T049]', '性能与文档（4 个任务，顺序执行） [T055]',
    ],
  },
  // `#### Phase 4 Testing` in the testing strategy is about Phase 4 (done, said so, left out), not an empty phase.
  {
    file: 'roadmap-phase-testing-section.md', done: 7, title: 'Mobile Development Plan - Comprehensive Roadmap & Status',
    phases: [`Testing Infrastructure (COMPLETED) [${count(7)}]`],
  },
  // Agent OS task groups; "### Success Validation" under the Notes after them lists what must hold: the last gate.
  {
    file: 'agentos-success-validation.tasks.md', done: 8, title: 'Task Breakdown: wger MCP Server MVP', gate: 9,
    phases: ['GROUP 1: Project Foundation & Tooling [1.1 1.2 1.3 1.4 1.5 1.6 1.7]', 'GROUP 3: Tool Input Validation Schemas [3.1]'],
  },
  // One task group: its `1.0` item is the phase, its sub-items the tasks (and its Acceptance Criteria the gate, below).
  {
    file: 'agentos-one-group.tasks.md', done: 7, title: 'Task Breakdown: wger MCP Server MVP',
    phases: ['Complete project foundation setup [1.1 1.2 1.3 1.4 1.5 1.6 1.7]'],
  },
  // The spec's own format (prAxIs OS): "## Validation Gates" with `### Phase 1 Validation Gate` and an Acceptance
  // Criteria Summary with `### Phase 1: …` after the phases are those phases' gates; `### Phase 1 Testing` is not.
  {
    file: 'praxis-gates-after-phases.tasks.md', parser: 'spec_tasks_parser', done: 4, title: 'Implementation Tasks', gate: 16,
    phases: ['Core Components Implementation [1.1]', 'Integration & Testing [2.1]', 'Sub-Agent Support & Documentation [3.1]', 'Rollout & Monitoring [4.1]'],
  },
  {
    file: 'praxis-phase-testing-notes.tasks.md', parser: 'spec_tasks_parser', done: 0, title: 'Implementation Tasks',
    phases: ['Standards Creation [1.1]', 'Integration [2.1]', 'Validation [3.1]', 'Documentation and Finalization [4.1]'],
  },
  // Bold numbered tasks (`- [x] **1. Create AboutWindow.xaml**`), then "## Dependencies" and a "## Validation" list.
  { file: 'openspec-validation-list.tasks.md', done: 5, title: 'Tasks: Add About Window', phases: [`Implementation Tasks [${count(5)}]`] },
  // An Agent OS roadmap of `1. [ ] Title - text` items numbered across its phases: Phase 2's are 9–12, as shown.
  {
    file: 'agentos-roadmap-numbered.md', done: 0, title: 'Product Roadmap',
    phases: ['MVP - Core Exercise & Workout Tools [1 2 3 4 5 6 7 8]', 'Nutrition & Tracking [9 10 11 12]', 'Advanced Features & Polish [13 14 15 16]'],
  },
  // https://github.com/nprbst/speck/blob/3385699/specs/001-speck-core-project/tasks.md, hard-wrapped at 80 columns
  // (prettier's proseWrap): task titles, `**Purpose**:`, `**Goal**:` and `**Checkpoint**:` go on to the next line.
  {
    file: 'speck-wrapped-fields.tasks.md', done: 19, title: 'Tasks: Upstream Sync & Transformation Pipeline',
    phases: [`Setup (Shared Infrastructure) [${seq('T', 1, 9)}]`, `Foundational (Blocking Prerequisites) [${seq('T', 10, 17)}]`,
      `User Story 1 - Transform Spec-Kit Release to Speck (Priority: P1) 🎯 MVP [T018 T019]`],
  },
  // https://github.com/nprbst/speck/blob/3385699/specs/012-worktree-integration/tasks.md: `T005-TEST [P] [TEST] …` is
  // the test of T005, written before it: an id of its own, its markers read.
  {
    file: 'speck-test-suffix-ids.tasks.md', done: 25, title: 'Tasks: Worktree Integration',
    phases: [
      'Setup (Shared Infrastructure + TDD) [T000 T001 T002 T003 T004 T004a T004b T004c]',
      `Foundational (Blocking Prerequisites) [T005-TEST T008-TEST T010-TEST T012-TEST T016-TEST ${seq('T', 5, 16)}]`,
    ],
  },
  // A story template: each `Task N (AC: #)` is a phase over its one sub-task, which the file gives no id.
  { file: 'bmad-story.md', done: 0, title: 'Story {{epic_num}}.{{story_num}}: {{story_title}}', phases: ['(AC: #) [1]', '(AC: #) [1]'] },
];

describe('spec parsers: tasks.md files written by others', () => {
  it('the table covers every fixture but the one Baton refuses', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'SOURCES.md' && f !== 'guide-fenced-boxes-only.md');
    assert.deepEqual(TABLE.map((r) => r.file).sort(), files.sort());
  });

  for (const row of TABLE) {
    it(`${row.file}: ${row.phases.length} phase(s), ${row.phases.reduce((n, p) => n + p.slice(p.lastIndexOf(' [') + 2, -1).split(' ').length, 0)} tasks`, () => {
      const text = read(row.file);
      const p = parse(text, row.file);
      assert.equal(p.parser, row.parser ?? 'checkbox_tasks_parser');
      assert.deepEqual(shape(p), row.phases);
      const tasks = p.phases.flatMap((ph) => ph.tasks);
      assert.equal(tasks.filter((t) => t.done_in_source).length, row.done, 'ticked boxes ([x] and [X]) read as done; [ ], [-], [~] not');
      if (row.title !== undefined) assert.equal(p.title, row.title);
      if (row.labels) assert.deepEqual(p.phases.map((ph) => ph.label), row.labels, 'how the file numbers each phase');
      if (row.gate !== undefined) assert.equal(p.phases.at(-1)!.validation_gate.filter((g) => g.checkbox).length, row.gate, 'criteria after the tasks');
      for (const t of tasks) {
        // The task's line is in the file as parsed, and its box is where the file has it.
        if (t.checkbox) assert.equal(text.split(/\r\n|\n/)[t.line - 1]!.replace(/^\uFEFF/, ''), t.checkbox.line_text);
        assert.ok(t.name.trim().length > 0 && !/\r/.test(t.name), `${row.file}: task ${t.id} has a name`);
      }
    });
  }

  it('a field wrapped onto the next line keeps all of it: the phase\'s purpose and goal, its checkpoint and independent test', () => {
    const [setup, foundation, story] = parse(read('speck-wrapped-fields.tasks.md'), 'tasks.md').phases;
    assert.equal(setup!.description, 'Project initialization, directory structure, and development tooling');
    assert.equal(foundation!.description, 'Core infrastructure and common utilities that ALL user story tasks depend on');
    assert.deepEqual(foundation!.validation_gate.map((g) => g.text), ['Foundation ready - all common utilities implemented and tested - user story implementation can now begin']);
    assert.equal(story!.description, "Implement the three-command upstream sync and transformation pipeline that enables maintainers to discover, pull, and transform spec-kit releases into Speck's Claude-native implementation");
    // The numbered list under its "… then verify:" is the rest of that gate.
    assert.deepEqual(story!.validation_gate.map((g) => g.text), [
      'Run /speck.check-upstream, /speck.pull-upstream v1.0.0, /speck.transform-upstream, then verify:',
      'upstream/v1.0.0/ contains pristine upstream templates and bash scripts', 'upstream/releases.json tracks the v1.0.0 release metadata',
      '.speck/scripts/ contains Bun TS equivalents with identical CLI behavior', '/speck.* commands exist and successfully call .speck/scripts/',
      "Transformation report shows what changed and Claude's rationale",
    ]);
  });

  it('a test task written `T005-TEST [P] [TEST] …` keeps its id, its [P] and its tag, and repeats no id', () => {
    const p = parse(read('speck-test-suffix-ids.tasks.md'), 'tasks.md');
    const test = p.phases[1]!.tasks[0]!;
    assert.deepEqual([test.id, test.parallel, test.tags, test.name], ['T005-TEST', true, ['TEST'], 'Write unit tests for config.ts (loadConfig, saveConfig, migrateConfig) in tests/unit/config.test.ts']);
    assert.equal(p.phases.flatMap((ph) => ph.tasks).filter((t) => t.parallel).length, 17, 'every [P] of the file');
    assert.equal(p.warnings, undefined, 'T005-TEST and T005 are two ids');
  });

  it('"(depends on T012, T013)" at the end of a spec-kit task is its dependencies, as a Dependencies field would be', () => {
    const deps = (file: string) => Object.fromEntries(parse(read(file), file).phases.flatMap((ph) => ph.tasks).filter((t) => t.dependencies.length).map((t) => [t.id, t.dependencies.join(' ')]));
    assert.deepEqual(deps('speckit-template.tasks.md'), { T014: 'T012 T013' });
    assert.deepEqual(deps('speckit-tilde.tasks.md'), {
      T138: 'T133 T134 T135 T136', T139: 'T134', T141: 'T138', T142: 'T111', T143: 'T028 T092', T145: 'T071', T146: 'T138 T139',
    });
    // The note stays in the title, which the agent reads as the file says it; a range is each id in it.
    const range = parse('## Phase 1: Core\n- [ ] T007 Wire it up in src/app.ts (depends on T004\u2013T006; after T001)\n', 'tasks.md');
    assert.deepEqual(range.phases[0]!.tasks[0]!.dependencies, ['T004', 'T005', 'T006', 'T001']);
    assert.match(range.phases[0]!.tasks[0]!.name, /\(depends on T004\u2013T006; after T001\)$/);
  });

  it('a criteria item after the tasks keeps its text: "T001-T020: …" is a range of tasks, not an id and a name', () => {
    const gate = parse(read('speckit-completion-checklist.tasks.md'), 'tasks.md').phases.at(-1)!.validation_gate.map((g) => g.text);
    assert.deepEqual(gate.slice(0, 3), ['T001-T020: 所有待创建方法的契约完成', 'T021-T022: 已有契约的测试补充完成', '所有契约测试在实现前失败']);
    assert.equal(gate.at(-1), '依赖关系清晰明确');
  });

  it('the Acceptance Criteria of a file\'s one task group are its gate, also when its items are read as the phases', () => {
    const [phase] = parse(read('agentos-one-group.tasks.md'), 'tasks.md').phases;
    assert.equal(phase!.gate_from_source, true);
    assert.deepEqual(phase!.validation_gate.map((g) => g.text), [
      'Project structure created with all directories', 'TypeScript compiles with strict mode enabled (zero errors)',
      'ESLint and Prettier configurations working', 'Jest configured and can run (even with no tests)', 'Environment variable template created',
      'CI/CD pipeline configured (may not run until code exists)', 'All dependencies installed successfully',
    ]);
  });

  it('the spec format: a phase\'s gate written after all the phases is that phase\'s, in the order the file gives it', () => {
    const gates = parse(read('praxis-gates-after-phases.tasks.md'), 'tasks.md').phases.map((ph) => ph.validation_gate.map((g) => g.text));
    assert.deepEqual(gates.map((g) => g.length), [16, 12, 12, 16]);
    assert.deepEqual([gates[0]![0], gates[0]![10], gates[3]!.at(-1)], [
      'PortManager implemented and manually tested', 'PortManager allocates ports automatically without conflicts', 'No critical bugs reported',
    ]);
    const notes = parse(read('praxis-phase-testing-notes.tasks.md'), 'tasks.md').phases;
    assert.ok(notes.every((ph) => !ph.gate_from_source && ph.validation_gate.length === 3), 'testing notes are no gate: each phase gets the default one');
  });

  it('a "## Validation" list without boxes after the tasks is the gate; the Dependencies list before it is not', () => {
    const [phase] = parse(read('openspec-validation-list.tasks.md'), 'tasks.md').phases;
    assert.deepEqual(phase!.validation_gate, [
      'Info button visible in title bar', 'Clicking button opens About window', 'About window shows version 1.1 content only',
      'Close button dismisses window', 'Window is centered and appropriately sized',
    ].map((text) => ({ text, checkbox: null })));
  });

  it('a guide whose only boxes are in a code block is refused with where they are', () => {
    assert.throws(() => parse(read('guide-fenced-boxes-only.md'), 'docs/guide.md'),
      /line 66: found no checkbox items outside code blocks, HTML comments and front matter \(the 4 on lines 66, 67, 68, 69 are inside one/);
  });

  it('ticking every phase\'s boxes changes only their marks: BOM, line endings, tabs and the other bytes stay', () => {
    for (const row of TABLE) {
      const text = read(row.file);
      const p = parse(text, row.file);
      const plan = planTicks(text, p.phases.flatMap(phaseCheckboxes));
      assert.deepEqual(plan.refused, [], row.file);
      const after = applyEdits(text, plan.edits);
      assert.equal(after.length, text.length, row.file);
      for (let i = 0; i < text.length; i++) {
        if (after[i] === text[i]) continue;
        assert.ok(after[i] === 'x' && text[i - 1] === '[' && text[i + 1] === ']', `${row.file}: offset ${i} is no box mark`);
      }
      assert.ok(parse(after, row.file).phases.every((ph) => ph.tasks.every((t) => !t.checkbox || t.done_in_source)), `${row.file}: every task ticked`);
    }
  });
});
