// A call through a forwarding `baton mcp`: how agents reach Baton whenever another process owns the database (the
// editor, `baton serve`, or the first agent's `baton mcp`). Bug-fix continues one at a time through `baton mcp`
// forwarding to a `baton serve` owner, beside the same continues to a `baton mcp` that owns its own database, as lanes
// in a seeded random order each round (a call is slower after a heavier one: the caches it finds), with the CPU each
// process spends per call (/proc); and a forwarding `baton mcp`'s start-up: spawn to `initialize` answered and to its
// first call's answer, and its RSS then. Prints one JSON object.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { batonMcp, batonWalker, cpuMs, rng, shuffled, startServe, stats, stopped } from './benchKit.js';

const CALLS = Number(process.env.BENCH_PROXY_CALLS ?? 1000);
const WARM_UP_MS = Number(process.env.BENCH_PROXY_WARM_UP_MS ?? 5000);
const STARTS = Number(process.env.BENCH_PROXY_STARTS ?? 7);
/** A forwarded call's p50 against a call to an owning `baton mcp`: one more local hop, not a multiple. */
const TARGET_RATIO_P50 = 2;

const mcpClient = (dbPath: string, workspace: string) => batonMcp(dbPath, workspace, 'bench-proxy');

/**
 * A forwarding `baton mcp` from its spawn: `initialize` answered (from the catalog), then `tools/list` and a first
 * `workflow_next_step` (a create) forwarded to the owner; RSS once it has answered. STARTS spawns, one at a time.
 */
async function forwarderStarts(dbPath: string, workspace: string) {
  const initialized: number[] = [];
  const firstCall: number[] = [];
  const rssMb: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const t0 = performance.now();
    const { client, pid } = await mcpClient(dbPath, workspace);
    initialized.push(performance.now() - t0);
    await client.listTools();
    const res = await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } });
    firstCall.push(performance.now() - t0);
    if ((res.structuredContent as { status?: string } | undefined)?.status !== 'ok') throw new Error(`the first call answered ${JSON.stringify(res).slice(0, 300)}`);
    const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    if (rss) rssMb.push(Math.round(Number(rss) / 102.4) / 10);
    await client.close();
  }
  const { n: _n, mean_ms: _m, ...init } = stats(initialized);
  const { n: _n2, mean_ms: _m2, ...first } = stats(firstCall);
  const medianRss = rssMb.sort((a, b) => a - b)[Math.floor(rssMb.length / 2)] ?? null;
  return { starts: STARTS, initialized: init, first_call: first, rss_mb_after_first_call: medianRss };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-proxy-'));
  const dbPath = join(dir, 'owned', 'baton.db');
  const owner = await startServe(dbPath, dir);
  const closing: Client[] = [];
  try {
    const start_up = await forwarderStarts(dbPath, dir);
    const forwarding = await mcpClient(dbPath, dir);
    closing.push(forwarding.client);
    if (owner.pid !== owner.child.pid) throw new Error(`the database is owned by process ${owner.pid}, not by baton serve`);
    const direct = await mcpClient(join(dir, 'direct', 'baton.db'), dir);
    closing.push(direct.client);
    const lanes = [
      { name: 'direct', next: batonWalker(direct.client), ms: [] as number[] },
      { name: 'forwarded', next: batonWalker(forwarding.client), ms: [] as number[] },
    ];
    // Warm-up: the sessions, the JIT, and sql.js's optimizing compiles on background threads (a few seconds of CPU
    // after each start, which the figures per call would otherwise carry).
    const warm = Date.now() + WARM_UP_MS;
    for (let i = 0; i < 100 || Date.now() < warm; i++) for (const lane of lanes) await lane.next();
    const pids = { direct: direct.pid, forwarding: forwarding.pid, owner: owner.child.pid };
    const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)]));
    const rand = rng(0x9e0);
    for (let i = 0; i < CALLS; i++) for (const lane of shuffled(lanes, rand)) lane.ms.push(await lane.next());
    // Per timed continue: the untimed creates and gated submissions between them (2 calls in 5) are in it too, alike in
    // both lanes.
    const perCall = (k: keyof typeof pids) => {
      const [a, b] = [before[k], cpuMs(pids[k])];
      return a === null || a === undefined || b === null ? null : Math.round(((b - a) / CALLS) * 1000) / 1000;
    };
    const [d, f] = lanes.map((l) => stats(l.ms));
    const ratio = Math.round((f!.p50_ms / d!.p50_ms) * 1000) / 1000;
    const cpu = { direct_mcp: perCall('direct'), forwarding_mcp: perCall('forwarding'), owner_serve: perCall('owner') };
    process.stdout.write(`${JSON.stringify({
      calls_each: CALLS,
      direct: d, forwarded: f,
      forwarded_vs_direct: { p50: ratio, p95: Math.round((f!.p95_ms / d!.p95_ms) * 1000) / 1000, target_p50: `<= ${TARGET_RATIO_P50}`, met: ratio <= TARGET_RATIO_P50 },
      cpu_ms_per_continue: cpu,
      forwarding_start_up: start_up,
    })}\n`);
  } finally {
    await Promise.all(closing.map((c) => c.close().catch(() => undefined)));
    // baton serve checkpoints as it stops: wait for that before the folder goes.
    await stopped(owner.child, 'SIGINT');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((ex: unknown) => {
  process.stderr.write(`${(ex as Error).stack ?? String(ex)}\n`);
  process.exit(1);
});
