// Rule protected: a content sync writes only what changed, in one transaction, reports only the kinds
// that changed, keeps template ids stable (deactivating, never deleting, templates that disappear),
// and contentRepo reads back exactly what was loaded.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  getAgent, getTemplate, getTemplateById, listAgents, listRules, listTemplates, loadContent, syncContent, type LoadedContent,
} from '../../src/core/content/index.js';
import type { Clock } from '../../src/core/ports.js';
import { nodeCrypto, nodeFileSystem } from '../../src/host/nodePorts.js';
import { memoryFs } from '../fixtures/content/memoryFs.js';
import { openMemoryStore } from '../fixtures/content/memoryStore.js';

const B = '/bundled';
const W = '/ws/.baton';
const clock = (ms: number): Clock & { ms: number } => {
  const c = { ms, now: () => c.ms };
  return c;
};

const agent = (name: string, extra = '') => `---\ndescription: The ${name}\n---\n# ${name} Agent\n\n**Role**: r${extra}\n`;
const rule = (name: string, always: boolean) => `---\ntags: [x]\nalways_apply: ${always}\n---\n- **NEVER** ${name}\n`;
const workflow = (name: string, description = 'd') =>
  `name: ${name}\ndescription: ${description}\ntype: hybrid\nestimated_duration_minutes: 15\nsteps:\n  - name: s\n    agent: alpha\n    description: t\n    human_gate: true\n`;

function files(): Map<string, string> {
  return new Map([
    [`${B}/agents/alpha.md`, agent('alpha')],
    [`${B}/agents/beta.md`, agent('beta')],
    [`${B}/rules/zeta.md`, rule('zeta', true)],
    [`${B}/rules/apple.md`, rule('apple', false)],
    [`${B}/rules/mango.md`, rule('mango', true)],
    [`${B}/workflows/one.yaml`, workflow('one')],
    [`${B}/workflows/two.yaml`, workflow('two')],
  ]);
}

const load = (f: Map<string, string>): Promise<LoadedContent> => loadContent(memoryFs(f), [B, W], nodeCrypto);

test('first sync writes everything in one transaction and reports every kind', async () => {
  const store = await openMemoryStore();
  const { changed } = await syncContent(store, clock(Date.UTC(2026, 0, 2)), await load(files()));
  assert.deepEqual(changed, ['agents', 'rules', 'workflows']);
  assert.equal(store.transactions, 1);
  const row = store.get<Record<string, unknown>>("SELECT * FROM workflow_templates WHERE name = 'one'")!;
  assert.equal(row['type'], 'hybrid');
  assert.equal(row['tags'], '[]');
  assert.equal(row['estimated_duration_minutes'], 15);
  assert.equal(row['active'], 1);
  assert.equal(row['source'], 'bundled');
  assert.equal(row['updated_at'], '2026-01-02T00:00:00.000Z');
  assert.equal(row['hash'], nodeCrypto.sha256(workflow('one')));
  assert.equal(JSON.parse(row['definition'] as string).steps[0].human_gate, true);
  const ruleRow = store.get<Record<string, unknown>>("SELECT * FROM rules WHERE name = 'zeta'")!;
  assert.deepEqual([ruleRow['always_apply'], ruleRow['tags'], ruleRow['globs']], [1, '["x"]', '[]']);
});

test('a second sync with the same files changes nothing and writes nothing', async () => {
  const store = await openMemoryStore();
  const c = clock(1_000);
  await syncContent(store, c, await load(files()));
  const before = { transactions: store.transactions, writes: store.writes };
  c.ms += 60_000;
  assert.deepEqual(await syncContent(store, c, await load(files())), { changed: [] });
  assert.deepEqual({ transactions: store.transactions, writes: store.writes }, before);
  assert.equal(store.get<{ n: number }>("SELECT COUNT(*) AS n FROM agents WHERE updated_at = ?", [new Date(1_000).toISOString()])!.n, 2);
});

test('only the kinds that changed are reported, and only changed rows are written', async () => {
  const store = await openMemoryStore();
  const f = files();
  await syncContent(store, clock(0), await load(f));
  f.set(`${B}/agents/beta.md`, agent('beta', ' (edited)'));
  const writesBefore = store.writes;
  assert.deepEqual((await syncContent(store, clock(5), await load(f))).changed, ['agents']);
  assert.equal(store.writes - writesBefore, 1);
  assert.match(getAgent(store, 'beta')!.content, /edited/);

  f.set(`${W}/rules/apple.md`, rule('apple-override', false));
  assert.deepEqual((await syncContent(store, clock(6), await load(f))).changed, ['rules']);
  assert.equal(listRules(store).find((r) => r.name === 'apple')!.source, 'workspace');

  f.delete(`${B}/agents/alpha.md`);
  f.delete(`${B}/rules/mango.md`);
  assert.deepEqual((await syncContent(store, clock(7), await load(f))).changed, ['agents', 'rules']);
  assert.equal(getAgent(store, 'alpha'), undefined);
  assert.deepEqual(listRules(store).map((r) => r.name), ['zeta', 'apple']);
});

test('a removed template is deactivated, keeps its id, and is reactivated when it comes back', async () => {
  const store = await openMemoryStore();
  const f = files();
  await syncContent(store, clock(0), await load(f));
  const id = getTemplate(store, 'two')!.id;

  const saved = f.get(`${B}/workflows/two.yaml`)!;
  f.delete(`${B}/workflows/two.yaml`);
  assert.deepEqual((await syncContent(store, clock(1), await load(f))).changed, ['workflows']);
  assert.equal(getTemplate(store, 'two'), undefined);
  assert.deepEqual(listTemplates(store).map((t) => t.name), ['one']);
  const inactive = getTemplateById(store, id)!;
  assert.equal(inactive.name, 'two');
  assert.equal(inactive.active, false);
  assert.deepEqual((await syncContent(store, clock(2), await load(f))).changed, [], 'deactivating is not repeated');

  f.set(`${B}/workflows/two.yaml`, saved);
  assert.deepEqual((await syncContent(store, clock(3), await load(f))).changed, ['workflows']);
  assert.equal(getTemplate(store, 'two')!.id, id);
  assert.equal(getTemplate(store, 'two')!.active, true);

  f.set(`${W}/workflows/two.yaml`, workflow('two', 'workspace version'));
  await syncContent(store, clock(4), await load(f));
  const overridden = getTemplate(store, 'two')!;
  assert.deepEqual([overridden.id, overridden.description, overridden.source], [id, 'workspace version', 'workspace']);
});

test('an invalid edit drops back to the bundled template rather than failing the sync', async () => {
  const store = await openMemoryStore();
  const f = files();
  f.set(`${W}/workflows/one.yaml`, workflow('one', 'mine'));
  await syncContent(store, clock(0), await load(f));
  assert.equal(getTemplate(store, 'one')!.description, 'mine');
  f.set(`${W}/workflows/one.yaml`, 'name: one\ntype: [\n');
  const loaded = await load(f);
  assert.deepEqual(loaded.problems.map((p) => p.message.replace(/:.*$/s, '')), ["until this file is valid, workflow 'one' is still the one from /bundled/workflows/one.yaml", 'YAML syntax error']);
  assert.deepEqual((await syncContent(store, clock(1), loaded)).changed, ['workflows']);
  assert.deepEqual([getTemplate(store, 'one')!.description, getTemplate(store, 'one')!.source], ['d', 'bundled']);
});

test('contentRepo reads round-trip what was loaded, with rules universal-first', async () => {
  const store = await openMemoryStore();
  const loaded = await load(files());
  await syncContent(store, clock(0), loaded);
  const strip = <T extends object>(x: T, keys: string[]) => Object.fromEntries(Object.entries(x).filter(([k]) => !keys.includes(k)));

  assert.deepEqual(listAgents(store).map((a) => strip(a, ['updated_at'])), loaded.agents.map((a) => ({ ...a })));
  assert.deepEqual(strip(getAgent(store, 'alpha')!, ['updated_at']), { ...loaded.agents[0] });
  assert.equal(getAgent(store, 'nobody'), undefined);

  assert.deepEqual(listRules(store).map((r) => r.name), ['mango', 'zeta', 'apple']);
  const byName = new Map(loaded.rules.map((r) => [r.name, r]));
  for (const r of listRules(store)) assert.deepEqual(strip(r, ['updated_at']), { ...byName.get(r.name) });

  const templates = listTemplates(store);
  assert.deepEqual(templates.map((t) => t.name), ['one', 'two']);
  for (const t of templates) {
    const original = loaded.workflows.find((w) => w.name === t.name)!;
    assert.deepEqual(strip(t, ['id', 'active', 'updated_at']), { ...original });
    assert.deepEqual(getTemplateById(store, t.id), t);
  }
});

test('the bundled content syncs and reads back', async () => {
  const store = await openMemoryStore();
  const loaded = await loadContent(nodeFileSystem, [join(__dirname, '../../content')], nodeCrypto);
  await syncContent(store, clock(0), loaded);
  assert.deepEqual(listRules(store).map((r) => r.name), ['security', 'code-quality']);
  assert.deepEqual(getTemplate(store, 'bug-fix')!.steps.map((s) => s.name), ['analyze-root-cause', 'implement-fix', 'write-tests', 'review-code']);
  assert.match(getAgent(store, 'supervisor')!.content, /^# Supervisor Agent/);
});
