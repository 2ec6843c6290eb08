// Rule: every step hands the agent its contract and the spec's instruction markdown, naming the exact submit call, the human gate, review feedback and parallel work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildContract, renderHumanMessage, type HumanMessageInput } from '../../src/core/broker/contract.js';

const allowed = [
  'Read source code files',
  'Analyze stack traces and error logs',
  'Propose code changes',
  'Create implementation plan artifact',
  'Reference external documentation',
];
const forbidden = [
  'NEVER commit secrets, API keys, or credentials',
  'NEVER use eval() or exec() on user input',
  'NEVER delete or truncate database tables',
  'NEVER push directly to main/master branch',
  'NEVER deploy to production without approval',
];
const format = 'Provide a summary of changes, implementation plan artifact with detailed code changes, list of files modified, confidence score, and any blockers.';
const stepDef = { name: 'implement-fix', allowed_actions: allowed, required_output_format: format, human_gate: false };

test("buildContract produces the spec's contract example and copies arrays", () => {
  const contract = buildContract(stepDef, forbidden);
  assert.deepEqual(contract, {
    step_name: 'implement-fix',
    allowed_actions: allowed,
    forbidden_actions: forbidden,
    required_output_format: format,
    human_gate_required: false,
  });
  assert.notEqual(contract.allowed_actions, allowed);
  assert.notEqual(contract.forbidden_actions, forbidden);
  assert.equal(buildContract({ ...stepDef, human_gate: true }, []).human_gate_required, true);
});

const base: HumanMessageInput = {
  template_name: 'bug-fix',
  agent_name: 'implementer',
  task_description: 'Fix the login crash.',
  contract: buildContract(stepDef, forbidden),
  execution_id: 'exec-1',
  attempt: 1,
};

test("renders the spec's Usage in Instructions markdown", () => {
  const md = renderHumanMessage(base);
  const expectedStart = [
    '# Workflow Step: implement-fix',
    '',
    '**Template**: bug-fix',
    '**Agent Role**: implementer',
    '',
    '## Your Task',
    '',
    'Fix the login crash.',
    '',
    '## What You CAN Do',
    ...allowed.map((a) => `- ${a}`),
    '',
    '## What You CANNOT Do',
    ...forbidden.map((a) => `- ${a}`),
    '',
    '## Required Output Format',
    '',
    format,
    '',
    '## Submitting Your Work',
    '',
    'Call `workflow_next_step` with your model_output_so_far and the step_token provided',
  ].join('\n');
  assert.ok(md.startsWith(expectedStart), md);
  assert.ok(md.includes('workflow_next_step({ step_token, model_output_so_far: { summary, artifacts: [...], references, confidence } })'));
  for (const absent of ['## Human Review', '## Feedback From Review', '## Always', '## Parallel Work']) {
    assert.ok(!md.includes(absent), absent);
  }
});

test('human gate adds a Human Review section telling the agent to call again with the returned token', () => {
  const md = renderHumanMessage({ ...base, contract: buildContract({ ...stepDef, human_gate: true }, forbidden) });
  assert.match(md, /## Human Review\n\nAfter you submit, this step waits for a person's approval\. Call `workflow_next_step` again with the returned step_token to wait for the decision/);
  assert.ok(md.indexOf('## Human Review') > md.indexOf('## Submitting Your Work'));
});

test('feedback adds a Feedback From Review section before Your Task, with the attempt', () => {
  const md = renderHumanMessage({ ...base, attempt: 2, feedback: 'Add a regression test.\nAlso check null users.' });
  const at = md.indexOf('## Feedback From Review');
  assert.ok(at > 0 && at < md.indexOf('## Your Task'));
  assert.match(md, /sent back.*attempt 2/);
  assert.match(md, /> Add a regression test\.\n> Also check null users\./);
  assert.ok(!renderHumanMessage({ ...base, feedback: '  ' }).includes('## Feedback From Review'));
  assert.ok(!renderHumanMessage({ ...base, feedback: null }).includes('## Feedback From Review'));
});

test('required actions add an Always section', () => {
  const md = renderHumanMessage({ ...base, required_actions: ['ALWAYS write unit tests for new functions'] });
  assert.match(md, /## Always\n- ALWAYS write unit tests for new functions\n/);
  assert.ok(!renderHumanMessage({ ...base, required_actions: [] }).includes('## Always'));
});

test('parallel opportunities add a Parallel Work note with the claim call', () => {
  const md = renderHumanMessage({ ...base, parallel_opportunities: ['design-refactor', 'write-tests'] });
  assert.match(md, /## Parallel Work\n\nOther steps are ready too: `design-refactor`, `write-tests`\./);
  assert.ok(md.includes('workflow_next_step({ task_id: "exec-1" })'));
  assert.ok(!renderHumanMessage({ ...base, parallel_opportunities: [] }).includes('## Parallel Work'));
});

test('empty action lists still render a bullet, never an empty section', () => {
  const md = renderHumanMessage({ ...base, contract: buildContract({ ...stepDef, allowed_actions: [] }, []) });
  assert.match(md, /## What You CAN Do\n- \S/);
  assert.match(md, /## What You CANNOT Do\n- .*guardrails:\/\/active/);
});
