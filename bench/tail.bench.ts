// Where the time of a slow serial call goes. Bug-fix continues one at a time over stdio to `baton mcp` (the SDK
// client, as the peers bench), and calls to the durable floor (bench/floorServer.mjs with a file: append 1 KB,
// fdatasync) as a second lane, in a shuffled order each round, with bench/tailTrace.cjs in both servers recording when
// each request was read and its answer written, their fdatasyncs and GCs. Each call's time splits into: the way in
// (sent -> read off stdin), the server (read -> answer written; of it, syncing and GC), and the way back (written ->
// the client's callTool resolved: the pipe, the client's parse and checks); and, before the request was read, how long
// the server's event loop was busy since its previous answer (the work a call leaves for after its answer); Baton's
// time in the server splits further by its trace points (Phases below). Figures
// are means per band of the calls sorted by time (p40-60 is the middle, p95-99 the tail the peers bench's p95 falls
// in). Prints one JSON object. Env: BENCH_TAIL_CALLS (1500), BENCH_TAIL_WARM_UP (100).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { batonWalker, gone, rng, shuffled, stats, stepOutput } from './benchKit.js';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const CALLS = Number(process.env.BENCH_TAIL_CALLS ?? 1500);
const WARM_UP = Number(process.env.BENCH_TAIL_WARM_UP ?? 100);
const BANDS: [string, number, number][] = [['p40_60', 0.4, 0.6], ['p80_90', 0.8, 0.9], ['p90_95', 0.9, 0.95], ['p95_99', 0.95, 0.99], ['p99_100', 0.99, 1]];

type TracePoint = 'call' | 'transaction' | 'transaction-end' | 'flush' | 'send';
type TraceEvent = [kind: 'read' | 'write' | 'sync' | 'gc' | TracePoint, at: number, ms: number, busyMs: number];

/**
 * Where a Baton call's time in the server went, from its trace points (src/shared/tracePoints.ts), in ms: stdin's read
 * to the tool call's handler (the line's parse, the SDK's dispatch), to the engine's transaction (input checks, the
 * token's signature), the transaction (reads, decisions, the writes recorded, the result built), to the journal's flush,
 * the flush up to its sync (the record's encoding, the lock's check, the write), the sync, from it to the answer's send
 * (the promises it settles, the call log's entry), and the answer's serialization up to stdout's write.
 */
interface Phases {
  dispatch: number;
  checks: number;
  transaction: number;
  toFlush: number;
  journalWrite: number;
  sync: number;
  release: number;
  serialize: number;
}
const PHASES: Array<[keyof Phases, string]> = [
  ['dispatch', 'dispatch_ms'], ['checks', 'checks_ms'], ['transaction', 'transaction_ms'], ['toFlush', 'to_flush_ms'],
  ['journalWrite', 'journal_write_ms'], ['sync', 'sync_ms'], ['release', 'release_ms'], ['serialize', 'serialize_ms'],
];

interface Split {
  total: number;
  toServer: number;
  inServer: number;
  syncing: number;
  gc: number;
  back: number;
  busyBefore: number;
  /** Null where the trace has no points for the call (the floor) or not all of them (a call that wrote nothing). */
  phases: Phases | null;
}

/** The index of the first event at or after `at` (events sorted by time). */
function indexAt(events: TraceEvent[], at: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]![1] < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One call's split, or null when the trace does not hold its read and write (it cannot be placed). */
function split(events: TraceEvent[], sentAt: number, ms: number): Split | null {
  const end = sentAt + ms;
  let r = indexAt(events, sentAt);
  while (r < events.length && events[r]![0] !== 'read') r++;
  const read = events[r];
  if (!read || read[1] > end) return null;
  let w = r + 1;
  let syncing = 0;
  let gc = 0;
  for (; w < events.length && events[w]![0] !== 'write'; w++) {
    if (events[w]![0] === 'sync') syncing += events[w]![2];
    else if (events[w]![0] === 'gc') gc += events[w]![2];
  }
  const write = events[w];
  if (!write || write[1] > end) return null;
  let p = r - 1;
  while (p >= 0 && events[p]![0] !== 'write') p--;
  const previous = events[p];
  return {
    total: ms, toServer: read[1] - sentAt, inServer: write[1] - read[1], syncing, gc, back: end - write[1],
    busyBefore: previous ? read[3] - previous[3] : 0, phases: phasesOf(events, r, w),
  };
}

/** The phases of the call read at `events[r]` and answered at `events[w]`: each point the first after the one before. */
function phasesOf(events: TraceEvent[], r: number, w: number): Phases | null {
  let i = r;
  const next = (kind: TraceEvent[0]): TraceEvent | null => {
    while (++i < w) if (events[i]![0] === kind) return events[i]!;
    return null;
  };
  const call = next('call');
  const tx = call && next('transaction');
  const txEnd = tx && next('transaction-end');
  const flush = txEnd && next('flush');
  const sync = flush && next('sync');
  const send = sync && next('send');
  if (!send) return null;
  const [read, write, synced] = [events[r]!, events[w]!, sync[1] + sync[2]];
  return {
    dispatch: call[1] - read[1], checks: tx[1] - call[1], transaction: txEnd[1] - tx[1], toFlush: flush[1] - txEnd[1],
    journalWrite: sync[1] - flush[1], sync: sync[2], release: send[1] - synced, serialize: write[1] - send[1],
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

function bands(splits: Split[]) {
  const sorted = [...splits].sort((a, b) => a.total - b.total);
  return Object.fromEntries(BANDS.map(([name, from, to]) => {
    const part = sorted.slice(Math.floor(from * sorted.length), Math.ceil(to * sorted.length));
    const mean = (key: Exclude<keyof Split, 'phases'>) => round(part.reduce((sum, s) => sum + s[key], 0) / Math.max(1, part.length));
    const phased = part.flatMap((s) => (s.phases ? [s.phases] : []));
    const phaseMean = (key: keyof Phases) => round(phased.reduce((sum, p) => sum + p[key], 0) / phased.length);
    return [name, {
      n: part.length, total_ms: mean('total'), to_server_ms: mean('toServer'), in_server_ms: mean('inServer'),
      of_it_syncing_ms: mean('syncing'), of_it_gc_ms: mean('gc'), back_ms: mean('back'), busy_since_previous_answer_ms: mean('busyBefore'),
      // Baton's calls: the phases of the server's time (means over the band's calls that have them all).
      ...(phased.length ? { phases: { n: phased.length, ...Object.fromEntries(PHASES.map(([key, label]) => [label, phaseMean(key)])) } } : {}),
    }];
  }));
}

/** A server spawned over stdio with the trace hook, and the SDK client connected to it. */
async function traced(name: string, dir: string, args: string[]) {
  const trace = join(dir, `${name}-trace.json`);
  const transport = new StdioClientTransport({
    command: process.execPath, args: ['--require', join(__dirname, 'tailTrace.cjs'), ...args],
    cwd: ROOT, stderr: 'ignore', env: { ...(process.env as Record<string, string>), BATON_TAIL_TRACE: trace },
  });
  const client = new Client({ name: `bench-tail-${name}`, version: '1' });
  await client.connect(transport);
  const calls: [sentAt: number, ms: number][] = [];
  return {
    name, client, calls,
    /** Closes the client, waits for the server to exit (it writes its trace then), and splits the calls' times. */
    async splits(): Promise<Split[]> {
      const pid = transport.pid;
      await client.close();
      await gone(pid);
      const events = (JSON.parse(readFileSync(trace, 'utf8')) as TraceEvent[]).sort((a, b) => a[1] - b[1]);
      const found = calls.map(([at, ms]) => split(events, at, ms)).filter((s): s is Split => s !== null);
      if (found.length < calls.length * 0.9) throw new Error(`${name}: only ${found.length} of ${calls.length} calls were found in the server's trace`);
      return found;
    },
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-tail-'));
  try {
    const baton = await traced('baton', dir, [CLI, 'mcp', '--db', join(dir, 'baton.db'), '--workspace', dir, '--rate-limits', 'off']);
    const floor = await traced('floor', dir, [join(__dirname, 'floorServer.mjs'), join(dir, 'floor.log')]);
    const walk = batonWalker(baton.client);
    const lanes = [
      {
        lane: baton,
        next: async (): Promise<[number, number]> => {
          const ms = await walk();
          return [walk.startedAt, ms];
        },
      },
      {
        lane: floor,
        next: async (): Promise<[number, number]> => {
          const t0 = performance.now();
          await floor.client.callTool({ name: 'write', arguments: stepOutput('floor', 0) });
          return [performance.timeOrigin + t0, performance.now() - t0];
        },
      },
    ];
    for (let i = 0; i < WARM_UP; i++) for (const { next } of lanes) await next();
    // A new order each round (a call is slower after a heavier server's call than after a light one's).
    const rand = rng(0x7a11);
    for (let i = 0; i < CALLS; i++) for (const { lane, next } of shuffled(lanes, rand)) lane.calls.push(await next());
    const [b, f] = [stats(baton.calls.map(([, ms]) => ms)), stats(floor.calls.map(([, ms]) => ms))];
    const ratio = (x: number, y: number) => Math.round((x / y) * 1000) / 1000;
    const result: Record<string, unknown> = { baton_vs_floor: { p50: ratio(b.p50_ms, f.p50_ms), p95: ratio(b.p95_ms, f.p95_ms) } };
    for (const { lane } of lanes) {
      const splits = await lane.splits();
      result[lane.name] = { calls: lane === baton ? b : f, placed: splits.length, bands: bands(splits) };
    }
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((ex: unknown) => {
  process.stderr.write(`${(ex as Error).stack ?? String(ex)}\n`);
  process.exit(1);
});
