// Rule: the step graph is laid out top to bottom in layers — every dependency sits in a higher layer than its
// dependants, nodes do not overlap, edges run from dependency to dependant, unknown dependencies are ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { layoutGraph, nodeWidth } from '../../webview/graphLayout.js';

const bugFix = [
  { name: 'reproduce', dependencies: [] },
  { name: 'analyze', dependencies: ['reproduce'] },
  { name: 'write_test', dependencies: ['analyze'] },
  { name: 'implement_fix', dependencies: ['analyze'] },
  { name: 'review', dependencies: ['write_test', 'implement_fix', 'not_a_step'] },
];

function overlap(a: { x: number; y: number; width: number; height: number }, b: typeof a): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

test('layers follow dependencies, top to bottom', () => {
  const layout = layoutGraph(bugFix);
  const at = new Map(layout.nodes.map((n) => [n.name, n]));
  assert.deepEqual(layout.nodes.map((n) => [n.name, n.rank]), [
    ['reproduce', 0], ['analyze', 1], ['write_test', 2], ['implement_fix', 2], ['review', 3],
  ]);
  for (const s of bugFix) {
    for (const d of s.dependencies) {
      const dep = at.get(d);
      if (!dep) continue;
      assert.ok(dep.y + dep.height <= at.get(s.name)!.y, `${d} is above ${s.name}`);
    }
  }
  assert.equal(at.get('write_test')!.y, at.get('implement_fix')!.y, 'parallel steps share a layer');
});

test('nodes fit inside the picture and do not overlap', () => {
  const layout = layoutGraph(bugFix);
  for (const [i, a] of layout.nodes.entries()) {
    assert.ok(a.x >= 0 && a.y >= 0 && a.x + a.width <= layout.width && a.y + a.height <= layout.height, `${a.name} inside`);
    assert.ok(a.width >= nodeWidth(a.name), `${a.name} wide enough for its label`);
    for (const b of layout.nodes.slice(i + 1)) assert.ok(!overlap(a, b), `${a.name} and ${b.name} overlap`);
  }
});

test('edges go from each known dependency to its dependant, starting below it and ending above the dependant', () => {
  const layout = layoutGraph(bugFix);
  assert.deepEqual(layout.edges.map((e) => `${e.from}->${e.to}`).sort(), [
    'analyze->implement_fix', 'analyze->write_test', 'implement_fix->review', 'reproduce->analyze', 'write_test->review',
  ]);
  const at = new Map(layout.nodes.map((n) => [n.name, n]));
  for (const e of layout.edges) {
    assert.ok(e.points.length >= 2);
    const first = e.points[0]!;
    const last = e.points.at(-1)!;
    assert.ok(Math.abs(first.y - (at.get(e.from)!.y + at.get(e.from)!.height)) < 1, `${e.from}->${e.to} leaves the bottom`);
    assert.ok(Math.abs(last.y - at.get(e.to)!.y) < 1, `${e.from}->${e.to} enters the top`);
  }
});

test('empty, duplicate and self-dependent input is handled', () => {
  assert.deepEqual(layoutGraph([]).nodes, []);
  const layout = layoutGraph([{ name: 'a', dependencies: ['a'] }, { name: 'a', dependencies: [] }, { name: 'b', dependencies: ['a', 'a'] }]);
  assert.deepEqual(layout.nodes.map((n) => n.name), ['a', 'b']);
  assert.deepEqual(layout.edges.map((e) => `${e.from}->${e.to}`), ['a->b']);
  assert.ok(nodeWidth('a_very_long_step_name_indeed_yes') > nodeWidth('x'));
  const wide = layoutGraph([{ name: 'fix', dependencies: [], subtitle: 'awaiting approval · try 12 of many' }]);
  assert.ok(wide.nodes[0]!.width > nodeWidth('fix'), 'a long subtitle widens its node');
});
