// Whether a lone call's journal sync can hide the work around it: one 3 KB append and fdatasync, then `work_us` of
// CPU on the event loop, timed until both are done, with the sync inline (as the journal does it for a lone call), on
// the thread pool (the work runs while the disk syncs), and on a thread of its own that waits on a shared flag
// (`Atomics`: no event-loop turn on either side, the least a hand-off can cost). Rounds alternate, each after a short
// pause, as calls one at a time come. If either hid the work, `async_vs_inline` or `thread_vs_inline` would be well
// under 1 at 150 µs of work. Prints one JSON object. Run: node --import tsx bench/syncOverlap.bench.ts
import { closeSync, fdatasync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
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

type Mode = 'inline' | 'pool' | 'thread';

/**
 * A thread that fdatasyncs `fd` each time slot 0 of `flags` is set to 1, then clears it and raises slot 1; 2 in slot 0
 * ends it. Plain JavaScript (eval), so it runs the same under tsx and bundled.
 */
function syncThread(fd: number, flags: Int32Array): Worker {
  const source = `
    const { workerData } = require('node:worker_threads');
    const { fdatasyncSync } = require('node:fs');
    const flags = new Int32Array(workerData.buffer);
    for (;;) {
      Atomics.wait(flags, 0, 0);
      if (Atomics.load(flags, 0) === 2) break;
      fdatasyncSync(workerData.fd);
      Atomics.store(flags, 0, 0);
      Atomics.store(flags, 1, 1);
      Atomics.notify(flags, 1);
    }`;
  return new Worker(source, { eval: true, workerData: { fd, buffer: flags.buffer } });
}

async function lap(fd: number, workUs: number, mode: Mode, flags: Int32Array): Promise<number> {
  await pause();
  const start = performance.now();
  writeSync(fd, RECORD);
  if (mode === 'pool') {
    const synced = new Promise<void>((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
    work(workUs);
    await synced;
  } else if (mode === 'thread') {
    Atomics.store(flags, 1, 0);
    Atomics.store(flags, 0, 1);
    Atomics.notify(flags, 0);
    work(workUs);
    Atomics.wait(flags, 1, 0);
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
  const flags = new Int32Array(new SharedArrayBuffer(8));
  const thread = syncThread(fd, flags);
  const ratio = (a: number[], b: number[]) => Math.round((stats(a).p50_ms / stats(b).p50_ms) * 1000) / 1000;
  try {
    for (const workUs of [0, 150]) {
      const p50s: Record<Mode, number[]> = { inline: [], pool: [], thread: [] };
      for (let r = 0; r < ROUNDS; r++) {
        const order: Mode[] = r % 2 ? ['thread', 'pool', 'inline'] : ['inline', 'pool', 'thread'];
        for (const mode of order) {
          const laps: number[] = [];
          for (let i = 0; i < CALLS; i++) laps.push(await lap(fd, workUs, mode, flags));
          p50s[mode].push(stats(laps).p50_ms);
        }
      }
      // Each round's p50 is rounded already (stats); the ratio is of their medians over the rounds.
      result[`work_${workUs}_us`] = {
        inline_p50_ms: p50s.inline,
        pool_p50_ms: p50s.pool,
        thread_p50_ms: p50s.thread,
        async_vs_inline: ratio(p50s.pool, p50s.inline),
        thread_vs_inline: ratio(p50s.thread, p50s.inline),
      };
    }
  } finally {
    Atomics.store(flags, 0, 2);
    Atomics.notify(flags, 0);
    await thread.terminate();
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

void main();
