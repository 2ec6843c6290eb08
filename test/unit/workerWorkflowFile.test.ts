// Rule: team workflow files parse exactly as the spec's format (name, context, agents with backend/model and inline
// or file prompts, setup with `as`, kickoff with `${{ }}`); every problem names the file, line and field, the fix,
// and the allowed values; unknown variables are errors naming the variable; the shipped examples parse.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { formatProblems } from '../../src/core/pipelines/systemFile.js';
import { parseWorkflowFile, resolveRelative, variablesIn } from '../../src/core/worker/workflowFile.js';
import { interpolate, resolveContext, workflowVariables } from '../../src/core/worker/workflowVariables.js';

const readFile = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined);
const parse = (yaml: string, files: Record<string, string> = {}) =>
  parseWorkflowFile(yaml, 'teams/t.yaml', 't', { readFile: (p) => files[p] });
const problems = (yaml: string) => formatProblems(parse(yaml).problems);
const AGENT = 'agents:\n  reviewer:\n    model: anthropic/claude-sonnet-4-5\n    system_prompt: Review.\n';

describe('workflow file: the shipped examples', () => {
  for (const file of ['review.yaml', 'code-review.yaml']) {
    it(`content/teams/${file} parses`, () => {
      const path = join('content', 'teams', file);
      const parsed = parseWorkflowFile(readFileSync(path, 'utf8'), path, file.replace(/\.yaml$/, ''), { readFile });
      assert.deepEqual(parsed.problems, []);
      assert.ok(parsed.value);
      assert.equal(parsed.value.context, undefined, '`context:` (empty) is the default file provider');
      for (const agent of Object.values(parsed.value.agents)) {
        assert.equal(agent.backend, 'claude');
        assert.equal(agent.model, 'claude-sonnet-4-5');
        assert.ok(!agent.system_prompt.endsWith('.md'), 'prompt files are read');
      }
    });
  }
  it('code-review reads its prompts relative to the workflow file', () => {
    const path = join('content', 'teams', 'code-review.yaml');
    const parsed = parseWorkflowFile(readFileSync(path, 'utf8'), path, 'code-review', { readFile });
    assert.equal(parsed.value?.agents['coder']?.system_prompt, readFileSync('content/teams/prompts/coder.md', 'utf8'));
    assert.equal(parsed.value?.setup?.[0]?.as, 'pr_info');
  });
});

describe('workflow file: fields', () => {
  it('defaults the name to the file name', () => {
    assert.equal(parse(AGENT).value?.name, 't');
    assert.equal(parse(`name: mine\n${AGENT}`).value?.name, 'mine');
  });
  const contexts: Array<[string, string, unknown]> = [
    ['absent', '', undefined],
    ['empty', 'context:\n', undefined],
    ['false', 'context: false\n', false],
    ['memory', 'context:\n  provider: memory\n', { provider: 'memory' }],
    ['file', 'context:\n  provider: file\n', { provider: 'file' }],
    ['file with config', 'context:\n  provider: file\n  config:\n    dir: ./my-context/\n    channel: discussion.md\n    document: workspace.md\n    documents: [goals.md, todos.md]\n',
      { provider: 'file', config: { dir: './my-context/', channel: 'discussion.md', document: 'workspace.md', documents: ['goals.md', 'todos.md'] } }],
  ];
  for (const [name, yaml, expected] of contexts) it(`context: ${name}`, () => assert.deepEqual(parse(`${yaml}${AGENT}`).value?.context, expected));

  const backends: Array<[string, string, { backend: string; model: string }]> = [
    ['anthropic/', 'model: anthropic/claude-sonnet-4-5', { backend: 'claude', model: 'claude-sonnet-4-5' }],
    ['openai/', 'model: openai/gpt-5', { backend: 'codex', model: 'gpt-5' }],
    ['google/', 'model: google/gemini-2.5-pro', { backend: 'gemini', model: 'gemini-2.5-pro' }],
    ['cursor/', 'model: cursor/auto', { backend: 'cursor-agent', model: 'auto' }],
    ['bare model name', 'model: claude-haiku-4-5', { backend: 'claude', model: 'claude-haiku-4-5' }],
    ['explicit backend keeps the model whole', 'backend: opencode\n    model: anthropic/claude-sonnet-4-5', { backend: 'opencode', model: 'anthropic/claude-sonnet-4-5' }],
    ['command backend needs no model', "backend: command\n    command: [node, agent.js]", { backend: 'command', model: '' }],
  ];
  for (const [name, line, expected] of backends) {
    it(`agent backend: ${name}`, () => {
      const a = parse(`agents:\n  a:\n    ${line}\n    system_prompt: hi\n`).value?.agents['a'];
      assert.deepEqual({ backend: a?.backend, model: a?.model }, expected);
    });
  }
  it('keeps the command, and tools for claude (the only backend that takes them; elsewhere they are warned of)', () => {
    const parsed = parse("agents:\n  a:\n    backend: command\n    command: [node, a.js]\n    tools: [channel_send]\n    system_prompt: hi\n");
    assert.deepEqual(parsed.value?.agents['a'], { backend: 'command', model: '', system_prompt: 'hi', command: ['node', 'a.js'] });
    assert.match(parsed.problems[0]!.message, /^agents\.a\.tools: only the claude backend takes .*\(ignored\)$/);
    const claude = parse('agents:\n  a:\n    model: claude-x\n    tools: [Read]\n    system_prompt: hi\n').value?.agents['a'];
    assert.deepEqual(claude, { backend: 'claude', model: 'claude-x', system_prompt: 'hi', tools: ['Read'] });
  });
  it('reads a prompt file relative to the workflow file', () => {
    const parsed = parse('agents:\n  a:\n    model: claude-x\n    system_prompt: prompts/a.md\n', { 'teams/prompts/a.md': 'You are A.' });
    assert.equal(parsed.value?.agents['a']?.system_prompt, 'You are A.');
  });
  it('reads a one-line prompt that names a file that is there, whatever its name; other text is the prompt', () => {
    const files = { 'teams/my prompt.md': 'You are spaced.', 'teams/prompts/reviewer': 'You review.' };
    const prompt = (value: string) => parse(`agents:\n  a:\n    model: claude-x\n    system_prompt: ${value}\n`, files).value?.agents['a']?.system_prompt;
    assert.equal(prompt('my prompt.md'), 'You are spaced.');
    assert.equal(prompt('prompts/reviewer'), 'You review.');
    assert.equal(prompt('You review code.'), 'You review code.', 'no such file: the text is the prompt');
    assert.equal(prompt('|\n      prompts/reviewer\n      and more'), 'prompts/reviewer\nand more\n', 'more than one line is always text');
  });

  it('keeps setup tasks and the kickoff', () => {
    const v = parse(`${AGENT}setup:\n  - shell: echo hi\n    as: greeting\n  - shell: echo \${{ greeting }}\nkickoff: "\${{ greeting }} @reviewer \${{ env.HOME }} \${{ workflow.instance }}"\n`).value;
    assert.deepEqual(v?.setup, [{ shell: 'echo hi', as: 'greeting' }, { shell: 'echo ${{ greeting }}' }]);
    assert.match(v?.kickoff ?? '', /@reviewer/);
  });
});

describe('workflow file: problems name file, line, field and fix', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['YAML syntax', 'agents: [\n', /^teams\/t\.yaml:1: YAML syntax error: .* \(at the end of the file\)$/m],
    ['not a mapping', '- a\n', /teams\/t\.yaml:1: \(file\): expected a mapping with agents/],
    ['no agents', 'name: x\n', /\(file\)|agents: must be a mapping of agent names/],
    ['an empty agents mapping', 'name: x\nagents: {}\n', /t\.yaml:2: agents: must be a mapping of agent names .* with at least one agent, such as "coder: \{ model: claude \}"; got an empty mapping \(no agent\)/],
    ['bad agent name', 'agents:\n  2fast:\n    model: claude-x\n    system_prompt: hi\n', /t\.yaml:\d: agents\.2fast: '2fast' is not a valid agent name/],
    ['reserved agent name', 'agents:\n  system:\n    model: claude-x\n    system_prompt: hi\n', /agents\.system: 'system' is reserved/],
    ['unknown backend', 'agents:\n  a:\n    backend: gpt\n    model: x\n    system_prompt: hi\n', /t\.yaml:3: agents\.a\.backend: must be one of claude, codex, gemini, opencode, cursor-agent, command; got the string "gpt"/],
    ['unknown provider', 'agents:\n  a:\n    model: acme/x-1\n    system_prompt: hi\n', /t\.yaml:3: agents\.a\.model: unknown provider 'acme'.*anthropic.*backend: to one of/],
    ['unguessable model', 'agents:\n  a:\n    model: llama3\n    system_prompt: hi\n', /agents\.a\.model: cannot tell the backend of model 'llama3'/],
    ['missing model', 'agents:\n  a:\n    system_prompt: hi\n', /agents\.a\.model: missing required field/],
    ['missing prompt', 'agents:\n  a:\n    model: claude-x\n', /agents\.a\.system_prompt: missing required field/],
    ['missing prompt file', 'agents:\n  a:\n    model: claude-x\n    system_prompt: prompts/nope.md\n', /t\.yaml:4: agents\.a\.system_prompt: file prompts\/nope\.md not found \(looked for teams\/prompts\/nope\.md/],
    ['command backend without command', 'agents:\n  a:\n    backend: command\n    system_prompt: hi\n', /agents\.a\.command: the command backend needs command: an argument list/],
    ['command as a shell string', 'agents:\n  a:\n    backend: command\n    command: node a.js\n    system_prompt: hi\n', /agents\.a\.command: must be a list of strings/],
    ['command item YAML reads as a boolean', 'agents:\n  a:\n    backend: command\n    command: [true]\n    system_prompt: hi\n', /^teams\/t\.yaml:4: agents\.a\.command\[0\]: must be a string, got true; quote it: "true"$/],
    ['bad context', `context: yes please\n${AGENT}`, /t\.yaml:1: context: must be empty .* false .* provider: memory/],
    ['unknown provider', `context:\n  provider: redis\n${AGENT}`, /t\.yaml:2: context\.provider: must be one of file, memory; got the string "redis"/],
    ['context dir escapes nothing but channel does', `context:\n  provider: file\n  config:\n    channel: ../x.md\n${AGENT}`, /t\.yaml:4: context\.config\.channel: '\.\.\/x\.md' must be a relative path inside the context directory/],
    ['same channel and document', `context:\n  provider: file\n  config:\n    channel: a.md\n    document: a.md\n${AGENT}`, /context\.config\.channel: the channel and the entry-point document must be different/],
    ['setup not a list', `${AGENT}setup: gh pr diff\n`, /setup: must be a list of tasks/],
    ['setup without shell', `${AGENT}setup:\n  - as: x\n`, /setup\[0\]\.shell: missing required field/],
    ['bad as', `${AGENT}setup:\n  - shell: x\n    as: env\n`, /setup\[0\]\.as: 'env' is not a valid variable name/],
    ['duplicate as', `${AGENT}setup:\n  - shell: x\n    as: a\n  - shell: y\n    as: a\n`, /setup\[1\]\.as: variable 'a' is already set/],
    ['unknown variable in kickoff', `${AGENT}kickoff: "\${{ dif }} @reviewer"\n`, /t\.yaml:5: kickoff: unknown variable \$\{\{ dif \}\}; known: workflow\.name/],
    ['later variable in setup', `${AGENT}setup:\n  - shell: echo \${{ b }}\n  - shell: y\n    as: b\n`, /setup\[0\]\.shell: unknown variable \$\{\{ b \}\}/],
    ['unknown variable in dir', `context:\n  provider: file\n  config:\n    dir: .w/\${{ run }}\n${AGENT}`, /context\.config\.dir: unknown variable \$\{\{ run \}\}/],
  ];
  for (const [name, yaml, pattern] of cases) {
    it(name, () => {
      const parsed = parse(yaml);
      assert.equal(parsed.value, undefined, 'an error rejects the file');
      assert.match(problems(yaml), pattern);
    });
  }
  it('warns about unknown fields without rejecting', () => {
    const parsed = parse(`${AGENT}    temperature: 2\n`);
    assert.ok(parsed.value);
    assert.match(formatProblems(parsed.problems), /t\.yaml:5: agents\.reviewer\.temperature: unknown field; known fields: model, backend, system_prompt, tools, command \(ignored\)/);
  });
});

describe('workflow file: a YAML syntax error is one problem at its line', () => {
  it('a ${{ }} in a { } mapping: the first error, with the quotes to add and how many errors followed it', () => {
    const found = parse(`${AGENT}setup:\n  - { shell: echo \${{ workflow.name }}, as: x }\n`).problems;
    assert.equal(found.length, 1, formatProblems(found));
    assert.equal(found[0]!.line, 6);
    assert.match(found[0]!.message, /^YAML syntax error: .*; a value holding \{\{ \}\} or \$\{\{ \}\} is read as YAML braces unless it is quoted: write it in quotes, as "echo \$\{\{ name \}\}" \(\d+ more YAML errors after it, most often caused by this one: fix it first\)$/);
  });

  it('{{ }} as a value is a problem of the field, not a Node warning on stderr', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const found = parse('agents:\n  a:\n    model: claude-x\n    system_prompt: {{ workflow.name }}\n').problems;
      await new Promise((resolve) => setImmediate(resolve));
      assert.match(formatProblems(found), /t\.yaml:4: agents\.a\.system_prompt: must be inline text, .* got a mapping/);
      assert.deepEqual(warnings, []);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('variables and context', () => {
  const ctx = resolveContext(undefined, 'review', 'pr-123');
  it('fills the spec\'s defaults and interpolates the dir', () => {
    assert.deepEqual(ctx, { provider: 'file', dir: '.workflow/pr-123/', channel: 'channel.md', document: 'notes.md', documents: [] });
    assert.deepEqual(resolveContext(false, 'r', 'i'), false);
    assert.deepEqual(resolveContext({ provider: 'memory' }, 'r', 'i'), { provider: 'memory', document: 'notes.md', documents: [] });
    assert.equal((resolveContext({ provider: 'file', config: { dir: 'ctx/${{ workflow.name }}-${{ instance }}' } }, 'r', 'i') as { dir: string }).dir, 'ctx/r-i');
  });
  it('refuses instance names that are not directory names', () => {
    for (const bad of ['../x', 'a/b', '', ' x']) assert.throws(() => resolveContext(undefined, 'r', bad), (ex: unknown) => BatonError.is(ex, 'invalid_input') && /instance name/.test(ex.message));
  });
  it('interpolates reserved, env and setup variables in one pass', () => {
    const vars = workflowVariables({ workflow: { name: 'review' }, instance: 'pr-123', context: ctx, env: { USER: 'ann' }, setup: { diff: 'has ${{ env.USER }} inside' } });
    const out = interpolate('${{diff}} | ${{ env.USER }} | ${{ workflow.name }}@${{ workflow.instance }} | ${{ context.channel }} | ${{ context.document }}', vars);
    assert.equal(out, 'has ${{ env.USER }} inside | ann | review@pr-123 | .workflow/pr-123/channel.md | .workflow/pr-123/notes.md');
  });
  it('finds variables in linear time, however the text is built', () => {
    const started = performance.now();
    assert.deepEqual(variablesIn(`\${{${' '.repeat(50_000)}`), []);
    assert.equal(variablesIn('${{ a '.repeat(20_000)).length, 0);
    assert.deepEqual(variablesIn('${{diff}} ${{  env.X  }}'), ['diff', 'env.X']);
    assert.ok(performance.now() - started < 1500, `took ${Math.round(performance.now() - started)} ms`);
  });
  it('names unknown and unset variables', () => {
    const vars = workflowVariables({ workflow: { name: 'r' }, instance: 'i', context: ctx });
    assert.throws(() => interpolate('${{ nope }}', vars, 'kickoff'), /kickoff: unknown variable \$\{\{ nope \}\}; known: .*workflow\.name/);
    assert.throws(() => interpolate('${{ env.NOPE }}', vars, 'kickoff'), /environment variable NOPE is not set/);
  });
  it('resolves relative paths against the workflow file', () => {
    assert.equal(resolveRelative('a/b/t.yaml', 'prompts/x.md'), 'a/b/prompts/x.md');
    assert.equal(resolveRelative('a/b/t.yaml', '../x.md'), 'a/x.md');
    assert.equal(resolveRelative('t.yaml', 'x.md'), './x.md');
    assert.equal(resolveRelative('/w/t.yaml', '/abs/x.md'), '/abs/x.md');
  });
});
