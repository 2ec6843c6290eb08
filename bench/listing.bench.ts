// The editor's run listing with thousands of runs unfinished (src/vscode/sharedRunListing.ts): the tree and the
// status bar list every unfinished run after each burst of events, on the event loop of the owner that answers the
// agents. A database holds UNFINISHED bug-fix runs waiting at their gates; then, in alternating rounds, the listing
// read whole on every refresh (as before) or in parts (the runs that events named, and whole every 10 s):
// - one refresh's cost, after 16 events, as the tree and the status bar ask for it;
// - calls/s of 16 workflows in flight on the same engine while the listing refreshes as the editor paces it.
// Runs bundled like dist/ (sql.js patched). Prints one JSON object.
// Run: node --import tsx bench/listing.bench.ts [UNFINISHED]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Baton } from '../src/core/baton.js';
import { DEFAULT_RATE_LIMITS } from '../src/core/broker/rateLimiter.js';
import { silentLog } from '../src/core/ports.js';
import { nodeCrypto, nodeFileSystem, randomIds } from '../src/host/nodePorts.js';
import { openStore } from '../src/store/sqlJsStore.js';
import { LocalSource } from '../src/vscode/batonSource.js';
import { SharedRunListing, WHOLE_LISTING, type RunListingSource, type WholeListing } from '../src/vscode/sharedRunListing.js';
import { runOne, stats, toGate } from './benchKit.js';
import { benchBundled } from './bundledBench.js';

const UNFINISHED = Number(process.argv[2] ?? 2500);
const ROUNDS = 3;
const ROUND_MS = 5000;
const REFRESHES = 15;
/** Read whole on every refresh: what the listing did before it read in parts. */
const ALWAYS_WHOLE: WholeListing = { belowRuns: Number.POSITIVE_INFINITY, everyMs: 0 };
const MODES = { whole: ALWAYS_WHOLE, parts: WHOLE_LISTING } as const;

/** The editor's connection to its own core: its LocalSource (whose connection never changes here). */
function localSource(baton: Baton): RunListingSource {
  return Object.assign(new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 'bench' }), { onDidChange: () => ({ dispose: () => undefined }) });
}

/** A listing in `mode` with the tree and the status bar asking for it on each refresh; the time they spend reading. */
function editorViews(baton: Baton, whole: WholeListing) {
  const shared = new SharedRunListing(localSource(baton), undefined, whole);
  let busyMs = 0;
  let refreshes = 0;
  shared.onRefresh(() => {
    refreshes++;
    const t = performance.now();
    void Promise.all([shared.unfinished(), shared.runs()]).then(() => void (busyMs += performance.now() - t));
  });
  return { shared, busy: () => busyMs, refreshes: () => refreshes };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-listing-'));
  try {
    const store = await openStore({ path: join(dir, 'baton.db') });
    const baton = await Baton.create(
      { store, clock: { now: () => Date.now() }, ids: randomIds, crypto: nodeCrypto, log: silentLog, fs: nodeFileSystem },
      { workspacePath: dir, contentDirs: [join(__dirname, 'content')], rateLimits: { ...DEFAULT_RATE_LIMITS, enabled: false }, approvalWaitMs: 0 },
    );
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < UNFINISHED) await toGate(baton, next++);
    }));
    await store.checkpoint();

    // One refresh after 16 runs started and finished (96 events), as the tree and the status bar ask for it (their
    // listener reads as the refresh tells it).
    const refresh: Record<keyof typeof MODES, number[]> = { whole: [], parts: [] };
    let task = 0;
    for (const [mode, whole] of Object.entries(MODES) as Array<[keyof typeof MODES, WholeListing]>) {
      const { shared } = editorViews(baton, whole);
      await shared.unfinished(); // the first reading is whole in both modes
      for (let i = 0; i < REFRESHES; i++) {
        await Promise.all(Array.from({ length: 16 }, () => runOne(baton, 1_000_000 + task++)));
        const t = performance.now();
        shared.refresh();
        await Promise.all([shared.unfinished(), shared.runs()]);
        refresh[mode].push(performance.now() - t);
      }
      shared.dispose();
    }

    // Calls/s of 16 workflows in flight while the views refresh as the editor paces them, the modes alternating.
    const rounds: Array<{ mode: string; calls_per_s: number; listing_share: number; refreshes: number }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [mode, whole] of Object.entries(MODES)) {
        const views = editorViews(baton, whole);
        await views.shared.unfinished();
        let calls = 0;
        const until = performance.now() + ROUND_MS;
        const started = performance.now();
        await Promise.all(Array.from({ length: 16 }, async () => {
          while (performance.now() < until) {
            await runOne(baton, 1_000_000 + task++);
            calls += 6;
          }
        }));
        const wall = performance.now() - started;
        views.shared.dispose();
        rounds.push({ mode, calls_per_s: Math.round((calls * 1000) / wall), listing_share: Number((views.busy() / wall).toFixed(3)), refreshes: views.refreshes() });
      }
    }
    const unfinished = baton.listExecutions({ active_only: true, limit: 100_000 }).length;
    await baton.close();
    await store.close();
    const callsPerS = (mode: string) => stats(rounds.filter((r) => r.mode === mode).map((r) => r.calls_per_s)).p50_ms;
    const share = (mode: string) => stats(rounds.filter((r) => r.mode === mode).map((r) => r.listing_share)).p50_ms;
    process.stdout.write(`${JSON.stringify({
      bench: 'listing',
      unfinished,
      refresh_whole_ms: stats(refresh.whole),
      refresh_parts_ms: stats(refresh.parts),
      calls_per_s_whole: callsPerS('whole'),
      calls_per_s_parts: callsPerS('parts'),
      parts_vs_whole_calls_per_s: Number((callsPerS('parts') / callsPerS('whole')).toFixed(3)),
      listing_share_whole: share('whole'),
      listing_share_parts: share('parts'),
      rounds,
    })}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

benchBundled(__filename, main, { args: process.argv.slice(2), content: true });
