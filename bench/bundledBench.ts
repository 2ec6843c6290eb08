// A bench that measures Baton as it ships: run from source it bundles its own file like dist/ (sql.js patched) and
// runs that bundle, which sees BATON_BENCH_BUNDLED and runs the bench itself. Prints what the bench prints.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { bundleLikeDist } from '../scripts/sqljsPatch.mjs';

/** How the bundle runs: node flags, arguments, and whether the bundled content goes beside it (as in dist/). */
export interface BundledRun {
  nodeArgs?: string[];
  args?: string[];
  content?: boolean;
}

/** Runs `main` inside the bundle, or bundles `file` and runs it; a failure is printed and exits 1. */
export function benchBundled(file: string, main: () => Promise<void>, run: BundledRun = {}): void {
  (process.env.BATON_BENCH_BUNDLED ? main() : bundleAndRun(file, run)).catch((ex: unknown) => {
    process.stderr.write(`${ex instanceof Error ? ex.stack : String(ex)}\n`);
    process.exit(1);
  });
}

async function bundleAndRun(file: string, run: BundledRun): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `baton-bench-${basename(file).replace(/\.bench\.ts$/, '')}-bundle-`));
  try {
    const bundle = await bundleLikeDist(file, dir);
    if (run.content) cpSync(join(__dirname, '..', 'content'), join(dir, 'content'), { recursive: true });
    process.stdout.write(execFileSync(process.execPath, [...(run.nodeArgs ?? []), bundle, ...(run.args ?? [])], {
      encoding: 'utf8', env: { ...process.env, BATON_BENCH_BUNDLED: '1' }, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 * 1024 * 1024,
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
