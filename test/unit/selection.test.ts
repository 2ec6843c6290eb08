// Rule: a step is ready only when all its dependencies are completed, and among ready steps the broker picks by the spec's weights, ties alphabetical.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  computeReadySet, scoreParallelCandidates, type SelectableStep, type SelectionContext, type SteeringHints,
} from '../../src/core/broker/selection.js';

const step = (name: string, extra: Partial<SelectableStep> = {}): SelectableStep => ({
  name, dependencies: [], agent_name: 'implementer', path_patterns: [], tags: [], ...extra,
});

test("the spec's four-step example runs in exactly the spec's order", () => {
  const steps = [
    step('analyze-root-cause'),
    step('implement-fix', { dependencies: ['analyze-root-cause'] }),
    step('design-refactor', { dependencies: ['analyze-root-cause'] }),
    step('review-code', { dependencies: ['implement-fix', 'design-refactor'] }),
  ];
  const completed = new Set<string>();
  const trace: Array<{ ready: string[]; chosen: string; tie: string }> = [];
  for (;;) {
    const ready = computeReadySet(steps, completed);
    if (ready.length === 0) break;
    const result = scoreParallelCandidates(ready);
    trace.push({ ready: ready.map((s) => s.name), chosen: result.chosen.name, tie: result.tie_broken_by });
    completed.add(result.chosen.name);
  }
  assert.deepEqual(trace, [
    { ready: ['analyze-root-cause'], chosen: 'analyze-root-cause', tie: 'none' },
    { ready: ['implement-fix', 'design-refactor'], chosen: 'design-refactor', tie: 'alphabetical' },
    { ready: ['implement-fix'], chosen: 'implement-fix', tie: 'none' },
    { ready: ['review-code'], chosen: 'review-code', tie: 'none' },
  ]);
  assert.equal(completed.size, steps.length, 'workflow complete: every step completed');
});

test('ready set table', () => {
  const steps = [
    step('a'),
    step('b', { dependencies: ['a'] }),
    step('c', { dependencies: ['a', 'b'] }),
    step('d'),
  ];
  const cases: Array<[string[], string[], string[]]> = [
    [[], [], ['a', 'd']],
    [['a'], [], ['b', 'd']],
    [['a'], ['b'], ['d']],
    [['a', 'b'], ['d'], ['c']],
    [['a', 'b', 'c', 'd'], [], []],
    [['b'], [], ['a', 'd']], // c still needs a
  ];
  for (const [completed, running, expected] of cases) {
    const ready = computeReadySet(steps, new Set(completed), new Set(running)).map((s) => s.name);
    assert.deepEqual(ready, expected, `completed=${completed} running=${running}`);
  }
});

test('ready set keeps the extra fields of the caller type and does not mutate', () => {
  const steps = [{ ...step('x'), human_gate: true }, { ...step('y', { dependencies: ['x'] }), human_gate: false }];
  const copy = structuredClone(steps);
  const ready = computeReadySet(steps, new Set());
  assert.equal(ready[0]?.human_gate, true);
  assert.deepEqual(steps, copy);
});

type Case = { name: string; steps: SelectableStep[]; hints?: SteeringHints; context?: SelectionContext; chosen: string; scores: Record<string, number>; tie: 'alphabetical' | 'none' };

const weightCases: Case[] = [
  {
    name: 'explicit request +999 beats alphabetical order',
    steps: [step('alpha'), step('omega')],
    hints: { requested_step_name: 'omega' },
    chosen: 'omega', scores: { alpha: 0, omega: 999 }, tie: 'none',
  },
  {
    name: 'path match +2 per matching pattern',
    steps: [step('alpha', { path_patterns: ['docs/**'] }), step('beta', { path_patterns: ['src/**/*.ts', 'src/auth/**', 'test/**'] })],
    hints: { referenced_paths: ['src/auth/login.ts'] },
    chosen: 'beta', scores: { alpha: 0, beta: 4 }, tie: 'none',
  },
  {
    name: 'path patterns match dotfiles',
    steps: [step('alpha'), step('beta', { path_patterns: ['**/*.yml'] })],
    hints: { referenced_paths: ['.github/workflows/ci.yml'] },
    chosen: 'beta', scores: { alpha: 0, beta: 2 }, tie: 'none',
  },
  {
    name: 'tag match +1 each',
    steps: [step('alpha', { tags: ['docs'] }), step('beta', { tags: ['security', 'auth', 'perf'] })],
    hints: { intent_tags: ['security', 'auth'] },
    chosen: 'beta', scores: { alpha: 0, beta: 2 }, tie: 'none',
  },
  {
    name: 'focus path +1 each',
    steps: [step('alpha'), step('beta', { path_patterns: ['src/**'] })],
    context: { focus_paths: ['src/a.ts', 'src/b.ts'] },
    chosen: 'beta', scores: { alpha: 0, beta: 1 }, tie: 'none',
  },
  {
    name: 'agent affinity +1',
    steps: [step('alpha', { agent_name: 'reviewer' }), step('beta', { agent_name: 'tester' })],
    context: { current_agent: 'tester' },
    chosen: 'beta', scores: { alpha: 0, beta: 1 }, tie: 'none',
  },
  {
    name: 'last user choice +3 beats a path match (+2)',
    steps: [step('alpha', { path_patterns: ['src/**'] }), step('beta')],
    hints: { referenced_paths: ['src/x.ts'] },
    context: { last_user_choice: 'beta' },
    chosen: 'beta', scores: { alpha: 2, beta: 3 }, tie: 'none',
  },
  {
    name: 'weights add up across factors',
    steps: [
      step('alpha', { path_patterns: ['src/**'], tags: ['bug'], agent_name: 'fixer' }),
      step('beta', { path_patterns: ['src/**'] }),
    ],
    hints: { referenced_paths: ['src/x.ts'], intent_tags: ['bug'] },
    context: { focus_paths: ['src/y.ts'], current_agent: 'fixer', last_user_choice: 'alpha' },
    chosen: 'alpha', scores: { alpha: 2 + 1 + 1 + 1 + 3, beta: 2 + 1 }, tie: 'none',
  },
  {
    name: 'equal scores go alphabetical',
    steps: [step('zeta', { tags: ['x'] }), step('eta', { tags: ['x'] }), step('alpha')],
    hints: { intent_tags: ['x'] },
    chosen: 'eta', scores: { zeta: 1, eta: 1, alpha: 0 }, tie: 'alphabetical',
  },
  {
    name: 'requested step that is not a candidate scores nothing',
    steps: [step('b'), step('a')],
    hints: { requested_step_name: 'c' },
    chosen: 'a', scores: { a: 0, b: 0 }, tie: 'alphabetical',
  },
  {
    name: 'alphabetical is code-unit order, not locale order',
    steps: [step('b-step'), step('B-step')],
    chosen: 'B-step', scores: { 'b-step': 0, 'B-step': 0 }, tie: 'alphabetical',
  },
];

for (const c of weightCases) {
  test(`scoring: ${c.name}`, () => {
    const result = scoreParallelCandidates(c.steps, c.hints, c.context);
    assert.equal(result.chosen.name, c.chosen);
    assert.deepEqual(result.scores, c.scores);
    assert.equal(result.tie_broken_by, c.tie);
  });
}

test('all_candidates and parallel_opportunities list every ready step in rank order (spec)', () => {
  const steps = [step('c'), step('a'), step('b', { tags: ['t'] })];
  const result = scoreParallelCandidates(steps, { intent_tags: ['t'] });
  assert.deepEqual(result.all_candidates, ['b', 'a', 'c']);
  assert.deepEqual(result.parallel_opportunities, ['b', 'a', 'c']);
  assert.deepEqual(scoreParallelCandidates([step('only')]).parallel_opportunities, ['only']);
});

test("does not mutate the caller's array", () => {
  const steps = [step('c'), step('b'), step('a')];
  scoreParallelCandidates(steps);
  assert.deepEqual(steps.map((s) => s.name), ['c', 'b', 'a']);
});

test('reason names the winning factors and the tie-break', () => {
  const r1 = scoreParallelCandidates([step('a'), step('b', { tags: ['sec'] })], { requested_step_name: 'b', intent_tags: ['sec'] });
  assert.match(r1.reason, /'b'/);
  assert.match(r1.reason, /explicitly requested \(\+999\)/);
  assert.match(r1.reason, /1 intent-tag match \(\+1\)/);
  const r2 = scoreParallelCandidates([step('y'), step('x')]);
  assert.match(r2.reason, /tied with 'y'.*alphabetical/);
  const r3 = scoreParallelCandidates([step('solo')]);
  assert.match(r3.reason, /only ready step/);
});

test('empty candidates is a bug', () => {
  assert.throws(() => scoreParallelCandidates([]), (ex: unknown) => ex instanceof Error && !('reason' in ex));
});
