// Pipeline engine overhead per step (everything but the agent: interpolation, the durable step journal, the
// artifact, the memory entry, the events) and memory_search at 100k entries; prints one JSON object with p50/p95
// against the targets (engine ≤ 2 ms p50 per step; memory search p95 ≤ 20 ms).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Baton } from '../src/core/baton.js';
import { DEFAULT_RATE_LIMITS } from '../src/core/broker/rateLimiter.js';
import { ZERO_USAGE, type AgentRun, type AgentRunResult, type AgentRunner } from '../src/core/pipelines/runner.js';
import type { System } from '../src/core/pipelines/types.js';
import { silentLog } from '../src/core/ports.js';
import { bundledContentDir } from '../src/host/openBaton.js';
import { nodeCrypto, nodeFileSystem, randomIds, systemClock } from '../src/host/nodePorts.js';
import { openStore } from '../src/store/sqlJsStore.js';
import { stats, wordSource } from './benchKit.js';

const STEPS = Number(process.env.BENCH_PIPELINE_STEPS ?? 300);
const ENTRIES = Number(process.env.BENCH_MEMORY_ENTRIES ?? 100_000);
const RUNS_OF_ENTRIES = 100;
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);

const { rand, pick, vocab: VOCAB, words } = wordSource(7);

/** An agent that answers at once: what is left of a step's time is the engine's. */
class InstantRunner implements AgentRunner {
  readonly kind = 'command' as const;
  readonly starts: number[] = [];
  run(): AgentRun {
    this.starts.push(performance.now());
    const result: AgentRunResult = {
      status: 'completed', text: `answer ${this.starts.length}: ${'lorem ipsum '.repeat(40)}`, usage: { ...ZERO_USAGE, input: 100, output: 50 },
      costUsd: 0.001, costSource: 'cli', toolCalls: 0, malformedLines: 0, error: null, exitCode: 0, sessionId: null, durationMs: 0, stderr: '',
    };
    return {
      result: Promise.resolve(result),
      async *[Symbol.asyncIterator]() {
        yield { type: 'text', text: result.text };
        yield { type: 'usage', usage: result.usage };
        yield { type: 'done', result };
      },
    };
  }
}

async function core(path: string | null, durability?: 'fsync' | 'write') {
  const store = await openStore({ path, log: silentLog, durability });
  const baton = await Baton.create(
    { store, clock: systemClock, ids: randomIds, crypto: nodeCrypto, log: silentLog, fs: nodeFileSystem },
    { workspacePath: process.cwd(), contentDirs: [bundledContentDir()], rateLimits: { ...DEFAULT_RATE_LIMITS, enabled: false } },
  );
  return { store, baton };
}

async function engineOverhead(path: string | null, durability?: 'fsync' | 'write') {
  const { store, baton } = await core(path, durability);
  const runner = new InstantRunner();
  baton.pipelines.setRunners(() => runner);
  const system: System = {
    name: 'bench', description: '', agents: [{ id: 'a', role: 'custom', runner: 'command', command: ['x'] }, { id: 'b', role: 'custom', runner: 'command', command: ['x'] }],
    workflow: Array.from({ length: STEPS }, (_, i) => ({
      id: `s${i}`, type: 'agent' as const, agentId: i % 2 ? 'a' : 'b', inputTemplate: `Step ${i}: {{system.input}} after {{prev}}`, outputVariable: 'prev',
    })),
  };
  const id = await baton.pipelines.start(system, { input: 'benchmark the engine', variables: { prev: '' }, cwd: process.cwd() });
  const t0 = performance.now();
  const out = await baton.pipelines.drive(id);
  const total = performance.now() - t0;
  if (out.status !== 'completed') throw new Error(`bench run ${out.status}: ${out.error}`);
  const gaps = runner.starts.slice(1).map((t, i) => t - runner.starts[i]!);
  await baton.close();
  await store.close();
  return { steps: STEPS, ...stats(gaps.slice(10)), total_ms: Math.round(total) };
}

async function memorySearch() {
  const { store, baton } = await core(null);
  const runs: string[] = [];
  for (let r = 0; r < RUNS_OF_ENTRIES; r++) {
    runs.push(await baton.pipelines.start({ name: 'm', description: '', agents: [], workflow: [] }, { input: 'x', cwd: '/' }));
  }
  const categories = ['findings', 'plans', 'code', 'notes', 'custom'] as const;
  const iso = new Date().toISOString();
  const BATCH = 5000;
  for (let done = 0; done < ENTRIES; done += BATCH) {
    await store.transaction(() => {
      for (let i = done; i < Math.min(ENTRIES, done + BATCH); i++) {
        const runId = runs[i % RUNS_OF_ENTRIES]!;
        // One entry in ten mentions "payment": a common term, 10k hits.
        const value = `${words(30)}${i % 10 === 1 ? ' payment' : ''}`;
        baton.memory.storeInTx(runId, { runId, agent: `agent${i % 7}` }, {
          key: `key-${i}`, value, category: categories[i % 5]!, metadata: '{}', size: value.length, id: `e${i}`, iso,
        });
      }
    });
  }
  const scopeRun = { runId: runs[3]!, agent: 'x' };
  const queries: Record<string, () => Parameters<typeof baton.memory.search>[1]> = {
    one_term: () => ({ query: pick(VOCAB) }),
    two_terms: () => ({ query: `${pick(VOCAB)} ${pick(VOCAB)}` }),
    or_terms: () => ({ query: `${pick(VOCAB)} OR ${pick(VOCAB)}` }),
    prefix: () => ({ query: `${pick(VOCAB).slice(0, 4)}*` }),
    term_in_category: () => ({ query: pick(VOCAB), category: 'findings' }),
    category_only: () => ({ category: 'plans' }),
  };
  const results: Record<string, unknown> = {};
  const all: number[] = [];
  for (const [reach, label] of [['run', 'run_scope'], ['all', 'run_and_global']] as const) {
    for (const [name, q] of Object.entries(queries)) {
      const samples: number[] = [];
      let hits = 0;
      for (let i = 0; i < QUERIES + 10; i++) {
        const query = { ...q(), scope: reach, limit: 10 };
        const t = performance.now();
        hits += baton.memory.search(scopeRun, query).total;
        if (i >= 10) samples.push(performance.now() - t);
      }
      all.push(...samples);
      results[`${label}.${name}`] = { ...stats(samples), mean_hits: Math.round(hits / (QUERIES + 10)) };
    }
  }
  // Across every run (the global scope holding 100k entries): the worst case of a scope's size.
  const globalRows = store.get<{ n: number }>("SELECT COUNT(*) AS n FROM memory_entries")!.n;
  await store.transaction(() => store.run("UPDATE memory_entries SET scope_key = '' WHERE id % 2 = 0"));
  const wide: number[] = [];
  let wideHits = 0;
  for (let i = 0; i < QUERIES; i++) {
    const t = performance.now();
    wideHits += baton.memory.search(scopeRun, { query: pick(VOCAB), scope: 'global', limit: 10 }).total;
    wide.push(performance.now() - t);
  }
  results['global_50k.one_term'] = { ...stats(wide), mean_hits: Math.round(wideHits / QUERIES) };
  const common: number[] = [];
  let commonHits = 0;
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    commonHits += baton.memory.search(scopeRun, { query: 'payment', scope: 'global', limit: 10 }).total;
    common.push(performance.now() - t);
  }
  results['global_50k.common_term'] = { ...stats(common), mean_hits: Math.round(commonHits / 50) };
  await baton.close();
  await store.close();
  return { entries: globalRows, all_typical_queries: stats(all), ...results };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-pipe-'));
  try {
    const inMemory = await engineOverhead(null);
    const durable = await engineOverhead(join(dir, 'fsync.db'), 'fsync');
    const memory = await memorySearch();
    const out = {
      engine_overhead_per_step: { in_memory_store: inMemory, durable_store_fsync: durable },
      target_engine_p50_ms: 2,
      engine_meets_target: inMemory.p50_ms <= 2,
      memory_search: memory,
      target_memory_search_p95_ms: 20,
      memory_meets_target: memory.all_typical_queries.p95_ms <= 20,
    };
    process.stdout.write(JSON.stringify(out) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
