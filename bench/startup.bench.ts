// Start-up and memory of `baton mcp` (the built dist/cli.js) against a bare MCP SDK stdio server, in one run with the
// starts interleaved (floor, fresh, existing, large, ...) so that whatever else the machine does hits all alike.
// Start-up: spawn -> initialized (the SDK client's connect), -> tools/list answered, -> first tool call answered, for
// a fresh database, an existing up-to-date one and a large one. Memory: RSS after 1,500 bug-fix steps over stdio.
// Prints one JSON object. Env: BENCH_STARTUP_RUNS (10), BENCH_MEMORY_STEPS (1500).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openStore } from '../src/store/sqlJsStore.js';
import { gone, stepOutput } from './benchKit.js';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 10);
const MEMORY_STEPS = Number(process.env.BENCH_MEMORY_STEPS ?? 1500);
const LARGE_DB_MB = 50;
/** Targets of issue 10: spawn -> initialized at most 1.2x a bare SDK server's. */
const TARGET_RATIO = 1.2;

/** The floor: a bare SDK stdio server with one trivial tool. */
const FLOOR = join(__dirname, 'floorServer.mjs');

type Structured = { status: string; new_step_token?: string; next_step_contract?: { step_name: string } };

function summary(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 10) / 10;
  return { n: s.length, p50_ms: r(s[Math.floor((s.length - 1) / 2)]!), min_ms: r(s[0]!), max_ms: r(s.at(-1)!) };
}

interface StartTimes {
  initialized: number;
  toolsList: number;
  firstCall?: number;
}

/** Spawns a server, connects the SDK client (initialize + initialized), lists its tools, makes one call, closes. */
async function timeStart(command: string, args: string[], cwd: string, firstCall?: Record<string, unknown>): Promise<StartTimes> {
  const transport = new StdioClientTransport({ command, args, cwd, stderr: 'pipe', env: { ...(process.env as Record<string, string>), BATON_LOG_LEVEL: 'warn' } });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => void (stderr += d.toString()));
  const client = new Client({ name: 'bench-startup', version: '1' });
  const t0 = performance.now();
  try {
    await client.connect(transport);
    const initialized = performance.now() - t0;
    await client.listTools();
    const toolsList = performance.now() - t0;
    let first: number | undefined;
    if (firstCall) {
      const res = await client.callTool({ name: 'workflow_next_step', arguments: firstCall });
      first = performance.now() - t0;
      if ((res.structuredContent as Structured | undefined)?.status !== 'ok') throw new Error(`first call failed: ${JSON.stringify(res).slice(0, 300)}`);
    }
    return { initialized, toolsList, firstCall: first };
  } catch (ex) {
    throw new Error(`${command} ${args.join(' ')}: ${(ex as Error).message}; stderr: ${stderr.slice(-500)}`);
  } finally {
    const pid = transport.pid;
    await client.close().catch(() => undefined);
    await gone(pid);
  }
}

/** A database of ~LARGE_DB_MB: call-log rows as a long-running project accumulates them, checkpointed. */
async function makeLargeDb(path: string): Promise<number> {
  const store = await openStore({ path });
  const body = JSON.stringify({ status: 'ok', pad: 'x'.repeat(8000) });
  for (let written = 0; written < LARGE_DB_MB * 1024 * 1024; written += 200 * body.length) {
    await store.transaction(() => {
      for (let i = 0; i < 200; i++) {
        store.run(
          `INSERT INTO call_log (correlation_id, call_type, tool_or_resource_name, request_full, response_full, request_size_bytes, response_size_bytes,
             duration_ms, success, created_at) VALUES (?, 'tool', 'workflow_next_step', '{}', ?, 2, ?, 1, 1, '2026-01-01T00:00:00Z')`,
          [`bench-${written}-${i}`, body, body.length],
        );
      }
    });
  }
  await store.close();
  return statSync(path).size / (1024 * 1024);
}

async function startUp(dir: string) {
  const existing = join(dir, 'existing');
  const large = join(dir, 'large');
  const ws = join(dir, 'ws');
  mkdirSync(ws, { recursive: true });
  const mcp = (db: string) => [CLI, 'mcp', '--db', join(db, 'baton.db'), '--workspace', ws, '--rate-limits', 'off'];
  const create = { template_name: 'bug-fix', task_description: 'bench' };
  // The existing database: created, then up to date (content synced, migrations applied) at every later start.
  await timeStart(process.execPath, mcp(existing), dir, create);
  mkdirSync(large, { recursive: true });
  const largeMb = await makeLargeDb(join(large, 'baton.db'));
  await timeStart(process.execPath, mcp(large), dir, create);
  // Warm the file cache for all of them once.
  await timeStart(process.execPath, [FLOOR], dir);
  const runs: Record<'floor' | 'fresh' | 'existing' | 'large', StartTimes[]> = { floor: [], fresh: [], existing: [], large: [] };
  for (let i = 0; i < RUNS; i++) {
    const order = (['floor', 'fresh', 'existing', 'large'] as const).map((_, k, all) => all[(k + i) % all.length]!);
    for (const which of order) {
      if (which === 'floor') runs.floor.push(await timeStart(process.execPath, [FLOOR], dir));
      if (which === 'fresh') runs.fresh.push(await timeStart(process.execPath, mcp(join(dir, `fresh-${i}`)), dir, create));
      if (which === 'existing') runs.existing.push(await timeStart(process.execPath, mcp(existing), dir, create));
      if (which === 'large') runs.large.push(await timeStart(process.execPath, mcp(large), dir, create));
    }
  }
  const figures = (xs: StartTimes[]) => ({
    initialized: summary(xs.map((x) => x.initialized)),
    tools_list: summary(xs.map((x) => x.toolsList)),
    ...(xs[0]?.firstCall !== undefined ? { first_call: summary(xs.map((x) => x.firstCall!)) } : {}),
  });
  const out = { floor: figures(runs.floor), baton_fresh: figures(runs.fresh), baton_existing: figures(runs.existing), baton_large: { db_mb: Math.round(largeMb), ...figures(runs.large) } };
  const ratio = (k: 'baton_fresh' | 'baton_existing' | 'baton_large', f: 'initialized' | 'tools_list') =>
    Math.round((out[k][f].p50_ms / out.floor[f].p50_ms) * 100) / 100;
  const ratios = {
    fresh_initialized: ratio('baton_fresh', 'initialized'),
    existing_initialized: ratio('baton_existing', 'initialized'),
    large_initialized: ratio('baton_large', 'initialized'),
    fresh_tools_list: ratio('baton_fresh', 'tools_list'),
    existing_tools_list: ratio('baton_existing', 'tools_list'),
    large_tools_list: ratio('baton_large', 'tools_list'),
  };
  const met = Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, v <= TARGET_RATIO]));
  return { runs: RUNS, ...out, ratio_to_floor: ratios, target_ratio: TARGET_RATIO, met };
}

/** RSS of `baton mcp` after MEMORY_STEPS step-to-step continues of bug-fix (as ../shared/peers/peer-midex.mjs counts them). */
async function memory(dir: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--db', join(dir, 'memory', 'baton.db'), '--workspace', join(dir, 'ws'), '--rate-limits', 'off'],
    stderr: 'ignore',
    env: { ...(process.env as Record<string, string>), BATON_LOG_LEVEL: 'warn' },
  });
  const client = new Client({ name: 'bench-memory', version: '1' });
  await client.connect(transport);
  const call = async (args: Record<string, unknown>) => (await client.callTool({ name: 'workflow_next_step', arguments: args })).structuredContent as Structured;
  let token: string | undefined;
  let step = '';
  let counted = 0;
  let i = 0;
  const t0 = performance.now();
  while (counted < MEMORY_STEPS) {
    if (!token) {
      const b = await call({ template_name: 'bug-fix', task_description: 'memory bench' });
      if (b.status !== 'ok') throw new Error(`create: ${JSON.stringify(b).slice(0, 300)}`);
      token = b.new_step_token;
      step = b.next_step_contract!.step_name;
      continue;
    }
    const b = await call({ step_token: token, model_output_so_far: stepOutput(step, i++) });
    if (b.status === 'ok') {
      token = b.new_step_token;
      step = b.next_step_contract!.step_name;
      counted++;
    } else if (b.status === 'awaiting_approval' || b.status === 'task_closed') {
      token = undefined;
    } else {
      throw new Error(`continue: ${JSON.stringify(b).slice(0, 300)}`);
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const status = readFileSync(`/proc/${transport.pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1]);
  const dbMb = statSync(join(dir, 'memory', 'baton.db')).size / (1024 * 1024);
  const pid = transport.pid;
  await client.close();
  await gone(pid);
  return { steps: MEMORY_STEPS, seconds: Math.round(seconds * 10) / 10, rss_mib: Math.round(kb('VmRSS') / 102.4) / 10, peak_rss_mib: Math.round(kb('VmHWM') / 102.4) / 10, db_mb: Math.round(dbMb * 10) / 10 };
}

async function main() {
  if (!existsSync(CLI)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-startup-'));
  try {
    const start_up = await startUp(dir);
    const rss = process.platform === 'linux' ? await memory(dir) : { skipped: 'RSS is read from /proc (Linux only)' };
    process.stdout.write(JSON.stringify({ start_up, memory: rss }) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((ex: unknown) => {
  process.stderr.write(`${(ex as Error).stack ?? String(ex)}\n`);
  process.exit(1);
});
