// Rule: the hand check of workflow_next_step's input vouches only for what nextStepInputSchema accepts, and gives
// exactly what the schema gives (same values, keys in the same order, unknown nested keys dropped); everything else
// it leaves to the schema. It takes the inputs agents send on every call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARTIFACT_FIELDS, MODEL_OUTPUT_FIELDS, NEXT_STEP_FAST_FIELDS, fastParseNextStep } from '../../src/mcp/tools/nextStepFastParse.js';
import { modelOutputSchema, nextStepInputSchema } from '../../src/mcp/tools/nextStepSchema.js';

const output = {
  summary: 'Found the cause.',
  artifacts: [{ type: 'markdown', title: 'notes', content: '# Notes\n\n"quoted" and ünïcode ✓' }],
  references: ['src/a.ts'],
  confidence: 0.8,
};

/** Inputs agents send, each of which the hand check must take. */
const usual: unknown[] = [
  { template_name: 'bug-fix' },
  { template_name: 'bug-fix', task_description: 'Fix the login loop', referenced_paths: ['src/auth.ts'], intent_tags: ['security'] },
  { step_token: 'eyJ.x', model_output_so_far: output },
  { step_token: 'eyJ.x', model_output_so_far: { ...output, artifacts: [], references: [], confidence: 0 } },
  { step_token: 'eyJ.x', model_output_so_far: { ...output, confidence: 1, next_steps: ['ship'], blockers: [], metadata: { tokens: 3, nested: { a: [1] } } } },
  { step_token: 'eyJ.x', model_output_so_far: { ...output, artifacts: [{ type: 'design_doc', title: 't', content: '', description: 'd', metadata: { k: 'v' } }] } },
  // an agent's own extra keys are dropped, as the schema drops them
  { step_token: 'eyJ.x', model_output_so_far: { ...output, mood: 'good', artifacts: [{ ...output.artifacts[0], path: 'x.md' }] } },
  { step_token: 'eyJ.x', request: 'refresh_token' },
  { step_token: 'eyJ.x', request: 'get_task', task_number: 2 },
  { step_token: null, task_id: 'e-1' },
  { task_id: 'e-1', requested_step_name: 'review', rationale: 'next' },
  { template_name: 'spec_execution_v1', source: 'specs/a/tasks.md' },
  { step_token: 'eyJ.x', model_output_so_far: output, evidence: { '1': 'tests pass', '2': { run: 3 } } },
  { step_token: 'eyJ.x', model_output_so_far: output, evidence: ['tests pass', 2, null] },
  { step_token: 'eyJ.x', model_output_so_far: output, evidence: {} },
  {},
];

/** Valid or not, inputs the hand check leaves to the schema. */
const doubtful: unknown[] = [
  { template_name: '' },
  { template_name: 7 },
  { template_name: null },
  { step_token: '' },
  { step_token: 'x', request: 'other' },
  { step_token: 'x', task_number: 1.5 },
  { step_token: 'x', task_number: 2 ** 53 },
  { step_token: 'x', task_number: '2' },
  { step_token: 'x', templat_name: 'bug-fix' },
  { step_token: 'x', model_output_so_far: { ...output, summary: '' } },
  { step_token: 'x', model_output_so_far: { ...output, confidence: 1.01 } },
  { step_token: 'x', model_output_so_far: { ...output, confidence: Number.NaN } },
  { step_token: 'x', model_output_so_far: { ...output, confidence: '0.5' } },
  { step_token: 'x', model_output_so_far: { summary: 's', artifacts: [], references: [] } },
  { step_token: 'x', model_output_so_far: { ...output, artifacts: [{ type: 'poem', title: 't', content: 'c' }] } },
  { step_token: 'x', model_output_so_far: { ...output, artifacts: [{ type: 'markdown', title: '', content: 'c' }] } },
  { step_token: 'x', model_output_so_far: { ...output, artifacts: [{ type: 'markdown', title: 't', content: 'c', description: null }] } },
  { step_token: 'x', model_output_so_far: { ...output, artifacts: {} } },
  { step_token: 'x', model_output_so_far: { ...output, references: ['a', 1] } },
  { step_token: 'x', model_output_so_far: { ...output, metadata: [] } },
  { step_token: 'x', model_output_so_far: { ...output, decisions: [{ decision: 'd', rationale: 'r', alternatives_rejected: [], trade_offs: 't' }] } },
  { step_token: 'x', model_output_so_far: { ...output, findings: [] } },
  { step_token: 'x', model_output_so_far: 'done' },
  { step_token: 'x', model_output_so_far: null },
  { step_token: 'x', evidence: 'all of it' },
  { step_token: 'x', intent_tags: 'security' },
  { step_token: 'x', rationale: undefined },
  JSON.parse('{"step_token":"x","evidence":{"__proto__":{"a":1}}}'),
  JSON.parse('{"step_token":"x","__proto__":{"a":1}}'),
  Object.assign(Object.create(null), { template_name: 'bug-fix' }),
  [{ template_name: 'bug-fix' }],
  null,
  'bug-fix',
];

/** What the schema makes of `input`, with its JSON text (which also pins the order of keys). */
function bySchema(input: unknown): { data: unknown; json: string } | undefined {
  const parsed = nextStepInputSchema.safeParse(input);
  return parsed.success ? { data: parsed.data, json: JSON.stringify(parsed.data) } : undefined;
}

function assertAgrees(input: unknown): boolean {
  const ours = fastParseNextStep(input);
  if (ours === undefined) return false;
  const schema = bySchema(input);
  assert.ok(schema, `the hand check took what the schema refuses: ${JSON.stringify(input)}`);
  assert.deepEqual(ours, schema.data, JSON.stringify(input));
  assert.equal(JSON.stringify(ours), schema.json, `keys in another order: ${JSON.stringify(input)}`);
  return true;
}

test('the inputs agents send take the hand check, and it gives what the schema gives', () => {
  for (const input of usual) assert.ok(assertAgrees(input), `left to the schema: ${JSON.stringify(input)}`);
});

test('what the hand check does not vouch for goes to the schema', () => {
  for (const input of doubtful) assert.equal(fastParseNextStep(input), undefined, JSON.stringify(input));
});

test('its results are copies: changing them leaves the input as it was (the call log keeps the input)', () => {
  const input = structuredClone(usual[4]) as { model_output_so_far: { references: string[]; metadata: Record<string, unknown> } };
  const before = JSON.stringify(input);
  const ours = fastParseNextStep(input) as typeof input;
  ours.model_output_so_far.references.push('more');
  ours.model_output_so_far.metadata.added = true;
  assert.equal(JSON.stringify(input), before);
});

test('it checks the fields of the schema, its model output and artifacts, in the schema order', () => {
  assert.deepEqual(NEXT_STEP_FAST_FIELDS.map(([key]) => key), Object.keys(nextStepInputSchema.shape));
  assert.deepEqual(MODEL_OUTPUT_FIELDS.map(([key]) => key), Object.keys(modelOutputSchema.shape));
  assert.deepEqual(ARTIFACT_FIELDS.map(([key]) => key), Object.keys(modelOutputSchema.shape.artifacts.element.shape));
});

test('on thousands of altered inputs it never takes what the schema refuses, nor gives anything else', () => {
  let seed = 20261129;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const values: unknown[] = [
    null, true, 0, -1, 0.5, 1, 2, 1.5, 2 ** 53, Number.NaN, '', 'x', 'markdown', 'continue', 'get_task', [], ['a'], [1], [null], {}, { a: 1 },
    { type: 'markdown', title: 't', content: 'c' }, [{ type: 'markdown', title: 't', content: 'c' }], [{ type: 'bad', title: 't', content: 'c' }],
    output, { ...output, confidence: 2 }, { ...output, extra: 1 },
  ];
  const keys = [...Object.keys(nextStepInputSchema.shape), 'summary', 'artifacts', 'references', 'confidence', 'type', 'title', 'content', 'metadata', 'extra'];
  /** Sets, replaces or drops one key somewhere in `value`. */
  const alter = (value: unknown, depth: number): unknown => {
    if (depth > 3 || value === null || typeof value !== 'object') return random() < 0.5 ? pick(values) : value;
    const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as unknown as Record<string, unknown>) : { ...(value as Record<string, unknown>) };
    const present = Object.keys(copy);
    const roll = random();
    if (roll < 0.45 && present.length) {
      const key = pick(present);
      copy[key] = alter(copy[key], depth + 1);
    } else if (roll < 0.8) {
      copy[Array.isArray(value) ? String(present.length) : pick(keys)] = pick(values);
    } else if (present.length) {
      delete copy[pick(present)];
    }
    return copy;
  };
  let taken = 0;
  for (let i = 0; i < 5000; i++) {
    let input: unknown = structuredClone(pick(usual));
    for (let n = 1 + Math.floor(random() * 3); n > 0; n--) input = alter(input, 0);
    if (assertAgrees(input)) taken++;
  }
  // Both sides of the line are exercised: a fair share of the altered inputs is still valid and taken.
  assert.ok(taken > 500 && taken < 4500, `took ${taken} of 5000`);
});
