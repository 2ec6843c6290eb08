// Whether a lone call's journal sync can hide the work around it: one 3 KB append and fdatasync, then `work_us` of
// CPU on the event loop, timed until both are done, with the sync inline (as the journal does it for a lone call) and
// on the thread pool (the work runs while the disk syncs). Rounds alternate, each after a short pause, as calls
// one at a time come. If the pool's sync hid the work, `async_vs_inline` would be well under 1 at 150 µs of work.
// Prints one JSON object. Run: node --import tsx bench/syncOverlap.bench.ts
import { closeSync, fdatasync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stats } from './benchKit.js';

const ROUNDS = 4;
const CALLS = 600;
const RECORD = Buffer.alloc(3 * 1024, 0x61);

/** Spins the event loop's thread for `us` microseconds: the CPU a call spends around its sync. */
function work(us: number): void {
  const end = performance.now() + us / 1000;
  while (performance.now() < end);
}

const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function lap(fd: number, workUs: number, onPool: boolean): Promise<number> {
  await pause();
  const start = performance.now();
  writeSync(fd, RECORD);
  if (onPool) {
    const synced = new Promise<void>((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
    work(workUs);
    await synced;
  } else {
    fdatasyncSync(fd);
    work(workUs);
  }
  return performance.now() - start;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-sync-overlap-'));
  const fd = openSync(join(dir, 'journal'), 'w');
  const result: Record<string, unknown> = { bench: 'syncOverlap', rounds: ROUNDS, calls_per_round: CALLS, record_bytes: RECORD.length };
  try {
    for (const workUs of [0, 150]) {
      const inline: number[] = [];
      const pool: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        for (const onPool of r % 2 ? [true, false] : [false, true]) {
          const laps: number[] = [];
          for (let i = 0; i < CALLS; i++) laps.push(await lap(fd, workUs, onPool));
          (onPool ? pool : inline).push(stats(laps).p50_ms);
        }
      }
      // Each round's p50 is rounded already (stats); the ratio is of their medians over the rounds.
      result[`work_${workUs}_us`] = {
        inline_p50_ms: inline,
        pool_p50_ms: pool,
        async_vs_inline: Math.round((stats(pool).p50_ms / stats(inline).p50_ms) * 1000) / 1000,
      };
    }
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

void main();
