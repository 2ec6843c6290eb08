// Store benchmark: the cost of a small durable write at 1 MB and at 100 MB (it must not grow with the database), the
// time to open a 100 MB database and replay ~1000 journal records, how long a checkpoint of it blocks the event loop,
// the time to open a database of 100,000 findings (beside SQLite's check of the whole file, which also re-reads
// every full-text index), and the first open of those findings in a file one schema version older (an upgrade).
// Measures the store as it ships: this file re-runs itself bundled like dist/ (sql.js patched: copy-on-write
// snapshots). Prints one JSON object. Run: node --import tsx bench/store.bench.ts
import { closeSync, fdatasyncSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { SqlValue } from 'sql.js';
import { defaultWasmPath, loadSqlJs } from '../src/store/loading.js';
import { applyMigrations, defaultMigrationsDir, loadMigrations, schemaVersion } from '../src/store/migrate.js';
import { openStore, type SqlJsStore } from '../src/store/sqlJsStore.js';
import { stats, wordSource } from './benchKit.js';
import { benchBundled } from './bundledBench.js';

const MB = 1024 * 1024;
const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 100_000);
const noAutoCheckpoint = { checkpointRecords: 1e9, checkpointBytes: 1e12, idleCheckpointMs: 3_600_000 };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** Fills the database with ~`bytes` of text rows in big transactions, then checkpoints. */
async function fill(store: SqlJsStore, bytes: number): Promise<void> {
  await store.transaction(() => store.run('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)'));
  const row = 512 * 1024;
  const perTx = 16;
  for (let written = 0; written < bytes; written += row * perTx) {
    await store.transaction(() => {
      for (let i = 0; i < perTx; i++) store.run('INSERT INTO filler (body) VALUES (?)', [`${written}-${i}:`.padEnd(row, 'z')]);
    });
  }
  await store.checkpoint();
}

let counter = 0;
/** One broker-sized write: 3 statements, awaited until durable. */
async function smallWrite(store: SqlJsStore): Promise<number> {
  const n = ++counter;
  const start = performance.now();
  await store.transaction(() => {
    store.run("INSERT INTO events (event_id, execution_id, event_type, event_data, created_at) VALUES (?, 'exec-1', 'step_completed', ?, ?)", [`ev-${n}`, `{"n":${n}}`, '2026-01-01T00:00:00Z']);
    store.run("INSERT OR REPLACE INTO rate_buckets (scope, scope_key, tokens, last_refill, steady_rps, burst_tokens) VALUES ('agent', ?, ?, ?, 5, 10)", [`a${n % 7}`, n % 10, n]);
    store.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('bench_last', ?)", [String(n)]);
  });
  return (performance.now() - start) * 1000;
}

const FINDING_SQL = `INSERT INTO findings (finding_id, project_id, scope, severity, category, title, description, tags, created_at)
  VALUES (?, NULL, 'project', ?, 'reliability', ?, ?, '["bench"]', '2026-01-01T00:00:00Z')`;

/** Writes FINDINGS findings of 25 words each, 5,000 to a transaction, the same ones on every call. */
async function writeFindings(transaction: (write: () => void) => Promise<unknown> | void, run: (sql: string, params: SqlValue[]) => unknown) {
  const { pick, words } = wordSource(7);
  const severities = ['info', 'low', 'medium', 'high', 'critical'];
  for (let done = 0; done < FINDINGS; done += 5000) {
    await transaction(() => {
      for (let i = done; i < Math.min(FINDINGS, done + 5000); i++) run(FINDING_SQL, [`f-${i}`, pick(severities), words(5), words(25)]);
    });
  }
}

/**
 * A database of FINDINGS findings of 25 words each, checkpointed: the time to open it (median of three), and the time
 * SQLite's page check of the whole file takes on it (`PRAGMA quick_check`, which also has each FTS4 index read every
 * row back and tokenize it again; what an open ran before 2026-12-07), against which the open's per-table check runs.
 * Then the first open of the same findings in a file one schema version older: what a user with that many findings
 * waits for once, the first time an upgraded Baton opens their database (the newest migration on their rows, then the
 * checkpoint that keeps it).
 */
async function openWithFindings(dir: string) {
  const path = join(dir, 'findings', 'baton.db');
  const store = await openStore({ path, ...noAutoCheckpoint });
  await writeFindings(store.transaction.bind(store), store.run.bind(store));
  await store.close();
  const opens: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    const s = await openStore({ path, ...noAutoCheckpoint });
    opens.push(performance.now() - start);
    await s.close();
  }
  const SQL = await loadSqlJs(defaultWasmPath());
  const db = new SQL.Database(readFileSync(path));
  const start = performance.now();
  const verdict = db.exec('PRAGMA quick_check(5)')[0]?.values[0]?.[0];
  const wholeCheckMs = performance.now() - start;
  db.close();

  const migrations = loadMigrations(defaultMigrationsDir());
  const newest = migrations[migrations.length - 1]!;
  const older = new SQL.Database();
  applyMigrations(older, migrations.slice(0, -1));
  await writeFindings(
    (write) => {
      older.run('BEGIN');
      write();
      older.run('COMMIT');
    },
    (sql, params) => older.run(sql, params),
  );
  const olderBytes = older.export();
  older.close();
  const upgrades: number[] = [];
  for (let i = 0; i < 3; i++) {
    const upgradePath = join(dir, `upgrade-${i}`, 'baton.db');
    mkdirSync(dirname(upgradePath));
    writeFileSync(upgradePath, olderBytes);
    const upgradeStart = performance.now();
    const s = await openStore({ path: upgradePath, ...noAutoCheckpoint });
    upgrades.push(performance.now() - upgradeStart);
    const version = schemaVersion(s.database);
    await s.close();
    if (version !== newest.version) throw new Error(`the upgrade left schema version ${version}, not ${newest.version}`);
  }
  return {
    findings: FINDINGS,
    db_bytes: statSync(path).size,
    open_ms: stats(opens).p50_ms,
    whole_file_quick_check_ms: Math.round(wholeCheckMs),
    whole_file_quick_check_says: verdict,
    upgrade_migration: newest.name,
    upgrade_open_ms: stats(upgrades).p50_ms,
  };
}

function rawFdatasyncUs(dir: string): number {
  const fd = openSync(join(dir, 'raw-fsync'), 'a');
  const buf = Buffer.alloc(200, 1);
  const times: number[] = [];
  for (let i = 0; i < 500; i++) {
    const start = performance.now();
    writeSync(fd, buf);
    fdatasyncSync(fd);
    times.push((performance.now() - start) * 1000);
  }
  closeSync(fd);
  return percentile(times.sort((a, b) => a - b), 0.5);
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'baton-bench-store-'));
  try {
    const smallDb = join(root, 'small', 'baton.db');
    const bigDb = join(root, 'big', 'baton.db');
    const small = await openStore({ path: smallDb, ...noAutoCheckpoint });
    const big = await openStore({ path: bigDb, ...noAutoCheckpoint });
    const fillStart = performance.now();
    await fill(small, 1 * MB);
    await fill(big, 100 * MB);
    const fillMs = performance.now() - fillStart;
    // Let the kernel write back the ~200 MB the fill produced, or its writeback slows every fsync.
    await new Promise((r) => setTimeout(r, 3000));

    for (let i = 0; i < 300; i++) {
      await smallWrite(small);
      await smallWrite(big);
    }
    // Alternate batches so drift in the disk's fsync latency hits both sizes alike.
    const smallTimes: number[] = [];
    const bigTimes: number[] = [];
    for (let batch = 0; batch < 20; batch++) {
      for (let i = 0; i < 100; i++) smallTimes.push(await smallWrite(small));
      for (let i = 0; i < 100; i++) bigTimes.push(await smallWrite(big));
    }
    smallTimes.sort((a, b) => a - b);
    bigTimes.sort((a, b) => a - b);

    // How long the checkpoint's synchronous parts block the event loop (the snapshot itself is written in chunks).
    let maxGap = 0;
    let running = true;
    let last = performance.now();
    const tick = () => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const checkpointStart = performance.now();
    await big.checkpoint();
    const checkpointMs = performance.now() - checkpointStart;
    running = false;

    // Leave ~1000 records in the journal and "crash" (no close, no checkpoint), then reopen.
    for (let i = 0; i < 1000; i++) await smallWrite(big);
    const journalRecords = big.stats().journalRecords;
    big.dispose();
    const dbBytes = statSync(bigDb).size;
    const openStart = performance.now();
    const reopened = await openStore({ path: bigDb, ...noAutoCheckpoint });
    const openMs = performance.now() - openStart;
    const replayed = reopened.stats().lastSeq;
    reopened.dispose();
    await small.close();
    const findings = await openWithFindings(root);

    const p50Small = percentile(smallTimes, 0.5);
    const p50Big = percentile(bigTimes, 0.5);
    const result = {
      bench: 'store',
      durability: 'fsync',
      write_statements_per_tx: 3,
      write_samples: smallTimes.length,
      write_1mb_p50_us: Math.round(p50Small),
      write_1mb_p95_us: Math.round(percentile(smallTimes, 0.95)),
      write_100mb_p50_us: Math.round(p50Big),
      write_100mb_p95_us: Math.round(percentile(bigTimes, 0.95)),
      write_cost_ratio_100mb_vs_1mb: Number((p50Big / p50Small).toFixed(2)),
      write_cost_ratio_100mb_vs_1mb_p95: Number((percentile(bigTimes, 0.95) / percentile(smallTimes, 0.95)).toFixed(2)),
      raw_fdatasync_p50_us: Math.round(rawFdatasyncUs(root)),
      db_100mb_bytes: dbBytes,
      open_replay_100mb_ms: Math.round(openMs),
      open_replay_journal_records: journalRecords,
      open_replay_last_seq: replayed,
      checkpoint_100mb_ms: Math.round(checkpointMs),
      checkpoint_100mb_event_loop_block_ms: Math.round(maxGap),
      fill_ms: Math.round(fillMs),
      open_with_findings: findings,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

benchBundled(__filename, main);
