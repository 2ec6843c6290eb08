// Concurrent agents as real set-ups run them: each agent starts its own MCP server process from its configuration.
// Baton: AGENTS `baton mcp` processes on one database, each forwarding to its owner (`baton serve`, where the editor
// would own it); midex, when it is set up (../shared/peers/midex-setup.sh): AGENTS of its stdio servers on one
// database (SQLite in WAL mode, a connection per process). Every agent walks bug-fix workflows one call at a time, as
// an agent does (BENCH_AGENTS_THINK_MS: with a pause between an answer and its next call), with the official SDK
// client; the two sides take turns in rounds (ABBA), so that the machine's drift hits both alike. Prints one JSON
// object: calls/s over all the agents, p50 and p95 of every call that succeeded, the CPU per call of all of each
// side's processes, the share of calls that failed and why, and Baton over midex. Issue 10 sets no target for it: it
// shows whether Baton's lead holds when agents come through processes of their own rather than one connection.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { batonMcp, batonSteps, cpuMs, startServe, stats, stopped, type StepKind } from './benchKit.js';
import { midexBuilt, midexClient, midexSkipped, midexSteps, peersDir, seedMidex } from './midexKit.js';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 8);
/** Rounds each side, in turns (ABBA). */
const ROUNDS = Number(process.env.BENCH_AGENTS_ROUNDS ?? 2);
const ROUND_MS = Number(process.env.BENCH_AGENTS_ROUND_MS ?? 6000);
const WARM_UP_MS = Number(process.env.BENCH_AGENTS_WARM_UP_MS ?? 4000);
/** An agent's pause between one answer and its next call (a model's turn); none by default: the agents as fast as they go. */
const THINK_MS = Number(process.env.BENCH_AGENTS_THINK_MS ?? 0);
if (!(THINK_MS >= 0)) throw new Error(`BENCH_AGENTS_THINK_MS must be 0 or more (got ${process.env.BENCH_AGENTS_THINK_MS})`);
for (const [name, v] of [['BENCH_AGENTS', AGENTS], ['BENCH_AGENTS_ROUNDS', ROUNDS], ['BENCH_AGENTS_ROUND_MS', ROUND_MS]] as const) {
  if (!(Number.isInteger(v) && v >= 1)) throw new Error(`${name} must be a whole number of 1 or more (got ${process.env[name]})`);
}

type Step = () => Promise<{ kind: StepKind; ms: number }>;

interface Agent {
  /** Makes a new walker: after a failed call the agent leaves its run and starts another. */
  walker: () => Step;
  step: Step;
}

interface Side {
  name: 'baton' | 'midex';
  agents: Agent[];
  /** Every process of the side: its servers, and Baton's owner. */
  pids: () => Record<string, number[]>;
  ms: number[];
  kinds: Record<StepKind, number>;
  /** Failed calls in the counted rounds, by what they answered. */
  errors: Map<string, number>;
  seconds: number;
  cpuMs: Record<string, number>;
  rounds: number[];
}

const cpuOf = (pids: number[]) => pids.reduce((sum, pid) => sum + (cpuMs(pid) ?? Number.NaN), 0);

/** Every agent of `side` walks its workflows for `ms`; counted unless it is the warm-up. */
async function round(side: Side, ms: number, counted: boolean): Promise<void> {
  const groups = side.pids();
  const before = Object.fromEntries(Object.entries(groups).map(([k, pids]) => [k, cpuOf(pids)]));
  const t0 = performance.now();
  const end = t0 + ms;
  let calls = 0;
  await Promise.all(side.agents.map(async (agent) => {
    while (performance.now() < end) {
      try {
        const r = await agent.step();
        calls++;
        if (!counted) continue;
        side.ms.push(r.ms);
        side.kinds[r.kind]++;
      } catch (ex) {
        // A failed call is an agent's failed step: it is counted, not timed, and the agent starts a new run.
        if (counted) {
          const message = String((ex as Error).message ?? ex).slice(0, 200);
          side.errors.set(message, (side.errors.get(message) ?? 0) + 1);
        }
        agent.step = agent.walker();
      }
      if (THINK_MS > 0) await new Promise((resolve) => setTimeout(resolve, THINK_MS));
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  // A side none of whose calls succeeds is broken, not slow.
  if (calls === 0) throw new Error(`${side.name}: no call succeeded in ${ms} ms; the errors: ${JSON.stringify([...side.errors])}`);
  if (!counted) return;
  side.seconds += seconds;
  side.rounds.push(Math.round(calls / seconds));
  for (const [k, pids] of Object.entries(groups)) side.cpuMs[k] = (side.cpuMs[k] ?? 0) + cpuOf(pids) - before[k]!;
}

function figures(side: Side) {
  const calls = side.ms.length;
  const failed = [...side.errors.values()].reduce((a, b) => a + b, 0);
  const { n: _n, ...latency } = stats(side.ms);
  const perCall = Object.fromEntries(Object.entries(side.cpuMs).map(([k, v]) => [k, Math.round((v / calls) * 1000) / 1000]));
  return {
    calls, calls_per_s: Math.round(calls / side.seconds), calls_per_s_by_round: side.rounds, ...latency, calls_by_kind: side.kinds,
    // The share of the agents' calls that failed, and the commonest failures.
    failed: Math.round((failed / (calls + failed)) * 10000) / 10000, failed_calls: failed,
    failures: Object.fromEntries([...side.errors].sort((a, b) => b[1] - a[1]).slice(0, 3)),
    cpu_ms_per_call: { ...perCall, all: Math.round((Object.values(side.cpuMs).reduce((a, b) => a + b, 0) / calls) * 1000) / 1000 },
  };
}

const newSide = (name: Side['name'], agents: Agent[], pids: Side['pids']): Side => ({
  name, agents, pids, ms: [], kinds: { create: 0, continue: 0, end: 0 }, errors: new Map(), seconds: 0, cpuMs: {}, rounds: [],
});

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-agents-'));
  const dbPath = join(dir, 'baton', 'baton.db');
  const owner = await startServe(dbPath, dir);
  const agents: Array<{ client: Client; pid: number }> = [];
  const midexAgents: Array<{ client: Client; pid: number }> = [];
  try {
    if (owner.pid !== owner.child.pid) throw new Error(`the database is owned by process ${owner.pid}, not by baton serve`);
    for (let i = 0; i < AGENTS; i++) agents.push(await batonMcp(dbPath, dir, `bench-agent-${i}`));
    const baton = newSide('baton', agents.map(({ client }) => ({ walker: () => batonSteps(client), step: batonSteps(client) })),
      () => ({ owner: [owner.child.pid!], forwarders: agents.map((a) => a.pid) }));
    const peers = peersDir();
    let midex: Side | null = null;
    if (peers && midexBuilt()) {
      const midexDb = join(dir, 'midex.db');
      seedMidex(midexDb);
      for (let i = 0; i < AGENTS; i++) midexAgents.push(await midexClient(midexDb, dir));
      const sideAgents: Agent[] = [];
      for (const { client } of midexAgents) {
        // midex's walker leaves a run whose call failed by itself: the next call starts another.
        const step = await midexSteps(client);
        sideAgents.push({ walker: () => step, step });
      }
      midex = newSide('midex', sideAgents, () => ({ servers: midexAgents.map((a) => a.pid) }));
    }
    const sides = midex ? [baton, midex] : [baton];
    // Warm-up: the forwarders' sessions with the owner, the JIT, and sql.js's optimizing compiles on background threads.
    for (const side of sides) await round(side, WARM_UP_MS, false);
    for (let r = 0; r < ROUNDS; r++) for (const side of r % 2 ? [...sides].reverse() : sides) await round(side, ROUND_MS, true);
    const b = figures(baton);
    const m = midex ? figures(midex) : null;
    const ratio = (x: number, y: number) => Math.round((x / y) * 1000) / 1000;
    process.stdout.write(`${JSON.stringify({
      agents: AGENTS, think_ms: THINK_MS, rounds_each: ROUNDS, round_ms: ROUND_MS,
      baton: b,
      ...(m ? {
        midex: m,
        baton_vs_midex: { calls_per_s: ratio(b.calls_per_s, m.calls_per_s), p50: ratio(b.p50_ms, m.p50_ms), p95: ratio(b.p95_ms, m.p95_ms) },
      } : { midex: peers ? midexSkipped(peers, 'agents') : { skipped: 'no shared/peers folder beside this checkout (or BATON_PEERS_DIR)' } }),
    })}\n`);
  } finally {
    await Promise.all([...agents, ...midexAgents].map((a) => a.client.close().catch(() => undefined)));
    // baton serve checkpoints as it stops: wait for that before the folder goes.
    await stopped(owner.child, 'SIGINT');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((ex: unknown) => {
  process.stderr.write(`${(ex as Error).stack ?? String(ex)}\n`);
  process.exit(1);
});
