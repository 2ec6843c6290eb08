// Rule: a Baton server process keeps V8's young generation within YOUNG_GENERATION_BYTES, where V8 alone lets it grow
// to 32 MiB under the same allocations.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { typeScriptLoader } from '../../scripts/test.mjs';
import { YOUNG_GENERATION_BYTES } from '../../src/cli/youngGeneration.js';

const CHILD = join(__dirname, '..', 'fixtures', 'heap', 'churn.ts');
const largest = (...args: string[]) =>
  (JSON.parse(execFileSync(process.execPath, [...typeScriptLoader(), CHILD, ...args], { encoding: 'utf8' })) as { largest: number }).largest;

test('capYoungGeneration stops the young generation at its bound', () => {
  const uncapped = largest();
  assert.ok(uncapped > YOUNG_GENERATION_BYTES, `without the cap the young generation grows past the bound (reached ${uncapped} bytes)`);
  assert.ok(largest('cap') <= YOUNG_GENERATION_BYTES);
});
