// What a native SQLite would give the engine: the peers bench's engine loop (16 bug-fix workflows in flight calling
// Baton.nextStep in one process, no MCP) on Baton's store (sql.js, patched as shipped, with its journal and group
// commit) and on node:sqlite (SQLite compiled into Node 24; WAL, synchronous=FULL, the same group commit: one COMMIT,
// so one fsync, per turn of the event loop). Both run on the editor host's Node 24 (node:sqlite is not in Node 20),
// in alternating rounds, each on a fresh database. An experiment for the note of issue 10, not a shipped store:
// node:sqlite is experimental in Node 24, and the VS Code extension host has none. Prints one JSON object.
// Run: node --import tsx bench/nativeSqlite.bench.ts [SECONDS] [ROUNDS]; NATIVE_SYNC=NORMAL measures node:sqlite
// without its per-commit fsync (not durable per call), to tell the binding's cost from the disk's.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Baton } from '../src/core/baton.js';
import { DEFAULT_RATE_LIMITS } from '../src/core/broker/rateLimiter.js';
import { silentLog, type Row, type SqlParams, type Store } from '../src/core/ports.js';
import type { NextStepRequest } from '../src/core/types.js';
import { nodeCrypto, nodeFileSystem, randomIds, systemClock } from '../src/host/nodePorts.js';
import { openStore } from '../src/store/sqlJsStore.js';
import { bundleLikeDist } from '../scripts/sqljsPatch.mjs';
import { stepOutput } from './benchKit.js';

// From source: [SECONDS] [ROUNDS]; a round (in the bundle): STORE SECONDS.
const ROUND = process.env.BATON_BENCH_NATIVE_ROUND === '1';
const SECONDS = Number(process.argv[ROUND ? 3 : 2] ?? 6);
const ROUNDS = Number(process.argv[3] ?? 3);
const INFLIGHT = 16;

/** The node:sqlite module's parts used here (typed by hand: @types/node is Node 20's). */
interface StatementSync {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): { changes: number | bigint };
}
interface DatabaseSync {
  exec(sql: string): void;
  prepare(sql: string): StatementSync;
  close(): void;
}

/**
 * Store over node:sqlite with Baton's commit discipline: every transaction of a turn shares one SQLite transaction
 * (a savepoint each, so one that throws rolls back alone) committed on the next turn; its promise resolves once that
 * COMMIT (and with synchronous=FULL, its fsync of the WAL) has returned.
 */
class NativeStore implements Store {
  private readonly statements = new Map<string, StatementSync>();
  private depth = 0;
  private open = false;
  private waiting: Array<{ resolve: () => void; reject: (ex: unknown) => void }> = [];

  constructor(private readonly db: DatabaseSync, migrationsDir: string) {
    db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${process.env.NATIVE_SYNC ?? 'FULL'};`);
    for (const file of readdirSync(migrationsDir).filter((f) => /^\d+_.*\.sql$/.test(f)).sort()) {
      db.exec(`BEGIN; ${readFileSync(join(migrationsDir, file), 'utf8')}; COMMIT;`);
    }
  }

  private prepare(sql: string): StatementSync {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  private args(params?: SqlParams): unknown[] {
    if (!params) return [];
    return Array.isArray(params) ? params : [params];
  }

  all<T = Row>(sql: string, params?: SqlParams): T[] {
    return this.prepare(sql).all(...this.args(params)) as T[];
  }

  get<T = Row>(sql: string, params?: SqlParams): T | undefined {
    return (this.prepare(sql).get(...this.args(params)) ?? undefined) as T | undefined;
  }

  run(sql: string, params?: SqlParams): number {
    if (this.depth === 0) throw new Error(`run() outside transaction(): ${sql}`);
    return Number(this.prepare(sql).run(...this.args(params)).changes);
  }

  transaction<T>(fn: () => T): Promise<T> {
    if (this.depth > 0) {
      this.depth++;
      try {
        return Promise.resolve(fn());
      } finally {
        this.depth--;
      }
    }
    if (!this.open) {
      this.db.exec('BEGIN');
      this.open = true;
      setImmediate(() => this.commit());
    }
    this.db.exec('SAVEPOINT baton_tx');
    this.depth = 1;
    let result: T;
    try {
      result = fn();
      this.db.exec('RELEASE baton_tx');
    } catch (ex) {
      this.db.exec('ROLLBACK TO baton_tx; RELEASE baton_tx');
      return Promise.reject(ex);
    } finally {
      this.depth = 0;
    }
    return new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject })).then(() => result);
  }

  private commit(): void {
    const waiting = this.waiting;
    this.waiting = [];
    this.open = false;
    try {
      this.db.exec('COMMIT');
      for (const w of waiting) w.resolve();
    } catch (ex) {
      for (const w of waiting) w.reject(ex);
    }
  }

  close(): void {
    if (this.open) this.commit();
    this.db.close();
  }
}

/** One round inside the bundle, on Node 24: the engine loop on `store` ('sqljs' or 'native') in a fresh folder. */
async function round(storeKind: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `baton-bench-native-${storeKind}-`));
  try {
    let store: Store;
    let close: () => Promise<void> | void;
    if (storeKind === 'native') {
      const { DatabaseSync } = require('node:sqlite') as { DatabaseSync: new (path: string) => DatabaseSync };
      const native = new NativeStore(new DatabaseSync(join(dir, 'baton.db')), join(__dirname, 'migrations'));
      store = native;
      close = () => native.close();
    } else {
      const sqljs = await openStore({ path: join(dir, 'baton.db') });
      store = sqljs;
      close = () => sqljs.close();
    }
    const baton = await Baton.create(
      { store, clock: systemClock, ids: randomIds, crypto: nodeCrypto, log: silentLog, fs: nodeFileSystem },
      { workspacePath: dir, contentDirs: [join(__dirname, 'content')], rateLimits: { ...DEFAULT_RATE_LIMITS, enabled: false } },
    );
    const run = async (seconds: number): Promise<number> => {
      const end = Date.now() + seconds * 1000;
      let calls = 0;
      await Promise.all(Array.from({ length: INFLIGHT }, async () => {
        let token: string | null = null;
        let step = '';
        let i = 0;
        while (Date.now() < end) {
          const args = (token ? { step_token: token, model_output_so_far: stepOutput(step, i++) } : { template_name: 'bug-fix' }) as NextStepRequest;
          const res = await baton.nextStep(args, { client_name: 'native-bench' });
          calls++;
          if (res.status === 'ok') {
            token = res.new_step_token!;
            step = res.next_step_contract!.step_name;
          } else if (res.status === 'awaiting_approval' || res.status === 'task_closed') token = null;
          else throw new Error(`engine answered ${JSON.stringify(res).slice(0, 300)}`);
        }
      }));
      return calls;
    };
    await run(1); // warm-up
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const calls = await run(SECONDS);
    const secs = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    await baton.close();
    await close();
    process.stdout.write(`${JSON.stringify({ store: storeKind, calls_per_s: Math.round(calls / secs), cpu_ms_per_call: Number(((cpu.user + cpu.system) / 1000 / calls).toFixed(3)) })}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** From source: bundles this file like dist/, then runs the rounds on Node 24, alternating the stores. */
async function main(): Promise<void> {
  // Loaded from source only (a path, not a literal, so the bundle leaves it out: it reads import.meta.url).
  const hostScript = join(__dirname, '..', 'scripts', 'editorHost.mjs');
  const { editorHostPaths, ensureEditorHost } = (await import(hostScript)) as typeof import('../scripts/editorHost.mjs');
  const host = existsSync(editorHostPaths().node) ? editorHostPaths() : await ensureEditorHost();
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-native-bundle-'));
  try {
    const bundle = await bundleLikeDist(__filename, dir);
    cpSync(join(__dirname, '..', 'content'), join(dir, 'content'), { recursive: true }); // (the migrations come with the bundle)
    const rounds: Record<string, Array<{ calls_per_s: number; cpu_ms_per_call: number }>> = { sqljs: [], native: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const kind of r % 2 ? ['native', 'sqljs'] : ['sqljs', 'native']) {
        const out = execFileSync(host.node, ['--no-warnings', bundle, kind, String(SECONDS)], {
          encoding: 'utf8', env: { ...process.env, BATON_BENCH_NATIVE_ROUND: '1' }, stdio: ['ignore', 'pipe', 'inherit'],
        });
        rounds[kind]!.push(JSON.parse(out.trim().split('\n').at(-1)!) as { calls_per_s: number; cpu_ms_per_call: number });
      }
    }
    const summary = (kind: string) => ({
      calls_per_s: median(rounds[kind]!.map((r) => r.calls_per_s)),
      cpu_ms_per_call: median(rounds[kind]!.map((r) => r.cpu_ms_per_call)),
      rounds: rounds[kind],
    });
    const sqljs = summary('sqljs');
    const native = summary('native');
    process.stdout.write(`${JSON.stringify({
      bench: 'native-sqlite', node: execFileSync(host.node, ['--version'], { encoding: 'utf8' }).trim(), inflight: INFLIGHT, seconds: SECONDS,
      sqljs, native,
      native_vs_sqljs_calls_per_s: Number((native.calls_per_s / sqljs.calls_per_s).toFixed(2)),
      native_vs_sqljs_cpu_per_call: Number((native.cpu_ms_per_call / sqljs.cpu_ms_per_call).toFixed(2)),
    })}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

(ROUND ? round(process.argv[2] ?? 'sqljs') : main()).catch((ex: unknown) => {
  process.stderr.write(`${ex instanceof Error ? ex.stack : String(ex)}\n`);
  process.exit(1);
});
