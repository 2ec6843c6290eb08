// Rule: the folders of src/core (broker/, lifecycle/, content/, specs/, safety/) and its top-level files import one
// another without a cycle, type-only imports included, and src/core/api.ts is a leaf that imports no folder.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';

const coreDir = join(__dirname, '..', '..', 'src', 'core');

function coreFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? coreFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Relative specifiers of every `import … from`, `export … from` and `import('…')` in a source text. */
export function importSpecifiers(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/\b(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gms)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec?.startsWith('.')) out.push(spec);
  }
  return out;
}

/** The unit a core file belongs to: its first folder under src/core, or the file itself at the top level. */
function unitOf(file: string): string {
  const rel = relative(coreDir, file).split(/[\\/]/);
  return rel.length > 1 ? `${rel[0]}/` : rel[0]!;
}

/** The graph of units: an edge for every import from one unit into another. */
function unitGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of coreFiles(coreDir)) {
    const from = unitOf(file);
    if (!graph.has(from)) graph.set(from, new Map());
    for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      const to = unitOf(target);
      if (to !== from && !graph.get(from)!.has(to)) graph.get(from)!.set(to, `${relative(coreDir, file)} → ${spec}`);
    }
  }
  return graph;
}

/** Every cycle's units, found by depth-first search (one cycle per back edge). */
export function findCycles(graph: Map<string, Map<string, string>>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

describe('core import graph', () => {
  it('has no cycle among the folders and top-level files of src/core', () => {
    const graph = unitGraph();
    assert.ok(graph.has('broker/') && graph.has('lifecycle/'), `units: ${[...graph.keys()].join(', ')}`);
    const cycles = findCycles(graph).map((c) => c.map((u, i) => (i + 1 < c.length ? graph.get(u)!.get(c[i + 1]!) : u)).join('  ⇒  '));
    assert.deepEqual(cycles, []);
  });

  it('keeps api.ts a leaf: it imports only top-level type files, never a folder', () => {
    const imports = importSpecifiers(readFileSync(join(coreDir, 'api.ts'), 'utf8'));
    assert.ok(imports.length > 0);
    assert.deepEqual(imports.filter((s) => !/^\.\/[A-Za-z]+\.js$/.test(s)), []);
  });

  it('finds a cycle when there is one, type imports included (the check can fail)', () => {
    const src = "import type {\n  A,\n  B,\n} from '../api.js';\nexport { x } from './y.js';\nconst m = import('../z.js');";
    assert.deepEqual(importSpecifiers(src), ['../api.js', './y.js', '../z.js']);
    const graph = new Map([
      ['api.ts', new Map([['lifecycle/', 'a']])],
      ['lifecycle/', new Map([['broker/', 'b']])],
      ['broker/', new Map([['api.ts', 'c']])],
    ]);
    assert.deepEqual(findCycles(graph), [['api.ts', 'lifecycle/', 'broker/', 'api.ts']]);
  });
});
