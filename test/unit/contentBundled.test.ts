// Rule protected: the bundled content (what every user's agents read) loads with zero problems and
// has the shapes the broker relies on — five personas, two rules with guardrail lines, three workflows.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { GUARDRAIL_LINE, loadContent, type LoadedContent } from '../../src/core/content/index.js';
import { ARTIFACT_TYPES } from '../../src/core/types.js';
import { nodeCrypto, nodeFileSystem } from '../../src/host/nodePorts.js';

const BUNDLED = join(__dirname, '../../content');

let cached: Promise<LoadedContent> | undefined;
const bundled = () => (cached ??= loadContent(nodeFileSystem, [BUNDLED], nodeCrypto));

test('bundled content loads with zero problems', async () => {
  const c = await bundled();
  assert.deepEqual(c.problems, []);
});

test('five agent personas in the persona form, each 40–90 lines', async () => {
  const c = await bundled();
  assert.deepEqual(c.agents.map((a) => a.name), ['architect', 'debugger', 'implementer', 'reviewer', 'supervisor']);
  for (const a of c.agents) {
    assert.equal(a.source, 'bundled');
    assert.match(a.hash, /^[0-9a-f]{64}$/);
    assert.ok(a.description.length > 20 && !a.description.includes('\n'), `${a.name}: one-line description`);
    assert.ok(!a.content.startsWith('---'), `${a.name}: frontmatter removed`);
    assert.match(a.content, /^# \w+ Agent$/m, a.name);
    assert.match(a.content, /^\*\*Role\*\*: .+$/m, a.name);
    for (const section of ['## Capabilities', '## Guidelines', '## Output', '## Handoff']) {
      assert.ok(a.content.includes(`\n${section}\n`), `${a.name}: has ${section}`);
    }
    const lines = a.content.split('\n').length;
    assert.ok(lines >= 40 && lines <= 90, `${a.name}: ${lines} lines`);
  }
});

test('two rules; security always applies; both carry the spec example guardrails', async () => {
  const c = await bundled();
  assert.deepEqual(c.rules.map((r) => r.name), ['code-quality', 'security']);
  const [quality, security] = c.rules as [LoadedContent['rules'][number], LoadedContent['rules'][number]];
  assert.equal(security.always_apply, true);
  assert.equal(quality.always_apply, false);
  for (const r of c.rules) {
    assert.ok(r.tags.length > 0 && r.globs.length > 0, r.name);
    const guardrails = r.content.split('\n').filter((l) => GUARDRAIL_LINE.test(l));
    assert.ok(guardrails.length >= 8 && guardrails.length <= 15, `${r.name}: ${guardrails.length} guardrail lines`);
  }
  for (const line of [
    '- **NEVER** commit secrets, API keys, or credentials',
    '- **NEVER** use eval() or exec() on user input',
    '- **ALWAYS** validate and sanitize inputs',
    '- **VALIDATE** all file paths before operations',
    '- **PROTECT** sensitive data with encryption',
  ]) assert.ok(security.content.split('\n').includes(line), line);
  for (const line of [
    '- **ALWAYS** write unit tests for new functions',
    '- **NEVER** push directly to main/master branch',
    '- **MUST** follow TypeScript strict mode',
  ]) assert.ok(quality.content.split('\n').includes(line), line);
});

test('four workflows with the specified graphs, agents and gates', async () => {
  const c = await bundled();
  const shape = (name: string) => {
    const wf = c.workflows.find((w) => w.name === name);
    assert.ok(wf, name);
    return {
      type: wf.type,
      steps: wf.steps.map((s) => `${s.name}@${s.agent}<${s.dependencies.join(',')}>${s.human_gate ? '!' : ''}`),
    };
  };
  assert.deepEqual(c.workflows.map((w) => w.name), ['bug-fix', 'feature-implementation', 'security-audit', 'spec_execution_v1']);
  // The spec workflow's own step is Phase 0; its other phases come from the tasks.md it is started on.
  assert.deepEqual(shape('spec_execution_v1'), { type: 'sequential', steps: ['phase-0@architect<>'] });
  const spec = c.workflows.find((w) => w.name === 'spec_execution_v1')!;
  assert.equal(spec.dynamic_phases, true);
  assert.deepEqual(spec.dynamic_config?.templates, { phase: 'spec-templates/phase-template.md', task: 'spec-templates/task-template.md' });
  assert.equal(spec.steps[0]!.validation_gate?.length, 4);
  assert.deepEqual(shape('bug-fix'), {
    type: 'sequential',
    steps: [
      'analyze-root-cause@debugger<>', 'implement-fix@implementer<analyze-root-cause>',
      'write-tests@implementer<implement-fix>', 'review-code@reviewer<implement-fix,write-tests>!',
    ],
  });
  assert.deepEqual(shape('feature-implementation'), {
    type: 'hybrid',
    steps: [
      'design-system@architect<>', 'review-design@reviewer<design-system>!', 'implement-feature@implementer<design-system>',
      'write-tests@implementer<implement-feature>', 'review-code@reviewer<write-tests,review-design>',
    ],
  });
  assert.deepEqual(shape('security-audit'), {
    type: 'hybrid',
    steps: [
      'scan-codebase@reviewer<>', 'design-mitigations@architect<scan-codebase>', 'validate-vulnerabilities@debugger<scan-codebase>',
      'apply-fixes@implementer<design-mitigations,validate-vulnerabilities>!', 'verify-fixes@reviewer<apply-fixes>',
    ],
  });
  const bugFix = c.workflows[0]!;
  assert.equal(bugFix.estimated_duration_minutes, 30);
  assert.deepEqual(bugFix.tags.slice(0, 2), ['critical', 'incident-response']);
});

test('every bundled step is fully specified and asks for real artifact types', async () => {
  const c = await bundled();
  const agents = new Set(c.agents.map((a) => a.name));
  for (const wf of c.workflows) {
    assert.ok(wf.description && wf.tags.length > 0 && (wf.estimated_duration_minutes ?? 0) > 0, wf.name);
    for (const s of wf.steps) {
      const at = `${wf.name}/${s.name}`;
      assert.ok(agents.has(s.agent), `${at}: agent exists`);
      assert.ok(s.description.length > 100, `${at}: task text`);
      assert.ok(s.allowed_actions.length >= 3, `${at}: allowed actions`);
      assert.ok(s.path_patterns.length > 0 && s.tags.length > 0, `${at}: patterns and tags`);
      const named = ARTIFACT_TYPES.filter((t) => new RegExp(`\\b${t}\\b`).test(s.required_output_format));
      assert.ok(named.length > 0, `${at}: output format names an artifact type`);
      assert.match(s.required_output_format, /confidence/, at);
    }
  }
});
