// Start of the `baton` commands a person or a script runs (the built dist/cli.js), against a bare `node -e 0` in the
// same rounds, each round in a seeded random order: wall time to exit and the CPU the process used. `baton status`
// and `baton list` read a database with one workflow; a usage error and a command's --help load the engine too.
// Then a short `baton mcp` session (five calls) with BATON_WASM_TIERS both and baseline: its CPU and last answer.
// Prints one JSON object. Env: BENCH_COMMAND_RUNS (15).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { childrenCpuMs, rng, shuffled, stats, stepOutput } from './benchKit.js';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const RUNS = Number(process.env.BENCH_COMMAND_RUNS ?? 15);

/** A database with one bug-fix workflow started, made by `baton mcp` as an agent would. */
async function oneWorkflow(db: string, ws: string): Promise<void> {
  const client = new Client({ name: 'bench-commands', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--db', db, '--workspace', ws], stderr: 'ignore' }));
  try {
    const res = await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'bench' } });
    if ((res.structuredContent as { status?: string } | undefined)?.status !== 'ok') throw new Error(`create failed: ${JSON.stringify(res).slice(0, 300)}`);
  } finally {
    await client.close();
  }
}

/** What a short `baton mcp` session costs: CPU to its exit, and the time from the spawn to its last answer. */
interface SessionCost {
  cpu: number;
  lastAnswer: number;
}

const SESSION_CALLS = 5;

/**
 * One `baton mcp` session as an agent's short turn makes it: spawn, a bug-fix create and continues (SESSION_CALLS
 * calls), close; with BATON_WASM_TIERS as `tiers`. The CPU is the child's, read once it has exited.
 */
async function mcpSession(db: string, ws: string, tiers: string): Promise<SessionCost> {
  const env = { ...(process.env as Record<string, string>), BATON_WASM_TIERS: tiers, BATON_LOG_LEVEL: 'warn' };
  const cpu0 = childCpuMs();
  const t0 = performance.now();
  const client = new Client({ name: 'bench-session', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--db', db, '--workspace', ws, '--rate-limits', 'off'], stderr: 'ignore', env }));
  let lastAnswer = 0;
  try {
    let token: string | undefined;
    let step = '';
    for (let i = 0; i < SESSION_CALLS; i++) {
      const args = token ? { step_token: token, model_output_so_far: stepOutput(step, i) } : { template_name: 'bug-fix', task_description: 'bench session' };
      const res = (await client.callTool({ name: 'workflow_next_step', arguments: args })).structuredContent as {
        status?: string;
        new_step_token?: string;
        next_step_contract?: { step_name: string };
      };
      if (res.status !== 'ok' && res.status !== 'awaiting_approval') throw new Error(`session call ${i}: ${JSON.stringify(res).slice(0, 300)}`);
      token = res.status === 'ok' ? res.new_step_token : undefined;
      step = res.next_step_contract?.step_name ?? '';
    }
    lastAnswer = performance.now() - t0;
  } finally {
    await client.close();
  }
  return { cpu: childCpuMs() - cpu0, lastAnswer };
}

/** childrenCpuMs, or a failure that says why where there is no /proc: this bench reports CPU times. */
function childCpuMs(): number {
  const ms = childrenCpuMs();
  if (ms === null) throw new Error('the commands bench reads its CPU times from /proc/self/stat, which is not here (Linux only)');
  return ms;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-commands-'));
  try {
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    const db = join(dir, 'baton.db');
    await oneWorkflow(db, ws);
    const on = ['--db', db, '--workspace', ws];
    const cases: Record<string, { args: string[]; exit: number }> = {
      node: { args: ['-e', '0'], exit: 0 },
      version: { args: [CLI, '--version'], exit: 0 },
      status: { args: [CLI, 'status', ...on], exit: 0 },
      list: { args: [CLI, 'list', ...on], exit: 0 },
      status_help: { args: [CLI, 'status', '--help'], exit: 0 },
      usage_error: { args: [CLI, 'start', 'team.yaml', '--max-invocations', 'x'], exit: 2 },
    };
    const wall: Record<string, number[]> = {};
    const cpu: Record<string, number[]> = {};
    const rand = rng(10);
    for (let round = -1; round < RUNS; round++) {
      for (const name of shuffled(Object.keys(cases), rand)) {
        const { args, exit } = cases[name]!;
        const cpu0 = childCpuMs();
        const t0 = performance.now();
        let code = 0;
        try {
          execFileSync(process.execPath, args, { cwd: dir, stdio: 'ignore' });
        } catch (ex) {
          code = (ex as { status?: number }).status ?? -1;
        }
        const ms = performance.now() - t0;
        if (code !== exit) throw new Error(`${name}: exit ${code}, expected ${exit}`);
        if (round < 0) continue; // the first round warms the file cache
        (wall[name] ??= []).push(ms);
        (cpu[name] ??= []).push(childCpuMs() - cpu0);
      }
    }
    // A short `baton mcp` session with both wasm tiers (the default) and with the baseline one alone, in alternating
    // order, each setting on its own database (made by its first, uncounted, session).
    const sessions: Record<string, SessionCost[]> = { both: [], baseline: [] };
    for (let round = -1; round < RUNS; round++) {
      for (const tiers of shuffled(Object.keys(sessions), rand)) {
        const cost = await mcpSession(join(dir, `session-${tiers}.db`), ws, tiers);
        if (round >= 0) sessions[tiers]!.push(cost);
      }
    }
    // The median of the wall times; the mean of the CPU times (counted in 10 ms ticks, too coarse for a median).
    const of = (name: string) => ({ wall: stats(wall[name]!).p50_ms, cpu: stats(cpu[name]!).mean_ms });
    const node = of('node');
    const r = (x: number) => Math.round(x * 10) / 10;
    const figures = Object.fromEntries(
      Object.keys(cases).map((name) => {
        const { wall: w, cpu: c } = of(name);
        return [name, { wall_p50_ms: r(w), cpu_mean_ms: r(c), wall_over_node_ms: r(w - node.wall), cpu_over_node_ms: r(c - node.cpu) }];
      }),
    );
    const session = (tiers: string) => ({
      cpu_mean_ms: r(stats(sessions[tiers]!.map((c) => c.cpu)).mean_ms),
      last_answer_p50_ms: r(stats(sessions[tiers]!.map((c) => c.lastAnswer)).p50_ms),
    });
    const mcpSessions = { calls: SESSION_CALLS, both: session('both'), baseline: session('baseline') };
    process.stdout.write(`${JSON.stringify({ bench: 'commands', runs: RUNS, commands: figures, mcp_session: mcpSessions })}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((ex) => {
  process.stderr.write(`${(ex as Error).stack ?? ex}\n`);
  process.exit(1);
});
