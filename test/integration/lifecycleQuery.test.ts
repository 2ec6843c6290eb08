// Rule: findings are scoped to a project or global and found by ranked full-text search (AND / OR / NOT, "phrases",
// prefix*) plus severity, tag and category filters, a page at a time; the content tools answer with the detail,
// fields, content mode, ETag and redaction asked for; projects are discovered from paths with git detection, one per
// folder however its path is spelt.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeLifecycleWorkspace, openLifecycle, type LifecycleRig } from '../helpers/lifecycleHarness.js';

const FINDINGS = [
  { key: 'sqli', severity: 'critical', category: 'security', title: 'SQL injection in login', description: 'User input not sanitized before the query', tags: ['security', 'sql'] },
  { key: 'xss', severity: 'high', category: 'security', title: 'Reflected XSS', description: 'Script injection through the search page', tags: ['security', 'xss'] },
  { key: 'slow', severity: 'medium', category: 'performance', title: 'Slow query', description: 'Missing index on orders makes the report slow', tags: ['db', 'sql'] },
  { key: 'auth', severity: 'low', category: 'security', title: 'Weak authentication settings', description: 'Password policy allows short passwords', tags: ['auth'] },
  { key: 'docs', severity: 'info', category: 'docs', title: 'Outdated README', description: 'Authorization section describes the old flow', tags: ['docs'] },
  { key: 'inj2', severity: 'high', category: 'security', title: 'Command injection', description: 'Injection of shell arguments; injection again in the deploy script', tags: ['security'] },
];

describe('query_findings: full-text search, filters, pagination', () => {
  let rig: LifecycleRig;
  let executionId: string;
  const ids = new Map<string, string>();
  const keyOf = (id: string) => [...ids].find(([, v]) => v === id)?.[0];
  const search = async (args: Record<string, unknown>) => (await rig.ok('query_findings', args)).findings.map((f: { id: string }) => keyOf(f.id));

  before(async () => {
    rig = await openLifecycle();
    const e = await rig.ok('start_execution', { workflowName: 'security-audit' });
    executionId = e.id;
    for (const f of FINDINGS) {
      const { key, ...rest } = f;
      ids.set(key, (await rig.ok('store_finding', { executionId, ...rest, location: { file: 'src/app.ts', line: 3 } })).id);
    }
  });
  after(() => rig.close());

  it('stores a finding with its scope, tags, location and metadata', async () => {
    const f = await rig.ok('store_finding', { executionId, severity: 'info', category: 'misc', title: 'Note', description: 'A note', metadata: { by: 'test' } });
    assert.equal(f.isGlobal, false);
    assert.equal(typeof f.projectId, 'number', "the execution's project by default");
    assert.deepEqual(f.metadata, { by: 'test' });
    const d = await rig.ok('get_execution_details', { executionId, includeFindings: true, includeSteps: false });
    assert.deepEqual(d.findings.find((x: { title: string }) => x.title === 'SQL injection in login').location, { file: 'src/app.ts', line: 3 });
  });

  it('matches all terms by default (implicit AND)', async () => {
    assert.deepEqual(await search({ searchText: 'injection login' }), ['sqli']);
  });

  it('supports OR', async () => {
    assert.deepEqual((await search({ searchText: 'xss OR index' })).sort(), ['slow', 'xss']);
  });

  it('supports NOT, AND NOT and -term', async () => {
    for (const q of ['injection NOT command', 'injection AND NOT command', 'injection -command']) {
      assert.deepEqual((await search({ searchText: q })).sort(), ['sqli', 'xss'], q);
    }
  });

  it('supports "phrases"', async () => {
    assert.deepEqual(await search({ searchText: '"input not sanitized"' }), ['sqli']);
    assert.deepEqual(await search({ searchText: '"sanitized input"' }), []);
  });

  it('supports prefix* (authentication and Authorization both start with auth)', async () => {
    assert.deepEqual((await search({ searchText: 'auth*' })).sort(), ['auth', 'docs']);
  });

  it('searches tags and category too, and groups with parentheses', async () => {
    assert.deepEqual((await search({ searchText: 'performance' })), ['slow']);
    assert.deepEqual((await search({ searchText: '(xss OR sql) AND security' })).sort(), ['sqli', 'xss']);
    assert.deepEqual((await search({ searchText: 'title:injection' })).sort(), ['inj2', 'sqli']);
  });

  it('ranks by relevance: more and title hits first, with a score', async () => {
    const r = await rig.ok('query_findings', { searchText: 'injection' });
    assert.equal(keyOf(r.findings[0].id), 'inj2', 'three hits, one in the title');
    const scores = r.findings.map((f: { score: number }) => f.score);
    assert.deepEqual([...scores].sort((a, b) => b - a), scores);
    assert.ok(scores.every((s: number) => s > 0));
    assert.equal(r.ftsQuery, 'injection');
  });

  it('refuses a query FTS4 cannot run, with examples', async () => {
    for (const [q, why] of [['"open quote', /a quote is not closed/], ['NOT xss', /starts with NOT .*injection NOT test/], ['a OR', /ends with OR/], ['(a', /"\(" is not closed/]] as const) {
      const r = await rig.call('query_findings', { searchText: q });
      assert.equal(r.isError, true, q);
      assert.match(r.text, why);
      assert.match(r.text, /prefix\*/);
    }
    // A search of only spaces is no search: refused, not answered with every finding as if no searchText were given.
    for (const q of ['   ', '\t\n']) {
      const r = await rig.call('query_findings', { searchText: q });
      assert.equal(r.isError, true, JSON.stringify(q));
      assert.match(r.text, /^Invalid arguments for query_findings: searchText must be a search string with at least one term \(not only spaces\): terms, OR, NOT, "phrases", prefix\* \(got "/);
    }
  });

  it('filters by one severity or several, category and tags', async () => {
    assert.deepEqual((await search({ severity: 'critical' })), ['sqli']);
    assert.deepEqual((await search({ severity: ['high', 'critical'] })).sort(), ['inj2', 'sqli', 'xss']);
    assert.deepEqual((await search({ category: 'performance' })), ['slow']);
    assert.deepEqual((await search({ tags: ['sql'] })).sort(), ['slow', 'sqli']);
    assert.deepEqual((await search({ tags: ['xss', 'auth'] })).sort(), ['auth', 'xss']);
    assert.deepEqual((await search({ searchText: 'injection', severity: 'critical' })), ['sqli']);
    assert.match((await rig.call('query_findings', { severity: 'urgent' })).text, /severity must be one of info, low, medium, high, critical/);
  });

  it('pages with limit and offset: stable total, disjoint pages, ranked order kept across pages', async () => {
    const all = await rig.ok('query_findings', { executionId, limit: 500 });
    const p1 = await rig.ok('query_findings', { executionId, limit: 3, offset: 0 });
    const p2 = await rig.ok('query_findings', { executionId, limit: 3, offset: 3 });
    assert.equal(p1.total, all.total);
    assert.equal(p2.total, all.total);
    assert.deepEqual([...p1.findings, ...p2.findings].map((f: { id: string }) => f.id), all.findings.slice(0, 6).map((f: { id: string }) => f.id));
    const r1 = await rig.ok('query_findings', { searchText: 'security OR sql', limit: 2 });
    const r2 = await rig.ok('query_findings', { searchText: 'security OR sql', limit: 2, offset: 2 });
    const rall = await rig.ok('query_findings', { searchText: 'security OR sql' });
    assert.deepEqual([...r1.findings, ...r2.findings].map((f: { id: string }) => f.id), rall.findings.slice(0, 4).map((f: { id: string }) => f.id));
  });

  it('the text content carries each finding (agents that read only text see the values) and says how to page on', async () => {
    const page = await rig.call('query_findings', { executionId, limit: 2, offset: 1 });
    const { findings: [first], total } = await rig.ok('query_findings', { executionId, limit: 2, offset: 1 });
    assert.ok(total > 3);
    assert.match(page.text, new RegExp(`^2 of ${total} findings from 2:\\n\\n## \\[${first.severity}\\] ${first.category}: ${first.title} \\(${first.id}\\)\\n`));
    assert.ok(page.text.includes(first.description));
    assert.match(page.text, new RegExp(`… ${total - 3} more, narrow the query \\(searchText, severity, category or tags; or offset 3 for the next page\\)\\.$`));
    assert.equal((await rig.call('query_findings', { executionId, searchText: 'neverstoredword' })).text, 'No findings.');
  });

  it('scopes by project: a project sees its own findings plus global ones, not another project\'s', async () => {
    const wsA = makeLifecycleWorkspace();
    const wsB = makeLifecycleWorkspace();
    try {
      const a = await rig.ok('start_execution', { workflowName: 'bug-fix', projectPath: wsA });
      const b = await rig.ok('start_execution', { workflowName: 'bug-fix', projectPath: wsB });
      await rig.ok('store_finding', { executionId: a.id, severity: 'low', category: 'scope', title: 'only A', description: 'zebra in A' });
      await rig.ok('store_finding', { executionId: b.id, severity: 'low', category: 'scope', title: 'only B', description: 'zebra in B' });
      await rig.ok('store_finding', { executionId: b.id, severity: 'low', category: 'scope', title: 'for all', description: 'zebra everywhere', isGlobal: true });
      const titles = async (args: Record<string, unknown>) => (await rig.ok('query_findings', { category: 'scope', ...args })).findings.map((f: { title: string }) => f.title).sort();
      assert.deepEqual(await titles({ projectId: a.projectId }), ['for all', 'only A']);
      assert.deepEqual(await titles({ projectId: b.projectId }), ['for all', 'only B']);
      assert.deepEqual(await titles({ projectId: a.projectId, searchText: 'zebra' }), ['for all', 'only A']);
      assert.deepEqual(await titles({ isGlobal: true }), ['for all']);
      assert.deepEqual(await titles({ isGlobal: false }), ['only A', 'only B']);
    } finally {
      rmSync(wsA, { recursive: true, force: true });
      rmSync(wsB, { recursive: true, force: true });
    }
  });

  it('finds findings the broker stored from model_output_so_far too (one findings table, one index)', async () => {
    const first = (await rig.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } })).structuredContent as any;
    const finding = { severity: 'high', category: 'security', description: 'Quokka tokens leak into the access log', recommendation: 'mask them' };
    await rig.client.callTool({
      name: 'workflow_next_step',
      arguments: { step_token: first.new_step_token, model_output_so_far: { summary: 's', artifacts: [], references: [], confidence: 0.5, findings: [finding] } },
    });
    const r = await rig.ok('query_findings', { searchText: 'quokka' });
    assert.equal(r.total, 1);
    assert.equal(r.findings[0].stepName, 'analyze-root-cause');
    assert.match(r.findings[0].stepId, /^\d+$/);
  });
});

const AGENT_WITH_PII = `---
name: leaky
description: An agent whose notes hold personal data and secrets
---

# Leaky Agent

Contact jane.doe@example.com or +1 (555) 123-4567; the box is at 10.20.30.40 and fe80::1ff:fe23:4567:890a.
Deploy key AKIAIOSFODNN7EXAMPLE and https://admin:hunter2@db.internal/app.
`;

describe('content tools', () => {
  let rig: LifecycleRig;
  let agentPath: string;
  before(async () => {
    rig = await openLifecycle({ files: { 'agents/leaky.md': AGENT_WITH_PII } });
    agentPath = join(rig.workspace, '.baton', 'agents', 'leaky.md');
  });
  after(() => rig.close());

  it('search_workflows filters by tags, keywords and complexity at the asked detail level', async () => {
    const all = await rig.ok('search_workflows', {});
    assert.deepEqual(all.workflows.map((w: { name: string }) => w.name), ['bug-fix', 'feature-implementation', 'security-audit', 'spec_execution_v1']);
    assert.ok(all.workflows.every((w: Record<string, unknown>) => typeof w.description === 'string' && typeof w.stepsCount === 'number'));
    assert.deepEqual((await rig.ok('search_workflows', { tags: ['bug'] })).workflows.map((w: { name: string }) => w.name), ['bug-fix']);
    assert.deepEqual((await rig.ok('search_workflows', { keywords: ['root', 'cause'] })).workflows.map((w: { name: string }) => w.name), ['bug-fix']);
    assert.deepEqual((await rig.ok('search_workflows', { complexity: 'moderate' })).workflows.map((w: { name: string }) => w.name), ['bug-fix', 'feature-implementation', 'security-audit']);
    // spec_execution_v1 has one step of its own (Phase 0); its other phases come from the tasks.md it runs.
    assert.deepEqual((await rig.ok('search_workflows', { complexity: 'simple' })).workflows.map((w: { name: string }) => w.name), ['spec_execution_v1']);
    assert.deepEqual((await rig.ok('search_workflows', { detailLevel: 'name' })).workflows[0], { kind: 'workflow', name: 'bug-fix' });
  });

  it('search_workflows pages with page and limit', async () => {
    const p2 = await rig.ok('search_workflows', { page: 2, limit: 2, detailLevel: 'name' });
    assert.deepEqual(p2, { workflows: [{ kind: 'workflow', name: 'security-audit' }, { kind: 'workflow', name: 'spec_execution_v1' }], total: 4, page: 2, limit: 2 });
  });

  it('get_workflow returns name, summary and full detail; full carries the parsed template', async () => {
    const name = await rig.ok('get_workflow', { workflowName: 'bug-fix', detailLevel: 'name', includeHash: false });
    assert.deepEqual(name, { kind: 'workflow', name: 'bug-fix' });
    const summary = await rig.ok('get_workflow', { workflowName: 'bug-fix' });
    assert.equal(summary.content, undefined);
    assert.equal(summary.complexity, 'moderate');
    const full = await rig.ok('get_workflow', { workflowName: 'bug-fix', detailLevel: 'full' });
    assert.equal(full.contentMode, 'normalized');
    assert.deepEqual(full.content.steps.map((s: { name: string }) => s.name), ['analyze-root-cause', 'implement-fix', 'write-tests', 'review-code']);
  });

  it('get_workflow content modes: raw is the file text, synthesized is markdown, mixed is both parsed and raw', async () => {
    const file = readFileSync(join(__dirname, '..', '..', 'content', 'workflows', 'bug-fix.yaml'), 'utf8');
    const raw = await rig.ok('get_workflow', { workflowName: 'bug-fix', detailLevel: 'full', contentMode: 'raw' });
    assert.equal(raw.raw, file);
    assert.equal(raw.content, undefined);
    const md = await rig.ok('get_workflow', { workflowName: 'bug-fix', detailLevel: 'full', contentMode: 'synthesized' });
    assert.match(md.synthesized, /^# bug-fix\n/);
    assert.match(md.synthesized, /2\. \*\*implement-fix\*\* \(implementer\) — .*Depends on: analyze-root-cause\./s);
    const mixed = await rig.ok('get_workflow', { workflowName: 'bug-fix', detailLevel: 'full', contentMode: 'mixed' });
    assert.equal(mixed.raw, file);
    assert.ok(mixed.content.steps);
  });

  it('fields keeps only the named fields (plus kind and name)', async () => {
    const r = await rig.ok('get_workflow', { workflowName: 'bug-fix', fields: ['tags'] });
    assert.deepEqual(Object.keys(r).sort(), ['kind', 'name', 'tags']);
    // A name that is no field of any answer (misspelt) is refused, naming the ones there are; it was dropped silently.
    const typo = await rig.call('get_workflow', { workflowName: 'bug-fix', fields: ['tags', 'descripton'] });
    assert.equal(typo.isError, true);
    assert.match(typo.text, /^Invalid arguments for get_workflow: fields\[1\] must be one of kind, name, description, .* \(got "descripton"\)/);
    for (const odd of ['__proto__', 'constructor']) assert.equal((await rig.call('get_agent_persona', { agentName: 'leaky', fields: [odd] })).isError, true, odd);
    // And every field an answer can have may be named: the full answers of each kind, in every content mode.
    const every = new Set<string>();
    for (const contentMode of ['mixed', 'synthesized']) {
      for (const key of Object.keys(await rig.ok('get_workflow', { workflowName: 'bug-fix', detailLevel: 'full', contentMode }))) every.add(key);
      for (const key of Object.keys(await rig.ok('get_agent_persona', { agentName: 'leaky', detailLevel: 'full', contentMode }))) every.add(key);
      for (const rule of (await rig.ok('get_relevant_rules', { detailLevel: 'full', contentMode })).rules) for (const key of Object.keys(rule)) every.add(key);
    }
    const kept = await rig.ok('get_workflow', { workflowName: 'bug-fix', detailLevel: 'full', contentMode: 'mixed', fields: [...every] });
    assert.ok(Object.keys(kept).length > 10, JSON.stringify(Object.keys(kept)));
  });

  it("includeHash gives the file hash as the spec's fileHash (contentHash its alias); ifNoneMatch with it answers notModified", async () => {
    const file = readFileSync(agentPath, 'utf8');
    const hash = createHash('sha256').update(file).digest('hex');
    const r = await rig.ok('get_agent_persona', { agentName: 'leaky' });
    assert.equal(r.fileHash, hash);
    assert.equal(r.contentHash, hash);
    const bare = await rig.ok('get_agent_persona', { agentName: 'leaky', includeHash: false });
    assert.deepEqual([bare.fileHash, bare.contentHash], [undefined, undefined]);
    for (const tag of [hash, `"${hash}"`, `W/"${hash}"`]) {
      assert.deepEqual(await rig.ok('get_agent_persona', { agentName: 'leaky', ifNoneMatch: tag }), { notModified: true, fileHash: hash, contentHash: hash });
    }
    const stale = await rig.ok('get_agent_persona', { agentName: 'leaky', ifNoneMatch: 'old' });
    assert.equal(stale.name, 'leaky');
  });

  it('ETag changes when the file changes (after a content sync)', async () => {
    const before = (await rig.ok('get_workflow', { workflowName: 'bug-fix' })).fileHash;
    const w = join(rig.workspace, '.baton', 'workflows');
    mkdirSync(w, { recursive: true });
    writeFileSync(join(w, 'bug-fix.yaml'), readFileSync(join(__dirname, '..', '..', 'content', 'workflows', 'bug-fix.yaml'), 'utf8').replace('Debug and fix', 'Debug and repair'));
    await rig.baton.syncContent();
    const after = await rig.ok('get_workflow', { workflowName: 'bug-fix', ifNoneMatch: before });
    assert.notEqual(after.fileHash, before);
    assert.equal(after.notModified, undefined);
    rmSync(join(w, 'bug-fix.yaml'));
    await rig.baton.syncContent();
  });

  it('redactPolicy none / pii / secrets / pii+secrets each remove what they cover and keep the rest', async () => {
    const body = async (redactPolicy: string) => (await rig.ok('get_agent_persona', { agentName: 'leaky', detailLevel: 'full', redactPolicy })).content.content as string;
    const none = await body('none');
    for (const s of ['jane.doe@example.com', '(555) 123-4567', '10.20.30.40', 'fe80::1ff:fe23:4567:890a', 'AKIAIOSFODNN7EXAMPLE', 'hunter2']) assert.ok(none.includes(s), s);
    const pii = await body('pii');
    for (const s of ['jane.doe@example.com', '123-4567', '10.20.30.40', 'fe80::1ff']) assert.ok(!pii.includes(s), `pii removes ${s}`);
    assert.ok(pii.includes('AKIAIOSFODNN7EXAMPLE') && pii.includes('hunter2'), 'pii keeps secrets');
    assert.match(pii, /\[REDACTED:email\].*\[REDACTED:phone\].*\[REDACTED:ip\]/s);
    const secrets = await body('secrets');
    assert.ok(!secrets.includes('AKIAIOSFODNN7EXAMPLE') && !secrets.includes('hunter2'));
    assert.ok(secrets.includes('jane.doe@example.com') && secrets.includes('10.20.30.40'), 'secrets keeps personal data');
    const both = await body('pii+secrets');
    for (const s of ['jane.doe@example.com', '123-4567', '10.20.30.40', 'AKIAIOSFODNN7EXAMPLE', 'hunter2']) assert.ok(!both.includes(s), `both remove ${s}`);
  });

  it('get_agent_persona refuses an unknown agent with the list of agents', async () => {
    assert.match((await rig.call('get_agent_persona', { agentName: 'ghost' })).text, /No agent "ghost"\. Agents: architect, debugger, implementer, leaky, reviewer, supervisor/);
  });

  it('get_relevant_rules filters by tags, file types and alwaysApply, with a list ETag', async () => {
    const names = async (args: Record<string, unknown>) => (await rig.ok('get_relevant_rules', { detailLevel: 'name', ...args })).rules.map((r: { name: string }) => r.name);
    assert.deepEqual(await names({}), ['security', 'code-quality']);
    assert.deepEqual(await names({ tags: ['testing'] }), ['code-quality']);
    assert.deepEqual(await names({ fileTypes: ['*.ts'] }), ['security', 'code-quality']);
    assert.deepEqual(await names({ fileTypes: ['README.md'] }), ['security']);
    assert.deepEqual(await names({ fileTypes: ['py'] }), ['security']);
    assert.deepEqual(await names({ alwaysApply: false }), ['code-quality']);
    const full = await rig.ok('get_relevant_rules', { tags: ['security'], detailLevel: 'full', contentMode: 'synthesized' });
    assert.match(full.rules[0].synthesized, /^# security\n/);
    assert.deepEqual(await rig.ok('get_relevant_rules', { tags: ['security'], ifNoneMatch: full.listHash }), { notModified: true, listHash: full.listHash, contentHash: full.listHash });
    const page = await rig.ok('get_relevant_rules', { detailLevel: 'name', limit: 1, page: 2 });
    assert.deepEqual([page.total, page.rules.map((r: { name: string }) => r.name)], [2, ['code-quality']]);
  });
});

describe('content tools: projects', () => {
  it('discovers a project from a path inside a git repository (a .git folder or file up the tree)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'baton-git-'));
    const sub = join(root, 'packages', 'app');
    mkdirSync(sub, { recursive: true });
    mkdirSync(join(root, '.git'));
    const worktree = mkdtempSync(join(tmpdir(), 'baton-wt-'));
    writeFileSync(join(worktree, '.git'), 'gitdir: /elsewhere/.git/worktrees/x\n');
    const plain = mkdtempSync(join(tmpdir(), 'baton-plain-'));
    const rig = await openLifecycle();
    try {
      const p = await rig.ok('get_project_context', { projectPath: `${sub}/` });
      assert.equal(p.path, sub);
      assert.equal(p.name, 'app');
      assert.equal(p.isGitRepo, true);
      assert.deepEqual(p.metadata, { gitRoot: root });
      assert.equal((await rig.ok('get_project_context', { projectPath: worktree })).isGitRepo, true);
      assert.equal((await rig.ok('get_project_context', { projectPath: plain })).isGitRepo, false);
      const again = await rig.ok('get_project_context', { projectPath: sub });
      assert.equal(again.id, p.id, 'the same folder is the same project');
      // However it is spelt: with . and .. segments and doubled separators it is still that folder, not a new row.
      for (const spelt of [`${root}/packages/./app`, `${root}/packages/app/../app/.`, `${root}//packages///app//`, `${sub}/x/..`]) {
        const same = await rig.ok('get_project_context', { projectPath: spelt });
        assert.deepEqual([same.id, same.path, same.name], [p.id, sub, 'app'], spelt);
      }
      assert.equal((await rig.ok('list_projects', { limit: 500 })).projects.filter((x: { path: string }) => x.path.startsWith(root)).length, 1);
      const long = (await rig.call('get_project_context', { projectPath: `/${'a'.repeat(100_000)}` })).text;
      assert.match(long, /^No folder at "\/a{119}…" \(100001 characters\); pass the absolute path/, 'a long path is not echoed whole');
      const ws = await rig.ok('get_project_context', {});
      assert.equal(ws.path, rig.workspace);
      assert.match((await rig.call('get_project_context', { projectPath: join(root, 'missing') })).text, /No folder at/);
      assert.match((await rig.call('get_project_context', { projectPath: 'packages/app' })).text, /is relative; pass the absolute path/);
      // A file is not a project: the answer names its folder; nothing is registered.
      const file = join(sub, 'package.json');
      writeFileSync(file, '{}');
      const before = (await rig.ok('list_projects', { limit: 500 })).total;
      assert.equal((await rig.call('get_project_context', { projectPath: file })).text,
        `projectPath "${file}" is a file, not a folder; pass the project's folder, such as "${sub}".`);
      assert.match((await rig.call('start_execution', { workflowName: 'bug-fix', projectPath: file })).text, /is a file, not a folder/);
      assert.equal((await rig.ok('list_projects', { limit: 500 })).total, before);
    } finally {
      await rig.close();
      for (const d of [root, worktree, plain]) rmSync(d, { recursive: true, force: true });
    }
  });

  it('registers every workspace folder at start-up and lists projects a page at a time', async () => {
    const a = makeLifecycleWorkspace();
    const b = makeLifecycleWorkspace();
    mkdirSync(join(b, '.git'));
    const rig = await openLifecycle({ workspace: a, options: { workspaceFolders: [a, b] } });
    try {
      const all = await rig.ok('list_projects', {});
      assert.deepEqual(all.projects.map((p: { path: string }) => p.path).sort(), [a, b].sort());
      assert.deepEqual(all.projects.map((p: { path: string; isGitRepo: boolean }) => `${p.path === b}:${p.isGitRepo}`).sort(), ['false:false', 'true:true']);
      assert.ok(all.projects.every((p: Record<string, unknown>) => typeof p.discoveredAt === 'string' && typeof p.lastUsedAt === 'string'));
      const p1 = await rig.ok('list_projects', { page: 1, limit: 1 });
      const p2 = await rig.ok('list_projects', { page: 2, limit: 1 });
      assert.equal(p1.total, 2);
      assert.notEqual(p1.projects[0].id, p2.projects[0].id);
    } finally {
      await rig.close();
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    }
  });
});

describe('an agent file Baton leaves out', () => {
  let rig: LifecycleRig;
  before(async () => {
    // Not frontmatter Baton can read in any way (a list, not fields): the file is left out.
    rig = await openLifecycle({
      files: {
        'agents/broken.md': '---\n- name: broken\n---\n# Broken\n',
        // A name that is no name (a list): the file would go by its file name, so it is named under that one.
        'agents/listed.md': '---\nname: [a, b]\ndescription: 42\n---\nPERSONA BODY\n',
        'workflows/uses-broken.yaml': 'name: uses-broken\ndescription: d\ntype: sequential\nsteps:\n  - name: s\n    agent: broken\n    description: do it\n',
      },
    });
  });
  after(() => rig.close());

  it('is named with its problem where the agent is asked for (persona:// and get_agent_persona), not as missing', async () => {
    await assert.rejects(rig.client.readResource({ uri: 'persona://broken' }), (ex: Error) => {
      assert.match(ex.message, /No agent "broken"; \/.+\/\.baton\/agents\/broken\.md defines it but is left out until it is fixed \(line 2: frontmatter must be a mapping of fields .+\)\. Agents: architect,/);
      return true;
    });
    const r = await rig.call('get_agent_persona', { agentName: 'broken' });
    assert.equal(r.isError, true);
    assert.match(r.text, /No agent "broken"; .+agents\/broken\.md defines it but is left out until it is fixed \(line 2: /);
    const listed = await rig.call('get_agent_persona', { agentName: 'listed' });
    assert.match(listed.text, /No agent "listed"; .+agents\/listed\.md defines it but is left out until it is fixed \(line 2: /);
    const other = await rig.call('get_agent_persona', { agentName: 'nobody' });
    assert.match(other.text, /No agent "nobody"\. Agents: /, 'an agent no file meant is just missing');
  });

  it("a step of that agent says in its context that the persona is missing or left out, and where to see which", async () => {
    const first = (await rig.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'uses-broken' } })).structuredContent as { context: { persona_summary: string } };
    assert.equal(first.context.persona_summary, 'Agent "broken" (no persona loaded: its file is missing or left out for a problem; read persona://broken to see which).');
  });
});

describe('a workflow file Baton leaves out', () => {
  let rig: LifecycleRig;
  before(async () => {
    // Valid YAML whose steps depend on each other in a cycle: the template is left out, and the agent must hear why.
    rig = await openLifecycle({
      files: {
        'workflows/loop.yaml': [
          'name: loop', 'description: d', 'type: sequential', 'steps:',
          '  - { name: one, agent: implementer, description: d, dependencies: [two] }',
          '  - { name: two, agent: reviewer, description: d, dependencies: [one] }', '',
        ].join('\n'),
      },
    });
  });
  after(() => rig.close());

  it('is named with its file, line and problem where the template is asked for (workflow_next_step, get_workflow, start_execution)', async () => {
    const why = /No workflow (?:template )?"loop"; \/.+\/\.baton\/workflows\/loop\.yaml defines it but is left out until it is fixed \(line \d+: [^)]*cycle/;
    const next = await rig.call('workflow_next_step', { template_name: 'loop' });
    assert.equal(next.isError, true);
    assert.match(next.text, why);
    const get = await rig.call('get_workflow', { workflowName: 'loop' });
    assert.match(get.text, why);
    const start = await rig.call('start_execution', { workflowName: 'loop' });
    assert.match(start.text, why);
    const other = await rig.call('workflow_next_step', { template_name: 'nothing-like-it' });
    assert.match(other.text, /No workflow template "nothing-like-it"\. Available: /, 'a template no file meant is just missing');
  });
});
