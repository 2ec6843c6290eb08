// Rule: a bad system or blueprint file is refused with the file, line, field and allowed values; a field the agent's
// runner ignores is warned of, never dropped silently; every shipped blueprint is valid and instantiates into a valid
// system.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { instantiateBlueprint } from '../../src/core/pipelines/blueprint.js';
import { regexProblem } from '../../src/core/pipelines/regexCheck.js';
import { listSystems, loadSystem } from '../../src/host/pipelines/systemFiles.js';
import { formatProblems, parseBlueprintFile, parseSystemFile } from '../../src/core/pipelines/systemFile.js';
import { aliasBomb } from '../helpers/aliasBomb.js';

const GOOD = `name: ok
agents:
  - { id: a, role: researcher, modelConfig: { model: claude-haiku } }
  - { id: b, runner: command, command: [node, b.js] }
workflow:
  - { type: agent, agentId: a, outputVariable: x }
  - { type: agent, agentId: b, inputTemplate: "{{x}}" }
`;

test('a valid system parses; the runner is inferred from the model', () => {
  const p = parseSystemFile(GOOD, 'ok.yaml', 'ok');
  assert.deepEqual(p.problems, []);
  assert.equal(p.value!.agents[0]!.runner, 'claude');
  assert.equal(p.value!.workflow[0]!.id, '1-a');
});

test('problems name the file, line, field and allowed values', () => {
  const bad = `name: bad
agents:
  - { id: a, runner: clade }
  - { id: b, model: mystery-model }
  - { id: c, runner: command }
workflow:
  - { type: agnet, agentId: a }
  - { type: agent, agentId: zed }
  - type: loop
    children: [{ type: agent, agentId: a }]
  - type: parallel
    failurePolicy: sometimes
    children: [{ type: agent, agentId: a }]
  - type: conditional
    condition: { field: x, operator: bigger, value: 1 }
  - type: conditional
    condition: { field: x, operator: gt, value: "high" }
  - { type: agent, agentId: a, retry: { maxAttempts: 0 }, timeoutMs: -5 }
  - { type: transform, operation: extract, inputTemplate: "{{x}}", pattern: "(" }
  - { type: transform, operation: extract, inputTemplate: "{{x}}", pattern: "^(a+)+$" }
  - type: conditional
    condition: { field: x, operator: matches, value: "(\\\\w+\\\\s*)*done" }
`;
  const p = parseSystemFile(bad, '.baton/pipelines/bad.yaml', 'bad');
  assert.equal(p.value, undefined);
  const lines = p.problems.map((x) => `${x.path}:${x.line}: ${x.message}`);
  const expect = (re: RegExp) => assert.ok(lines.some((l) => re.test(l)), `${re} not in:\n${lines.join('\n')}`);
  expect(/^\.baton\/pipelines\/bad\.yaml:3: agents\[0\]\.runner: must be one of claude, codex, gemini, opencode, cursor-agent, vscode-lm, command; got the string "clade"/);
  expect(/:4: agents\[1\]\.runner: missing; set runner to one of .* \(it cannot be inferred from model 'mystery-model'\)/);
  expect(/:5: agents\[2\]\.command: the command runner needs command/);
  expect(/:7: workflow\[0\]\.type: must be one of agent, sequential, parallel, conditional, loop, human_review, transform; got the string "agnet"/);
  expect(/:8: workflow\[1\]\.agentId: no agent 'zed' in this system; agents: a, b, c/);
  expect(/:9: workflow\[2\]\.maxIterations: missing required field \(expected a whole number from 1 to 1000\)/);
  expect(/:12: workflow\[3\]\.failurePolicy: must be one of fail_fast, wait_for_all/);
  expect(/:15: workflow\[4\]\.condition\.operator: must be one of contains, not_contains, equals, not_equals, matches, not_matches, gt, gte, lt, lte, exists, not_exists/);
  expect(/:17: workflow\[5\]\.condition\.value: operator gt needs a number/);
  expect(/:18: workflow\[6\]\.retry\.maxAttempts: must be a whole number from 1 to 20/);
  expect(/:18: workflow\[6\]\.timeoutMs: must be a whole number from 1 to/);
  expect(/:19: workflow\[7\]\.pattern: not a valid regular expression/);
  // Nested repeats take exponential time on a text that almost matches, on the owner's event loop: refused.
  expect(/:20: workflow\[8\]\.pattern: the group "\(a\+\)\+" repeats and has a repeat inside it, which can take exponential time .*; write it without the nesting/);
  expect(/:22: workflow\[9\]\.condition\.value: the group .* repeats and has a repeat inside it/);
});

test('regexProblem: nested unbounded repeats are refused; bounded, single or escaped ones are not', () => {
  for (const bad of ['^(a+)+$', '(\\w+\\s*)*', '([a-z]+)*x', '(a{2,})+', '((a)+)+', '(?<n>a+)+']) assert.match(regexProblem(bad) ?? '', /repeats and has a repeat inside it/, bad);
  for (const good of ['(a|b)+', '\\d+', '(?:ab)+c*', '(a{2,3})+', '[(+]+', '\\(a+\\)+', '(a*)?', 'APPROVED|LGTM']) assert.equal(regexProblem(good), null, good);
  assert.match(regexProblem('(x+') ?? '', /^not a valid regular expression/);
});

test('cliConfig is the CLI\'s own settings: a mapping, for the spawned CLIs only, handed to the runner as is', () => {
  const good = `name: ok
agents:
  - id: p
    runner: codex
    env: { LOCAL_KEY: k }
    cliConfig:
      model_provider: local
      model_providers.local: { name: local, base_url: "http://127.0.0.1:9/v1", env_key: LOCAL_KEY, wire_api: responses }
workflow:
  - { type: agent, agentId: p }
`;
  const p = parseSystemFile(good, 'ok.yaml', 'ok');
  assert.deepEqual(p.problems, []);
  assert.deepEqual(p.value!.agents[0]!.cliConfig, {
    model_provider: 'local', 'model_providers.local': { name: 'local', base_url: 'http://127.0.0.1:9/v1', env_key: 'LOCAL_KEY', wire_api: 'responses' },
  });
  const bad = `name: bad
agents:
  - { id: a, runner: gemini, cliConfig: [security] }
  - { id: b, runner: command, command: [node, b.js], cliConfig: { x: 1 } }
  - { id: c, runner: vscode-lm, cliConfig: { x: 1 } }
workflow:
  - { type: agent, agentId: a }
`;
  const lines = parseSystemFile(bad, 'bad.yaml', 'bad').problems.map((x) => `${x.path}:${x.line}: ${x.message}`);
  const expect = (re: RegExp) => assert.ok(lines.some((l) => re.test(l)), `${re} not in:\n${lines.join('\n')}`);
  expect(/^bad\.yaml:3: agents\[0\]\.cliConfig: must be a mapping of the CLI's own settings .*got a list/);
  expect(/^bad\.yaml:4: agents\[1\]\.cliConfig: the command runner takes no cliConfig; it applies to claude, codex, gemini, opencode, cursor-agent \(use env for the command runner\)/);
  expect(/^bad\.yaml:5: agents\[2\]\.cliConfig: the vscode-lm runner takes no cliConfig/);
});

test('a command on a CLI runner\'s agent is warned of as ignored (the CLI is found on PATH), as in a team file', () => {
  const p = parseSystemFile('agents:\n  - { id: a, runner: codex, command: [/opt/codex/bin/codex] }\nworkflow:\n'
    + '  - { type: agent, agentId: a }\n', 's.yaml', 's');
  assert.deepEqual(p.problems.map((x) => [x.line, x.message]), [[2, 'agents[0].command: only the command runner runs a '
    + 'command; this agent uses codex (set PATH in env to run another copy of it) (ignored)']]);
  assert.ok(p.value, 'a warning, not a refusal');
  assert.equal(p.value!.agents[0]!.command, undefined);
});

test('a command item YAML reads as another type (true, 1) is named with its index and the quotes it needs, once', () => {
  const text = (command: string) => formatProblems(parseSystemFile(`agents:\n  - { id: a, runner: command, command: ${command} }\nworkflow:\n`
    + '  - { type: agent, agentId: a }\n', 's.yaml', 's').problems);
  assert.equal(text('[true]'), 's.yaml:2: agents[0].command[0]: must be a string, got true; quote it: "true"');
  assert.equal(text('[node, 1]'), 's.yaml:2: agents[0].command[1]: must be a string, got the number 1; quote it: "1"');
  assert.match(text('[]'), /^s\.yaml:2: agents\[0\]\.command: the command runner needs command/);
});

test('YAML whose aliases expand past the parser\'s limit is a problem of the file, not an exception', () => {
  const p = parseSystemFile(aliasBomb(), 'bomb.yaml', 'bomb');
  assert.equal(p.value, undefined);
  assert.match(p.problems[0]!.message, /^YAML could not be read: its aliases \(\*name\) expand to more than the YAML parser takes/);
});

test('YAML syntax errors and unknown fields are reported with lines', () => {
  const p = parseSystemFile('name: x\nagents: [\n', 'x.yaml', 'x');
  assert.match(p.problems[0]!.message, /YAML syntax error: .* \(at the end of the file\)$/);
  assert.equal(p.problems[0]!.line, 2, 'the last line, not the one after it');
  const q = parseSystemFile(GOOD.replace('outputVariable: x }', 'outputVariable: x, outputVar: y }'), 'x.yaml', 'x');
  assert.ok(q.value, 'an unknown field alone does not reject the file');
  assert.match(q.problems[0]!.message, /workflow\[0\]\.outputVar: unknown field; known fields: .* \(ignored\)/);
  assert.equal(q.problems[0]!.line, 6);
});

test('a field of another step type is named, not dropped without a word; a conditional with no branch is refused', () => {
  const text = `name: p
agents: [{ id: a, runner: command, command: [node, a.js] }]
workflow:
  - { id: l, type: loop, maxIterations: 3, condition: { field: out, operator: contains, value: ok }, children: [{ id: c, type: agent, agentId: a, outputVariable: out }] }
  - { id: s, type: sequential, failurePolicy: fail_fast, children: [{ id: d, type: agent, agentId: a, children: [] }] }
`;
  const p = parseSystemFile(text, 'p.yaml', 'p');
  assert.ok(p.value, 'a misplaced field alone does not reject the file (as an unknown one does not)');
  const lines = p.problems.map((x) => `${x.line}: ${x.message}`);
  assert.deepEqual(lines.map((l) => l.replace(/; an? \w+ step's fields: .*$/, '')), [
    "4: workflow[0].condition: not a field of a loop step (it belongs to conditional steps) (did you mean 'breakCondition'?)",
    '5: workflow[1].failurePolicy: not a field of a sequential step (it belongs to parallel steps)',
    '5: workflow[1].children[0].children: not a field of an agent step (it belongs to sequential, parallel and loop steps)',
  ]);
  assert.match(lines[0]!, /a loop step's fields: id, type, name, inputTemplate, outputVariable, maxIterations, children, breakCondition \(ignored\)$/);
  const none = parseSystemFile(text.replace(/workflow:[\s\S]*$/, 'workflow:\n  - { id: k, type: conditional, condition: { field: x, operator: equals, value: 1 } }\n'), 'p.yaml', 'p');
  assert.equal(none.value, undefined);
  assert.deepEqual(none.problems.map((x) => `${x.line}: ${x.message}`), [
    '4: workflow[0]: a conditional step needs trueBranch or falseBranch (or both): the steps to run when its condition holds, or when it does not',
  ]);
});

test('a blueprint with two agent templates of one id, or two inputs of one name, is refused at the second one', () => {
  const text = `id: dup
name: X
description: d
category: research
agentTemplates:
  - { id: a, role: researcher, suggestedModels: [claude-haiku], promptTemplate: "{{system.input}}" }
  - { id: a, role: analyzer, suggestedModels: [claude-haiku], promptTemplate: "x" }
workflowTemplate: [{ id: s1, type: agent, agentId: a }]
requiredInputs:
  - { name: topic, description: d, type: string }
  - { name: topic, description: again, type: string }
`;
  const p = parseBlueprintFile(text, 'dup.yaml', 'dup');
  assert.equal(p.value, undefined);
  assert.deepEqual(p.problems.map((x) => `${x.line}: ${x.message}`), [
    "7: agentTemplates[1].id: duplicate agent id 'a'; give each agent template an id of its own (steps name them by agentId)",
    "11: requiredInputs[1].name: duplicate input 'topic'; each input is asked for once, so give it a name of its own or remove it",
  ]);
});

const blueprintsDir = join(__dirname, '..', '..', 'content', 'blueprints');

test('every shipped blueprint is valid and instantiates into a system that parses again', () => {
  const files = readdirSync(blueprintsDir).filter((f) => f.endsWith('.yaml'));
  const ids = new Set<string>();
  for (const f of files) {
    const p = parseBlueprintFile(readFileSync(join(blueprintsDir, f), 'utf8'), f, f.replace(/\.yaml$/, ''));
    assert.ok(p.value, `${f}: ${p.problems.map((x) => `${x.line}: ${x.message}`).join('\n')}`);
    assert.deepEqual(p.problems, [], f);
    ids.add(p.value.id);
    const inputs = Object.fromEntries(p.value.requiredInputs.map((i) => [i.name, i.type === 'boolean' ? 'true' : i.type === 'selection' ? i.options![0]! : 'x']));
    const sys = instantiateBlueprint(p.value, { name: `from-${p.value.id}`, inputs, runner: 'command', command: ['node', 'agent.js'] });
    const again = parseSystemFile(stringify(sys), `${f}.system.yaml`, 'x');
    assert.ok(again.value, `${f} instantiated: ${again.problems.map((x) => `${x.line}: ${x.message}`).join('\n')}`);
  }
  for (const id of ['research-pipeline', 'parallel-exploration', 'classify-and-route', 'implement-review-refine', 'feature-implementation']) {
    assert.ok(ids.has(id), `blueprint ${id} is shipped`);
  }
});

test('instantiating a blueprint names each missing or bad input', () => {
  const p = parseBlueprintFile(readFileSync(join(blueprintsDir, 'feature-implementation.yaml'), 'utf8'), 'f.yaml', 'f');
  assert.throws(
    () => instantiateBlueprint(p.value!, { name: 'n', inputs: { testRequired: 'maybe', colour: 'red' } }),
    /unknown input 'colour'[\s\S]*missing input 'feature': Feature to implement \(string\)[\s\S]*input 'testRequired' must be true or false, got 'maybe'/,
  );
  const sys = instantiateBlueprint(p.value!, { name: 'n', inputs: { feature: 'dark mode', testRequired: 'false' } });
  assert.equal(sys.variables!.feature, 'dark mode');
  assert.equal(sys.agents[0]!.runner, 'codex', 'runner from the first suggested model');
});

test('two system files with one name are each told which one `pipeline run NAME` runs', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'baton-dup-'));
  try {
    mkdirSync(join(workspace, '.baton', 'pipelines'), { recursive: true });
    writeFileSync(join(workspace, '.baton', 'pipelines', 'a_copy.yaml'), GOOD);
    writeFileSync(join(workspace, '.baton', 'pipelines', 'ok.yaml'), GOOD);
    const listed = listSystems(workspace);
    assert.deepEqual(listed.map((l) => [l.name, l.problems.map((p) => p.message)]), [
      ['ok', ["ok.yaml has the same name 'ok'; `baton pipeline run ok` runs ok.yaml (rename one)"]],
      ['ok', ["a_copy.yaml has the same name 'ok'; `baton pipeline run ok` runs ok.yaml (rename one)"]],
    ]);
    assert.equal(loadSystem('ok', workspace).path, join(workspace, '.baton', 'pipelines', 'ok.yaml'));
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('a file given to `pipeline run` that is not .yaml is named as such, not as "not a file"', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'baton-notyaml-'));
  try {
    mkdirSync(join(workspace, '.baton', 'pipelines'), { recursive: true });
    writeFileSync(join(workspace, '.baton', 'pipelines', 'ok.yaml'), GOOD);
    writeFileSync(join(workspace, 'README.md'), '# not a pipeline\n');
    writeFileSync(join(workspace, 'p.json'), '{}');
    for (const name of ['README.md', 'p.json']) {
      assert.throws(() => loadSystem(name, workspace), (ex: Error) => {
        assert.equal(ex.message, `No pipeline "${name}": ${join(workspace, name)} is not a .yaml file (a pipeline is YAML in NAME.yaml or NAME.yml), and not in ${join(workspace, '.baton', 'pipelines')} (pipelines: ok). Create one with \`baton blueprint new NAME --from BLUEPRINT\`.`);
        return true;
      });
    }
    // A name that is no file at all still reads as before.
    assert.throws(() => loadSystem('nope', workspace), /^BatonError: No pipeline "nope": not a file, and not in /);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('a system file that is not UTF-8 still loads, with a warning naming its first such line', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'baton-latin1-'));
  try {
    mkdirSync(join(workspace, '.baton', 'pipelines'), { recursive: true });
    const path = join(workspace, '.baton', 'pipelines', 'ok.yaml');
    writeFileSync(path, Buffer.from(GOOD.replace('inputTemplate: "{{x}}"', 'inputTemplate: "{{x}} caf\u00e9"'), 'latin1'));
    const { system, warnings } = loadSystem('ok', workspace);
    assert.equal(system.name, 'ok');
    assert.deepEqual(warnings.map((w) => [w.line, /U\+FFFD.*save the file as UTF-8/.test(w.message)]), [[7, true]]);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});
