// Rule: tool schemas go out without the JSON Schema keywords strict clients refuse and no client needs ($schema, a
// string propertyNames, an integer's exclusiveMinimum) or zod's safe-integer bounds on every integer, meaning the same;
// every tool Baton lists is so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCatalog } from '../../src/mcp/catalogBuilder.js';
import { portableSchema } from '../../src/mcp/portableSchema.js';

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

test('the catalog (what tools/list answers, every group) has none of those keywords', async () => {
  const catalog = JSON.stringify(await buildCatalog('t'));
  assert.doesNotMatch(catalog, /"\$schema":|"exclusiveMinimum":|"propertyNames":\{"type":"string"\}|9007199254740991/);
  assert.match(catalog, /"projectId":\{"description":"A project id from list_projects","type":"integer","minimum":1\}/);
  assert.match(catalog, /"task_number":\{"description":"With request get_task: the task \(1-based\)","type":"integer"\}/);
});
