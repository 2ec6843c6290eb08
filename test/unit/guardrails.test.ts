// Rule: NEVER/PROTECT bullets become forbidden actions (keyword kept), ALWAYS/MUST required, VALIDATE validation; the contract gets the top 5 by the spec's keyword weights.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getTopForbiddenActions, parseGuardrails, renderGuardrailsMarkdown, type ParsedGuardrails } from '../../src/core/broker/guardrails.js';

const security = {
  name: 'security',
  content: [
    '# Security Best Practices',
    '',
    'Some prose about security. NEVER mind this line.',
    '',
    '- **NEVER** commit secrets, API keys, or credentials',
    '- **NEVER** use eval() or exec() on user input',
    '- **ALWAYS** validate and sanitize inputs',
    '- **VALIDATE** all file paths before operations',
    '- **PROTECT** sensitive data with encryption',
  ].join('\n'),
};
const quality = {
  name: 'code-quality',
  content: [
    '# Code Quality Standards',
    '',
    '- **ALWAYS** write unit tests for new functions',
    '- **NEVER** push directly to main/master branch',
    '- **MUST** follow TypeScript strict mode',
  ].join('\r\n'),
};

test('parses the spec example rules into the three kinds with the keyword kept', () => {
  const parsed = parseGuardrails([security, quality]);
  assert.deepEqual(parsed, {
    forbidden_actions: [
      'NEVER commit secrets, API keys, or credentials',
      'NEVER use eval() or exec() on user input',
      'PROTECT sensitive data with encryption',
      'NEVER push directly to main/master branch',
    ],
    required_actions: [
      'ALWAYS validate and sanitize inputs',
      'ALWAYS write unit tests for new functions',
      'MUST follow TypeScript strict mode',
    ],
    validation_requirements: ['VALIDATE all file paths before operations'],
    source_rules: ['security', 'code-quality'],
  });
});

test('line variants table', () => {
  const cases: Array<[string, keyof ParsedGuardrails | null, string?]> = [
    ['* **NEVER** star bullet', 'forbidden_actions', 'NEVER star bullet'],
    ['    - **NEVER** indented bullet', 'forbidden_actions', 'NEVER indented bullet'],
    ['- **Never** mixed case', 'forbidden_actions', 'Never mixed case'],
    ['- **MUST NOT** disable tests', 'forbidden_actions', 'MUST NOT disable tests'],
    ['- **NEVER**   extra   **bold** spaces  ', 'forbidden_actions', 'NEVER extra bold spaces'],
    ['- **MUST** do it', 'required_actions', 'MUST do it'],
    ['- **VALIDATE** schemas', 'validation_requirements', 'VALIDATE schemas'],
    ['NEVER without bullet', null],
    ['- NEVER without bold', null],
    ['**NEVER** bold without bullet', null],
    ['- **NEVERMIND** other word', null],
  ];
  for (const [line, kind, expected] of cases) {
    const parsed = parseGuardrails([{ name: 'r', content: line }]);
    const all = [...parsed.forbidden_actions, ...parsed.required_actions, ...parsed.validation_requirements];
    if (kind === null) {
      assert.deepEqual(all, [], line);
    } else {
      assert.deepEqual(parsed[kind], [expected], line);
      assert.equal(all.length, 1, line);
    }
  }
});

test('bullets inside fenced code blocks are ignored', () => {
  const parsed = parseGuardrails([{ name: 'r', content: '```md\n- **NEVER** example only\n```\n- **NEVER** real' }]);
  assert.deepEqual(parsed.forbidden_actions, ['NEVER real']);
});

test('identical actions are deduped across rules', () => {
  const rule = { name: 'a', content: '- **NEVER** delete data\n- **NEVER** delete data' };
  const parsed = parseGuardrails([rule, { ...rule, name: 'b' }]);
  assert.deepEqual(parsed.forbidden_actions, ['NEVER delete data']);
  assert.deepEqual(parsed.source_rules, ['a', 'b']);
});

const only = (forbidden: string[]): ParsedGuardrails => ({ forbidden_actions: forbidden, required_actions: [], validation_requirements: [], source_rules: [] });

test("top forbidden actions pick the spec's contract example set, ordered by score then name", () => {
  const parsed = only([
    'NEVER deploy to production without approval',
    'NEVER push directly to main/master branch',
    'NEVER use eval() or exec() on user input',
    'NEVER delete or truncate database tables',
    'NEVER commit secrets, API keys, or credentials',
    'PROTECT sensitive data with encryption',
    'NEVER write long functions',
  ]);
  assert.deepEqual(getTopForbiddenActions(parsed), [
    'NEVER commit secrets, API keys, or credentials', // secret+credential+key 30, commit 5 = 35
    'NEVER delete or truncate database tables', // delete+truncate 20, 'd' < 'u'
    'NEVER use eval() or exec() on user input', // eval+exec 20
    'NEVER deploy to production without approval', // deploy+production 10
    'NEVER push directly to main/master branch', // push 5
  ]);
});

test('top forbidden: weights, alphabetical tie-break, limit', () => {
  const parsed = only(['b never token', 'a never token', 'z never push', 'c harmless']);
  assert.deepEqual(getTopForbiddenActions(parsed, 10), ['a never token', 'b never token', 'z never push', 'c harmless']);
  assert.deepEqual(getTopForbiddenActions(parsed, 2), ['a never token', 'b never token']);
  assert.deepEqual(getTopForbiddenActions(parsed, 0), []);
  assert.equal(getTopForbiddenActions(only(['1', '2', '3', '4', '5', '6', '7'])).length, 5);
  // 'execute' contains both 'exec' and 'execute': 20 beats a single high keyword (10).
  assert.deepEqual(getTopForbiddenActions(only(['a drop x', 'b execute y'])), ['b execute y', 'a drop x']);
});

test('renders the guardrails resource markdown as in the spec', () => {
  assert.equal(
    renderGuardrailsMarkdown([security, quality]),
    [
      '# Active Guardrails',
      '',
      '## Rule: Security Best Practices',
      '',
      '- **NEVER** commit secrets, API keys, or credentials',
      '- **NEVER** use eval() or exec() on user input',
      '- **ALWAYS** validate and sanitize inputs',
      '- **VALIDATE** all file paths before operations',
      '- **PROTECT** sensitive data with encryption',
      '',
      '## Rule: Code Quality Standards',
      '',
      '- **ALWAYS** write unit tests for new functions',
      '- **NEVER** push directly to main/master branch',
      '- **MUST** follow TypeScript strict mode',
      '',
    ].join('\n'),
  );
});

test('render: title falls back to the name; rules without bullets keep their prose; no rules', () => {
  const md = renderGuardrailsMarkdown([{ name: 'plain-rule', content: '## Sub\n\nBe kind to reviewers.\n' }]);
  assert.equal(md, '# Active Guardrails\n\n## Rule: plain-rule\n\nBe kind to reviewers.\n');
  assert.match(renderGuardrailsMarkdown([]), /^# Active Guardrails\n\nNo active rules\./);
});
