// What the benchmarks share: a seeded PRNG and word list (every run builds the same data), the p50/p95 summary,
// processes' CPU time, a bug-fix walker that times Baton's continues one at a time, bug-fix runs on an engine in process,
// and `baton serve` started.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Baton } from '../src/core/baton.js';
import type { NextStepRequest, NextStepResponse } from '../src/core/types.js';

/** A small deterministic PRNG (mulberry32): the same seed gives the same sequence. */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A copy of `xs` in random order (Fisher-Yates with `rand`). */
export function shuffled<T>(xs: readonly T[], rand: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Seeded picks and text: `vocab` holds 5,000 seven-letter pseudo-words (each in ~0.5% of 25-word texts). */
export function wordSource(seed: number) {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const letters = [...'abcdefghijklmnopqrstuvwxyz'];
  const vocab = Array.from({ length: 5000 }, () => Array.from({ length: 7 }, () => pick(letters)).join(''));
  const words = (n: number) => Array.from({ length: n }, () => pick(vocab)).join(' ');
  return { rand, pick, vocab, words };
}

/** The `q` quantile (nearest rank) of samples sorted in ascending order; NaN when there are none. */
export function atQuantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** p50/p95/mean of samples in milliseconds, rounded to microseconds. */
export function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { n: s.length, p50_ms: r(atQuantile(s, 0.5)), p95_ms: r(atQuantile(s, 0.95)), mean_ms: r(s.reduce((a, b) => a + b, 0) / s.length) };
}

/**
 * The size of the markdown artifact each bench step hands in with BENCH_ARTIFACT_BYTES (a real agent's notes run to a
 * few KB, which the next steps' results then cut to fit their budget); unset, the peers' load drivers' small one. For
 * the builds bench (two builds of Baton): the peers' own drivers keep their small artifacts.
 */
const ARTIFACT_BYTES = Number(process.env.BENCH_ARTIFACT_BYTES ?? 0);
const NOTES = 'The retry loop in `src/net/client.ts` keeps a request\'s old "deadline" when the socket closes mid-write, so it times out twice.\n';

/** What a bug-fix step hands in, as the peers' load drivers send it (a summary, a small markdown artifact, a reference). */
export function stepOutput(step: string, i: number) {
  const content = `# ${step}\n\nFindings for ${step}, round ${i}.`;
  return {
    summary: `Step ${step} done (${i}).`,
    artifacts: [{ type: 'markdown', title: `${step} notes`, content: ARTIFACT_BYTES > content.length ? `${content}\n\n${NOTES.repeat(Math.ceil(ARTIFACT_BYTES / NOTES.length))}`.slice(0, ARTIFACT_BYTES) : content }],
    references: ['src/example.ts'],
    confidence: 0.9,
  };
}

/** Runs one bug-fix workflow on an engine in process to its gate. */
export async function toGate(baton: Pick<Baton, 'nextStep'>, i: number): Promise<NextStepResponse> {
  let res: NextStepResponse = await baton.nextStep({ template_name: 'bug-fix', task_description: `bench task ${i}` });
  for (let n = 0; res.status === 'ok'; n++) {
    res = await baton.nextStep({ step_token: res.new_step_token!, model_output_so_far: stepOutput(res.next_step_contract!.step_name, n) } as NextStepRequest);
  }
  if (res.status !== 'awaiting_approval') throw new Error(`expected the gate, got ${JSON.stringify(res).slice(0, 300)}`);
  return res;
}

/** Runs one bug-fix workflow on an engine in process through its gate to task_closed: six calls. */
export async function runOne(baton: Pick<Baton, 'nextStep' | 'decide'>, i: number): Promise<void> {
  const res = await toGate(baton, i);
  await baton.decide({ execution_id: res.execution_id!, decision: 'approve', by: 'bench' });
  const closed = await baton.nextStep({ step_token: res.new_step_token! });
  if (closed.status !== 'task_closed') throw new Error(`expected task_closed, got ${closed.status}`);
}

/**
 * Waits until `pid` is gone (5 s at most): so that the next start on the same database finds it free, or the file a
 * server writes as it exits is there.
 */
export async function gone(pid: number | null | undefined): Promise<void> {
  for (let i = 0; pid && i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * `baton mcp` of the checkout at `root` (this one unless named) on `dbPath`, the rate limits off, with the SDK client
 * connected to it: the client and the server's pid.
 */
export async function batonMcp(dbPath: string, workspace: string, name: string, root = join(__dirname, '..')): Promise<{ client: Client; pid: number }> {
  const transport = new StdioClientTransport({
    command: process.execPath, args: [join(root, 'dist', 'cli.js'), 'mcp', '--db', dbPath, '--workspace', workspace, '--rate-limits', 'off'],
    cwd: root, stderr: 'ignore',
  });
  const client = new Client({ name, version: '1' });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

/** What a walker's call was: a run's first call, a step-to-step continue, or the call that ends a run (or leaves it at a gate). */
export type StepKind = 'create' | 'continue' | 'end';

/**
 * Baton's bug-fix workflow through `client`, one call at a time: `step()` makes the next call (a create, or a continue
 * with the step's output) and returns its kind, when it was sent (`performance.now()`) and how long it took; a run left
 * at its gate is followed by a new one. Anything but a step, a gate or a closed run throws with Baton's answer.
 */
export function batonSteps(client: Client) {
  let token: string | null = null;
  let step = '';
  let i = 0;
  return async (): Promise<{ kind: StepKind; t0: number; ms: number }> => {
    const args = token ? { step_token: token, model_output_so_far: stepOutput(step, i++) } : { template_name: 'bug-fix' };
    const t0 = performance.now();
    const res = await client.callTool({ name: 'workflow_next_step', arguments: args });
    const ms = performance.now() - t0;
    if (!res.structuredContent) throw new Error(`baton answered with no structured result: ${JSON.stringify(res).slice(0, 600)}`);
    const sc = res.structuredContent as { status: string; new_step_token?: string; next_step_contract?: { step_name: string } };
    const kind = token === null ? 'create' : 'continue';
    if (sc.status === 'ok') {
      token = sc.new_step_token!;
      step = sc.next_step_contract!.step_name;
      return { kind, t0, ms };
    }
    if (sc.status === 'awaiting_approval' || sc.status === 'task_closed') {
      token = null;
      return { kind: 'end', t0, ms };
    }
    throw new Error(`baton answered ${JSON.stringify(sc).slice(0, 300)}`);
  };
}

/** Baton's bug-fix continues one at a time: `next()` times one step-to-step continue (creates and gates untimed). */
export function batonWalker(client: Client) {
  const step = batonSteps(client);
  const next = async (): Promise<number> => {
    for (;;) {
      const r = await step();
      if (r.kind === 'continue') {
        next.startedAt = performance.timeOrigin + r.t0;
        return r.ms;
      }
    }
  };
  /** When the continue that `next` last timed was sent (epoch ms, as `performance.timeOrigin + performance.now()`). */
  next.startedAt = 0;
  return next;
}

/**
 * Two consecutive CPU-time fields of /proc/<pid>/stat, summed, in ms (USER_HZ is 100 on Linux); null where /proc is not
 * there. Counted from the field after the command name: 11 and 12 are utime and stime, 13 and 14 cutime and cstime.
 */
function procCpuMs(pid: number | 'self' | undefined, first: 11 | 13): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[first]) + Number(fields[first + 1])) * 10;
  } catch {
    return null;
  }
}

/** CPU time (user + system, all threads) a process has used, in ms. */
export const cpuMs = (pid: number | undefined) => procCpuMs(pid, 11);

/**
 * CPU time of this process's children that have ended and been waited for, in ms. Read around a child run with
 * execFileSync, it is that child's CPU.
 */
export const childrenCpuMs = () => procCpuMs('self', 13);

/**
 * Signals `child` (SIGTERM unless named) and resolves once it has exited; at once if it already has. A `baton serve`
 * checkpoints as it stops, so its folder must stay until then.
 */
export function stopped(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/**
 * `baton serve` (dist/cli.js) on `dbPath`, the rate limits off, once it has published its endpoint (server.json beside
 * the database): the process, and the URL, token and pid it published. It checkpoints as it stops (SIGINT or SIGTERM).
 */
export async function startServe(dbPath: string, workspace: string): Promise<{ child: ChildProcess; url: string; token: string; pid: number }> {
  const root = join(__dirname, '..');
  const child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), 'serve', '--db', dbPath, '--workspace', workspace, '--rate-limits', 'off'], { cwd: root, stdio: 'ignore' });
  const discovery = join(dirname(dbPath), 'server.json');
  for (const deadline = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 100))) {
    if (child.exitCode !== null) throw new Error(`baton serve exited (${child.exitCode}) before it published its endpoint`);
    if (existsSync(discovery)) {
      try {
        const { url, token, pid } = JSON.parse(readFileSync(discovery, 'utf8')) as { url: string; token: string; pid: number };
        return { child, url, token, pid };
      } catch {
        // written but not complete yet
      }
    }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error('baton serve did not publish its endpoint within 20 s');
    }
  }
}
