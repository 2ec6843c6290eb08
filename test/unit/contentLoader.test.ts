// Rule protected: content loading never throws; every invalid file is reported with its path and
// line (one in the file, even for an error at its end) and skipped, other files still load, and workspace
// content overrides bundled content by name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContentProblem } from '../../src/core/api.js';
import { DEFAULT_OUTPUT_FORMAT, findCycles, loadContent } from '../../src/core/content/index.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeCrypto, nodeFileSystem } from '../../src/host/nodePorts.js';
import { memoryFs } from '../fixtures/content/memoryFs.js';
import { aliasBomb } from '../helpers/aliasBomb.js';

const B = '/bundled';
const W = '/ws/.baton';

const agent = (name: string, role = 'Does things') => `---\nname: ${name}\ndescription: The ${name}\n---\n# ${name} Agent\n\n**Role**: ${role}\n`;
const rule = (name: string, always: boolean) =>
  `---\nname: ${name}\ndescription: ${name} rule\ntags: [t]\nalways_apply: ${always}\nglobs: ["**/*.ts"]\n---\n# ${name}\n\n- **NEVER** do ${name} things\n`;
const workflow = (name: string, description = 'Fix it') => [
  `name: ${name}`,
  `description: ${description}`,
  'type: sequential',
  'steps:',
  '  - name: a',
  '    agent: debugger',
  '    description: find it',
  '  - name: b',
  '    agent: implementer',
  '    description: fix it',
  '    dependencies: [a]',
  '',
].join('\n');

function baseFiles(): Map<string, string> {
  return new Map([
    [`${B}/agents/debugger.md`, agent('debugger')],
    [`${B}/agents/implementer.md`, agent('implementer')],
    [`${B}/rules/security.md`, rule('security', true)],
    [`${B}/workflows/bug-fix.yaml`, workflow('bug-fix')],
    [`${B}/README.md`, 'not content'],
    [`${B}/workflows/nested/ignored.yaml`, 'not: content'],
  ]);
}

const load = (files: Map<string, string>, dirs = [B, W]) => loadContent(memoryFs(files), dirs, nodeCrypto);

/** Loads `text` as a workspace workflow next to the valid bundled content. */
async function problemsOf(file: string, text: string): Promise<{ problems: ContentProblem[]; names: string[] }> {
  const files = baseFiles();
  files.set(`${W}/${file}`, text);
  const c = await load(files);
  return { problems: c.problems, names: [...c.agents, ...c.rules, ...c.workflows].map((x) => x.name) };
}

function assertOne(problems: ContentProblem[], path: string, line: number | null, pattern: RegExp): void {
  const hits = problems.filter((p) => p.path === path && pattern.test(p.message));
  assert.equal(hits.length, 1, `expected one problem matching ${pattern} in ${JSON.stringify(problems, null, 1)}`);
  assert.equal(hits[0]!.line, line, `line of ${hits[0]!.message}`);
}

test('valid content loads with defaults filled in, hashes and sources', async () => {
  const c = await load(baseFiles());
  assert.deepEqual(c.problems, []);
  assert.deepEqual(c.agents.map((a) => [a.name, a.source, a.path]), [
    ['debugger', 'bundled', `${B}/agents/debugger.md`], ['implementer', 'bundled', `${B}/agents/implementer.md`],
  ]);
  assert.equal(c.agents[0]!.hash, nodeCrypto.sha256(agent('debugger')));
  assert.equal(c.agents[0]!.content, '# debugger Agent\n\n**Role**: Does things');
  assert.deepEqual(c.rules[0], {
    name: 'security', description: 'security rule', tags: ['t'], always_apply: true, globs: ['**/*.ts'],
    content: '# security\n\n- **NEVER** do security things', source: 'bundled', path: `${B}/rules/security.md`,
    hash: nodeCrypto.sha256(rule('security', true)),
  });
  const wf = c.workflows[0]!;
  assert.equal(wf.estimated_duration_minutes, null);
  assert.deepEqual(wf.tags, []);
  assert.deepEqual(wf.steps[0], {
    name: 'a', agent: 'debugger', description: 'find it', dependencies: [], allowed_actions: [],
    required_output_format: DEFAULT_OUTPUT_FORMAT, human_gate: false, path_patterns: [], tags: [],
  });
});

test('workspace content overrides bundled content by name; new workspace items are added', async () => {
  const files = baseFiles();
  files.set(`${W}/agents/debugger.md`, agent('debugger', 'Workspace debugger'));
  files.set(`${W}/workflows/bug-fix.yml`, workflow('bug-fix', 'Our own bug fix'));
  files.set(`${W}/rules/ours.md`, rule('ours', false));
  const c = await load(files);
  assert.deepEqual(c.problems, []);
  const dbg = c.agents.find((a) => a.name === 'debugger')!;
  assert.equal(dbg.source, 'workspace');
  assert.equal(dbg.description, 'The debugger');
  assert.match(dbg.content, /Workspace debugger/);
  assert.equal(c.agents.find((a) => a.name === 'implementer')!.source, 'bundled');
  assert.deepEqual(c.workflows.map((w) => [w.name, w.description, w.source, w.path]), [['bug-fix', 'Our own bug fix', 'workspace', `${W}/workflows/bug-fix.yml`]]);
  assert.deepEqual(c.rules.map((r) => [r.name, r.source]), [['ours', 'workspace'], ['security', 'bundled']]);
});

test('a name defaults to the file basename; an explicit name wins', async () => {
  const files = baseFiles();
  files.set(`${W}/agents/qa.md`, '# QA Agent\n\n**Role**: Exploratory testing\n');
  files.set(`${W}/workflows/file-name.yaml`, workflow('renamed').replace('name: renamed\n', ''));
  files.set(`${W}/workflows/other.yaml`, workflow('explicit'));
  const c = await load(files);
  assert.deepEqual(c.problems, []);
  const qa = c.agents.find((a) => a.name === 'qa');
  assert.equal(qa?.description, 'Exploratory testing', 'description falls back to the **Role** line');
  assert.deepEqual(c.workflows.map((w) => w.name), ['bug-fix', 'explicit', 'file-name']);
});

test('YAML syntax error: reported with its line; the file is skipped and the rest loads', async () => {
  const text = [
    'name: broken', 'description: x', 'type: sequential', 'steps:', '  - name: a', '    agent: debugger',
    '    description: find it', '    description: twice', '',
  ].join('\n');
  const { problems, names } = await problemsOf('workflows/broken.yaml', text);
  assertOne(problems, `${W}/workflows/broken.yaml`, 8, /^YAML syntax error: Map keys must be unique/);
  assert.ok(!names.includes('broken'));
  assert.ok(names.includes('bug-fix') && names.includes('debugger') && names.includes('security'));
});

test('a team workflow, a pipeline or a blueprint put among the workflows: one problem naming where it belongs', async () => {
  const cases: Array<[string, string, RegExp]> = [
    ['team', 'agents:\n  coder:\n    model: claude-x\n    system_prompt: hi\nkickoff: "@coder go"\n',
      /^this is a team workflow \(agents as a mapping of names, with a kickoff\), not a workflow template; workflows\/ holds workflow templates \(name, description, steps\): move it out of that folder and run it with baton run FILE$/],
    ['pipe', 'name: pipe\nagents:\n  - { id: a, runner: command, command: [node, a.js] }\nworkflow:\n  - { id: s, type: agent, agentId: a }\n',
      /^this is a pipeline .*: move it to \.baton\/pipelines\/ and run it with baton pipeline run NAME$/],
    ['blue', 'id: blue\nagentTemplates: []\nworkflowTemplate: []\n', /^this is a blueprint .*: move it to \.baton\/blueprints\/ and make a pipeline of it with baton blueprint new NAME --from BLUEPRINT$/],
  ];
  for (const [name, text, message] of cases) {
    const { problems, names } = await problemsOf(`workflows/${name}.yaml`, text);
    assertOne(problems, `${W}/workflows/${name}.yaml`, 1, message);
    assert.equal(problems.filter((p) => p.path === `${W}/workflows/${name}.yaml`).length, 1, name);
    assert.ok(!names.includes(name));
  }
});

test('a YAML syntax error met at the end of the file is on its last line (the parser says the one after it)', async () => {
  const lines = ['name: broken', 'description: "never closed', 'type: sequential', 'steps: []'];
  for (const [ending, text] of [['a final newline', `${lines.join('\n')}\n`], ['CRLF', `${lines.join('\r\n')}\r\n`], ['none', lines.join('\n')]]) {
    const { problems } = await problemsOf('workflows/broken.yaml', text!);
    assert.equal(problems.length, 1, `${ending}: ${JSON.stringify(problems)}`);
    assert.deepEqual(problems[0], { path: `${W}/workflows/broken.yaml`, line: 4, message: 'YAML syntax error: Missing closing "quote (at the end of the file)' }, ending);
  }
});

test('YAML whose aliases expand past the parser\'s limit (an alias bomb): a problem of the file; the rest loads', async () => {
  const { problems, names } = await problemsOf('workflows/anchors.yaml', aliasBomb());
  assertOne(problems, `${W}/workflows/anchors.yaml`, null, /^YAML could not be read: its aliases \(\*name\) expand to more than the YAML parser takes .*; write the values out, or use fewer aliases$/);
  assert.ok(names.includes('bug-fix') && names.includes('debugger'));
});

test('an invalid file meant to replace a bundled workflow says the bundled one stays in use', async () => {
  const broken = workflow('bug-fix').replace(/agent: \w+/, 'agent: debugger\n    dependencies: [nowhere]');
  const { problems, names } = await problemsOf('workflows/my-bug-fix.yaml', broken);
  assertOne(problems, `${W}/workflows/my-bug-fix.yaml`, null, /^until this file is valid, workflow 'bug-fix' is still the one from \/bundled\/workflows\/bug-fix\.yaml$/);
  assert.ok(names.includes('bug-fix'));
  // No name line: the file name is the name it meant.
  const unnamed = await problemsOf('workflows/bug-fix.yaml', 'steps: [');
  assertOne(unnamed.problems, `${W}/workflows/bug-fix.yaml`, null, /^until this file is valid, workflow 'bug-fix' is still the one from/);
});

test('two YAML documents in one file: the problem says to keep one, at the second one\'s "---" (not to call parseAllDocuments)', async () => {
  const text = `${workflow('twice')}---\nname: again\n`;
  const { problems, names } = await problemsOf('workflows/twice.yaml', text);
  const line = text.split('\n').indexOf('---') + 1;
  assertOne(problems, `${W}/workflows/twice.yaml`, line, /^YAML syntax error: the file holds more than one YAML document \(a "---" line starts another\); keep one: remove the "---" and what follows it, or move it to a file of its own$/);
  assert.ok(!names.includes('twice'));
});

test('YAML merge keys (<<: *base) share fields: the steps they build load as written out', async () => {
  const text = [
    'name: merged', 'description: x', 'type: sequential', 'steps:', '  - &base {name: a, agent: debugger, description: find it}',
    '  - {<<: *base, name: b, dependencies: [a]}', '',
  ].join('\n');
  const c = await load(new Map([...baseFiles(), [`${W}/workflows/merged.yaml`, text]]));
  assert.deepEqual(c.problems, []);
  const steps = c.workflows.find((w) => w.name === 'merged')?.steps;
  assert.deepEqual(steps?.map((st) => [st.name, st.agent, st.description, st.dependencies]), [['a', 'debugger', 'find it', []], ['b', 'debugger', 'find it', ['a']]]);
});

test('YAML syntax error inside a flow list points at its line', async () => {
  const text = 'name: flow\ndescription: x\ntype: sequential\nsteps: [\n  {name: a, agent: debugger, description: d}\n  tags: [1\n';
  const { problems, names } = await problemsOf('workflows/flow.yaml', text);
  const mine = problems.filter((p) => p.path === `${W}/workflows/flow.yaml`);
  assert.ok(mine.length >= 1 && mine.every((p) => p.message.startsWith('YAML syntax error') && typeof p.line === 'number' && p.line >= 4));
  assert.ok(!names.includes('flow'));
});

test('missing fields name the field and what is expected, at the line of the enclosing mapping', async () => {
  const text = ['name: gaps', 'type: sequential', 'steps:', '  - name: a', '    description: find it', ''].join('\n');
  const { problems, names } = await problemsOf('workflows/gaps.yaml', text);
  const path = `${W}/workflows/gaps.yaml`;
  assertOne(problems, path, 1, /^workflow: missing required field 'description' \(expected /);
  assertOne(problems, path, 4, /^step 'a': missing required field 'agent' \(expected the name of the agent/);
  assert.ok(!names.includes('gaps'));
});

test('invalid field values and an unknown type are reported at the value', async () => {
  const text = [
    'name: bad-values', 'description: d', 'type: fancy', 'estimated_duration_minutes: soon', 'steps:', '  - name: a',
    '    agent: debugger', '    description: d', '    human_gate: "yes"', '    tags: security', '',
  ].join('\n');
  const { problems } = await problemsOf('workflows/bad-values.yaml', text);
  const path = `${W}/workflows/bad-values.yaml`;
  assertOne(problems, path, 3, /^workflow: unknown type 'fancy' \(expected one of sequential, parallel, hybrid\)/);
  assertOne(problems, path, 4, /'estimated_duration_minutes' must be a positive whole number/);
  assertOne(problems, path, 9, /step 'a': field 'human_gate' must be true or false, got the string "yes"/);
  assertOne(problems, path, 10, /step 'a': field 'tags' must be a list of strings/);
});

test('a dependency naming an unknown step is reported at that entry', async () => {
  const text = workflow('unknown-dep').replace('dependencies: [a]', 'dependencies:\n      - a\n      - analyse');
  const { problems, names } = await problemsOf('workflows/unknown-dep.yaml', text);
  assertOne(problems, `${W}/workflows/unknown-dep.yaml`, 13, /^step 'b': dependency 'analyse' names no step in this workflow \(steps: a, b\)/);
  assert.ok(!names.includes('unknown-dep'));
});

test('a dependency cycle is named, step by step', async () => {
  const text = workflow('cyclic').replace('    description: find it\n', '    description: find it\n    dependencies: [b]\n');
  const { problems, names } = await problemsOf('workflows/cyclic.yaml', text);
  assertOne(problems, `${W}/workflows/cyclic.yaml`, 8, /^dependency cycle: a → b → a /);
  assert.ok(!names.includes('cyclic'));
});

test('a duplicate step name is reported at the second one', async () => {
  const text = workflow('dupes') + '  - name: a\n    agent: debugger\n    description: again\n';
  const { problems, names } = await problemsOf('workflows/dupes.yaml', text);
  assertOne(problems, `${W}/workflows/dupes.yaml`, 12, /^step 'a' \(steps\[2\]\): duplicate step name; steps\[0\] already uses it/);
  assert.ok(!names.includes('dupes'));
});

test('an unknown field is reported but does not reject the file', async () => {
  const text = workflow('typo').replace('dependencies: [a]', 'depends_on: [a]');
  const { problems, names } = await problemsOf('workflows/typo.yaml', text);
  assertOne(problems, `${W}/workflows/typo.yaml`, 11, /^step 'b': unknown field 'depends_on' is ignored/);
  assert.ok(names.includes('typo'));
});

test('a step naming an undefined agent is reported at its agent line, without rejecting the file', async () => {
  const text = workflow('no-persona').replace('agent: implementer', 'agent: implementor');
  const { problems, names } = await problemsOf('workflows/no-persona.yaml', text);
  assertOne(problems, `${W}/workflows/no-persona.yaml`, 9, /^step 'b': agent 'implementor' is not defined/);
  assert.ok(names.includes('no-persona'));
});

test('bad frontmatter YAML: reported at the file line of the error', async () => {
  const text = '---\n- name: broken\ndescription: [unclosed\ntags: x\n---\n# Broken Agent\n';
  const { problems, names } = await problemsOf('agents/broken.md', text);
  const [p] = problems.filter((x) => x.path === `${W}/agents/broken.md`);
  assert.ok(p && p.message.startsWith('frontmatter YAML error:'), JSON.stringify(problems));
  assert.ok(p.line !== null && p.line >= 2 && p.line <= 4, `line ${p.line}`);
  assert.ok(!names.includes('broken'));
  assert.ok(names.includes('debugger'));
});

test('frontmatter that is not YAML but key: value lines (Claude Code agents, Cursor globs) loads, with a warning that says how to quote it', async () => {
  const files = baseFiles();
  // As Claude Code's /agents writes them: a ': ' in the description, and `\n` escapes in one line.
  files.set(`${W}/agents/reviewer2.md`, '---\nname: reviewer2\ndescription: Use this agent when: reviewing code. Examples:\\n\\n<example>\\nContext: a PR\ntools: Read, Grep\nmodel: sonnet\n---\n# Reviewer\n');
  files.set(`${W}/rules/ts.md`, '---\ndescription: TypeScript rules\nglobs: **/*.ts, **/*.tsx\nalwaysApply: false\n---\n- **NEVER** use any\n');
  files.set(`${W}/rules/all.md`, '---\nglobs: *\n---\n- **ALWAYS** be kind\n');
  const c = await load(files);
  const reviewer = c.agents.find((a) => a.name === 'reviewer2')!;
  assert.equal(reviewer.description, 'Use this agent when: reviewing code. Examples:\\n\\n<example>\\nContext: a PR');
  const ts = c.rules.find((r) => r.name === 'ts')!;
  assert.deepEqual([ts.globs, ts.always_apply, ts.description], [['**/*.ts', '**/*.tsx'], false, 'TypeScript rules']);
  assert.deepEqual(c.rules.find((r) => r.name === 'all')!.globs, ['*']);
  assertOne(c.problems, `${W}/agents/reviewer2.md`, 3, /^frontmatter is not valid YAML \(.+\), so it was read line by line as 'key: value'.*quote a value that holds ': '/);
  assertOne(c.problems, `${W}/rules/ts.md`, 3, /^frontmatter is not valid YAML/);
});

test("Copilot's applyTo is a rule's globs; a display name that is no Baton name loads under the file name, with the one to set", async () => {
  const files = baseFiles();
  files.set(`${W}/rules/cs.md`, "---\ndescription: 'C# conventions'\napplyTo: '**/*.cs, **/*.csx'\n---\n- **ALWAYS** use file-scoped namespaces\n");
  files.set(`${W}/agents/address-comments.md`, "---\nname: 'Universal PR Comment Addresser'\ndescription: Addresses PR comments\n---\n# Addresser\n");
  const c = await load(files);
  assert.deepEqual(c.rules.find((r) => r.name === 'cs')!.globs, ['**/*.cs', '**/*.csx']);
  assert.ok(c.agents.some((a) => a.name === 'address-comments'));
  assertOne(c.problems, `${W}/agents/address-comments.md`, 2, /name 'Universal PR Comment Addresser' is not a name Baton can use .* goes by its file name 'address-comments'; set name to one \(such as 'universal-pr-comment-addresser'\)/);
  assert.ok(!c.problems.some((p) => p.path === `${W}/rules/cs.md`), JSON.stringify(c.problems));
});

test("Copilot's NAME.instructions.md is the rule NAME (without .instructions), unless its frontmatter names it", async () => {
  const files = baseFiles();
  files.set(`${W}/rules/python.instructions.md`, "---\napplyTo: '**/*.py'\n---\n- **NEVER** use eval\n");
  files.set(`${W}/rules/go.instructions.md`, "---\nname: golang\napplyTo: '**/*.go'\n---\n- **ALWAYS** run gofmt\n");
  const c = await load(files);
  const names = c.rules.map((r) => r.name);
  assert.ok(names.includes('python') && names.includes('golang'), names.join(', '));
  assert.ok(!names.some((n) => n.endsWith('.instructions')), names.join(', '));
  assert.deepEqual(c.rules.find((r) => r.name === 'python')!.globs, ['**/*.py']);
});

test('unclosed frontmatter, a wrong field type and an invalid name are reported', async () => {
  const files = baseFiles();
  files.set(`${W}/agents/open.md`, '---\nname: open\ndescription: x\n# Open Agent\n');
  files.set(`${W}/rules/typed.md`, '---\ndescription: r\n\nalways_apply: "yes"\n---\n- **NEVER** x\n');
  files.set(`${W}/agents/My Agent.md`, '# Mine\n\n**Role**: r\n');
  const c = await load(files);
  assertOne(c.problems, `${W}/agents/open.md`, 1, /frontmatter opened with '---' on line 1 is never closed/);
  assertOne(c.problems, `${W}/rules/typed.md`, 4, /^rule: field 'always_apply' must be true or false/);
  assertOne(c.problems, `${W}/agents/My Agent.md`, null, /the file name 'My Agent' .* is not valid/);
  assert.deepEqual(c.agents.map((a) => a.name), ['debugger', 'implementer']);
  assert.deepEqual(c.rules.map((r) => r.name), ['security']);
});

test('a rule line that looks like a guardrail but would not be parsed is pointed out', async () => {
  const text = '---\ndescription: r\n---\n\n# R\n\n- **NEVER** leak\n- Never push to main\n* **Never** force-push\n- **DO NOT** drop tables\n```\n- never in code\n```\n';
  const { problems, names } = await problemsOf('rules/near.md', text);
  assertOne(problems, `${W}/rules/near.md`, 8, /looks like a guardrail but is not recognised/);
  assert.equal(problems.filter((p) => p.path === `${W}/rules/near.md`).length, 1, 'the lines the guardrail parser takes are not pointed out, nor code');
  assert.ok(names.includes('near'));
});

test("Cursor's .mdc rule files are rules, named by their file; a .md and a .mdc of one name clash as two .md files would", async () => {
  const files = baseFiles();
  files.set(`${W}/rules/typescript.mdc`, '---\ndescription: TS\nglobs: "**/*.ts"\nalwaysApply: false\n---\n- **NEVER** use any\n');
  files.set(`${W}/rules/react.md`, '---\ndescription: React\n---\n- **ALWAYS** use hooks\n');
  files.set(`${W}/rules/react.mdc`, '---\ndescription: React again\n---\n- **ALWAYS** use hooks\n');
  files.set(`${W}/agents/notes.mdc`, '---\ndescription: not an agent file\n---\n# Notes\n');
  const c = await load(files);
  assert.deepEqual(c.rules.find((r) => r.name === 'typescript')?.globs, ['**/*.ts']);
  assert.equal(c.rules.find((r) => r.name === 'react')?.description, 'React');
  assertOne(c.problems, `${W}/rules/react.mdc`, null, /already defined by .*react\.md in the same directory; this file is ignored/);
  assert.ok(!c.agents.some((a) => a.name === 'notes'), 'agents are .md only');
});

test('Cursor-style rule fields are accepted; CRLF files parse', async () => {
  const text = '---\r\ndescription: r\r\nalwaysApply: true\r\nglobs: "*.ts, *.tsx"\r\n---\r\n- **MUST** be nice\r\n';
  const files = baseFiles();
  files.set(`${W}/rules/cursor.md`, text);
  const c = await load(files);
  assert.deepEqual(c.problems, []);
  const r = c.rules.find((x) => x.name === 'cursor')!;
  assert.deepEqual([r.always_apply, r.globs, r.content], [true, ['*.ts', '*.tsx'], '- **MUST** be nice']);
});

test('two files defining one name in one directory: the second is reported and ignored', async () => {
  const files = baseFiles();
  files.set(`${B}/workflows/bug-fix.yml`, workflow('bug-fix', 'second'));
  const c = await load(files);
  assertOne(c.problems, `${B}/workflows/bug-fix.yml`, null, /already defined by \/bundled\/workflows\/bug-fix.yaml/);
  assert.equal(c.workflows[0]!.description, 'Fix it');
});

test('a file that is not UTF-8 still loads, and its first line with bytes that are not UTF-8 is reported', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-latin1-'));
  try {
    const latin1 = Buffer.from(workflow('latin', 'Fix it').replace('find it', 'find the caf\u00e9 bug'), 'latin1');
    mkdirSync(join(dir, 'workflows'));
    writeFileSync(join(dir, 'workflows', 'latin.yaml'), latin1);
    writeFileSync(join(dir, 'workflows', 'clean.yaml'), workflow('clean'));
    const c = await loadContent(nodeFileSystem, [dir], nodeCrypto);
    const path = join(dir, 'workflows', 'latin.yaml');
    assertOne(c.problems, path, 7, /U\+FFFD.*not UTF-8.*save the file as UTF-8/);
    assert.deepEqual(c.workflows.map((w) => w.name), ['clean', 'latin'], 'both still load');
    assert.ok(!c.problems.some((p) => p.path.endsWith('clean.yaml') && /FFFD/.test(p.message)), 'a UTF-8 file has no such problem');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('unreadable files and directories are problems, never exceptions', async () => {
  const files = baseFiles();
  const fs = memoryFs(files);
  const broken = {
    ...fs,
    async list(dir: string) {
      if (dir === W) throw new Error('EACCES: permission denied');
      return fs.list(dir);
    },
    async readText(path: string) {
      if (path.endsWith('security.md')) throw new Error('EIO');
      return fs.readText(path);
    },
  };
  const c = await loadContent(broken, [B, W], nodeCrypto);
  assertOne(c.problems, W, null, /cannot list the content directory: EACCES/);
  assertOne(c.problems, `${B}/rules/security.md`, null, /cannot read the file: EIO/);
  assert.equal(c.workflows.length, 1);
  assert.equal(c.rules.length, 0);
});

test('a missing workspace directory is not a problem', async () => {
  const c = await load(baseFiles(), [B, '/nowhere/.baton']);
  assert.deepEqual(c.problems, []);
  assert.equal(c.agents.length, 2);
});

test('findCycles: table of graphs', () => {
  const g = (spec: Record<string, string[]>) => Object.entries(spec).map(([name, dependencies]) => ({ name, dependencies }));
  const cases: Array<[string, Record<string, string[]>, string[][]]> = [
    ['acyclic diamond', { a: [], b: ['a'], c: ['a'], d: ['b', 'c'] }, []],
    ['self loop', { a: ['a'] }, [['a', 'a']]],
    ['two-cycle found once', { a: ['b'], b: ['a'] }, [['a', 'b', 'a']]],
    ['unknown deps ignored', { a: ['zzz'] }, []],
    ['two separate cycles', { a: ['b'], b: ['a'], c: ['d'], d: ['c'] }, [['a', 'b', 'a'], ['c', 'd', 'c']]],
  ];
  for (const [label, spec, expected] of cases) assert.deepEqual(findCycles(g(spec)), expected, label);
});

test('findCycles: a chain of 50,000 steps, each waiting for the next, is walked without overflowing the stack', () => {
  const n = 50_000;
  const chain = Array.from({ length: n }, (_, i) => ({ name: `s${i}`, dependencies: i + 1 < n ? [`s${i + 1}`] : [] }));
  assert.deepEqual(findCycles(chain), []);
  chain[n - 1] = { name: `s${n - 1}`, dependencies: [`s${n - 3}`] };
  assert.deepEqual(findCycles(chain), [[`s${n - 3}`, `s${n - 2}`, `s${n - 1}`, `s${n - 3}`]], 'a cycle at its far end');
});

test("a step whose agent has no persona says so at the step's line, and names the file meant to define it when that was left out", async () => {
  const files = baseFiles();
  files.set(`${W}/workflows/w.yaml`, 'name: w\ndescription: d\ntype: sequential\nsteps:\n  - name: s\n    agent: colon\n    description: x\n  - name: t\n    agent: ghost\n    description: y\n');
  files.set(`${W}/agents/colon.md`, '---\n- name: colon\n---\n# Colon\n');
  const c = await load(files);
  assertOne(c.problems, `${W}/workflows/w.yaml`, 6, new RegExp(`^step 's': agent 'colon' is not defined; ${W}/agents/colon\\.md defines it but is left out until it is fixed \\(line 2: frontmatter must be a mapping.*\\), so the step has no persona$`));
  assertOne(c.problems, `${W}/workflows/w.yaml`, 9, /^step 't': agent 'ghost' is not defined in any agents\/ directory, so the step has no persona$/);
  assert.equal(c.leftOut.get('agents:colon')?.path, `${W}/agents/colon.md`);
});
