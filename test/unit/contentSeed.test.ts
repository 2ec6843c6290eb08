// Rule protected: the seed's own content (midex's server/content, the lifecycle spec's workflow files) loads unchanged:
// Markdown workflows whose frontmatter lists `phases` (phase, agent, description, dependsOn, allowParallel), its
// workflows/index.yaml registry and its agents/_shared_context.md are no problems, and a workflow's type and
// complexity come from its file when it says, else from its steps.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ContentProblem } from '../../src/core/api.js';
import { getTemplate, loadContent, syncContent } from '../../src/core/content/index.js';
import { ContentQueries } from '../../src/core/lifecycle/contentQueries.js';
import { nodeCrypto } from '../../src/host/nodePorts.js';
import { memoryFs } from '../fixtures/content/memoryFs.js';
import { openMemoryStore } from '../fixtures/content/memoryStore.js';

const SEED = join(__dirname, '..', 'fixtures', 'content', 'seed');
const seed = (file: string) => readFileSync(join(SEED, file), 'utf8');
const W = '/ws/.baton';

const load = (files: Record<string, string>) => loadContent(memoryFs(new Map(Object.entries(files).map(([f, t]) => [`${W}/${f}`, t]))), [W], nodeCrypto);

function assertOne(problems: ContentProblem[], file: string, line: number | null, pattern: RegExp): void {
  const hits = problems.filter((p) => p.path === `${W}/${file}` && pattern.test(p.message));
  assert.equal(hits.length, 1, `expected one problem matching ${pattern} in ${JSON.stringify(problems, null, 1)}`);
  assert.equal(hits[0]!.line, line, `line of ${hits[0]!.message}`);
}

/** A Markdown workflow with `fields` as its frontmatter lines and a body. */
const md = (...fields: string[]) => ['---', ...fields, '---', '', '# Doc', '', 'How it goes.', ''].join('\n');

test("the seed's workflows, registry and shared context load as they are, without a problem", async () => {
  const c = await load({
    'workflows/bug-fix.md': seed('workflows/bug-fix.md'),
    'workflows/parallel-code-review.md': seed('workflows/parallel-code-review.md'),
    'workflows/index.yaml': seed('workflows/index.yaml'),
    'agents/_shared_context.md': seed('agents/_shared_context.md'),
    'agents/security-specialist.md': seed('agents/security-specialist.md'),
  });
  // The only problems: the agents the two workflows name that these files do not define.
  assert.deepEqual(c.problems.filter((p) => !/is not defined in any agents\/ directory/.test(p.message)), []);
  assert.deepEqual(c.agents.map((a) => a.name), ['security-specialist']);
  assert.deepEqual(c.workflows.map((w) => [w.name, w.type, w.complexity, w.steps.length]), [
    ['bug-fix', 'sequential', 'moderate', 3], ['parallel-code-review', 'hybrid', 'high', 6],
  ]);
  const bugFix = c.workflows[0]!;
  assert.equal(bugFix.description, 'Systematic bug fixing workflow with diagnosis and verification');
  assert.deepEqual(bugFix.tags, ['workflows', 'bugfix', 'debugging', 'maintenance']);
  assert.deepEqual(bugFix.steps.map((s) => [s.name, s.agent, s.dependencies]), [
    ['diagnose', 'debugger', []], ['fix', 'implementer', ['diagnose']], ['verify', 'reviewer', ['fix']],
  ]);
  assert.equal(bugFix.steps[1]!.description, 'Implement fix with regression tests');
  assert.match(bugFix.content!, /^# Bug Fix Workflow\n\nSystematic approach/);
  assert.ok(!bugFix.content!.includes('dependsOn'), 'the body is what follows the frontmatter');
  const review = c.workflows[1]!;
  assert.deepEqual(review.steps.at(-1)!.dependencies, ['quality-review', 'security-review', 'performance-review', 'maintainability-review', 'architecture-review']);
  assert.equal(review.steps.at(-1)!.allow_parallel, false);
  assert.ok(review.steps.slice(0, 5).every((s) => s.dependencies.length === 0 && s.allow_parallel === undefined));
});

test("a phase's problems point at the file's own lines (the frontmatter starts on line 2)", async () => {
  const c = await load({
    'workflows/odd.md': md(
      'name: odd', 'description: Odd one', 'phases:', '  - phase: a', '    agent: debugger', '    description: first',
      '  - phase: b', '    agent: debugger', '    description: second', '    dependsOn: [nowhere]', '    allowParalel: true',
    ),
  });
  assert.deepEqual(c.workflows, []);
  assertOne(c.problems, 'workflows/odd.md', 11, /^step 'b': dependency 'nowhere' names no step in this workflow \(steps: a, b\)$/);
  assertOne(c.problems, 'workflows/odd.md', 12, /unknown field 'allowParalel'.*allowParallel/);
});

test('steps and phases, name and phase, dependencies and dependsOn: one of each pair, else a problem naming both', async () => {
  const c = await load({
    'workflows/both-lists.md': md(
      'name: both-lists', 'description: x', 'steps:', '  - name: a', '    agent: debugger', '    description: d',
      'phases:', '  - phase: b', '    agent: debugger', '    description: d',
    ),
    'workflows/both-names.yaml': [
      'name: both-names', 'description: x', 'phases:', '  - phase: a', '    name: a2', '    agent: debugger', '    description: d',
      '    dependsOn: []', '    dependencies: []', '',
    ].join('\n'),
  });
  assert.deepEqual(c.workflows, []);
  assertOne(c.problems, 'workflows/both-lists.md', 9, /^workflow: both 'steps' and 'phases' are given; keep one/);
  assertOne(c.problems, 'workflows/both-names.yaml', 4, /^step 'a2': both 'name' and 'phase' are given; keep one/);
  assertOne(c.problems, 'workflows/both-names.yaml', 8, /^step 'a2': both 'dependencies' and 'dependsOn' are given; keep one/);
});

test('a Markdown file with no frontmatter is documentation beside the workflows; frontmatter never closed is a problem', async () => {
  const c = await load({
    'workflows/README.md': '# Our workflows\n\n- [ ] write more\n',
    'workflows/open.md': '---\nname: open\ndescription: x\n',
    'workflows/bom.md': '\uFEFF---\r\nname: bom\r\ndescription: With a BOM and CRLF\r\nphases:\r\n  - phase: a\r\n    agent: debugger\r\n    description: d\r\n---\r\nBody.\r\n',
  });
  assert.deepEqual(c.workflows.map((w) => [w.name, w.content]), [['bom', 'Body.']]);
  assert.deepEqual(c.problems.filter((p) => !/agent 'debugger' is not defined/.test(p.message)).map((p) => [p.path, p.line, p.message]), [
    [`${W}/workflows/open.md`, 1, "frontmatter opened with '---' on line 1 is never closed; add a line with '---' after the last field"],
  ]);
});

test('without a type a workflow takes the one its dependencies make; a type or complexity it gives is kept or checked', async () => {
  const phase = (name: string, deps: string[] = []) => [`  - phase: ${name}`, '    agent: debugger', `    description: ${name}`, `    dependsOn: [${deps.join(', ')}]`];
  const c = await load({
    'workflows/chain.md': md('name: chain', 'description: x', 'phases:', ...phase('a'), ...phase('b', ['a']), ...phase('c', ['b'])),
    'workflows/fan.md': md('name: fan', 'description: x', 'phases:', ...phase('a'), ...phase('b')),
    'workflows/diamond.md': md('name: diamond', 'description: x', 'phases:', ...phase('a'), ...phase('b', ['a']), ...phase('c', ['a']), ...phase('d', ['b', 'c'])),
    'workflows/one.md': md('name: one', 'description: x', 'phases:', ...phase('a')),
    'workflows/said.md': md('name: said', 'description: x', 'type: parallel', 'complexity: simple', 'phases:', ...phase('a'), ...phase('b', ['a'])),
    'workflows/bad.md': md('name: bad', 'description: x', 'complexity: extreme', 'phases:', ...phase('a')),
  });
  assert.deepEqual(c.workflows.map((w) => [w.name, w.type, w.complexity ?? null]), [
    ['chain', 'sequential', null], ['diamond', 'hybrid', null], ['fan', 'parallel', null], ['one', 'sequential', null], ['said', 'parallel', 'simple'],
  ]);
  assertOne(c.problems, 'workflows/bad.md', 4, /^workflow: unknown complexity 'extreme' \(expected one of simple, moderate, high\)$/);
});

test('a registry is no workflow only when it lists workflows and has no steps; "_" files and READMEs are no items', async () => {
  const c = await load({
    'agents/README.md': '# Our agents\n\nOne file per persona.\n',
    'rules/readme.md': 'Rules go here.\n',
    'workflows/index.yaml': 'workflows:\n  - name: a\n    path: a.md\n',
    'workflows/mixed.yaml': 'name: mixed\ndescription: x\nworkflows: []\nsteps:\n  - name: a\n    agent: debugger\n    description: d\n',
    'rules/_notes.md': 'not a rule at all',
    'workflows/_draft.yaml': 'steps: [',
  });
  assert.deepEqual(c.workflows.map((w) => w.name), ['mixed']);
  assert.deepEqual([c.rules, c.agents], [[], []]);
  assert.deepEqual(c.problems.filter((p) => !/agent 'debugger' is not defined/.test(p.message)).map((p) => [p.path, p.message]), [
    [`${W}/workflows/mixed.yaml`, "workflow: unknown field 'workflows' is ignored (known fields: name, description, type, tags, complexity, estimated_duration_minutes, steps, phases, dynamic_phases, dynamic_config)"],
  ]);
});

test("the content tools answer with a workflow's own complexity, and find it by the words of its body", async () => {
  // Through the database as Baton keeps it: what the sync stores is what the tools read.
  const store = await openMemoryStore();
  await syncContent(store, { now: () => Date.UTC(2026, 0, 2) }, await load({ 'workflows/bug-fix.md': seed('workflows/bug-fix.md') }));
  const queries = new ContentQueries({ store } as never, {} as never, () => 1);
  const found = queries.searchWorkflows({ keywords: ['regression tests', 'root cause'], complexity: 'moderate' });
  assert.deepEqual(found.workflows.map((w) => [w.name, w.complexity, w.stepsCount]), [['bug-fix', 'moderate', 3]]);
  assert.equal(queries.searchWorkflows({ keywords: ['Quick to moderate complexity issues'] }).total, 1, 'a line of the body only');
  assert.equal(queries.searchWorkflows({ complexity: 'simple' }).total, 0, 'three steps would be simple by count; the file says moderate');
  assert.match(getTemplate(store, 'bug-fix')!.content!, /^# Bug Fix Workflow/);
});
