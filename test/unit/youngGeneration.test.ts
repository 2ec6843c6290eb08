// Rule: a Baton server process keeps V8's young generation within YOUNG_GENERATION_BYTES, where V8 alone lets it grow
// to 32 MiB under the same allocations; on two cores or fewer it scavenges on its main thread alone (no helper thread
// takes part in any scavenge), on more it keeps V8's parallel scavenge.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { typeScriptLoader } from '../../scripts/test.mjs';
import { SCAVENGE_ALONE_MAX_CORES, YOUNG_GENERATION_BYTES } from '../../src/cli/youngGeneration.js';

const CHILD = join(__dirname, '..', 'fixtures', 'heap', 'churn.ts');
const largest = (...args: string[]) =>
  (JSON.parse(execFileSync(process.execPath, [...typeScriptLoader(), CHILD, ...args], { encoding: 'utf8' })) as { largest: number }).largest;

test('capYoungGeneration stops the young generation at its bound', () => {
  const uncapped = largest();
  assert.ok(uncapped > YOUNG_GENERATION_BYTES, `without the cap the young generation grows past the bound (reached ${uncapped} bytes)`);
  assert.ok(largest('cap') <= YOUNG_GENERATION_BYTES);
});

test('scavengeAlone: at two cores or fewer no helper thread takes part in a scavenge; above, nothing is set', () => {
  assert.equal(SCAVENGE_ALONE_MAX_CORES, 2);
  // V8's --trace-gc-nvp prints a line per collection; a scavenge's names the time helper threads spent in it. The
  // child's full collection (gc=mc) right after the call marks where the scavenges it governs begin.
  const child = spawnSync(process.execPath, ['--trace-gc-nvp', '--expose-gc', ...typeScriptLoader(), CHILD, 'alone'], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual((JSON.parse(child.stderr) as { alone: boolean[] }).alone, [false, true]);
  const out = child.stdout.split('\n');
  const after = out.slice(out.findIndex((line) => / gc=mc /.test(line)) + 1);
  assert.ok(after.length < out.length, 'the full collection after the call is in the trace');
  const helped = after.filter((line) => / gc=s /.test(line)).map((line) => Number(/ background\.scavenge\.parallel=([\d.]+)/.exec(line)?.[1]));
  assert.ok(helped.length > 10, `scavenges seen: ${helped.length}`);
  assert.deepEqual(helped.filter((ms) => ms !== 0), [], 'helper thread time in a scavenge');
});
