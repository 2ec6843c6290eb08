// Rule: tasks.md files of both formats (the spec's and the checkbox lists of Kiro, spec-kit, spec-workflow-mcp, Task
// Master) parse into the phases and tasks they say, chosen by content; CRLF, BOM, tabs, unicode and 200+ tasks work;
// an empty phase, an empty file and an unrecognised file are source_parse_failed errors with file, line and an example.
import { applyEdits, phaseCheckboxes, planTicks } from '../../src/core/specs/writeBack.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import type { ParsedSpec } from '../../src/core/specTypes.js';
import { splitLines } from '../../src/core/specs/markdown.js';
import { chooseParser, parseSource } from '../../src/core/specs/sourceParser.js';
import { SPEC_PARSERS } from '../../src/core/specs/specWorkflows.js';

const dir = join(__dirname, '..', 'fixtures', 'specs');
const read = (name: string) => readFileSync(join(dir, name), 'utf8');
const parse = (text: string, path = 'tasks.md', parser = 'auto'): ParsedSpec => parseSource(SPEC_PARSERS, parser, text, path);
const shape = (p: ParsedSpec) => p.phases.map((ph) => `${ph.name} [${ph.tasks.map((t) => t.id).join(' ')}]`);

/** What each fixture must parse into. */
const TABLE: Array<{ file: string; parser: string; phases: string[]; check?: (p: ParsedSpec) => void }> = [
  {
    file: 'auth-service.tasks.md', parser: 'spec_tasks_parser',
    phases: ['Data model and storage [1.1 1.2 1.3]', 'Login and sessions [2.1 2.2]', 'Password reset [3.1 3.2]'],
    check: (p) => {
      const [one, two] = p.phases;
      assert.equal(one!.description, 'Store users, credentials and sessions with migrations that run forward and back.');
      assert.equal(one!.estimated_duration, '1 day');
      assert.deepEqual(one!.tasks[2]!.dependencies, ['1.1', '1.2']);
      assert.equal(one!.tasks[0]!.estimated_time, '3 hours');
      assert.deepEqual(one!.tasks[0]!.acceptance_criteria, ['Migration 001_users.sql creates users and credentials', 'Passwords are stored as argon2id hashes only', 'npm run migrate:down reverts it cleanly']);
      assert.equal(one!.tasks[2]!.description, 'Wraps every query in a typed function; no SQL outside src/repo/.');
      assert.deepEqual(one!.validation_gate.map((g) => g.text), ['All migrations run up and down on a fresh database', 'Repository unit tests pass (npm test -- repo)', 'No plaintext password anywhere in the schema']);
      assert.equal(one!.gate_from_source, true);
      assert.deepEqual(two!.validation_gate.map((g) => g.text), ['Integration tests for login pass', 'Security review signed off by the tech lead']);
      assert.equal(p.title, 'Auth Service — Implementation Tasks');
    },
  },
  {
    file: 'payments-crlf.tasks.md', parser: 'spec_tasks_parser', phases: ['Provider integration [1.1 1.2]', 'Refunds [2.1 2.2]'],
    check: (p) => {
      const t = p.phases[0]!.tasks[0]!;
      assert.equal(t.done_in_source, true, 'a ticked box is read as done');
      assert.equal(t.estimated_time, '4h');
      assert.deepEqual(p.phases[0]!.tasks[1]!.dependencies, ['1.1']);
      assert.equal(p.title, 'Payments: Tasks', 'the BOM is not part of the title');
      assert.ok(!p.phases[0]!.name.includes('\r') && !t.name.includes('\r'), 'no CR left in any text');
    },
  },
  {
    file: 'unicode-tabs.tasks.md', parser: 'spec_tasks_parser', phases: ['Zeichensätze 🌐 [1.1 1.2]'],
    check: (p) => {
      const t = p.phases[0]!.tasks[0]!;
      assert.equal(t.name, 'Schlüssel für „Anmelden“ und 日本語 anlegen');
      assert.equal(t.estimated_time, '1 Stunde', 'tab-indented fields belong to their task');
      assert.equal(t.acceptance_criteria.length, 2);
      assert.equal(p.phases[0]!.tasks[1]!.name, 'Rechts-nach-links (العربية) prüfen');
    },
  },
  {
    file: 'kiro.tasks.md', parser: 'checkbox_tasks_parser',
    phases: ['Set up project structure and core interfaces [1]', 'Implement data models and validation [2.1 2.2 2.3]', 'Create storage mechanism [3.1 3.2 3.3]'],
    check: (p) => {
      const optional = p.phases[2]!.tasks[2]!;
      assert.deepEqual(optional.tags, ['optional'], 'Kiro marks an optional task "- [ ]*"');
      assert.deepEqual(optional.requirements, ['4.3', '4.4'], '**Validates: Requirements …** names its requirements');
      assert.equal(optional.checkbox?.mark, ' ');
      assert.equal(p.phases[1]!.checkbox?.line, 8, 'a top-level item is a phase with its own box');
      assert.deepEqual(p.phases[1]!.tasks[0]!.requirements, ['2.1', '3.3', '1.2']);
      assert.equal(p.phases[1]!.tasks[0]!.done_in_source, true);
      assert.match(p.phases[1]!.validation_gate.at(-1)!.text, /Requirements 2\.1, 3\.3, 1\.2 are met/);
    },
  },
  {
    file: 'spec-kit.tasks.md', parser: 'checkbox_tasks_parser',
    phases: [
      'Setup (Shared Infrastructure) [T001 T002 T003]', 'Foundational (Blocking Prerequisites) [T004 T005]',
      'User Story 1 - Group photos into albums by date (Priority: P1) 🎯 MVP [T006 T007 T008]', 'User Story 2 - Share an album (Priority: P2) [T009 T010]',
      'Polish & Cross-Cutting Concerns [T011 T012]',
    ],
    check: (p) => {
      assert.deepEqual(p.phases.map((ph) => ph.label), ['Phase 1', 'Phase 2', 'Phase 3', 'Phase 4', 'Phase N'], "the template's Phase N keeps its name");
      assert.deepEqual(
        p.phases[2]!.validation_gate.map((g) => g.text),
        ['Import 20 photos taken on 3 days and see 3 albums', 'At this point, User Story 1 should be fully functional and testable independently'],
        "the story's Independent Test and the Checkpoint after its sub-headings are its gate",
      );
      assert.equal(p.phases[3]!.description, 'A link opens the album read-only');
      assert.deepEqual(p.phases[0]!.tasks.map((t) => t.parallel), [false, false, true], '[P] marks a parallel task');
      assert.deepEqual(p.phases[2]!.tasks[0]!.tags, ['US1']);
      assert.equal(p.phases[2]!.tasks[0]!.name, 'Contract test for album listing in tests/contract/test_albums.js');
      assert.deepEqual(p.phases[1]!.validation_gate.map((g) => g.text), ['Foundation ready - user story implementation can now begin in parallel'], 'a Checkpoint is the gate');
      assert.equal(p.phases[0]!.description, 'Project initialization and basic structure');
    },
  },
  {
    file: 'spec-workflow-mcp.tasks.md', parser: 'checkbox_tasks_parser', phases: ['Tasks Document [1 2 3]'],
    check: (p) => {
      const t = p.phases[0]!.tasks[0]!;
      assert.deepEqual(t.acceptance_criteria, ['Interfaces compile without errors and cover every channel'], "the _Prompt_'s Success is the criterion");
      assert.deepEqual(t.requirements, ['1.1']);
      assert.match(t.description, /Leverage: src\/types\/base\.ts/);
    },
  },
  {
    file: 'task-master.tasks.md', parser: 'checkbox_tasks_parser', phases: ['Task Master export — CLI rewrite [1 2 3 4]'],
    check: (p) => {
      const ts = p.phases[0]!.tasks;
      assert.deepEqual(ts.map((t) => t.dependencies), [[], ['1'], ['1', '2'], ['2']]);
      assert.deepEqual(ts[0]!.tags, ['priority:high']);
      assert.deepEqual(ts[1]!.acceptance_criteria, ['table tests for every flag']);
      assert.equal(ts[3]!.done_in_source, true);
    },
  },
  {
    file: 'plain-checklist.tasks.md', parser: 'checkbox_tasks_parser', phases: ['Release checklist [1 2 3]'],
    check: (p) => assert.equal(p.phases[0]!.validation_gate.length, 3, 'no gate in the source: the default gate applies'),
  },
];

describe('spec parsers: the fixtures', () => {
  for (const row of TABLE) {
    it(`${row.file} → ${row.parser}: ${row.phases.length} phase(s)`, () => {
      const p = parse(read(row.file), row.file);
      assert.equal(p.parser, row.parser);
      assert.deepEqual(shape(p), row.phases);
      for (const ph of p.phases) assert.ok(ph.validation_gate.length > 0, `${ph.name} has a gate`);
      row.check?.(p);
    });
  }

  it('every checkbox position points at the mark in the original text (BOM and CRLF included)', () => {
    for (const row of TABLE) {
      const text = read(row.file);
      const lines = splitLines(text);
      const p = parse(text, row.file);
      for (const t of p.phases.flatMap((ph) => ph.tasks)) {
        if (!t.checkbox) continue;
        const line = lines[t.checkbox.line - 1]!;
        assert.equal(text[line.start + t.checkbox.column], t.checkbox.mark, `${row.file}:${t.checkbox.line}`);
        assert.equal(line.text, t.checkbox.line_text);
      }
    }
  });
});

describe('spec parsers: errors', () => {
  const failure = (fn: () => unknown): BatonError => {
    try {
      fn();
    } catch (ex) {
      if (BatonError.is(ex)) return ex;
      throw ex;
    }
    assert.fail('expected source_parse_failed');
  };

  it('an empty phase is an error naming it, its line, what was expected and an example', () => {
    const ex = failure(() => parse(read('empty-phase.tasks.md'), 'specs/search/tasks.md'));
    assert.equal(ex.reason, 'source_parse_failed');
    assert.match(ex.message, /specs\/search\/tasks\.md, line 8: Phase 2 "Ranking" has no tasks/);
    assert.deepEqual({ file: ex.details.file, line: ex.details.line }, { file: 'specs/search/tasks.md', line: 8 });
    assert.match(String(ex.details.example), /Task 2\.1/);
  });

  it('an empty file and a file with no phases or boxes are refused with both formats as examples', () => {
    const empty = failure(() => parse('\uFEFF\r\n', 'a.md'));
    assert.match(empty.message, /the file is empty/);
    const prose = failure(() => parse('# Notes\n\nJust some prose about the project.\n', 'b.md'));
    assert.equal(prose.details.line, 1);
    assert.match(String(prose.details.example), /### Phase 1/);
    assert.match(String(prose.details.example), /- \[ \] 1\. Set up the project/);
  });

  it('a file whose only boxes are in a code block or a comment says where they are, not "found no checkbox items"', () => {
    // kiro-spec-engine's docs/manual-workflows-guide.md shows its task marks in a ```markdown block and has no other box.
    const guide = '# Manual Workflows Guide\n\n## Task Sync Workflow\n\n```markdown\n- [x] 1.1 Completed task\n- [-] 1.2 In progress task\n```\n\n<!--\n- [ ] 2.1 Later\n-->\n';
    const ex = failure(() => parse(guide, 'docs/guide.md'));
    assert.equal(ex.details.line, 6);
    assert.match(ex.message, /line 6: found no checkbox items outside code blocks, HTML comments and front matter \(the 3 on lines 6, 7, 11 are inside one/);
    assert.match(String(ex.details.expected), /not inside a ``` block or <!-- -->/);
    assert.match(failure(() => parse('# Notes\n\n```\n- [ ] x\n```\n', 'n.md')).message, /\(the one on line 4 is inside one/);
  });

  it('a named parser that does not exist is refused with the ones that do', () => {
    assert.throws(() => chooseParser(SPEC_PARSERS, 'jira', '', 'x.md'), /parsers: auto, spec_tasks_parser, checkbox_tasks_parser/);
  });

  it('an empty heading group between checkbox phases is an error that names it', () => {
    const ex = failure(() => parse('## Phase 1: A\n- [ ] T001 a\n- [ ] T002 b\n## Phase 2: B\n\n## Phase 3: C\n- [ ] T003 c\n', 'k.md'));
    assert.match(ex.message, /line 4: the heading "Phase 2: B" has no tasks/);
  });

  it('so is an empty phase heading first or last (it was left out without a word), with one phase of tasks or more', () => {
    assert.match(failure(() => parse('## Phase 1: Setup\n## Phase 2: Build\n- [ ] T001 a\n', 'a.md')).message, /line 1: the heading "Phase 1: Setup" has no tasks/);
    assert.match(failure(() => parse('## Phase 1: Build\n- [ ] T001 a\n- [ ] T002 b\n## Phase 2: Deploy\n', 'b.md')).message, /line 4: the heading "Phase 2: Deploy" has no tasks/);
    assert.match(failure(() => parse('## Phase 1: A\n- [ ] T001 a\n## Phase 2: B\n- [ ] T002 b\n## Phase 3: C\n', 'c.md')).message, /line 5: the heading "Phase 3: C" has no tasks/);
  });
});

describe('spec parsers: sub-headings', () => {
  it('the items of sub-headings join the phase heading they sit under, in file order', () => {
    const p = parse('# T\n## Phase 1: A\n- [ ] T001 a\n### Tests\n- [ ] T002 b\n#### Deeper\n- [ ] T003 c\n### Code\n**Checkpoint**: A works\n- [ ] T004 d\n## Phase 2: B\n### Only in a sub-heading\n- [ ] T005 e\n');
    assert.deepEqual(shape(p), ['A [T001 T002 T003 T004]', 'B [T005]']);
    assert.deepEqual(p.phases[0]!.validation_gate.map((g) => g.text), ['A works']);
    assert.deepEqual(p.phases[0]!.tasks.map((t) => t.number), [1, 2, 3, 4]);
  });

  it('phase headings under a section heading stay phases, and sub-headings under no phase heading stay groups', () => {
    const nested = parse('# T\n## Tasks\n### Phase 1: A\n- [ ] T001 a\n### Phase 2: B\n- [ ] T002 b\n## Notes\n- plain\n');
    assert.deepEqual(shape(nested), ['A [T001]', 'B [T002]']);
    const sections = parse('# T\n## Backend\n### API\n- [ ] T001 a\n### Database\n- [ ] T002 b\n## Frontend\n- [ ] T003 c\n');
    assert.deepEqual(shape(sections), ['API [T001]', 'Database [T002]', 'Frontend [T003]']);
  });
});

describe('spec parsers: tasks written as headings', () => {
  it('#### Task N.M headings under a phase are its tasks, with the fields, criteria and prose under each', () => {
    const text = [
      '# Tasks', '', '## Phase 1: Setup', '**Goal:** A project that builds', '',
      '### Task 1.1: Create the project', '- **Estimated Time**: 2h', '- **Acceptance Criteria**:', '  - Builds', '  - Lints', '',
      '### Task 1.2: Add CI', 'Runs on every push.', '**Acceptance Criteria:**', '- The badge is green', '',
      '#### Validation Gate', '- [ ] CI green', '',
      '## Phase 2: Core', '', '### Task 2.1 — Implement the parser', '- **Dependencies**: Task 1.1, Task 1.2', '',
    ].join('\n');
    const p = parse(text);
    assert.equal(p.parser, 'spec_tasks_parser');
    assert.deepEqual(shape(p), ['Setup [1.1 1.2]', 'Core [2.1]']);
    const [one, two] = p.phases[0]!.tasks;
    assert.equal(one!.estimated_time, '2h');
    assert.deepEqual(one!.acceptance_criteria, ['Builds', 'Lints']);
    assert.equal(two!.description, 'Runs on every push.');
    assert.deepEqual(two!.acceptance_criteria, ['The badge is green']);
    assert.equal(two!.checkbox, null, 'a heading has no box to tick');
    assert.deepEqual(p.phases[0]!.validation_gate.map((g) => g.text), ['CI green']);
    assert.equal(p.phases[0]!.description, 'A project that builds');
    assert.deepEqual(p.phases[1]!.tasks[0]!.dependencies, ['1.1', '1.2']);
    assert.equal(p.phases[1]!.tasks[0]!.name, 'Implement the parser');
  });

  it('"- [ ] N.1 …" items under a "### Task N: Name" heading are its sub-tasks, with their boxes; the heading only groups them', () => {
    const text = [
      '## Phase 1: Structure', '### Task 1: Create directory skeleton', '- [x] 1.1 Create all new directories',
      '### Task 2: Extract shared utilities', '- [x] 2.1 Create src/shared/ssm.js', '  - _Requirements: 3.1_', '  - [ ] exports get()',
      '- [ ] 2.2 Create src/shared/dynamo.js', '- [ ] 3.1 Not a sub-task of 2', '- [ ] works offline',
      '### Task 3: Wire retries', 'Wrap each scraper before anything else.', '- [ ] 3.1 Wrap the HTTP calls',
      '#### Validation Gate', '- [ ] 9.9 All green',
    ].join('\n');
    const p = parse(text);
    assert.equal(p.parser, 'spec_tasks_parser');
    // Task 3 has prose of its own under it, so it stays a task before its sub-task.
    assert.deepEqual(shape(p), ['Structure [1.1 2.1 2.2 3 3.1]']);
    const [a, b, c, three, d] = p.phases[0]!.tasks;
    assert.deepEqual([a!.done_in_source, b!.done_in_source, c!.done_in_source, three!.checkbox, d!.checkbox?.line], [true, true, false, null, 13]);
    assert.deepEqual(b!.requirements, ['3.1']);
    assert.equal(b!.description, 'exports get()', 'a box nested under a sub-task is about it');
    assert.equal(c!.description, '3.1 Not a sub-task of 2\nworks offline', 'an id that is not N.x, or none, is no sub-task and not dropped');
    assert.equal(three!.description, 'Wrap each scraper before anything else.');
    assert.deepEqual(p.phases[0]!.tasks.map((t) => t.number), [1, 2, 3, 4, 5]);
    assert.deepEqual(p.phases[0]!.validation_gate.map((g) => g.text), ['9.9 All green'], 'the gate after them is still the gate');
  });
});

describe('spec parsers: a plan without boxes', () => {
  it('phase headings with plain lists: each heading is a phase and its top-level items are the tasks', () => {
    const p = parse('# Plan\n\n## Phase 1: Setup\n**Goal:** A base\n1. Create the project\n   - with a README\n2. Add CI\n\n## Phase 2: Core\n- Parser\n- **Note**: not a task\n- Printer\n\n## Notes\n- not a task either\n');
    assert.equal(p.parser, 'checkbox_tasks_parser');
    assert.deepEqual(p.phases.map((ph) => `${ph.label} ${ph.name}: ${ph.tasks.map((t) => t.name).join(', ')}`), ['Phase 1 Setup: Create the project, Add CI', 'Phase 2 Core: Parser, Printer']);
    assert.equal(p.phases[0]!.description, 'A base');
    assert.equal(p.phases[0]!.tasks[0]!.checkbox, null, 'no box to tick');
    assert.equal(p.phases[0]!.tasks[0]!.description, 'with a README');
    assert.ok(p.phases.every((ph) => ph.validation_gate.length > 0), 'the default gate');
  });

  it('a phase heading with nothing under it is named, with the fix; one that says why it has no tasks is left out', () => {
    assert.throws(() => parse('# Plan\n\n### Phase 1: Setup\n- Create it\n\n### Phase 2: Core\n\n### Phase 3: Polish\n- Docs\n'), (ex: unknown) =>
      BatonError.is(ex) && ex.reason === 'source_parse_failed' && /line 6: the heading "Phase 2: Core" has no tasks\. Expected a list of its tasks/.test(ex.message));
    const p = parse('# Plan\n\n### Phase 1: Setup\n- Create it\n\n### Phase 2: Core\n*Nothing to do: Phase 1 covers it.*\n\n### Phase 3: Polish\n- Docs\n');
    assert.deepEqual(p.phases.map((ph) => ph.label), ['Phase 1', 'Phase 3']);
  });

  it('one box anywhere makes it a checkbox list again: plain items are notes there', () => {
    const p = parse('## Phase 1: A\n- [ ] T001 a\n- a note\n## Phase 2: B\n- [ ] T002 b\n');
    assert.deepEqual(shape(p), ['A [T001]', 'B [T002]']);
  });
});

describe('spec parsers: layouts found in real tasks.md files', () => {
  it('Spec Kit\'s "**Independent Test**: … verify:" with a numbered list under it: the steps join the phase\'s gate', () => {
    const p = parse([
      '# Tasks: Login', '', '## Phase 3: User Story 1 - Sign in (Priority: P1)', '', '**Goal**: users sign in', '',
      '**Independent Test**: Start the app and', 'verify:', '', '1. The login page loads', '2. A right password signs in',
      '   - with the demo user', '', '- [ ] T010 [P] [US1] Contract test for login', '- [ ] T011 [US1] Build the form', '',
      '**Checkpoint**: story 1 works', '', '## Phase 4: Polish', '', '**Independent Test**: verify:', '- [ ] T020 Docs', '',
    ].join('\n'));
    assert.equal(p.parser, 'checkbox_tasks_parser');
    assert.deepEqual(shape(p), ['User Story 1 - Sign in (Priority: P1) [T010 T011]', 'Polish [T020]']);
    assert.deepEqual(p.phases[0]!.validation_gate.map((g) => g.text), [
      'Start the app and verify:', 'The login page loads', 'A right password signs in', 'story 1 works',
    ]);
    // A box after "verify:" is a task, not a step.
    assert.deepEqual(p.phases[1]!.validation_gate.map((g) => g.text), ['verify:']);
  });

  it('"| done when: …" or "— done when: …" at the end of a task\'s line is its criterion, not part of its name', () => {
    const p = parse([
      '# Tasks', '', '## Phase 1: Setup', '- [ ] T001 [P] Contract test in tests/contract/test_login.py | done when: it fails before T003',
      '- [ ] T002 Build the form \u2014 done when: the form posts', '- [ ] T003 Wire it -- done when it answers', '- [ ] T004 Keep when done', '',
    ].join('\n'));
    assert.equal(p.parser, 'checkbox_tasks_parser');
    assert.deepEqual(p.phases[0]!.tasks.map((t) => [t.id, t.name, t.acceptance_criteria]), [
      ['T001', 'Contract test in tests/contract/test_login.py', ['it fails before T003']], ['T002', 'Build the form', ['the form posts']],
      ['T003', 'Wire it', ['it answers']], ['T004', 'Keep when done', []],
    ]);
    const spec = parse('# Plan\n## Phase 1: Setup\n- [ ] **Task 1.1**: Build it | done when: it builds\n- [ ] **Task 1.2**: Seed\n');
    assert.equal(spec.parser, 'spec_tasks_parser');
    assert.deepEqual(spec.phases[0]!.tasks.map((t) => [t.name, t.acceptance_criteria]), [['Build it', ['it builds']], ['Seed', []]]);
  });

  it('a checkbox list that a stray "Task 28" line makes look like the spec format is read as the checkbox list it is', () => {
    const p = parse('# Tasks\n\n## Phase 0: Prerequisites\n- [x] 0.1 Check the alias\n- [ ] 0.2 Ask for access\n\n## Phase 1: Build\n- [ ] 1.1 Build it\n\n## Review log\n- **Task 28 bundled phase (Agreed).** Split into two.\n');
    assert.equal(p.parser, 'checkbox_tasks_parser');
    assert.deepEqual(shape(p), ['Prerequisites [0.1 0.2]', 'Build [1.1]']);
  });

  it('a mistake inside a file of the spec format is still its error, not read by the other parser', () => {
    assert.throws(() => parse('### Phase 1: A\n- [ ] **Task 1.1**: a\n### Phase 2: B\n**Goal:** b\n### Phase 3: C\n- [ ] **Task 3.1**: c\n'), /line 3: Phase 2 "B" has no tasks/);
  });

  it('sections after the tasks that list criteria ("Validation Checklist", "Success Criteria") are the last phase\'s gate', () => {
    const p = parse('## Phase 3.1: Setup\n- [ ] T001 a\n## Phase 3.2: Core\n- [ ] T002 b\n## Validation Checklist\n*GATE: Checked by main() before returning*\n- [x] All contracts have tests\n- [ ] All entities have models\n');
    assert.deepEqual(shape(p), ['Setup [T001]', 'Core [T002]']);
    assert.deepEqual(p.phases[1]!.validation_gate.map((g) => [g.text, g.checkbox?.mark]), [['All contracts have tests', 'x'], ['All entities have models', ' ']]);
  });

  it('YAML front matter is no part of the plan: its `# comment` is not the title; a `---` rule with no `key:` after it is no front matter', () => {
    // GaZmagik/claude-memory-plugin's spec-kit tasks.md opens with front matter for spec-lint.
    const fm = '---\n# YAML Frontmatter for spec-lint\ndescription: "Task list"\nphases:\n  - id: 0\n    name: "Phase 0: Setup"\n---\n\n';
    const p = parse(`${fm}# Tasks: v1.1.0 Enhancements\n\n## Phase 0: Setup\n\n- [X] T001 Review research.md\n`);
    assert.equal(p.title, 'Tasks: v1.1.0 Enhancements');
    assert.deepEqual(shape(p), ['Setup [T001]']);
    assert.equal(p.phases[0]!.tasks[0]!.done_in_source, true);
    const rule = parse('---\n# Release\n- [ ] a\n---\n- [ ] b\n');
    assert.equal(rule.title, 'Release', 'no `key:` between the rules: a thematic break, not front matter');
    assert.deepEqual(shape(rule), ['Release [1 2]']);
  });

  it('a section whose heading reads like criteria but has tasks after it is a phase: its tasks are not taken for a gate', () => {
    // OpenSpec (fix-validate-view-resolution-parity) and kiro-spec-engine (103-00) name a task group after a gate.
    const p = parse('# Tasks\n## 1. Resolve\n- [x] 1.1 a\n## 2. Archive incomplete-task gate\n- [x] 2.1 b\n- [ ] 2.2 c\n## 3. Parity\n- [ ] 3.1 d\n## Success Criteria\n- [ ] all green\n');
    assert.deepEqual(shape(p), ['1. Resolve [1.1]', '2. Archive incomplete-task gate [2.1 2.2]', '3. Parity [3.1]']);
    assert.deepEqual(p.phases[2]!.validation_gate.map((g) => g.text), ['all green'], 'the criteria after the last tasks are still its gate');
  });

  it('the list after "**Acceptance Criteria:**" below a phase\'s tasks is its gate; Agent OS\'s N.0 item gives way to its numbered sub-items', () => {
    const p = parse([
      '# Task Breakdown', '', '#### Task Group 1: Database', '**Dependencies:** None', '',
      '- [ ] 1.0 Complete the database layer', '  - [ ] 1.1 Write 2-8 focused tests', '  - [ ] 1.2 Create the model', '    - With validations', '  - [ ] 1.3 Ensure the tests pass', '',
      '**Acceptance Criteria:**', '- The tests written in 1.1 pass', '  - all of them', '- [ ] Migrations run', '',
      '#### Task Group 2: API', '- [ ] 2.0 Complete the API', '  - [ ] 2.1 Write the endpoints',
    ].join('\n'));
    assert.deepEqual(shape(p), ['Task Group 1: Database [1.1 1.2 1.3]', 'Task Group 2: API [2.1]']);
    assert.deepEqual(p.phases[0]!.validation_gate.map((g) => g.text), ['The tests written in 1.1 pass', 'Migrations run']);
    assert.equal(p.phases[0]!.checkbox?.line, 6, "the N.0 item's box is the phase's");
    const kiro = parse('# Plan\n\n- [ ] 1. One\n  - [ ] 1.1 a\n\n**Acceptance Criteria:**\n- [ ] It works\n\n- [ ] 2. Two\n  - [ ] 2.1 b\n');
    assert.deepEqual(shape(kiro), ['One [1.1]', 'Two [2.1]'], 'a task with an id ends the list of criteria');
  });

  it("Kiro: an item with work of its own under it is its phase's first task; an id inserted later (6.5) is not a sub-item", () => {
    const kiro = parse('# Plan\n\n- [x] 2. Implement the models\n  - Create the interfaces\n  - _Requirements: 1.1_\n\n- [ ]\\* 2.1 Write a property test\n\n- [ ] 3. Wire it\n- [ ] 3.1 Routes\n');
    assert.deepEqual(shape(kiro), ['Implement the models [2 2.1]', 'Wire it [3.1]']);
    assert.equal(kiro.phases[0]!.checkbox, null, "the item's box is its task's");
    assert.deepEqual(kiro.phases[0]!.tasks[1]!.tags, ['optional'], '"- [ ]\\*" (escaped) marks an optional task too');
    const inserted = parse('# Tasks\n\n- [ ] 5. Five\n- [ ] 6. Six\n- [ ] 6.5 Six and a half\n- [ ] 7. Seven\n');
    assert.deepEqual(shape(inserted), ['Tasks [5 6 6.5 7]']);
  });

  it('Kiro under phase headings: each numbered item over numbered sub-tasks groups them; none is lost, every box is ticked', () => {
    const text = [
      '## Phase 1: Schema', '- [ ] 1. Database schema', '  - [ ] 1.1 Add columns', '  - [x] 1.2 Create history table',
      '- [ ] 2. Domain model', '  - Write the enum first', '  - [ ] 2.1 Extend enum', '- [ ] 9. Loose end',
      '## Phase 2: Status', '- [ ] 3. Status repo', '  - [ ] 3.1 Add history',
    ].join('\n');
    const p = parse(text);
    // 1 only groups 1.1 and 1.2; 2 has work of its own, so it is a task before its sub-task; 9 is a task as it stands.
    assert.deepEqual(shape(p), ['Schema [1.1 1.2 2 2.1 9]', 'Status [3.1]']);
    assert.equal(p.phases[0]!.tasks[1]!.done_in_source, true);
    assert.deepEqual(p.phases[0]!.group_checkboxes?.map((c) => c.line), [2], "1's box goes with the phase");
    assert.equal(p.phases[1]!.checkbox?.line, 10, 'one item over the phase: its box is the phase\'s (Agent OS)');
    assert.equal(p.phases[1]!.group_checkboxes, undefined);
    const lines = text.split('\n');
    const ticked = applyEdits(text, planTicks(text, phaseCheckboxes(p.phases[0]!)).edits).split('\n');
    assert.deepEqual(ticked.map((l, i) => (l === lines[i] ? '' : l.trim())).filter(Boolean), [
      '- [x] 1. Database schema', '- [x] 1.1 Add columns', '- [x] 2. Domain model', '- [x] 2.1 Extend enum', '- [x] 9. Loose end',
    ]);
    // The same file flat (Kiro also writes sub-tasks at their parent's indent).
    assert.deepEqual(shape(parse(text.replace(/^ {2}- \[/gm, '- ['))), ['Schema [1.1 1.2 2 2.1 9]', 'Status [3.1]']);
  });

  it('a "## Checklist" heading the tasks sit under is their section, not criteria after them: no task is taken for a gate', () => {
    const p = parse('# Tasks\n## Checklist\n### Alpha\n- [ ] a one\n### Beta\n- [ ] b one\n- [ ] b two\n## Done Criteria\n- [ ] all green\n');
    assert.deepEqual(shape(p), ['Alpha [1]', 'Beta [1 2]']);
    assert.deepEqual(p.phases[1]!.validation_gate.map((g) => g.text), ['all green'], 'a criteria heading after the tasks is still the gate');
  });

  it('a code span keeps what is in it: `__tests__/`, `__init__` and `**kwargs` are not emphasis; outside one they are', () => {
    const p = parse('## 1. Tests\n- [ ] 1.1 Create `__tests__/lib/selector.test.ts` with **failing** tests\n- [ ] 1.2 Call `__init__` in `snake_case_file.py`\n- [ ] 1.3 Rename `**kwargs` handling\n- [ ] 1.4 Quote ``a ` b`` and *stress `x*y` here*\n- [ ] 1.5 A stray ` tick\n');
    assert.deepEqual(p.phases[0]!.tasks.map((t) => t.name), [
      'Create __tests__/lib/selector.test.ts with failing tests', 'Call __init__ in snake_case_file.py', 'Rename **kwargs handling',
      'Quote a ` b and stress x*y here', 'A stray  tick',
    ]);
  });

  it('an item inserted later with a letter (2a., 2a.1) has that id; a letter with no dot after it is text (3d model)', () => {
    const p = parse('- [x] 1. First task\n- [x] 2. Second task\n- [ ] 2a. Late addition\n  - Added after the fact\n  - [ ] 2a.1 Client side\n  - [ ] 2a.2 Server side\n');
    assert.deepEqual(shape(p), ['First task [1]', 'Second task [2]', 'Late addition [2a 2a.1 2a.2]']);
    assert.deepEqual(p.phases.map((ph) => ph.label), ['1', '2', '2a']);
    const flat = parse('# Tasks\n- [ ] 3d model export\n- [ ] 2FA setup\n- [ ] 4. Four\n');
    assert.deepEqual(flat.phases[0]!.tasks.map((t) => [t.id, t.name]), [['1', '3d model export'], ['2', '2FA setup'], ['4', 'Four']]);
  });

  it('a phase heading with no name after its number is named by it, not after the document (each was "Tasks")', () => {
    assert.deepEqual(shape(parse('# My Plan\n\n## Phase 1\n- [ ] a\n- [ ] b\n\n## Phase 2\n- [ ] c\n')), ['Phase 1 [1 2]', 'Phase 2 [1]']);
    assert.deepEqual(shape(parse('# My Plan\n\n## Phase 1\n- [ ] a\n')), ['Phase 1 [1]']);
  });

  it('markers lead a task title; brackets further on are its text (a Next.js route, a placeholder)', () => {
    const p = parse('## Phase 1: Pages\n- [ ] T001 [P] [US1] Create src/app/posts/[slug]/page.tsx\n- [ ] T002 [US2] Create [Entity] model\n- [ ] T002a [US2] uv pip install "llama-cpp-python[server]"\n');
    const [one, two, three] = p.phases[0]!.tasks;
    assert.deepEqual([one!.name, one!.parallel, one!.tags], ['Create src/app/posts/[slug]/page.tsx', true, ['US1']]);
    assert.deepEqual([two!.name, two!.tags], ['Create [Entity] model', ['US2']]);
    assert.deepEqual([three!.id, three!.name], ['T002a', 'uv pip install "llama-cpp-python[server]"'], 'an id inserted later, and a pip extra kept');
  });

  it('a fence closes only with its own kind, as long or longer: a ```bash block shown in a ```` block stays code', () => {
    const text = [
      '## Phase 3.1: Setup', '- [ ] T001 Create project', '', '## Parallel example', '````markdown', '```bash',
      '# Phase 3.4 - Launch these together:', 'Task: "T001"', '```', '````', '', '## Validation Checklist', '- [x] All tests come before implementation',
    ].join('\n');
    const p = parse(text);
    assert.deepEqual(shape(p), ['Setup [T001]']);
    assert.deepEqual(p.phases[0]!.validation_gate.map((g) => g.text), ['All tests come before implementation']);
    assert.deepEqual(shape(parse('### Phase 1: A\n~~~\n```\n### Phase 9: not a phase\n~~~\n- [ ] **Task 1.1**: a\n')), ['A [1.1]'], 'a tilde fence is not closed by backticks; spec format too');
    assert.deepEqual(shape(parse('## Phase 1: A\n- [ ] T001 a\n``` not a fence `x`\n## Phase 2: B\n- [ ] T002 b\n')), ['A [T001]', 'B [T002]'], 'backticks in the info string: no fence');
  });

  it('HTML comments are skipped as CommonMark skips them: a task commented out is no task, in either format', () => {
    const commented = [
      '## Phase 1: Setup', '- [ ] T001 Create project', '<!--', '- [ ] T002 Dropped for now', '## Phase 9: not a phase', '-->',
      '- [ ] T003 Configure lint', '  <!-- - [ ] T004 indented, one line -->', '- [ ] T005 Add CI',
    ].join('\n');
    assert.deepEqual(shape(parse(commented)), ['Setup [T001 T003 T005]']);
    const kiro = parse('# Plan\n\n- [ ] 1. One\n  <!--\n  - [ ] 1.1 not yet\n  -->\n  - [ ] 1.2 b\n- [ ] 2. Two\n  - [ ] 2.1 c\n');
    assert.deepEqual(shape(kiro), ['One [1.2]', 'Two [2.1]'], 'a comment inside a list item');
    const spec = parse('### Phase 1: A\n<!-- - [ ] **Task 1.9**: commented -->\n- [ ] **Task 1.1**: a\n');
    assert.deepEqual(shape(spec), ['A [1.1]'], 'spec format too');
    // A fence inside a comment opens nothing, and `<!--` inside a fence is code, not a comment.
    assert.deepEqual(shape(parse('## Phase 1: A\n<!--\n```\n-->\n- [ ] T001 a\n```\n- [ ] T002 b\n')), ['A [T001]']);
    assert.deepEqual(shape(parse('## Phase 1: A\n```html\n<!--\n```\n- [ ] T001 a\n')), ['A [T001]']);
    // An inline comment in a title shows as nothing; in a code span it is code.
    assert.deepEqual(parse('## Phase 1: A <!-- rename? -->\n- [ ] T001 Create X <!-- owner: bob --> now\n- [ ] T002 Show `<!-- x -->`\n').phases[0]!.tasks.map((t) => t.name), ['Create X now', 'Show <!-- x -->']);
    // `<!-->` closes where it opens (CommonMark's end condition is the line holding `-->`).
    assert.deepEqual(shape(parse('## Phase 1: A\n<!-->\n- [ ] T001 a\n')), ['A [T001]']);
    // A `<!--` nothing closes hides nothing (CommonMark would hide the rest of the file): no task is lost to a typo.
    assert.deepEqual(shape(parse('## Phase 1: A\n- [ ] T001 a\n<!-- TODO: split this phase\n- [ ] T002 b\n## Phase 2: B\n- [ ] T003 c\n')), ['A [T001 T002]', 'B [T003]']);
    assert.deepEqual(shape(parse('## Phase 1: A\n<!-- x -->\n- [ ] T001 a\n<!-- open\n- [ ] T002 b\n')), ['A [T001 T002]'], 'closed before, open after');
  });

  it('TASK-001 and T-001 ids are ids: kept as written, their [P] read, not numbered again per phase', () => {
    const p = parse('## Phase 1: Setup\n- [ ] TASK-001 Create directories\n- [ ] TASK-002 [P] Configure pytest\n## Phase 2: Core\n- [ ] T-003 Write the model test\n');
    assert.deepEqual(shape(p), ['Setup [TASK-001 TASK-002]', 'Core [T-003]']);
    assert.deepEqual([p.phases[0]!.tasks[1]!.name, p.phases[0]!.tasks[1]!.parallel], ['Configure pytest', true]);
  });

  it('"## Quality Gates" after the tasks, with its sub-headings, is the last phase\'s gate, not phases of tasks', () => {
    const p = parse('## Phase 1: Setup\n- [ ] T001 Create project\n- [ ] T002 Add CI\n\n## Quality Gates\n\n### Code Quality\n- [ ] Unit test coverage >90%\n- [ ] No lint errors\n\n### Performance\n- [ ] p95 under 200 ms\n');
    assert.deepEqual(shape(p), ['Setup [T001 T002]']);
    assert.deepEqual(p.phases[0]!.validation_gate.map((g) => g.text), ['Unit test coverage >90%', 'No lint errors', 'p95 under 200 ms']);
  });

  it('a title or detail wrapped onto the next line goes on in it; a line that starts a sentence of its own is a detail', () => {
    const kiro = parse([
      '# Implementation Plan',
      '- [x] 1. Implement the serializer — bootstrap and peer2peer extension', '      messages',
      '  - [x] 1.1 Declare RequestVote/AppendEntries request/response', '        messages', '    - Declare `PeerInfo` and the', '      ClusterJoin messages', '    - _Requirements: 2.1_',
      '  - [x] 1.2 Cluster join',
      '- [ ] 2. **[operator] Provision the account for validation', '      and CI**',
      '  - [ ] 2.1 Write the README', '    Explain the set-up',
    ].join('\n'));
    assert.deepEqual(shape(kiro), ['Implement the serializer — bootstrap and peer2peer extension messages [1.1 1.2]', 'Provision the account for validation and CI [2.1]']);
    const [one] = kiro.phases[0]!.tasks;
    assert.equal(one!.name, 'Declare RequestVote/AppendEntries request/response messages');
    assert.deepEqual(one!.requirements, ['2.1']);
    assert.match(one!.description, /^Declare PeerInfo and the ClusterJoin messages$/m);
    assert.deepEqual(kiro.phases[1]!.tasks[0]!.acceptance_criteria, ['Explain the set-up'], 'a sentence of its own stays a detail');
    assert.deepEqual(kiro.phases[1]!.tasks[0]!.name, 'Write the README');
    // Code, a parenthesis or a dash starting the next line, an operator or "via" ending the title: one title still.
    const wrapped = parse([
      '## Phase 1', '- [ ] 1. Server: register_fetch_handler +', '  `CallbackService` override', '- [ ] 2. Reconnection property test',
      '  (`tests/reconnection_test.cpp`)', '- [ ] 3. Issue certificates via', '  `certificate_authority` for the tests', '- [ ] 4. Cross-transport equivalence',
      '  \u2014 done and CI-verified', '- [ ] 5. Write the README', '  Explain the set-up',
    ].join('\n'));
    assert.deepEqual(wrapped.phases[0]!.tasks.map((t) => t.name), [
      'Server: register_fetch_handler + CallbackService override', 'Reconnection property test (tests/reconnection_test.cpp)',
      'Issue certificates via certificate_authority for the tests', 'Cross-transport equivalence \u2014 done and CI-verified', 'Write the README',
    ]);
  });

  it('a "Success Validation" or "Success Metrics" section after the tasks is the last gate, not a phase', () => {
    for (const heading of ['### Success Validation', '## 🎯 Success Metrics (KPIs)']) {
      const p = parse(`## Phase 1: A\n- [ ] T001 a\n## Phase 2: B\n- [ ] T002 b\n## Notes\n${heading}\nBefore calling it done, verify:\n- [ ] Tests pass\n- [x] Docs written\n`);
      assert.deepEqual(p.phases.map((ph) => [ph.label, ph.tasks.map((t) => t.id)]), [['Phase 1', ['T001']], ['Phase 2', ['T002']]], heading);
      assert.deepEqual(p.phases[1]!.validation_gate.map((g) => g.text), ['Tests pass', 'Docs written'], heading);
    }
  });

  it('a plain list after the tasks is the last gate when its heading says validation or criteria, not when it only describes', () => {
    const gate = (tail: string) => parse(`# T\n## Tasks\n- [ ] 1. a\n- [ ] 2. b\n${tail}`).phases.at(-1)!.validation_gate.map((g) => g.text);
    assert.deepEqual(gate('## Validation\n- A works\n  - in detail\n- B works\n'), ['A works', 'B works']);
    assert.deepEqual(gate('## Release\n### Acceptance Criteria\n- Shipped\n'), ['Shipped']);
    for (const tail of ['## Notes\n- keep it small\n', '## Success Metrics (KPIs)\n- App Rating: 4+ stars\n', '## Validation\nRun it by hand.\n']) {
      assert.match(gate(tail)[0]!, /^Every task of Phase 1 is done/, tail);
    }
  });

  it('an ordered list\'s numbers are the ids of its items that have none, unless two of them share one', () => {
    const ids = (text: string) => parse(text).phases.map((p) => p.tasks.map((t) => t.id).join(' '));
    assert.deepEqual(ids('## Phase 1: A\n1. [ ] a\n2. [ ] b\n## Phase 2: B\n3. [ ] c\n4. [ ] d\n'), ['1 2', '3 4']);
    assert.deepEqual(ids('## Phase 1: A\n1. [ ] a\n1. [ ] b\n## Phase 2: B\n1. [ ] c\n1. [ ] d\n'), ['1 2', '1 2']);
    assert.deepEqual(ids('## Phase 1: A\n1. [ ] T010 a\n2. [ ] b\n## Phase 2: B\n- [ ] c\n5. [ ] d\n'), ['T010 2', '1 2']);
  });

  it('a phase heading that says why it has no tasks is left out of a checkbox list', () => {
    const p = parse('## Phase 1: Setup\n- [ ] T001 a\n## Phase 2: Foundational\n**Purpose**: No foundational tasks — Phase 1 covers them\n## Phase 3: Story\n### Implementation\n*Covered by T001.*\n## Phase 4: Polish\n- [ ] T002 b\n');
    assert.deepEqual(p.phases.map((ph) => ph.label), ['Phase 1', 'Phase 4']);
  });
});

describe('spec parsers: phase headings as people write them', () => {
  it('spec format: "### Phase 1 Tasks" under "## Phase 1: Name" is a section of that phase; "### Phase 1 → Phase 2" is no phase', () => {
    const spec = parse([
      '# Tasks', '## Phase 1: Structure', '**Objective:** lay it out', '### Phase 1 Tasks', '- [ ] **Task 1.1**: Create the folders', '- [ ] **Task 1.2**: Add metadata',
      '## Phase 2: Content', '### Phase 2 Tasks', '- [ ] **Task 2.1**: Write it',
      '## Dependencies', '### Phase 1 → Phase 2', 'Phase 2 needs the folders.', '### Phase 2 -> Phase 3', 'Later.', '',
    ].join('\n'));
    assert.equal(spec.parser, 'spec_tasks_parser');
    assert.deepEqual(spec.phases.map((p) => [p.label, p.name, p.tasks.map((t) => t.id)]), [['Phase 1', 'Structure', ['1.1', '1.2']], ['Phase 2', 'Content', ['2.1']]]);
  });

  it('spec format: a phase heading met again deeper after its phase is about it: its gate when it lists criteria', () => {
    const spec = parse([
      '# Tasks', '## Phase 1: A', '- [ ] **Task 1.1**: a', '## Phase 2: B', '- [ ] **Task 2.1**: b', '## Testing Strategy', '### Phase 1 Testing',
      '- **Manual review:** read it', '## Validation Gates', '### Phase 1 Validation Gate', 'Before Phase 2:', '- [ ] A works', '  - [ ] detail',
      '- [ ] A is documented', '## Acceptance Criteria Summary', '### Phase 2: B', '- [ ] B works', '',
    ].join('\n'));
    assert.deepEqual(spec.phases.map((p) => [p.label, p.tasks.map((t) => t.id), p.validation_gate.map((g) => g.text)]), [
      ['Phase 1', ['1.1'], ['A works', 'A is documented']], ['Phase 2', ['2.1'], ['B works']],
    ]);
    assert.equal(spec.phases[0]!.validation_gate[0]!.checkbox?.line, 12);
  });

  it('checkbox lists: a heading deeper than the one that first named its phase is about that phase, not a phase again', () => {
    const sections = parse('## Phase 1: Setup\n### Phase 1 Tasks\n- [ ] T001 a\n## Phase 2: Build\n### Phase 2 Tasks\n- [ ] T002 b\n');
    assert.deepEqual(sections.phases.map((p) => `${p.label}|${p.name}|${p.tasks.map((t) => t.id).join(' ')}`), ['Phase 1|Setup|T001', 'Phase 2|Build|T002']);
    const testing = parse('# Plan\n## Phase 1: Setup\n- [x] T001 a\n## Phase 2: Build\n- [ ] T002 b\n## Testing\n### Phase 2 Testing\n- **Unit**: run them\n');
    assert.deepEqual(testing.phases.map((p) => p.label), ['Phase 1', 'Phase 2']);
    const checklist = parse('## Phase 1: A\n- [ ] T001 a\n## Phase 2: B\n- [ ] T002 b\n## Completion Checklist\n### Phase 1 (A)\n- [ ] A is done\n### Phase 2 (B)\n- [ ] B is done\n');
    assert.deepEqual(checklist.phases.map((p) => [p.label, p.validation_gate.filter((g) => g.checkbox).map((g) => g.text)]), [['Phase 1', []], ['Phase 2', ['A is done', 'B is done']]]);
    // As deep or shallower, the same label starts a phase again: a second part of the plan that numbers its own phases.
    const again = parse('## Part A\n### Phase 1: Setup\n- [ ] 1.1 a\n# Phase 1: Rework\n- [ ] 1.1 b\n');
    assert.deepEqual(again.phases.map((p) => `${p.label}|${p.name}`), ['Phase 1|Setup', 'Phase 1|Rework']);
  });

  it('a note in parentheses, a dash, no name, marks before the word: every phase heading is a phase, in both formats', () => {
    const spec = parse('# T\n## Phase 1 (Week 1): Foundation\n- [ ] **Task 1.1**: a\n## Phase 2 \u2013 Core\n- [ ] **Task 2.1**: b\n## Phase 3\n- [ ] **Task 3.1**: c\n');
    assert.deepEqual(spec.phases.map((p) => `${p.label}|${p.name}`), ['Phase 1|Foundation (Week 1)', 'Phase 2|Core', 'Phase 3|Phase 3']);
    const boxes = parse('# T\n## \u2705 Phase 1 (done): Foundation\n- [x] 1.1 a\n## Stage 2 \u2014 Core\n- [ ] 2.1 b\n');
    assert.deepEqual(boxes.phases.map((p) => `${p.label}|${p.name}`), ['Phase 1|Foundation (done)', 'Stage 2|Core']);
  });

  it('phases written as bold lines or setext headings are phases, not one list named after the title', () => {
    const bold = parse('# Tasks\n\n**Phase 1: Setup**\n- [ ] T001 a\n- [ ] T002 b\n\n**Phase 2: Core**\n- [x] T003 c\n\n**Note:** keep it small\n');
    assert.deepEqual(bold.phases.map((p) => `${p.label}|${p.name} [${p.tasks.map((t) => t.id).join(' ')}]`), ['Phase 1|Setup [T001 T002]', 'Phase 2|Core [T003]']);
    const setext = parse('Release plan\n============\n\nPhase 1: Setup\n--------------\n- [ ] T001 a\n\n---\n\nPhase 2: Core\n--------------\n- [ ] T002 b\n');
    assert.equal(setext.title, 'Release plan');
    assert.deepEqual(setext.phases.map((p) => `${p.label}|${p.name} [${p.tasks.map((t) => t.id).join(' ')}]`), ['Phase 1|Setup [T001]', 'Phase 2|Core [T002]']);
    // Under a `## Phase 1` heading, a bold `**Phase 1 tasks**` line is about that phase, not a second one.
    const both = parse('## Phase 1: Setup\n**Phase 1 tasks**\n- [ ] T001 a\n## Phase 2: Core\n- [ ] T002 b\n');
    assert.deepEqual(shape(both), ['Setup [T001]', 'Core [T002]']);
  });

  it('the spec format and a plain list read bold and setext phase headings as the checkbox lists do', () => {
    const bold = '# Plan\n\n**Phase 1: Setup**\n- [ ] **Task 1.1**: a\n- [ ] **Task 1.2**: b\n\n**Phase 2: Core**\n- [ ] **Task 2.1**: c\n';
    const spec = parse(bold);
    assert.equal(spec.parser, 'spec_tasks_parser');
    assert.deepEqual(spec.phases.map((p) => `${p.label}|${p.name} [${p.tasks.map((t) => t.id).join(' ')}]|${p.line}`), ['Phase 1|Setup [1.1 1.2]|3', 'Phase 2|Core [2.1]|7']);
    const setext = parse('Plan\n====\n\nPhase 1: Setup\n--------------\n**Goal:** Start\n- [ ] **Task 1.1**: a\n\nPhase 2: Core\n-------------\n- [ ] **Task 2.1**: c\n');
    assert.equal(setext.parser, 'spec_tasks_parser');
    assert.equal(setext.title, 'Plan');
    assert.deepEqual(setext.phases.map((p) => `${p.name}|${p.description} [${p.tasks.map((t) => t.id).join(' ')}]`), ['Setup|Start [1.1]', 'Core| [2.1]']);
    // A plan without a box: its bold phase headings are recognised, and their plain items are the tasks.
    const plainList = parse('# Plan\n\n**Phase 1: Setup**\n- a\n- b\n\n**Phase 2: Core**\n- c\n');
    assert.deepEqual(shape(plainList), ['Setup [1 2]', 'Core [1]']);
  });

  it('under a bold or plain phase line, the spec format\'s "#### Task 1.1: Name" and gate headings are that phase\'s', () => {
    const text = '# Plan\n\n**Phase 1: Setup**\n\n#### Task 1.1: Create schema\n- **Estimated Time**: 1h\n\n#### Task 1.2: Seed\n\n' +
      '#### Validation Gate\n- [ ] Seeded\n\nPhase 2: Core\n\n### Task 2.1: Build\n\n## Notes\n\n#### Task 9.9: An example, no task\n';
    const p = parse(text);
    assert.equal(p.parser, 'spec_tasks_parser');
    assert.deepEqual(p.phases.map((ph) => `${ph.label}|${ph.name} [${ph.tasks.map((t) => `${t.id} ${t.name}`).join(', ')}]`), [
      'Phase 1|Setup [1.1 Create schema, 1.2 Seed]', 'Phase 2|Core [2.1 Build]',
    ]);
    assert.equal(p.phases[0]!.tasks[0]!.estimated_time, '1h');
    assert.deepEqual(p.phases[0]!.validation_gate.map((g) => g.text), ['Seeded']);
  });

  it('under a bold or plain phase line, the checkbox format\'s "#### Task 2.1 …" headings and their boxes are that phase\'s', () => {
    const text = '# Plan\n\n**Phase 1: Setup**\n\n#### Task 1.1 Schema\n- [ ] T001 Create schema\n- [ ] T002 Seed\n\n' +
      '**Checkpoint**: seeded\n\nPhase 2: Core\n\n#### Task 2.1 Build\n- [ ] T003 Build it\n\n#### Task 2.2: Wire\n- [ ] T004 Wire it\n';
    const checkbox = (t: string) => parse(t, 'tasks.md', 'checkbox_tasks_parser');
    const p = checkbox(text);
    assert.deepEqual(p.phases.map((ph) => `${ph.label}|${ph.name} [${ph.tasks.map((t) => t.id).join(' ')}]`), [
      'Phase 1|Setup [T001 T002]', 'Phase 2|Core [T003 T004]',
    ]);
    assert.deepEqual(p.phases[0]!.validation_gate.map((g) => g.text), ['seeded']);
    // As with "### Phase N" headings; any other heading still ends the phase.
    const marked = checkbox(text.replace('**Phase 1: Setup**', '### Phase 1: Setup').replace('Phase 2: Core', '### Phase 2: Core'));
    assert.deepEqual(shape(marked), shape(p));
    assert.deepEqual(shape(checkbox(`${text}\n#### Notes\n- [ ] T005 Later\n`)), ['Setup [T001 T002]', 'Core [T003 T004]', 'Notes [T005]']);
  });

  it('a plain "Phase N: Title" line on its own is a phase heading; a task, a sentence, a link of phases or code is not', () => {
    const text = [
      '# Plan', '', 'Phase 1: Setup', '- [ ] T001 a', '- [ ] T002 b, as Phase 2: says', 'Phase 2: Core', '- [ ] T003 c',
      '  Phase 9: nested under T003', '', 'Phase 3.1 - Polish', '', '- [ ] T004 d', '', 'Phase 4: waits for the review.',
      '- [ ] T005 e', '', '```', 'Phase 5: code', '```', '', 'Phase 2: Core \u2192 Phase 3.1: Polish', '',
    ].join('\n');
    const p = parse(text);
    assert.deepEqual(p.phases.map((ph) => `${ph.label}|${ph.name} [${ph.tasks.map((t) => t.id).join(' ')}]|${ph.line}`), [
      'Phase 1|Setup [T001 T002]|3', 'Phase 2|Core [T003]|6', 'Phase 3.1|Polish [T004 T005]|10',
    ]);
    assert.equal(p.phases[0]!.tasks[1]!.name, 'b, as Phase 2: says');
    const spec = parse('# Plan\n\nPhase 1: Setup\n**Goal:** Start\n- [ ] **Task 1.1**: a\n\nPhase 2 \u2013 Core\n- [ ] **Task 2.1**: c\n');
    assert.equal(spec.parser, 'spec_tasks_parser');
    assert.deepEqual(spec.phases.map((ph) => `${ph.label}|${ph.name}|${ph.description} [${ph.tasks.map((t) => t.id).join(' ')}]`), ['Phase 1|Setup|Start [1.1]', 'Phase 2|Core| [2.1]']);
  });

  it('a task id written on two task lines is a warning naming both lines, in both formats; ids by position are none', () => {
    const boxes = parse('# Plan\n\n## Phase 1: Setup\n- [ ] T001 a\n- [ ] T002 b\n## Phase 2: Core\n- [ ] T001 c\n- [ ] T003 d\n');
    assert.deepEqual(shape(boxes), ['Setup [T001 T002]', 'Core [T001 T003]'], 'both tasks run');
    assert.deepEqual(boxes.warnings, [{
      line: 7,
      message: 'task id T001 is written on lines 4 and 7: each is used, as a task of its own in file order (Baton hands tasks out by ' +
        'position), but a dependency on T001 cannot say which it means. Give the task on line 7 an id of its own.',
    }]);
    const spec = parse('### Phase 1: X\n- [ ] **Task 1.1**: a\n- [ ] **Task 1.1**: b\n- [ ] **Task 1.1**: c\n- [ ] **Task 1.2**: d\n');
    assert.equal(spec.parser, 'spec_tasks_parser');
    assert.deepEqual(spec.warnings?.map((w) => [w.line, /lines 2, 3 and 4:/.test(w.message), /the tasks on lines 3 and 4 ids of their own\.$/.test(w.message)]), [[3, true, true]]);
    // Tasks numbered by their position (no id in the file) repeat "1" in each phase: no id is written twice.
    assert.equal(parse('# Plan\n\n## Phase 1\n- [ ] a\n- [ ] b\n## Phase 2: Core\n- [ ] c\n').warnings, undefined);
    assert.equal(parse('# Plan\n\n## Phase 1\n- a\n## Phase 2: Core\n- c\n').warnings, undefined);
    assert.equal(parse(read('spec-kit.tasks.md')).warnings, undefined);
  });

  it('an empty box is refused with its line, not read as a task named "Task 3"', () => {
    const text = '# Implementation Plan\n\n- [ ] 1. Set up\n  - [x] 1.1 Create dirs\n  - [ ]\n- [ ] 2. Build\n  - [ ] 2.1 Compile\n';
    assert.throws(() => parse(text, 'specs/a/tasks.md'), (ex: unknown) => BatonError.is(ex, 'source_parse_failed') && ex.details.line === 5 &&
      /^Could not parse specs\/a\/tasks\.md, line 5: a checkbox with nothing after it\. Expected the task written after the box \(or the line removed\)/.test(ex.message));
    assert.deepEqual(shape(parse(text.replace('  - [ ]\n', ''))), ['Set up [1.1]', 'Build [2.1]'], 'without it the file runs');
  });

  it('a heading ending in C# or F# keeps its #: only hashes after a space close a heading (CommonMark)', () => {
    const p = parse('# Tasks: F# port ##\n\n## Phase 1: Learn C#\n- [ ] T001 a\n\n## Phase 2: Ship #\n- [ ] T002 b\n### Notes ###\n- [ ] T003 c\n');
    assert.equal(p.title, 'Tasks: F# port');
    assert.deepEqual(shape(p), ['Learn C# [T001]', 'Ship [T002 T003]']);
    const spec = parse('### Phase 1: Learn C#\n- [ ] **Task 1.1**: a\n#### Task 1.2: Port F#\n');
    assert.deepEqual(spec.phases.map((ph) => `${ph.name} [${ph.tasks.map((t) => `${t.id} ${t.name}`).join(', ')}]`), ['Learn C# [1.1 a, 1.2 Port F#]']);
  });

  it('a phase numbered 3.1, 2a, 1–2 or followed by a full-width colon keeps its number whole and its name clean', () => {
    const headings = ['Phase 3.1: Setup', 'Phase 2a: Backend', 'Phase 2b \u2013 Frontend', 'Phase 3.1\u20133.2: Wiring', 'Phase 4 & 5: Ship', 'Phase 6\uff1a\u53d1\u5e03'];
    const want = ['Phase 3.1|Setup', 'Phase 2a|Backend', 'Phase 2b|Frontend', 'Phase 3.1\u20133.2|Wiring', 'Phase 4 & 5|Ship', 'Phase 6|\u53d1\u5e03'];
    const boxes = parse(`# T\n${headings.map((h, i) => `## ${h}\n- [ ] T00${i + 1} task ${i + 1}\n`).join('')}`);
    assert.deepEqual(boxes.phases.map((p) => `${p.label}|${p.name}`), want);
    // The spec format: `Phase 2a` was no phase heading, so its task was "under no phase heading" and the file refused.
    const spec = parse(`# T\n${headings.map((h, i) => `### ${h}\n- [ ] **Task ${i + 1}.1**: task ${i + 1}\n`).join('')}`);
    assert.equal(spec.parser, 'spec_tasks_parser');
    assert.deepEqual(spec.phases.map((p) => `${p.label}|${p.name}`), want);
    assert.equal(parse('# T\n## Phase 2nd: Later\n- [ ] T001 a\n## Phase 3: Now\n- [ ] T002 b\n').phases[0]!.label, '1', '"2nd" is no phase number');
  });

  it('a task line above the first phase heading is an error naming it, unless a phase has it too (an overview)', () => {
    assert.throws(() => parse('# T\n\n- [ ] **Task 0.1**: Set up\n\n### Phase 1: A\n- [ ] **Task 1.1**: a\n'), /line 3: Task 0\.1 is under no phase heading\. Expected every task line under a phase heading/);
    const overview = parse('# T\n## Overview\n- [ ] Task 1.1 a\n- [ ] Task 2.1 b\n### Phase 1: A\n- [ ] **Task 1.1**: a\n### Phase 2: B\n- [ ] **Task 2.1**: b\n');
    assert.deepEqual(shape(overview), ['A [1.1]', 'B [2.1]']);
  });
});

describe('spec parsers: the spec format as the README writes it', () => {
  const gate = '**Validation Gate:**\n- [ ] Migrations apply cleanly\n- [ ] Approval by the DBA\n';
  const bold = `# Plan\n\n### Phase 1: Schema\n**Goal:** Create the schema\n\n**Task 1.1**: Write migration\n- **Estimated Time**: 1h\n- **Acceptance Criteria**: migration runs\n\n**Task 1.2**: Seed data\n- **Dependencies**: Task 1.1\n\n${gate}`;
  const headings = `# Plan\n\n### Phase 1: Schema\n**Goal:** Create the schema\n\n#### Task 1.1: Write migration\n- **Estimated Time**: 1h\n\n#### Task 1.2: Seed data\n\n${gate}`;
  const shape = (spec: ParsedSpec) => spec.phases.map((p) => ({
    tasks: p.tasks.map((t) => [t.id, t.name, t.estimated_time, t.dependencies, t.acceptance_criteria]),
    gate: p.validation_gate.map((g) => g.text),
    from: p.gate_from_source,
  }));

  it('"**Task N.M**" lines of their own (no list, no box) are the tasks, and the gate list after them is the gate', () => {
    const spec = parse(bold);
    assert.equal(spec.parser, 'spec_tasks_parser', 'not read as a checkbox list whose only boxes are the gate');
    assert.deepEqual(shape(spec), [{
      tasks: [['1.1', 'Write migration', '1h', [], ['migration runs']], ['1.2', 'Seed data', null, ['1.1'], []]],
      gate: ['Migrations apply cleanly', 'Approval by the DBA'], from: true,
    }]);
    assert.deepEqual(shape(parse(bold.replace(/- \[ \] /g, '- '))), shape(spec), 'a gate without boxes too');
  });

  it('"**Validation Gate:**" after "#### Task N.M" headings is the phase\'s gate, not the last task\'s description', () => {
    assert.deepEqual(shape(parse(headings)), [{
      tasks: [['1.1', 'Write migration', '1h', [], []], ['1.2', 'Seed data', null, [], []]],
      gate: ['Migrations apply cleanly', 'Approval by the DBA'], from: true,
    }]);
  });
});

describe('spec parsers: size', () => {
  it('the spec format with 210 tasks in 7 phases, CRLF', () => {
    const parts = ['# Big\r\n'];
    for (let ph = 1; ph <= 7; ph++) {
      parts.push(`### Phase ${ph}: Part ${ph}\r\n**Goal:** Do part ${ph}.\r\n`);
      for (let t = 1; t <= 30; t++) parts.push(`- [ ] **Task ${ph}.${t}**: Step ${t}\r\n  - **Estimated Time**: 1h\r\n  - **Acceptance Criteria**:\r\n    - [ ] Check ${t}\r\n`);
      parts.push('**Validation Gate:**\r\n- [ ] Tests pass\r\n');
    }
    const p = parse(parts.join(''));
    assert.equal(p.phases.length, 7);
    assert.equal(p.phases.reduce((n, ph) => n + ph.tasks.length, 0), 210);
    assert.equal(p.phases[6]!.tasks[29]!.id, '7.30');
  });

  it('a flat checkbox list of 250 tasks is one phase', () => {
    const text = Array.from({ length: 250 }, (_, i) => `- [ ] T${String(i + 1).padStart(3, '0')} Task number ${i + 1}`).join('\n');
    const p = parse(text);
    assert.equal(p.phases.length, 1);
    assert.equal(p.phases[0]!.tasks.length, 250);
    assert.equal(p.phases[0]!.tasks[249]!.id, 'T250');
  });
});
