// query_findings full-text search at 100k findings and get_execution_details with 1k steps and 10k logs (its default
// pages, and its largest: 500 steps and 500 logs), through the core and through a real MCP client (InMemoryTransport);
// prints one JSON object with p50/p95 against the targets.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Baton } from '../src/core/baton.js';
import { DETAILS_LIST_LIMIT, DETAILS_LIST_MAX } from '../src/core/lifecycle/detailsPages.js';
import { DEFAULT_RATE_LIMITS } from '../src/core/broker/rateLimiter.js';
import { silentLog } from '../src/core/ports.js';
import { bundledContentDir } from '../src/host/openBaton.js';
import { nodeCrypto, nodeFileSystem, randomIds, systemClock } from '../src/host/nodePorts.js';
import { createMcpServer } from '../src/mcp/createMcpServer.js';
import { openStore } from '../src/store/sqlJsStore.js';
import { stats, wordSource } from './benchKit.js';

const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 100_000);
const STEPS = Number(process.env.BENCH_STEPS ?? 1000);
const LOGS = Number(process.env.BENCH_LOGS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const BATCH = 5000;
/** Executions with 1k steps and 10k logs: the first read of each is timed cold (nothing cached). */
const COLD = Number(process.env.BENCH_COLD ?? 5);

const { rand, pick, vocab: VOCAB, words } = wordSource(42);
const TAGS = ['security', 'sql', 'xss', 'auth', 'perf', 'db', 'api', 'ui', 'docs', 'infra', 'deps', 'tests'];
const CATEGORIES = ['security', 'performance', 'reliability', 'docs', 'style', 'testing', 'architecture', 'accessibility'];
const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'];
/** Descriptions kept to draw real two-word phrases from. */
const SAMPLES: string[] = [];

async function time(runs: number, fn: (i: number) => unknown): Promise<number[]> {
  for (let i = 0; i < Math.min(10, runs); i++) await fn(i); // warm-up
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

function description(i: number): string {
  const d = words(25);
  if (i % 1000 === 0) SAMPLES.push(d);
  return d;
}

/** Two adjacent words of a stored description. */
function phrase(): string {
  const w = pick(SAMPLES).split(' ');
  const at = Math.floor(rand() * (w.length - 1));
  return `"${w[at]} ${w[at + 1]}"`;
}

async function main(): Promise<void> {
  const workspace = mkdtempSync(join(tmpdir(), 'baton-bench-lc-'));
  const store = await openStore({ path: null });
  const baton = await Baton.create(
    { store, clock: systemClock, ids: randomIds, crypto: nodeCrypto, log: silentLog, fs: nodeFileSystem },
    { workspacePath: workspace, contentDirs: [bundledContentDir(), join(workspace, '.baton')], rateLimits: { ...DEFAULT_RATE_LIMITS, enabled: false } },
  );
  const server = createMcpServer(baton, { toolGroups: ['lifecycle', 'content'], version: 'bench', log: silentLog });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);

  // ---- data: 100k findings (indexed by the triggers, in the same transactions) ----
  const exec = await baton.lifecycle.startExecution({ workflowName: 'bug-fix' });
  await baton.lifecycle.transition(exec.id, 'running');
  const now = new Date().toISOString();
  let t0 = performance.now();
  for (let done = 0; done < FINDINGS; done += BATCH) {
    await store.transaction(() => {
      for (let i = done; i < Math.min(FINDINGS, done + BATCH); i++) {
        store.run(
          `INSERT INTO findings (finding_id, execution_id, project_id, scope, severity, category, title, description, tags, created_at, is_global, metadata)
           VALUES (?, ?, 1, 'project', ?, ?, ?, ?, ?, ?, ?, '{}')`,
          [`f${i}`, exec.id, pick(SEVERITIES), pick(CATEGORIES), words(5), description(i), JSON.stringify([pick(TAGS), pick(TAGS)]), now, i % 50 === 0 ? 1 : 0],
        );
      }
    });
  }
  const buildFindingsMs = performance.now() - t0;

  // ---- data: executions with 1k steps and 10k logs each (several, to time first reads) ----
  t0 = performance.now();
  const bigIds: string[] = [];
  for (let e = 0; e < COLD; e++) {
    const big = await baton.lifecycle.startExecution({ workflowName: 'feature-implementation' });
    await baton.lifecycle.transition(big.id, 'running');
    bigIds.push(big.id);
    await store.transaction(() => {
      for (let i = 0; i < STEPS; i++) {
        store.run(
          `INSERT INTO steps (execution_id, step_name, agent_name, position, dependencies, status, output, started_at, completed_at, duration_ms, metadata)
           VALUES (?, ?, 'implementer', ?, ?, 'completed', ?, ?, ?, 1000, '{}')`,
          [big.id, `step-${i}`, i, JSON.stringify(i ? [`step-${i - 1}`] : []), JSON.stringify({ summary: words(12), confidence: 0.9 }), now, now],
        );
      }
      for (let i = 0; i < LOGS; i++) {
        store.run(
          `INSERT INTO execution_logs (execution_id, layer, layer_id, log_level, message, context, created_at) VALUES (?, 'step', ?, 'info', ?, ?, ?)`,
          [big.id, `l${i}`, words(10), JSON.stringify({ step: `step-${i % STEPS}`, n: i }), now],
        );
      }
    });
  }
  const buildDetailsMs = performance.now() - t0;

  // ---- full-text search ----
  const queries: Record<string, (i: number) => string> = {
    term: () => pick(VOCAB),
    and_two_terms: () => `${pick(VOCAB)} ${pick(VOCAB)}`,
    or_two_terms: () => `${pick(VOCAB)} OR ${pick(VOCAB)}`,
    not: () => `${pick(VOCAB)} NOT ${pick(VOCAB)}`,
    prefix: () => `${pick(VOCAB).slice(0, 4)}*`,
    phrase: () => phrase(),
  };
  const search: Record<string, unknown> = {};
  const all: number[] = [];
  for (const [name, q] of Object.entries(queries)) {
    let hits = 0;
    const samples = await time(RUNS, (i) => {
      hits += baton.lifecycle.queryFindings({ searchText: q(i), limit: 50 }).total;
    });
    all.push(...samples);
    search[name] = { ...stats(samples), mean_hits: Math.round(hits / (RUNS + Math.min(10, RUNS))) };
  }
  const filtered = await time(RUNS, () => baton.lifecycle.queryFindings({ searchText: pick(VOCAB), severity: ['high', 'critical'], projectId: 1, limit: 20 }));
  search.term_with_filters = stats(filtered);
  const viaMcp = await time(RUNS, () => client.callTool({ name: 'query_findings', arguments: { searchText: `${pick(VOCAB)} OR ${pick(VOCAB)}`, limit: 50 } }));
  search.mcp_or_two_terms = stats(viaMcp);
  // A term in ~1/8 of the rows (a category word): the worst case, every match is ranked.
  const common = await time(Math.min(RUNS, 50), () => baton.lifecycle.queryFindings({ searchText: 'performance', limit: 50 }));
  search.common_term_12k_hits = stats(common);
  const allStats = stats(all);

  // ---- execution details: the spec's default (a page of steps), and with the largest pages of steps and logs (first
  // read cold, then warm); every log is read to take the page, so the cost of the whole run shows still ----
  const n = Math.min(RUNS, 100);
  const big = bigIds[0]!;
  const withLogs = { includeLogs: true, logsLimit: DETAILS_LIST_MAX, stepsLimit: DETAILS_LIST_MAX };
  const cold: number[] = [];
  for (const id of bigIds) {
    const t = performance.now();
    await client.callTool({ name: 'get_execution_details', arguments: { executionId: id, ...withLogs } });
    cold.push(performance.now() - t);
  }
  const stepsCore = stats(await time(n, () => baton.lifecycle.details({ executionId: big })));
  const stepsMcp = stats(await time(n, () => client.callTool({ name: 'get_execution_details', arguments: { executionId: big } })));
  const coreStats = stats(await time(n, () => baton.lifecycle.details({ executionId: big, ...withLogs })));
  const mcpStats = stats(await time(n, () => client.callTool({ name: 'get_execution_details', arguments: { executionId: big, ...withLogs } })));

  await client.close();
  await baton.close();
  await store.close();
  rmSync(workspace, { recursive: true, force: true });

  process.stdout.write(`${JSON.stringify({
    findings: FINDINGS,
    build_findings_ms: Math.round(buildFindingsMs),
    full_text_search: { all_typical_queries: allStats, ...search },
    target_search_p95_ms: 20,
    search_meets_target: allStats.p95_ms <= 20 && (search.mcp_or_two_terms as { p95_ms: number }).p95_ms <= 20,
    details: {
      steps: STEPS, logs: LOGS, build_ms: Math.round(buildDetailsMs), default_page: DETAILS_LIST_LIMIT, largest_page: DETAILS_LIST_MAX,
      default_flags: { core: stepsCore, mcp: stepsMcp },
      with_logs_largest_pages_first_read_mcp: stats(cold),
      with_logs_largest_pages: { core: coreStats, mcp: mcpStats },
    },
    target_details_ms: 50,
    details_meets_target: { default_flags_p95: stepsMcp.p95_ms <= 50, with_logs_p50: mcpStats.p50_ms <= 50, with_logs_p95: mcpStats.p95_ms <= 50 },
  })}\n`);
}

void main().catch((ex: unknown) => {
  process.stderr.write(`${ex instanceof Error ? ex.stack : String(ex)}\n`);
  process.exit(1);
});
