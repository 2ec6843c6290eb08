// Runs every bench/*.bench.ts in its own process and prints one JSON document with all figures and targets.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

const dir = __dirname;
const only = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
const results: Record<string, unknown> = {};
let failed = false;
// The benches measure Baton's servers as shipped (the commands bench sets BATON_WASM_TIERS itself where it compares).
if (process.env.BATON_WASM_TIERS !== undefined) {
  process.stderr.write(`bench: BATON_WASM_TIERS=${process.env.BATON_WASM_TIERS} ignored: the benches run Baton as shipped\n`);
  delete process.env.BATON_WASM_TIERS;
}
for (const file of benches) {
  // The previous bench's files (up to 100 MB) must reach the disk first, or their writeback lands in this
  // bench's fdatasync timings; then a moment for the machine to settle.
  spawnSync('sync');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
  process.stderr.write(`bench: ${file}\n`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(dir, file)], {
    cwd: join(dir, '..'),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const name = file.replace(/\.bench\.ts$/, '');
  try {
    if (run.status !== 0) throw new Error(`exit ${run.status}`);
    results[name] = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  } catch (ex) {
    failed = true;
    results[name] = { error: String(ex), stdout: run.stdout.slice(-2000) };
  }
}
const doc = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  cpu_model: cpus()[0]?.model ?? 'unknown',
  results,
};
mkdirSync(join(dir, 'results'), { recursive: true });
writeFileSync(join(dir, 'results', 'latest.json'), JSON.stringify(doc, null, 2) + '\n');
process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
process.exit(failed ? 1 : 0);
