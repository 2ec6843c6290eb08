// Whether `baton serve` keeps its pace as its database grows under steady load: 16 SDK clients over Streamable HTTP,
// each running bug-fix workflows to their gate (as ../shared/peers/load.mjs does, so the runs left at their gates pile
// up by the thousand), for BENCH_SOAK_SECONDS (120 unless set) in windows of 10 s. Each window: calls/s, latency
// (p50, p95, p99, the slowest), the server's CPU per call and RSS, the database file on disk. The figures compare the
// first windows after the warm-up with the last ones: a cost that grows with the runs kept or the database's size
// (a scan of the unfinished runs, a checkpoint of the whole file) shows as a falling pace or a growing tail, and what a
// checkpoint adds to a call as the slowest call of the windows in which one put a new database file in place.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { atQuantile, cpuMs, startServe, stepOutput, stopped } from './benchKit.js';

const CLIENTS = 16;
const WINDOW_S = 10;
/** Windows left out at the start: sessions, the JIT, sql.js's tiers. */
const WARM_UP_WINDOWS = 1;
/** Windows averaged at each end for the comparison. */
const ENDS = 2;
const SECONDS = soakSeconds(process.env.BENCH_SOAK_SECONDS);

/** BENCH_SOAK_SECONDS as a number of seconds: 120 unless set, at least enough for the windows compared. */
function soakSeconds(text: string | undefined): number {
  const least = (WARM_UP_WINDOWS + 2 * ENDS) * WINDOW_S;
  if (text === undefined || text === '') return 120;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds < least) throw new Error(`BENCH_SOAK_SECONDS=${text}: give a number of seconds, at least ${least}`);
  return seconds;
}

interface StepResult {
  status: string;
  execution_id?: string;
  new_step_token?: string;
  next_step_contract?: { step_name: string };
}

/** What one window measured. */
interface Window {
  end_s: number;
  calls: number;
  calls_per_s: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
  server_cpu_ms_per_call: number | null;
  server_rss_mib: number | null;
  db_mib: number;
  runs_at_gate: number;
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The value of `field` (kB) in /proc/<pid>/status, in MiB; null where there is no /proc. */
function procMib(pid: number, field: string): number | null {
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return m ? round(Number(m[1]) / 1024, 1) : null;
  } catch {
    return null;
  }
}

function medianOf(xs: number[]): number | null {
  return xs.length ? atQuantile([...xs].sort((a, b) => a - b), 0.5) : null;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-soak-'));
  const dbPath = join(dir, 'baton.db');
  const serve = await startServe(dbPath, dir);
  try {
    let latencies: number[] = [];
    let errors = 0;
    let doubleClaims = 0;
    let runsAtGate = 0;
    const claimedBy = new Map<string, number>();
    const errorSamples: string[] = [];
    // The clients go on a little past the last window, so that it is a whole one.
    const windowCount = Math.floor(SECONDS / WINDOW_S);
    const deadline = Date.now() + windowCount * WINDOW_S * 1000 + 500;

    const agent = async (k: number) => {
      const client = new Client({ name: `soak-${k}`, version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), { requestInit: { headers: { Authorization: `Bearer ${serve.token}` } } }));
      const call = async (args: Record<string, unknown>): Promise<StepResult> => {
        const t0 = performance.now();
        const res = await client.callTool({ name: 'workflow_next_step', arguments: args });
        latencies.push(performance.now() - t0);
        const sc = res.structuredContent as StepResult | undefined;
        if (res.isError || !sc || sc.status === 'error') {
          errors++;
          if (errorSamples.length < 3) errorSamples.push(JSON.stringify(res).slice(0, 300));
        }
        return sc ?? { status: 'error' };
      };
      while (Date.now() < deadline) {
        let res = await call({ template_name: 'bug-fix' });
        for (let i = 0; res.status === 'ok' && Date.now() < deadline; i++) {
          const step = res.next_step_contract!.step_name;
          const key = `${res.execution_id}/${step}`;
          if (claimedBy.has(key) && claimedBy.get(key) !== k) doubleClaims++;
          claimedBy.set(key, k);
          res = await call({ step_token: res.new_step_token, model_output_so_far: stepOutput(step, i) });
        }
        if (res.status === 'awaiting_approval') runsAtGate++;
        // A run's steps are claimed once: its keys are not needed once it stops.
        if (res.execution_id) for (const key of claimedBy.keys()) if (key.startsWith(`${res.execution_id}/`)) claimedBy.delete(key);
      }
      await client.close();
    };

    const windows: Window[] = [];
    const t0 = Date.now();
    let cpu0 = cpuMs(serve.pid);
    const sampler = setInterval(() => {
      const taken = latencies;
      latencies = [];
      const cpu1 = cpuMs(serve.pid);
      const sorted = taken.sort((a, b) => a - b);
      windows.push({
        end_s: Math.round((Date.now() - t0) / 1000),
        calls: sorted.length,
        calls_per_s: Math.round(sorted.length / WINDOW_S),
        p50_ms: round(atQuantile(sorted, 0.5)),
        p95_ms: round(atQuantile(sorted, 0.95)),
        p99_ms: round(atQuantile(sorted, 0.99)),
        max_ms: round(sorted.at(-1) ?? NaN),
        server_cpu_ms_per_call: cpu0 !== null && cpu1 !== null && sorted.length ? round((cpu1 - cpu0) / sorted.length) : null,
        server_rss_mib: procMib(serve.pid, 'VmRSS'),
        db_mib: round((statSync(dbPath, { throwIfNoEntry: false })?.size ?? 0) / 1048576, 1),
        runs_at_gate: runsAtGate,
      });
      cpu0 = cpu1;
      if (windows.length === windowCount) clearInterval(sampler);
    }, WINDOW_S * 1000);
    await Promise.all(Array.from({ length: CLIENTS }, (_, k) => agent(k)));
    clearInterval(sampler);

    const measured = windows.slice(WARM_UP_WINDOWS).filter((w) => w.calls > 0);
    if (measured.length < 2 * ENDS) throw new Error(`only ${measured.length} windows measured: raise BENCH_SOAK_SECONDS`);
    const mean = (ws: Window[], key: 'calls_per_s' | 'p50_ms' | 'p95_ms' | 'p99_ms' | 'server_cpu_ms_per_call') =>
      ws.reduce((s, w) => s + (w[key] ?? NaN), 0) / ws.length;
    const first = measured.slice(0, ENDS);
    const last = measured.slice(-ENDS);
    const ratio = (key: Parameters<typeof mean>[1]) => round(mean(last, key) / mean(first, key));
    const calls = windows.reduce((s, w) => s + w.calls, 0);
    const end = measured.at(-1)!;
    const start = measured[0]!;
    const callsSinceStart = measured.slice(1).reduce((s, w) => s + w.calls, 0);
    process.stdout.write(`${JSON.stringify({
      bench: 'soak',
      clients: CLIENTS,
      seconds: SECONDS,
      window_s: WINDOW_S,
      calls,
      errors,
      double_claims: doubleClaims,
      ...(errorSamples.length ? { error_samples: errorSamples } : {}),
      // The last windows against the first after the warm-up (means of ENDS windows each).
      last_vs_first: {
        calls_per_s: ratio('calls_per_s'),
        p50: ratio('p50_ms'),
        p95: ratio('p95_ms'),
        p99: ratio('p99_ms'),
        server_cpu_per_call: ratio('server_cpu_ms_per_call'),
      },
      // The slowest call of each window in which a checkpoint put a new database file in place (the file's size
      // changed), against the slowest of the other windows (their median): what a checkpoint adds to a call.
      slowest_call_ms: {
        windows_with_a_checkpoint: measured.filter((w, i) => i > 0 && w.db_mib !== measured[i - 1]!.db_mib).map((w) => w.max_ms),
        other_windows_median: medianOf(measured.filter((w, i) => i > 0 && w.db_mib === measured[i - 1]!.db_mib).map((w) => w.max_ms)),
      },
      runs_at_gate: end.runs_at_gate,
      db_mib: end.db_mib,
      // What the server keeps per 1,000 calls from the first measured window on.
      rss_mib_per_1000_calls: end.server_rss_mib !== null && start.server_rss_mib !== null
        ? round(((end.server_rss_mib - start.server_rss_mib) / Math.max(1, callsSinceStart)) * 1000, 2)
        : null,
      server_rss_mib: { first: start.server_rss_mib, last: end.server_rss_mib },
      windows,
    })}\n`);
    // As ../shared/peers/load.mjs: a call refused or a step handed to two clients fails the bench (its figures printed).
    if (errors > 0 || doubleClaims > 0) process.exitCode = 1;
  } finally {
    // baton serve checkpoints as it stops: wait for that before the folder goes.
    await stopped(serve.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((ex: unknown) => {
  process.stderr.write(`${ex instanceof Error ? ex.stack : String(ex)}\n`);
  process.exit(1);
});
