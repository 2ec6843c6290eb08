// Rule: tool schemas go out without the JSON Schema keywords strict clients refuse and no client needs ($schema, a
// string propertyNames, an integer's exclusiveMinimum) or zod's safe-integer bounds on every integer, meaning the same;
// every tool Baton lists is so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCatalog } from '../../src/mcp/catalogBuilder.js';
import { portableSchema } from '../../src/mcp/portableSchema.js';
import { evidenceInput } from '../../src/mcp/tools/nextStepSchema.js';

test('drops $schema, a string propertyNames and safe-integer bounds, and writes an integer exclusiveMinimum as minimum', () => {
  const zodWrote = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      metadata: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} },
      keys: { type: 'object', propertyNames: { type: 'string', pattern: '^k' } },
      projectId: { type: 'integer', exclusiveMinimum: 0, maximum: 10 },
      page: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
      task: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991, description: '1-based' },
      big: { type: 'number', maximum: 9007199254740991 },
      ratio: { type: 'number', exclusiveMinimum: 0 },
      evidence: { anyOf: [{ type: 'object', propertyNames: { type: 'string' }, additionalProperties: { type: 'string' } }, { type: 'array', items: {} }] },
      $schema: { type: 'string', description: 'a field of that name is a field' },
    },
    required: ['projectId'],
    additionalProperties: false,
  };
  assert.deepEqual(portableSchema(zodWrote), {
    type: 'object',
    properties: {
      metadata: { type: 'object', additionalProperties: {} },
      keys: { type: 'object', propertyNames: { type: 'string', pattern: '^k' } },
      projectId: { type: 'integer', minimum: 1, maximum: 10 },
      page: { type: 'integer', minimum: 1 },
      task: { type: 'integer', description: '1-based' },
      big: { type: 'number', maximum: 9007199254740991 },
      ratio: { type: 'number', exclusiveMinimum: 0 },
      evidence: { anyOf: [{ type: 'object', additionalProperties: { type: 'string' } }, { type: 'array', items: {} }] },
      $schema: { type: 'string', description: 'a field of that name is a field' },
    },
    required: ['projectId'],
    additionalProperties: false,
  });
  assert.equal(zodWrote.$schema, 'http://json-schema.org/draft-07/schema#', 'the given schema is left as it was');
});

test('a description or title beside anyOf / oneOf goes into each alternative without its own, leaving the list alone', () => {
  const zodWrote = {
    type: 'object',
    properties: {
      step_token: { description: 'The token', anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }] },
      evidence: { title: 'Evidence', description: 'One per item', anyOf: [{ type: 'object' }, { type: 'array', description: 'In gate order' }] },
      kind: { oneOf: [{ const: 'a' }, { const: 'b' }], description: 'Which', default: 'a' },
      plain: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      described: { type: 'string', description: 'no alternatives: as it was' },
    },
  };
  assert.deepEqual(portableSchema(zodWrote).properties, {
    step_token: { anyOf: [{ description: 'The token', type: 'string', minLength: 1 }, { description: 'The token', type: 'null' }] },
    evidence: {
      anyOf: [
        { title: 'Evidence', description: 'One per item', type: 'object' },
        { title: 'Evidence', description: 'In gate order', type: 'array' },
      ],
    },
    kind: { oneOf: [{ description: 'Which', const: 'a' }, { description: 'Which', const: 'b' }], default: 'a' },
    plain: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    described: { type: 'string', description: 'no alternatives: as it was' },
  });
  assert.equal(zodWrote.properties.step_token.description, 'The token', 'the given schema is left as it was');
});

test('the catalog (what tools/list answers, every group) has none of those keywords', async () => {
  const catalog = JSON.stringify(await buildCatalog('t'));
  assert.doesNotMatch(catalog, /"\$schema":|"exclusiveMinimum":|"propertyNames":\{"type":"string"\}|9007199254740991/);
  assert.match(catalog, /"projectId":\{"description":"A project id from list_projects","type":"integer","minimum":1\}/);
  assert.match(catalog, /"task_number":\{"description":"With request get_task: the task \(1-based\)","type":"integer"\}/);
});

test('in the catalog, no anyOf or oneOf has a description or title beside it, and evidence entries are text (Gemini)', async () => {
  const beside: string[] = [];
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}[${i}]`));
    if (node === null || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if ((Array.isArray(o.anyOf) || Array.isArray(o.oneOf)) && ('description' in o || 'title' in o)) beside.push(path);
    for (const [k, v] of Object.entries(o)) walk(v, `${path}.${k}`);
  };
  type Tool = { name: string; inputSchema: { properties: Record<string, { anyOf: Array<Record<string, unknown>> }> } };
  const tools = (await buildCatalog('t')).groups.flatMap((g) => g.tools as Tool[]);
  for (const tool of tools) walk(tool.inputSchema, tool.name);
  assert.deepEqual(beside, []);
  const stepToken = tools.find((t) => t.name === 'workflow_next_step')!.inputSchema.properties.step_token!;
  assert.match(String(stepToken.anyOf[0]!.description), /new_step_token of your previous call/, 'the description is kept, in the alternative');
  for (const name of ['workflow_next_step', 'complete_phase']) {
    const evidence = tools.find((t) => t.name === name)!.inputSchema.properties.evidence!;
    assert.deepEqual(evidence.anyOf.map((a) => a.additionalProperties ?? a.items), [{ type: 'string' }, { type: 'string' }], `${name}: entries are typed`);
  }
  assert.ok(evidenceInput.safeParse({ 1: { file: 'a.ts' }, 2: 3 }).success, 'an entry that is not text is still taken');
  assert.ok(evidenceInput.safeParse(['ok', 12]).success);
});
