// Rule: every phase and task of every fixture renders through the bundled templates with no placeholder left, the
// phase's gate and the task's acceptance criteria spelled out in command language; renders are cached per execution
// and an execution's entry is dropped whole; evidence is matched to gate items by number, text or position, and a
// key that matches no item is named.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { alignEvidence, checkEvidence } from '../../src/core/specs/evidence.js';
import { needsSignoff, renderPhase, renderTask, SpecContentCache } from '../../src/core/specs/render.js';
import { parseSource } from '../../src/core/specs/sourceParser.js';
import { SPEC_PARSERS } from '../../src/core/specs/specWorkflows.js';
import { bundledContentDir } from '../../src/host/openBaton.js';

const fixtures = join(__dirname, '..', 'fixtures', 'specs');
const templates = join(bundledContentDir(), 'spec-templates');
const phaseTemplate = readFileSync(join(templates, 'phase-template.md'), 'utf8');
const taskTemplate = readFileSync(join(templates, 'task-template.md'), 'utf8');
const PLACEHOLDER = /\[[A-Z][A-Z_]+\]/;

describe('spec rendering', () => {
  it('fills every placeholder of both templates for every phase and task of every fixture', () => {
    let phases = 0;
    let tasks = 0;
    // The files of this folder (others/ holds files written by others, checked in specRealWorld.test.ts).
    for (const file of readdirSync(fixtures).filter((f) => f.endsWith('.md') && f !== 'empty-phase.tasks.md')) {
      const text = readFileSync(join(fixtures, file), 'utf8');
      const parsed = parseSource(SPEC_PARSERS, 'auto', text, file);
      const ctx = { source: `specs/${file}`, totalPhases: parsed.phases.length + 1 };
      for (const phase of parsed.phases) {
        const r = renderPhase(phaseTemplate, phase, ctx);
        phases++;
        assert.doesNotMatch(r, PLACEHOLDER, `${file} phase ${phase.number}`);
        assert.doesNotMatch(r, /<!--/, 'the note for template authors is not sent');
        assert.ok(r.startsWith(`# Phase ${phase.number} of ${parsed.phases.length}: ${phase.name}`));
        assert.match(r, /🛑 Work on this phase only/);
        for (const [i, g] of phase.validation_gate.entries()) assert.ok(r.includes(`${i + 1}. ${g.text}`), g.text);
        for (const task of phase.tasks) {
          const t = renderTask(taskTemplate, phase, task, ctx);
          tasks++;
          assert.doesNotMatch(t, PLACEHOLDER, `${file} task ${task.id}`);
          assert.ok(t.startsWith(`# Task ${task.id}: ${task.name}`));
          for (const c of task.acceptance_criteria) assert.ok(t.includes(`- [ ] ${c}`), c);
          assert.match(t, /Acceptance criteria: all must hold/);
        }
      }
    }
    assert.ok(phases >= 15 && tasks >= 35, `${phases} phases, ${tasks} tasks`);
  });

  it('keeps brackets that are not placeholders, and names sign-off gates', () => {
    const text = '### Phase 1: A\n- [ ] **Task 1.1**: Link [the docs](https://x.y) and keep [P] as written\n**Validation Gate:**\n- [ ] Approval by the security team\n';
    const parsed = parseSource(SPEC_PARSERS, 'auto', text, 't.md');
    const phase = parsed.phases[0]!;
    const t = renderTask(taskTemplate, phase, phase.tasks[0]!, { source: 't.md', totalPhases: 2 });
    assert.ok(t.includes('[the docs](https://x.y) and keep [P] as written'));
    // A task's estimate is said only when the source gives one (never "Estimated not given.").
    assert.match(t, /task 1 of 1\. Depends on: none\./);
    const timed = parseSource(SPEC_PARSERS, 'auto', '### Phase 1: A\n- [ ] **Task 1.1**: B\n  - **Estimated Time**: 4 hours\n', 't.md').phases[0]!;
    assert.match(renderTask(taskTemplate, timed, timed.tasks[0]!, { source: 't.md', totalPhases: 2 }), /task 1 of 1\. Estimated 4 hours\. Depends on: none\./);
    assert.equal(needsSignoff(phase.validation_gate.map((g) => g.text)), true);
    assert.match(renderPhase(phaseTemplate, phase, { source: 't.md', totalPhases: 2 }), /A person signs this phase off/);
    assert.equal(needsSignoff(['All tests pass', 'Docs updated']), false);
  });

  it('says what waits for the gate (the next phase, or the close of the last), and the estimate only when given', () => {
    const text = '### Phase 1: A\n**Estimated Duration:** 2 days\n- [ ] **Task 1.1**: One\n### Phase 2: B\n- [ ] **Task 2.1**: Two\n';
    const [first, last] = parseSource(SPEC_PARSERS, 'auto', text, 't.md').phases;
    const ctx = { source: 't.md', totalPhases: 3 };
    const one = renderPhase(phaseTemplate, first!, ctx);
    assert.match(one, /1 task \(t\.md line 1\), estimated 2 days\./);
    assert.match(one, /🛑 Work on this phase only: Phase 2 stays locked until this one passes its gate\./);
    const two = renderPhase(phaseTemplate, last!, ctx);
    assert.match(two, /1 task \(t\.md line 4\)\.\n/, 'no "estimated not given"');
    assert.match(two, /🛑 Work on this phase only: it is the last; the workflow closes once it passes its gate\./);
    assert.doesNotMatch(two, /Phase 3/);
  });

  it('counts tasks as words ("1 task", "3 tasks"), and a phase with no description of its own says what it is for', () => {
    const text = '### Phase 1: A\n- [ ] **Task 1.1**: One\n### Phase 2: B\n- [ ] **Task 2.1**: X\n- [ ] **Task 2.2**: Y\n- [ ] **Task 2.3**: Z\n';
    const [one, three] = parseSource(SPEC_PARSERS, 'auto', text, 't.md').phases;
    const ctx = { source: 't.md', totalPhases: 3 };
    const first = renderPhase(phaseTemplate, { ...one!, description: '' }, ctx);
    assert.match(first, /\nDeliver the task below\.\n1 task \(t\.md line 1\)\./);
    const second = renderPhase(phaseTemplate, { ...three!, description: '' }, ctx);
    assert.match(second, /\nDeliver the 3 tasks below\.\n3 tasks \(t\.md line 3\)\./);
    const none = renderPhase(phaseTemplate, { ...one!, description: '', tasks: [] }, ctx);
    assert.match(none, /\nIt lists no tasks: meet its validation gate\.\n0 tasks \(t\.md line 1\)\./);
    assert.equal(renderPhase('[TASK_COUNT]', three!, ctx), '3', 'a template of its own keeps [TASK_COUNT]');
  });

  it('caches per execution and drops an execution whole', () => {
    const cache = new SpecContentCache();
    let renders = 0;
    const render = () => `r${++renders}`;
    assert.equal(cache.phase('a', 1, render), 'r1');
    assert.equal(cache.phase('a', 1, render), 'r1');
    assert.equal(cache.task('a', 1, 2, render), 'r2');
    assert.equal(cache.task('a', 1, 2, render), 'r2');
    assert.equal(cache.phase('b', 1, render), 'r3');
    cache.drop('a');
    assert.equal(cache.has('a'), false);
    assert.equal(cache.size(), 1);
    assert.equal(cache.phase('a', 1, render), 'r4', 'rendered again after the drop');
  });
});

describe('spec evidence', () => {
  const gate = ['Tests pass', 'Docs updated', 'Reviewed'];
  it('matches by number, by text (case and spacing aside) or by position', () => {
    assert.deepEqual(alignEvidence(gate, { 1: 'a', 'docs  UPDATED': 'b', 3: { pr: 12 } }), ['a', 'b', '{"pr":12}']);
    assert.deepEqual(alignEvidence(gate, ['a', '', 'c']), ['a', '', 'c']);
    assert.deepEqual(alignEvidence(gate, undefined), ['', '', '']);
  });
  it('names every missing item and passes a complete set', () => {
    assert.throws(() => checkEvidence('Phase 2', gate, { 2: 'x', 3: '   ' }), (ex: Error & { details?: { missing?: string[] } }) => {
      assert.match(ex.message, /Phase 2 is not complete: .*2 more items: "Tests pass"; "Reviewed"/);
      assert.deepEqual(ex.details?.missing, ['Tests pass', 'Reviewed']);
      return true;
    });
    assert.deepEqual(checkEvidence('Phase 2', gate, ['a', 'b', 'c']), ['a', 'b', 'c']);
  });
  it('names the keys that match no item, which is why their entries counted for nothing', () => {
    assert.throws(() => checkEvidence('Phase 2', gate, { 1: 'a', 4: 'b', 'Docs update': 'c', reviewed: 'd' }), (ex: Error & { details?: { unmatched?: string[] } }) => {
      assert.match(ex.message, /1 more item: "Docs updated"\. The keys "4", "Docs update" name no item of this gate\. Submit again /);
      assert.deepEqual(ex.details?.unmatched, ['4', 'Docs update']);
      return true;
    });
    // A flood of stray keys is named by its first five, each cut, so the answer stays small.
    const many = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`stray ${i} ${'x'.repeat(100)}`, 'e']));
    assert.throws(() => checkEvidence('Phase 2', gate, many), (ex: Error) => {
      assert.match(ex.message, /"stray 4 x+\u2026" \(108 characters\) and 2 more name no item of this gate\./);
      assert.ok(ex.message.length < 1000, String(ex.message.length));
      return true;
    });
    assert.throws(() => checkEvidence('Phase 2', gate, { 2: 'x' }), (ex: Error & { details?: Record<string, unknown> }) => {
      assert.doesNotMatch(ex.message, /name(s)? no item/);
      assert.equal('unmatched' in (ex.details ?? {}), false);
      return true;
    });
  });
});
