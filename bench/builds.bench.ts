// This checkout's build against another revision's, for a change on the hot path: bug-fix continues one at a time to
// two `baton mcp` servers, one per build, as lanes in a seeded random order each round (a call is slower after a
// heavier one's: the caches it finds), with the CPU each server spends per call (/proc). Every round starts both
// servers afresh on new databases, and the builds swap their places in the spawn order, so a round's JIT or an
// unlucky minute falls on both alike. Paired figures are what to read: a few percent is within one lane's drift, and
// a change that is real shows in most rounds. Then, in each round, each server alone with 16 bug-fix workflows in
// flight on its connection for a few seconds (the builds one after the other, in the round's order): continues per
// second and CPU per continue, where CPU decides.
//
// BATON_BENCH_BASE names the other build: a git revision (built in a scratch worktree that borrows this checkout's
// node_modules) or a checkout whose dist/ is built. Without it the bench prints `{"bench":"builds","skipped":…}`.
// `npm run bench -- builds` builds this checkout first. BENCH_BUILDS_ROUNDS (5), BENCH_BUILDS_CALLS (1000 per build
// and round), BENCH_BUILDS_WARM_UP_MS (3000) and BENCH_BUILDS_INFLIGHT_MS (4000 per build and round) set the run's
// length. BENCH_ARTIFACT_BYTES (see benchKit.ts's stepOutput) makes each step's artifact that many bytes of markdown, as
// a real agent's notes are. Prints one JSON object.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { batonMcp, batonWalker, cpuMs, gone, rng, shuffled, stats } from './benchKit.js';

const ROOT = join(__dirname, '..');
const ROUNDS = Number(process.env.BENCH_BUILDS_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_BUILDS_CALLS ?? 1000);
const WARM_UP_MS = Number(process.env.BENCH_BUILDS_WARM_UP_MS ?? 3000);
const INFLIGHT_MS = Number(process.env.BENCH_BUILDS_INFLIGHT_MS ?? 4000);
const IN_FLIGHT = 16;

/** A checkout with its dist/ built: the base's, and how to clean up after it. */
interface Build {
  label: string;
  root: string;
  remove(): void;
}

/** The base build: `spec` as a built checkout, or as a git revision built in a scratch worktree. */
function baseBuild(spec: string): Build {
  const asDir = resolve(spec);
  if (existsSync(join(asDir, 'dist', 'cli.js'))) return { label: asDir, root: asDir, remove: () => undefined };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  let commit: string;
  try {
    commit = git('rev-parse', '--verify', `${spec}^{commit}`);
  } catch {
    throw new Error(`BATON_BENCH_BASE=${spec} is neither a git revision of this checkout nor a folder with a built dist/cli.js`);
  }
  const scratch = mkdtempSync(join(tmpdir(), 'baton-bench-builds-'));
  const root = join(scratch, 'base');
  git('worktree', 'add', '--detach', root, commit);
  const remove = () => {
    try {
      git('worktree', 'remove', '--force', root);
    } catch {
      // git could not remove it: the folder goes below, and the prune forgets the worktree
    }
    rmSync(scratch, { recursive: true, force: true });
    git('worktree', 'prune');
  };
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (ex) {
    remove();
    throw new Error(`building ${spec} (${commit.slice(0, 12)}) failed: ${(ex as { stderr?: Buffer }).stderr?.toString().slice(-1000) ?? String(ex)}`);
  }
  return { label: `${spec} (${commit.slice(0, 12)})`, root, remove };
}

/** `baton mcp` of the build at `root` on a new database in `dir`, as a lane of bug-fix continues. */
async function server(root: string, dir: string, name: string) {
  const { client, pid } = await batonMcp(join(dir, name, 'baton.db'), dir, `bench-builds-${name}`, root);
  return { name, client, pid, next: batonWalker(client), ms: [] as number[] };
}

/** CPU per call that `pid` spent since `before` (its cpuMs then) over `calls` calls; null where /proc has no figure. */
function cpuPerCall(pid: number, before: number | null, calls: number): number | null {
  const after = cpuMs(pid);
  return before === null || after === null ? null : r3((after - before) / calls);
}

/** `head` over `base`, or null when either is unknown. */
const ratio = (head: number | null, base: number | null) => (head && base ? r3(head / base) : null);

/** A server with IN_FLIGHT workflows walked at once on its connection for INFLIGHT_MS: continues/s, CPU per continue. */
async function inFlight(lane: Awaited<ReturnType<typeof server>>) {
  const walkers = Array.from({ length: IN_FLIGHT }, () => batonWalker(lane.client));
  let done = 0;
  const before = cpuMs(lane.pid);
  const t0 = performance.now();
  const end = t0 + INFLIGHT_MS;
  await Promise.all(walkers.map(async (next) => {
    while (performance.now() < end) {
      await next();
      done++;
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  return { calls_per_s: Math.round(done / seconds), cpu: cpuPerCall(lane.pid, before, done) };
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : r3((s[mid - 1]! + s[mid]!) / 2);
};

async function main(): Promise<void> {
  const spec = process.env.BATON_BENCH_BASE;
  if (!spec) {
    process.stdout.write(`${JSON.stringify({ bench: 'builds', skipped: 'set BATON_BENCH_BASE to a git revision (or a built checkout) to compare this build with' })}\n`);
    return;
  }
  const base = baseBuild(spec);
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-builds-db-'));
  const rounds: Array<{ p50: number; p95: number; cpu: number | null; inflight: number; inflightCpu: number | null }> = [];
  let last: Record<string, unknown> | null = null;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [['base', base.root], ['head', ROOT]] : [['head', ROOT], ['base', base.root]];
      const lanes = [];
      const workspace = join(dir, String(round));
      mkdirSync(workspace);
      for (const [name, root] of order) lanes.push(await server(root!, workspace, name!));
      try {
        // Warm-up: the JIT and sql.js's optimizing compiles on background threads (seconds of CPU after a start).
        const warm = Date.now() + WARM_UP_MS;
        for (let i = 0; i < 100 || Date.now() < warm; i++) for (const lane of lanes) await lane.next();
        const before = lanes.map((l) => cpuMs(l.pid));
        const rand = rng(0xb17d + round);
        for (let i = 0; i < CALLS; i++) for (const lane of shuffled(lanes, rand)) lane.ms.push(await lane.next());
        const cpu = lanes.map((l, i) => cpuPerCall(l.pid, before[i]!, CALLS));
        const flights: Array<Awaited<ReturnType<typeof inFlight>>> = [];
        for (const lane of lanes) flights.push(await inFlight(lane));
        const byName = Object.fromEntries(lanes.map((l, i) => [l.name, { s: stats(l.ms), cpu: cpu[i]!, flight: flights[i]! }]));
        const [b, h] = [byName.base!, byName.head!];
        rounds.push({
          p50: r3(h.s.p50_ms / b.s.p50_ms), p95: r3(h.s.p95_ms / b.s.p95_ms), cpu: ratio(h.cpu, b.cpu),
          inflight: r3(h.flight.calls_per_s / b.flight.calls_per_s), inflightCpu: ratio(h.flight.cpu, b.flight.cpu),
        });
        last = {
          base: b.s, head: h.s, cpu_ms_per_call: { base: b.cpu, head: h.cpu },
          in_flight: { base: b.flight, head: h.flight },
        };
      } finally {
        for (const lane of lanes) {
          await lane.client.close();
          await gone(lane.pid);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    base.remove();
  }
  const known = (xs: Array<number | null>) => xs.filter((c): c is number => c !== null);
  const medianOf = (xs: Array<number | null>) => (known(xs).length ? median(known(xs)) : null);
  process.stdout.write(`${JSON.stringify({
    base: base.label,
    rounds: ROUNDS,
    calls_each: CALLS,
    inflight_ms: INFLIGHT_MS,
    // Head over base, per round and the rounds' median: below 1 is this checkout faster or cheaper (calls/s: above 1).
    head_vs_base: {
      p50: rounds.map((r) => r.p50), p95: rounds.map((r) => r.p95), cpu_per_call: rounds.map((r) => r.cpu),
      inflight_calls_per_s: rounds.map((r) => r.inflight), inflight_cpu_per_call: rounds.map((r) => r.inflightCpu),
      median: {
        p50: median(rounds.map((r) => r.p50)), p95: median(rounds.map((r) => r.p95)), cpu_per_call: medianOf(rounds.map((r) => r.cpu)),
        inflight_calls_per_s: median(rounds.map((r) => r.inflight)), inflight_cpu_per_call: medianOf(rounds.map((r) => r.inflightCpu)),
      },
      p50_better_in: rounds.filter((r) => r.p50 < 1).length,
    },
    last_round: last,
  })}\n`);
}

main().catch((ex: unknown) => {
  process.stderr.write(`${(ex as Error).stack ?? String(ex)}\n`);
  process.exit(1);
});
