// Rule: a contract (contracts/NAME.schema.json) is checked by the JSON Schema draft its `$schema` names — draft-06,
// draft-07 (also when it names none), 2019-09 or 2020-12, whose own keywords are enforced, not skipped — so the
// seed's own contracts (draft 2020-12) work unchanged; a draft Baton does not check is a content_invalid error that
// names the drafts it does, never a validation silently skipped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { ContractValidator } from '../../src/core/lifecycle/contracts.js';
import { silentLog } from '../../src/core/ports.js';
import { memoryFs } from '../fixtures/content/memoryFs.js';

const DIR = '/content/contracts';
const SEED = join(__dirname, '..', 'fixtures', 'content', 'seed', 'contracts');

/** A validator over one contract folder holding `schemas` (name → schema text or value). */
function validator(schemas: Record<string, unknown>): ContractValidator {
  const files = new Map(Object.entries(schemas).map(([name, s]) => [`${DIR}/${name}.schema.json`, typeof s === 'string' ? s : JSON.stringify(s)]));
  return new ContractValidator(memoryFs(files), () => [DIR], silentLog);
}

async function refusal(check: Promise<unknown>): Promise<BatonError> {
  try {
    await check;
  } catch (ex) {
    assert.ok(ex instanceof BatonError, String(ex));
    return ex;
  }
  assert.fail('expected a refusal');
}

test("the seed's StepOutput contract (draft 2020-12) accepts an output of its shape and refuses one that breaks it", async () => {
  const v = validator({ StepOutput: readFileSync(join(SEED, 'StepOutput.schema.json'), 'utf8') });
  const good = { summary: 'Fixed', artifacts: [{ type: 'report', content: '# Report' }], findings: ['a finding'] };
  assert.deepEqual(await v.check('StepOutput', good, 'output'), { schema: 'StepOutput', validated: true });
  const bad = await refusal(v.check('StepOutput', { summary: 'x', artifacts: [{ type: 'report' }], extra: 1 }, 'output'));
  assert.equal(bad.reason, 'invalid_input');
  assert.match(bad.message, /\/artifacts\/0\/content is required/);
  assert.match(bad.message, /\/extra is not allowed/);
  // Its if/then (a project-scoped finding needs project_id) is enforced.
  const scoped = { summary: 'x', suggested_findings: [{ scope: 'project', category: 'security', severity: 'high', title: 't', content: 'c' }] };
  assert.match((await refusal(v.check('StepOutput', scoped, 'output'))).message, /\/suggested_findings\/0\/project_id is required/);
});

test("each draft's own keywords are enforced: 2020-12 prefixItems, 2019-09 dependentRequired, draft-06 and -07 const", async () => {
  const v = validator({
    Pair: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
    Card: { $schema: 'https://json-schema.org/draft/2019-09/schema#', type: 'object', dependentRequired: { card: ['billing'] } },
    Six: { $schema: 'http://json-schema.org/draft-06/schema#', const: 6 },
    Seven: { $schema: 'http://json-schema.org/draft-07/schema', const: 7 },
    Plain: { type: 'object', required: ['a'] },
    Anything: true,
  });
  assert.equal((await v.check('Pair', ['a', 1], 'output')).validated, true);
  assert.match((await refusal(v.check('Pair', [1, 'a'], 'output'))).message, /\/0 must be string/);
  assert.equal((await v.check('Card', { card: 1, billing: 'x' }, 'output')).validated, true);
  assert.match((await refusal(v.check('Card', { card: 1 }, 'output'))).message, /must have property billing when property card is present/);
  assert.match((await refusal(v.check('Six', 7, 'output'))).message, /must be equal to constant/);
  assert.equal((await v.check('Seven', 7, 'output')).validated, true);
  assert.match((await refusal(v.check('Plain', {}, 'output'))).message, /\/a is required/);
  assert.equal((await v.check('Anything', { whatever: [1] }, 'output')).validated, true);
});

test('a draft Baton does not check, a $schema that is no URI, or a file that is no schema: content_invalid, saying what to write', async () => {
  const v = validator({
    Four: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
    Odd: { $schema: 42, type: 'object' },
    List: [{ type: 'object' }],
  });
  const four = await refusal(v.check('Four', {}, 'output'));
  assert.equal(four.reason, 'content_invalid');
  assert.match(four.message, /^\/content\/contracts\/Four\.schema\.json cannot be checked: its \$schema "http:\/\/json-schema\.org\/draft-04\/schema#" names a draft Baton does not check \(it checks draft-06, draft-07, 2019-09 and 2020-12: set \$schema to one of them/);
  assert.match((await refusal(v.check('Odd', {}, 'output'))).message, /cannot be checked: its \$schema is 42, not a URI/);
  assert.match((await refusal(v.check('List', {}, 'output'))).message, /is not a JSON Schema \(it holds a list, not an object\)/);
});
