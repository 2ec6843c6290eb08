// Rule: conditions and interpolation mean what the docs say for every operator, nested path and edge case.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluate } from '../../src/core/pipelines/engine/conditions.js';
import { interpolate, lookup } from '../../src/core/pipelines/engine/interpolate.js';
import type { WorkflowStepCondition } from '../../src/core/pipelines/types.js';

const vars = {
  system: { input: 'Fix the BUG in cart' },
  review: 'Score: 7/10. Needs work',
  json: '{"score": 9, "tags": ["a", "b"], "nested": {"deep": "yes"}}',
  count: 3,
  empty: '',
  obj: { level: 'high', list: [1, 2] },
};

test('each operator, case-insensitive unless asked', () => {
  const cases: Array<[WorkflowStepCondition, boolean]> = [
    [{ field: 'system.input', operator: 'contains', value: 'bug' }, true],
    [{ field: 'system.input', operator: 'contains', value: 'bug', caseSensitive: true }, false],
    [{ field: 'system.input', operator: 'not_contains', value: 'feature' }, true],
    [{ field: 'obj.level', operator: 'equals', value: 'HIGH' }, true],
    [{ field: 'obj.level', operator: 'not_equals', value: 'high' }, false],
    [{ field: 'review', operator: 'matches', value: '^score: \\d+/10' }, true],
    [{ field: 'review', operator: 'not_matches', value: 'approved' }, true],
    [{ field: 'review', operator: 'gte', value: 7 }, true],
    [{ field: 'review', operator: 'gt', value: 7 }, false],
    [{ field: 'json.score', operator: 'lt', value: 10 }, true],
    [{ field: 'count', operator: 'lte', value: 2 }, false],
    [{ field: 'json.nested.deep', operator: 'exists' }, true],
    [{ field: 'empty', operator: 'exists' }, false],
    [{ field: 'missing', operator: 'not_exists' }, true],
    [{ all: [{ field: 'count', operator: 'gt', value: 1 }, { field: 'obj.level', operator: 'equals', value: 'high' }] }, true],
    [{ any: [{ field: 'count', operator: 'gt', value: 5 }, { field: 'missing', operator: 'exists' }] }, false],
    [{ not: { field: 'count', operator: 'gt', value: 5 } }, true],
  ];
  for (const [c, expected] of cases) assert.equal(evaluate(c, vars), expected, JSON.stringify(c));
});

test('a numeric test on text without a number, or a bad pattern, is an error naming the field', () => {
  assert.throws(() => evaluate({ field: 'obj.level', operator: 'gt', value: 1 }, vars), /'obj.level' is "high", not a number/);
  assert.throws(() => evaluate({ field: 'missing', operator: 'lt', value: 1 }, vars), /'missing' is not set, not a number/);
  assert.throws(() => evaluate({ field: 'review', operator: 'matches', value: '(' }, vars), /not a valid regular expression/);
});

test('interpolation fills dotted paths, JSON text and objects, and leaves unknown names as written', () => {
  assert.equal(interpolate('{{system.input}}!', vars), 'Fix the BUG in cart!');
  assert.equal(interpolate('{{ json.tags.1 }} {{json.nested.deep}} {{obj.list}}', vars), 'b yes [\n  1,\n  2\n]');
  assert.equal(interpolate('{{count}} {{nope}} {{system.nope}}', vars), '3 {{nope}} {{system.nope}}');
  assert.equal(lookup(vars, 'review.x'), undefined);
  assert.equal(interpolate('no placeholders', vars), 'no placeholders');
});
