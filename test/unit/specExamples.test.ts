// Rule: every example of the two specs people write files from, written as the file a reader would write
// (test/fixtures/teams/spec: specs/agent-worker.md; test/fixtures/pipelines/spec: specs/multi-agent-pipelines.md,
// in the YAML form of README "Pipelines"), is accepted and runs as the spec says, or, where the spec only sketches
// it, is refused with a message that names the field and the fix.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { instantiateBlueprint } from '../../src/core/pipelines/blueprint.js';
import { formatProblems, parseBlueprintFile, parseSystemFile } from '../../src/core/pipelines/systemFile.js';
import { parseWorkflowFile } from '../../src/core/worker/workflowFile.js';
import { makeBaton } from '../helpers/coreHarness.js';
import { FakeRunner } from '../helpers/fakeRunner.js';

const TEAMS = join(__dirname, '..', 'fixtures', 'teams', 'spec');
const PIPELINES = join(__dirname, '..', 'fixtures', 'pipelines', 'spec');
const ROOT_CONTENT = join(__dirname, '..', '..', 'content');
const readFile = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined);

function team(name: string) {
  const path = join(TEAMS, `${name}.yaml`);
  return parseWorkflowFile(readFileSync(path, 'utf8'), path, name, { readFile });
}

function pipeline(name: string, edit = (raw: string) => raw) {
  const path = join(PIPELINES, `${name}.yaml`);
  return parseSystemFile(edit(readFileSync(path, 'utf8')), path, name);
}

test('the team examples of agent-worker.md are accepted as the spec writes them', () => {
  for (const name of ['basic-structure', 'simple-review', 'multi-agent', 'document-config', 'context-file', 'context-file-custom',
    'context-memory', 'context-false']) {
    const p = team(name);
    assert.ok(p.value, `${name}: ${formatProblems(p.problems)}`);
    assert.deepEqual(p.problems, [], name);
  }
  assert.equal(team('basic-structure').value!.agents['coder']!.system_prompt, 'You fix what the reviewer finds.\n');
  assert.deepEqual(team('document-config').value!.context, { provider: 'file', config: {
    dir: '.workflow/${{ instance }}/', channel: 'channel.md', document: 'workspace.md', documents: ['goals.md', 'todos.md', 'methodology.md', 'decisions.md'],
  } });
});

test('the spec\'s `reviewer: ...` sketch is refused as a placeholder, with the agent to write in its place', () => {
  const p = team('context-sketch');
  assert.equal(p.value, undefined);
  assert.match(formatProblems(p.problems), /context-sketch\.yaml:4: agents\.reviewer: is '\.\.\.', a placeholder from an example; write the agent in its place, such as \{ model: anthropic\/claude-sonnet-4-5, system_prompt: prompts\/reviewer\.md \}/);
});

test('Patterns 1 and 2 of multi-agent-pipelines.md are accepted; steps without an id get one', () => {
  const one = pipeline('pattern1-sequential');
  assert.deepEqual(one.problems, []);
  assert.deepEqual(one.value!.agents.map((a) => [a.id, a.runner]), [['scout', 'codex'], ['analyzer', 'gemini'], ['summarizer', 'claude']]);
  const two = pipeline('pattern2-parallel');
  assert.deepEqual(two.problems, []);
  assert.deepEqual(two.value!.workflow[0]!.children!.map((s) => s.id), ['1-security-scout', '2-performance-scout', '3-architecture-scout']);
});

test('Pattern 3\'s `{ type: agent, agentId: x, ... }` is refused: `...` is a placeholder, and the agent step\'s fields are named', () => {
  const p = pipeline('pattern3-conditional');
  assert.equal(p.value, undefined);
  const text = formatProblems(p.problems);
  assert.equal(p.problems.length, 4, text);
  assert.match(text, /pattern3-conditional\.yaml:21: workflow\[1\]\.trueBranch\[0\]: holds '\.\.\.', a placeholder from an example, not a field; write the fields it stands for in its place \(id, type, name, inputTemplate, outputVariable, agentId, timeoutMs, retry\)/);
  assert.doesNotMatch(text, /\(ignored\)/);
});

test('Pattern 4\'s `trueBranch: [] # Break loop` is refused, naming the breakCondition that ends the loop', () => {
  const p = pipeline('pattern4-loop');
  assert.equal(p.value, undefined);
  assert.equal(formatProblems(p.problems), `${join(PIPELINES, 'pattern4-loop.yaml')}:21: workflow[1].children[1].trueBranch: an empty branch does `
    + 'not end the loop: it runs nothing and the loop goes on, up to maxIterations (3); to end the loop there, give the loop '
    + 'breakCondition: { field: reviewResult, operator: contains, value: APPROVED } (checked after each child) and leave out this trueBranch');
  // An empty falseBranch ends the loop when the condition does not hold.
  const flipped = pipeline('pattern4-loop', (raw) => raw.replace('operator: contains', 'operator: not_contains')
    .replace(/trueBranch: \[\] # Break loop\n(\s+)falseBranch:/, 'falseBranch: []\n$1trueBranch:'));
  assert.match(formatProblems(flipped.problems), /falseBranch: .*breakCondition: \{ not: \{ field: reviewResult, operator: not_contains, value: APPROVED \} \}/);
});

test('Pattern 4 with the breakCondition the message names runs the reviewer once when it approves', async () => {
  const p = pipeline('pattern4-loop', (raw) => raw.replace('    maxIterations: 3\n',
    '    maxIterations: 3\n    breakCondition: { field: reviewResult, operator: contains, value: APPROVED }\n'));
  assert.ok(p.value, formatProblems(p.problems));
  const made = await makeBaton();
  const runner = new FakeRunner((req) => ({ text: req.agent === 'reviewer' ? 'APPROVED' : 'function add(a, b) { return a + b }' }));
  made.baton.pipelines.setRunners(() => runner);
  const id = await made.baton.pipelines.start(p.value, { input: 'write add()', cwd: '/tmp' });
  const out = await made.baton.pipelines.drive(id);
  assert.equal(out.status, 'completed', out.error ?? '');
  assert.deepEqual(runner.calls.map((c) => c.agent), ['implementer', 'reviewer']);
});

test('the spec\'s `tools` of a team agent (and a pipeline\'s allowedTools) is warned of as ignored on a backend other than claude', () => {
  const agent = (model: string) => `agents:\n  reviewer:\n    model: ${model}\n    system_prompt: Review.\n    tools: [Read, Grep]\nkickoff: "@reviewer"\n`;
  const claude = parseWorkflowFile(agent('anthropic/claude-sonnet-4-5'), 't.yaml', 't');
  assert.deepEqual(claude.problems, []);
  assert.deepEqual(claude.value!.agents['reviewer']!.tools, ['Read', 'Grep']);
  const codex = parseWorkflowFile(agent('openai/gpt-5'), 't.yaml', 't');
  assert.ok(codex.value);
  assert.equal(formatProblems(codex.problems), 't.yaml:5: agents.reviewer.tools: only the claude backend takes a list of its CLI\'s '
    + 'own tools (claude --allowedTools: the tools it may use without asking); a codex agent gets Baton\'s context tools and its '
    + 'CLI\'s own defaults (ignored)');
  const sys = parseSystemFile('agents:\n  - { id: a, modelConfig: { model: gemini-2.5-flash }, allowedTools: [Read] }\nworkflow:\n'
    + '  - { type: agent, agentId: a }\n', 's.yaml', 's');
  assert.match(formatProblems(sys.problems), /^s\.yaml:2: agents\[0\]\.allowedTools: only the claude runner takes .* a gemini agent .*\(ignored\)$/);
  assert.equal(sys.value!.agents[0]!.allowedTools, undefined);
});

test('a blueprint gives its suggestedTools to claude agents only, so the system it writes has no ignored field', () => {
  const bp = parseBlueprintFile(`id: fi
name: Feature Implementation Pipeline
description: Scout → Plan
category: development
agentTemplates:
  - { role: researcher, suggestedModels: [codex-gpt-5.2], suggestedTools: [Read, Glob, Grep], promptTemplate: "Investigate {{feature}}" }
  - { role: analyzer, suggestedModels: [claude-haiku], suggestedTools: [Read], promptTemplate: "Plan from {{scoutFindings}}" }
workflowTemplate:
  - { type: agent, agentId: researcher, outputVariable: scoutFindings }
  - { type: agent, agentId: analyzer }
requiredInputs:
  - { name: feature, description: Feature to implement, type: string }
`, 'fi.yaml', 'fi');
  assert.ok(bp.value, formatProblems(bp.problems));
  const sys = instantiateBlueprint(bp.value, { name: 'fi', inputs: { feature: 'dark mode' } });
  assert.deepEqual(sys.agents.map((a) => [a.id, a.runner, a.allowedTools]), [['researcher', 'codex', undefined], ['analyzer', 'claude', ['Read']]]);
});

test('the spec\'s Feature Implementation blueprint (no workflowTemplate) is refused naming the steps to write and the agentIds', () => {
  const path = join(PIPELINES, 'feature-implementation-blueprint.yaml');
  const raw = readFileSync(path, 'utf8');
  const p = parseBlueprintFile(raw, path, 'feature-implementation');
  assert.equal(p.value, undefined);
  assert.equal(formatProblems(p.problems), `${path}:2: workflowTemplate: missing required field: the steps the pipeline runs, such as `
    + '[{ type: agent, agentId: researcher, outputVariable: findings }] (step types: agent, sequential, parallel, conditional, loop, '
    + 'human_review, transform); an agent step names its agent template by agentId: researcher, analyzer (a template without an id '
    + 'is named by its role)');
  const steps = 'workflowTemplate:\n  - { type: agent, agentId: researcher, outputVariable: scoutFindings }\n  - { type: agent, agentId: analyzer }\n';
  const fixed = parseBlueprintFile(raw + steps, path, 'feature-implementation');
  assert.ok(fixed.value, formatProblems(fixed.problems));
  const sys = instantiateBlueprint(fixed.value, { name: 'fi', inputs: { feature: 'dark mode', testRequired: 'true' } });
  assert.deepEqual(sys.workflow.map((s) => s.inputTemplate), [
    'Investigate the codebase to understand how to implement: {{feature}}', 'Create an implementation plan based on:\n\n{{scoutFindings}}',
  ]);
});

test('a blueprint or a team workflow given as a pipeline, or a pipeline or blueprint given as a team, is told which command runs it', () => {
  const blueprint = readFileSync(join(PIPELINES, 'feature-implementation-blueprint.yaml'), 'utf8');
  assert.equal(formatProblems(parseSystemFile(blueprint, 'bp.yaml', 'bp').problems), 'bp.yaml:2: (file): this is a blueprint '
    + '(agentTemplates, workflowTemplate), not a pipeline; put it in .baton/blueprints/ and make a pipeline of it with baton blueprint '
    + 'new NAME --from feature-implementation');
  const simple = readFileSync(join(TEAMS, 'simple-review.yaml'), 'utf8');
  assert.match(formatProblems(parseSystemFile(simple, 't.yaml', 't').problems), /^t\.yaml:2: \(file\): this is a team workflow .*; run it with baton run FILE/);
  const pattern = readFileSync(join(PIPELINES, 'pattern2-parallel.yaml'), 'utf8');
  const asTeam = parseWorkflowFile(pattern, 'p.yaml', 'p');
  assert.equal(asTeam.problems.length, 1);
  assert.match(formatProblems(asTeam.problems), /^p\.yaml:2: \(file\): this is a pipeline \(workflow steps\), not a team workflow; run it with baton pipeline run FILE --input TEXT/);
  assert.match(formatProblems(parseWorkflowFile(blueprint, 'b.yaml', 'b').problems),
    /this is a blueprint .*baton blueprint new NAME --from feature-implementation \(/);
});

test('a workflow template given to baton run or baton pipeline run is told how a workflow template starts', () => {
  const path = join(ROOT_CONTENT, 'workflows', 'bug-fix.yaml');
  const raw = readFileSync(path, 'utf8');
  const how = 'this is a workflow template (steps an agent takes one at a time), not a KIND; put it in .baton/workflows/ and start it '
    + 'from an agent with workflow_next_step({ template_name: "bug-fix" }), or with Baton: Start Workflow... in the editor';
  const asTeam = parseWorkflowFile(raw, 'w.yaml', 'w').problems;
  assert.equal(formatProblems(asTeam), `w.yaml:2: (file): ${how.replace('KIND', 'team workflow')} (a team workflow has agents as a `
    + 'mapping of names, and a kickoff that @mentions them)');
  const asPipeline = parseSystemFile(raw, 'w.yaml', 'w').problems;
  assert.equal(formatProblems(asPipeline), `w.yaml:2: (file): ${how.replace('KIND', 'pipeline')} (a pipeline lists its agents with id `
    + 'and has workflow steps)');
});

test('the spec\'s modelConfigOverride names an agent\'s model as modelConfig does, and wins over it', () => {
  const p = parseSystemFile('agents:\n  - { id: scout, role: researcher, modelConfig: { model: gpt-5 }, modelConfigOverride: { model: claude-haiku } }\n'
    + 'workflow:\n  - { type: agent, agentId: scout }\n', 's.yaml', 's');
  assert.deepEqual(p.problems, []);
  assert.deepEqual([p.value!.agents[0]!.runner, p.value!.agents[0]!.modelConfig], ['claude', { model: 'claude-haiku' }]);
});
