// Rule: every step hands the agent its contract, and the text form of a result alone says what the step is, its ids
// and status, and the exact next call (a copyable JSON object with the token), naming the tool as it is listed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildContract, contractFor, stepHumanMessage } from '../../src/core/broker/contract.js';
import { NEXT_CALL_PREFIX, renderResultText } from '../../src/core/broker/stepText.js';
import type { NextStepResponse, StepContext } from '../../src/core/types.js';

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

test('contractFor builds one frozen contract per definition and forbidden list, and a new one when either changes', () => {
  const def = { ...stepDef };
  const first = contractFor(def, forbidden);
  assert.deepEqual(first, buildContract(def, forbidden));
  assert.equal(contractFor(def, forbidden), first, 'the same contract for every claim of the step');
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first.allowed_actions) && Object.isFrozen(first.forbidden_actions));
  const changed = [...forbidden.slice(1), 'NEVER run rm -rf /'];
  assert.deepEqual(contractFor(def, changed).forbidden_actions, changed, 'guardrails changed: a new contract');
  assert.notEqual(contractFor({ ...stepDef }, forbidden), first, 'another definition object: its own contract');
});

test('human_message is one short line pointing at the structured fields, not the contract again', () => {
  const line = stepHumanMessage(buildContract(stepDef, forbidden), 'bug-fix');
  assert.ok(!line.includes('\n') && line.length < 220, line);
  assert.match(line, /implement-fix of bug-fix within next_step_contract and context.*workflow_next_step.*new_step_token.*model_output_so_far/);
  for (const item of [...allowed, ...forbidden]) assert.ok(!line.includes(item), item);
  assert.match(stepHumanMessage(buildContract({ ...stepDef, human_gate: true }, forbidden), 'bug-fix'), /A person approves the step after you submit\./);
});

const context = (extra: Partial<StepContext> = {}): StepContext => ({
  workflow: 'bug-fix', agent_name: 'implementer', task_description: 'Fix the login crash.', step_description: 'Fix it at the root cause.',
  persona_summary: 'Makes the change.', persona_uri: 'persona://implementer', guardrails: ['ALWAYS write unit tests for new functions'],
  guardrails_uri: 'guardrails://active', dependency_artifacts: [], more: [], ...extra,
});
const ok = (extra: Partial<NextStepResponse> = {}, ctx: Partial<StepContext> = {}): NextStepResponse => ({
  status: 'ok', execution_id: 'exec-1', task_id: 'task-1', next_step_contract: buildContract(stepDef, forbidden), new_step_token: 'tok.sig',
  token_expires_at: '2026-01-01T00:10:00.000Z', human_message: 'one line', context: context(ctx), progress: 25,
  selection: { scores: { 'implement-fix': 0 }, reason: 'only one', all_candidates: ['implement-fix'], parallel_opportunities: ['implement-fix'], tie_broken_by: 'none' },
  ...extra,
});

/** The arguments on the text's "Next call:" line. */
function nextCall(text: string): Record<string, unknown> {
  const line = text.split('\n').find((l) => l.startsWith(NEXT_CALL_PREFIX));
  assert.ok(line, `a "${NEXT_CALL_PREFIX}" line in:\n${text}`);
  return JSON.parse(line.slice(NEXT_CALL_PREFIX.length)) as Record<string, unknown>;
}

test('an ok text carries the step, status, ids, task, contract, persona and the exact submit call with the token', () => {
  const text = renderResultText(ok());
  assert.ok(text.startsWith('# Step "implement-fix" of bug-fix, for the implementer agent\n'), text);
  assert.match(text, /^status: ok \| progress: 25% \| execution_id: exec-1 \| task_id: task-1$/m);
  // Its content is ASCII, and so is everything Baton adds: the answer then needs no transcoding on either side.
  assert.doesNotMatch(text, /[^\x00-\x7f]/);
  assert.match(text, /## Task\nFix the login crash\.\n\nFix it at the root cause\./);
  assert.match(text, new RegExp(`## Allowed\n${allowed.map((a) => `- ${a}`).join('\n')}\n`));
  assert.match(text, new RegExp(`## Forbidden\n${forbidden.map((a) => `- ${a.replace(/[()/]/g, '\\$&')}`).join('\n')}\n`));
  assert.match(text, /## Always\n- ALWAYS write unit tests for new functions\n/);
  assert.ok(text.includes(`## Required output\n${format}\n`));
  assert.match(text, /## Persona \(persona:\/\/implementer\)\nMakes the change\./);
  const call = nextCall(text);
  assert.equal(call.step_token, 'tok.sig');
  assert.deepEqual(Object.keys(call.model_output_so_far as object), ['summary', 'artifacts', 'references', 'confidence']);
  assert.match(text, /expires at 2026-01-01T00:10:00\.000Z.*"request":"refresh_token"/);
  assert.ok(!text.includes('workflow.next_step'));
  for (const absent of ['Reviewer feedback', 'A person approves', 'Also ready', 'From earlier steps']) assert.ok(!text.includes(absent), absent);
});

test('a human gate, review feedback, parallel steps and inline artifacts each get their part of the text', () => {
  const text = renderResultText(ok(
    {
      next_step_contract: buildContract({ ...stepDef, human_gate: true }, forbidden),
      selection: { scores: {}, reason: '', all_candidates: [], parallel_opportunities: ['implement-fix', 'design-refactor'], tie_broken_by: 'alphabetical' },
    },
    {
      feedback: 'Add a regression test.\nAlso check null users.', attempt: 2,
      dependency_artifacts: [{ artifact_id: 'a1', step_name: 'analyze-root-cause', type: 'markdown', title: 'Root cause', content: 'The cookie parser throws.', truncated: true, uri: 'workflow-artifacts://exec-1#a1' }],
      more: ['workflow-artifacts://exec-1'],
    },
  ));
  assert.match(text, /^# Step "implement-fix" of bug-fix, for the implementer agent \(attempt 2\)$/m);
  assert.match(text, /## Reviewer feedback: address it in this attempt\n> Add a regression test\.\n> Also check null users\.\n/);
  assert.ok(text.indexOf('Reviewer feedback') < text.indexOf('## Task'));
  assert.match(text, /A person approves this step after you submit: then call again with only the step_token you get back/);
  assert.match(text, /Also ready: design-refactor; another agent claims one with \{"task_id":"exec-1"\}\./);
  assert.match(text, /## From earlier steps\n### analyze-root-cause \| markdown \| Root cause \(cut\) \| workflow-artifacts:\/\/exec-1#a1\nThe cookie parser throws\.\n\(In full: workflow-artifacts:\/\/exec-1\)/);
  assert.doesNotMatch(text, /[^\x00-\x7f]/, 'the headings are ASCII');
});

test('empty action lists still render a bullet, never an empty section', () => {
  const text = renderResultText(ok({ next_step_contract: buildContract({ ...stepDef, allowed_actions: [] }, []) }, { guardrails: [] }));
  assert.match(text, /## Allowed\n- \S/);
  assert.match(text, /## Forbidden\n- .*guardrails:\/\/active/);
  assert.ok(!text.includes('## Always'));
});

test('awaiting, no_op, closed and error texts each carry the status, the ids and what to call', () => {
  const waiting = renderResultText({ status: 'awaiting_approval', execution_id: 'exec-1', task_id: 'task-1', new_step_token: 'wait.sig', progress: 75, human_message: 'Step "review-code" waits.' });
  assert.match(waiting, /^status: awaiting_approval \| progress: 75% \| execution_id: exec-1 \| task_id: task-1\nStep "review-code" waits\.\n/);
  assert.deepEqual(nextCall(waiting), { step_token: 'wait.sig' });
  const idle = renderResultText({ status: 'no_op', execution_id: 'exec-1', progress: 50, human_message: 'No step is ready right now.' });
  assert.deepEqual(nextCall(idle), { task_id: 'exec-1' });
  const closed = renderResultText({ status: 'task_closed', execution_id: 'exec-1', progress: 100, human_message: 'Complete.', synthesis: { outcome_summary: '# Workflow Synthesis: bug-fix\n' } });
  assert.match(closed, /^status: task_closed \| progress: 100% \| execution_id: exec-1\nComplete\.\n\n# Workflow Synthesis: bug-fix\n$/);
  const limited = renderResultText({ status: 'error', error: { code: 'rate_limited', message: 'Rate limit exceeded.', recovery: 'wait', retry_after_ms: 1500 } });
  assert.match(limited, /^Error rate_limited: Rate limit exceeded\.\nstatus: error\nretry_after_ms: 1500\nRecovery: wait\n$/);
  const expired = renderResultText({
    status: 'error', execution_id: 'exec-1', task_id: 'task-1',
    error: { code: 'token_expired', message: 'Expired.', recovery: 'refresh', current_step: 'implement-fix (running)', next_call: { request: 'refresh_token', step_token: 'old.sig' } },
  });
  assert.match(expired, /^current step: implement-fix \(running\)$/m);
  assert.deepEqual(nextCall(expired), { request: 'refresh_token', step_token: 'old.sig' });
});
