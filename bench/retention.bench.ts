// Retention benchmark: a database of RUNS finished bug-fix runs (most of them finished two months ago) and ABANDONED
// runs left at the gate two months ago is pruned by the default policy (30 days, 1000 runs, idle runs cancelled after
// 30 days) and compacted. Measures what pruning costs while calls go on (the longest the event loop is held, and the
// latency of calls made meanwhile), and what it gives back: the file, and the process's memory (sql.js holds the
// whole database in memory); then, 31 days on, that the cancelled runs go too. Runs bundled like dist/ (sql.js
// patched). Prints one JSON object. Run: node --import tsx bench/retention.bench.ts [RUNS] [ABANDONED]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Baton } from '../src/core/baton.js';
import { DEFAULT_RATE_LIMITS } from '../src/core/broker/rateLimiter.js';
import { silentLog } from '../src/core/ports.js';
import { nodeCrypto, nodeFileSystem, randomIds } from '../src/host/nodePorts.js';
import { openStore } from '../src/store/sqlJsStore.js';
import { runOne, stats, toGate } from './benchKit.js';
import { benchBundled } from './bundledBench.js';

const RUNS = Number(process.argv[2] ?? process.env.BATON_BENCH_RETENTION_RUNS ?? 3000);
const ABANDONED = Number(process.argv[3] ?? 500);
const RECENT = 200;
const DAY = 86_400_000;
const MB = 1024 * 1024;

/** RSS after a full collection (bundled runs get --expose-gc). */
function rssMb(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return Math.round((process.memoryUsage().rss / MB) * 10) / 10;
}

/** Runs `count` workflows, 16 at a time, to the end (or, `abandon`, to the gate nobody decides). */
async function runMany(baton: Baton, count: number, from: number, abandon = false): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < count) await (abandon ? toGate : runOne)(baton, from + next++);
  }));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-retention-'));
  const dbPath = join(dir, 'baton.db');
  try {
    // The runs to prune finish two months back; time runs on from there.
    let offset = -60 * DAY;
    const store = await openStore({ path: dbPath });
    const baton = await Baton.create(
      { store, clock: { now: () => Date.now() + offset }, ids: randomIds, crypto: nodeCrypto, log: silentLog, fs: nodeFileSystem },
      { workspacePath: dir, contentDirs: [join(__dirname, 'content')], rateLimits: { ...DEFAULT_RATE_LIMITS, enabled: false }, approvalWaitMs: 0 },
    );
    await runMany(baton, RUNS - RECENT, 0);
    await runMany(baton, ABANDONED, 3_000_000, true);
    offset = 0;
    await runMany(baton, RECENT, RUNS - RECENT);
    await store.checkpoint();
    const dbBefore = statSync(dbPath).size;
    const rssBefore = rssMb();

    // The same agent's calls without a prune, for comparison.
    const quiet: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await runOne(baton, 2_000_000 + i);
      quiet.push((performance.now() - t) / 6);
    }
    // Calls go on while it prunes: one agent drives a workflow call after call, and the event loop is watched.
    const delay = monitorEventLoopDelay({ resolution: 1 });
    const latencies: number[] = [];
    let pruning = true;
    const agent = (async () => {
      let i = 0;
      while (pruning) {
        const t = performance.now();
        await runOne(baton, 1_000_000 + i++);
        latencies.push((performance.now() - t) / 6); // the mean of its six calls
      }
    })();
    delay.enable();
    const t0 = performance.now();
    const result = await baton.prune({ compact: false });
    const pruneMs = performance.now() - t0;
    delay.disable();
    pruning = false;
    await agent;
    const rssAfterPrune = rssMb();
    const t1 = performance.now();
    const compacted = await store.compact!();
    const compactMs = performance.now() - t1;
    const dbAfter = statSync(dbPath).size;
    const rssAfter = rssMb();
    // A month on: the runs cancelled for being idle have been finished for longer than the policy, and go.
    offset = 31 * DAY;
    const later = await baton.prune();
    const left = store.get<{ n: number }>('SELECT COUNT(*) AS n FROM executions')!.n;
    await baton.close();
    await store.close();
    const calls = stats(latencies);
    process.stdout.write(`${JSON.stringify({
      bench: 'retention',
      runs: RUNS,
      abandoned: ABANDONED,
      cancelled_idle: result.cancelled,
      pruned: result.pruned,
      kept: result.kept,
      rows_deleted: Object.values(result.rows).reduce((a, b) => a + b, 0),
      prune_ms: Math.round(pruneMs),
      prune_ms_per_run: Number((pruneMs / Math.max(1, result.pruned)).toFixed(3)),
      prune_event_loop_max_ms: Math.round(delay.max / 1e6),
      prune_event_loop_p99_ms: Math.round(delay.percentile(99) / 1e6),
      call_without_prune_p50_ms: stats(quiet).p50_ms,
      call_without_prune_p95_ms: stats(quiet).p95_ms,
      calls_during_prune: latencies.length * 6,
      call_during_prune_p50_ms: calls.p50_ms,
      call_during_prune_p95_ms: calls.p95_ms,
      call_during_prune_max_ms: Number(Math.max(...latencies).toFixed(2)),
      compact_ms: Math.round(compactMs),
      db_bytes_before: dbBefore,
      db_bytes_after: dbAfter,
      db_in_memory_bytes_before_compact: compacted.beforeBytes,
      db_in_memory_bytes_after_compact: compacted.afterBytes,
      rss_mb_before: rssBefore,
      rss_mb_after_prune: rssAfterPrune,
      rss_mb_after_compact: rssAfter,
      pruned_31_days_later: later.pruned,
      runs_left_31_days_later: left,
    })}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

benchBundled(__filename, main, { nodeArgs: ['--expose-gc'], args: process.argv.slice(2), content: true });
