// Retention: finished runs older than a number of days, or past the newest N, are deleted with everything recorded
// for them, so a database used for months does not grow without bound (each call keeps a step's output, artifacts,
// events and tokens: about 1.9 KB on bug-fix). Findings stay: they are the project's knowledge, not a run's record.
// Runs an agent left unfinished (its session ended, nobody approved the gate) would stay for ever: after a number of
// days with no activity they are cancelled, as GitHub Actions cancels a run still waiting after 30 days, and from then
// on they are finished runs like any other.
import { BatonError } from './errors.js';
import type { CompactResult, Store } from './ports.js';
import { plural } from '../shared/labels.js';
import { TERMINAL_STATES } from './stateMachine.js';

/** How much history is kept; 0 turns a limit off. */
export interface RetentionPolicy {
  /** Finished runs older than this many days (by when they finished) are pruned. */
  days: number;
  /** At most this many finished runs are kept, the newest; the older ones are pruned. */
  maxRuns: number;
  /** Unfinished runs with no activity for this many days are cancelled (and so pruned later as finished runs). */
  idleDays: number;
}

/** A month of history, at most a thousand finished runs, and runs left unfinished cancelled after a month idle. */
export const DEFAULT_RETENTION: RetentionPolicy = { days: 30, maxRuns: 1000, idleDays: 30 };

/** Who cancels an idle run, as its cancellation records it (the execution's `metadata.cancelled.by`). */
export const IDLE_CANCELLED_BY = 'retention';

/** What `prune` is asked to do: the policy (the instance's unless given), whether to only count, whether to compact. */
export interface PruneRequest {
  days?: number;
  max_runs?: number;
  idle_days?: number;
  /** Count what would go; delete nothing. */
  dry_run?: boolean;
  /**
   * Give the freed space back (VACUUM) after pruning: true always, false never; left out, when at least a quarter of
   * the database (and 4 MiB) is free.
   */
  compact?: boolean;
}

/** What `prune` did (or, on a dry run, would do). */
export interface PruneResult {
  /** The finished runs pruned (or that would be). */
  pruned: number;
  /** Their execution ids, oldest first; at most PRUNED_IDS_SHOWN of them. */
  execution_ids: string[];
  /**
   * Rows deleted, by table (on a dry run: rows that would be), `step_texts` included: the stored definitions and
   * contracts no step names any more once the runs are gone, deleted after them.
   */
  rows: Record<string, number>;
  /** Finished runs left. */
  kept: number;
  /** Unfinished runs cancelled (or that would be) for having been idle `policy.idleDays` days. */
  cancelled: number;
  /** Their execution ids, longest idle first; at most PRUNED_IDS_SHOWN of them. */
  cancelled_ids: string[];
  /** The policy applied. */
  policy: RetentionPolicy;
  dry_run: boolean;
  /** Set when the database was compacted: its size before and after, in bytes. */
  compacted: CompactResult | null;
}

/** Ids listed in a result: enough for a person to recognise, few enough to print. */
export const PRUNED_IDS_SHOWN = 100;
/**
 * Runs deleted per transaction: 100 held the event loop for up to 71 ms on a 270 MB database; 25 keep each batch to a
 * few milliseconds (bench/retention.bench.ts), so calls in flight go on between batches.
 */
const PRUNE_BATCH = 25;
/** Compacting is worth it once this share of the database is free pages, and at least COMPACT_MIN_FREE_BYTES. */
const COMPACT_FREE_RATIO = 0.25;
const COMPACT_MIN_FREE_BYTES = 4 * 1024 * 1024;
const DAY_MS = 86_400_000;
/** A finished execution (completed or failed; cancelled ones are failed), with TERMINAL_STATES as its parameters. */
const TERMINAL = `status IN (${marks(TERMINAL_STATES.length)})`;

/** Tables with an `execution_id` column whose rows belong to one run, deleted with it (executions itself last). */
const RUN_TABLES = [
  'steps', 'artifacts', 'events', 'step_tokens', 'execution_logs', 'spec_sources', 'team_messages', 'team_agents', 'team_runs', 'agent_processes',
  'request_keys',
] as const;

/**
 * The stored step texts no step names but those `gone` selects (a full read of `steps`: once per prune, after its
 * batches): with `gone` false, what the prune deletes once its runs are deleted; a dry run passes the doomed runs.
 */
const orphanTexts = (verb: 'DELETE' | 'SELECT COUNT(*) AS n', gone = 'FALSE') => `${verb} FROM step_texts WHERE hash NOT IN (
  SELECT definition_ref FROM steps WHERE definition_ref IS NOT NULL AND NOT (${gone})
  UNION SELECT contract_ref FROM steps WHERE contract_ref IS NOT NULL AND NOT (${gone}))`;

/** `12.3 MiB`: how a compaction's sizes are shown (log, terminal, editor). */
export function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

/** `older than 30 days or past the newest 1000`: which finished runs are pruned. */
export function describePolicy(p: RetentionPolicy): string {
  const parts = [p.days ? `older than ${plural(p.days, 'day')}` : '', p.maxRuns ? `past the newest ${p.maxRuns}` : ''].filter(Boolean);
  return parts.length ? parts.join(' or ') : 'nothing: retention is off';
}

/** `idle for more than 30 days`: which unfinished runs are cancelled (the policy has idleDays > 0). */
export function describeIdle(p: RetentionPolicy): string {
  return `idle for more than ${plural(p.idleDays, 'day')}`;
}

/** Whether the policy prunes no finished run (both limits 0). */
export function pruningOff(p: RetentionPolicy): boolean {
  return p.days === 0 && p.maxRuns === 0;
}

/** Whether the policy does nothing at all: no finished run is pruned and no idle run cancelled. */
export function retentionOff(p: RetentionPolicy): boolean {
  return pruningOff(p) && p.idleDays === 0;
}

/** Checks a policy given by a person or a setting; the error names the fix. */
export function checkPolicy(p: RetentionPolicy): RetentionPolicy {
  for (const [key, flag] of [['days', 'days'], ['maxRuns', 'max_runs'], ['idleDays', 'idle_days']] as const) {
    const v = p[key];
    if (!Number.isInteger(v) || v < 0) {
      throw new BatonError('invalid_input', `retention ${flag} must be a whole number ≥ 0 (0 keeps everything by that measure); got ${JSON.stringify(v)}`);
    }
  }
  return p;
}

/** What pruning needs from the core. */
export interface RetentionDeps {
  store: Store;
  now: () => number;
  /** Forgets what is cached about runs that are gone. */
  forget: (executionIds: string[]) => void;
  /** Forgets which step texts are known to be stored; called in the transaction that deletes the orphaned ones. */
  forgetTexts: () => void;
  /**
   * Cancels, in one transaction, those of `executionIds` still unfinished and with no activity since `idleSince` (an
   * ISO time): an agent may have come back since they were picked. Resolves to the ids it cancelled.
   */
  cancelIdle: (executionIds: string[], idleSince: string, reason: string) => Promise<string[]>;
  /** Whether this process serves the run (a team's): never taken for idle. */
  served: (executionId: string) => boolean;
}

/** Finds and deletes the finished runs past the policy. */
export class Retention {
  /** Set when the core closes: a prune under way stops after its current batch. */
  private stopped = false;

  constructor(private readonly deps: RetentionDeps) {}

  /** Stops a prune under way after its current batch (what is pruned stays pruned); no prune starts after. */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Cancels the runs idle past the policy, then prunes by it (checked by the caller; a dry run only counts); compacts as
   * `req.compact` says. `ids`: every run pruned.
   */
  async prune(policy: RetentionPolicy, req: Pick<PruneRequest, 'dry_run' | 'compact'> = {}): Promise<{ result: PruneResult; ids: string[] }> {
    const { store } = this.deps;
    const cancelled = await this.cancelIdle(policy, req.dry_run === true);
    // The runs it cancels are then its newest finished runs: a dry run, to which they are not finished yet, keeps their
    // places among the newest max runs, so that it counts what the prune deletes. One condition serves both counts.
    const condition = pruningOff(policy) ? null : doomedWhere(policy, this.deps.now(), req.dry_run ? cancelled.length : 0);
    // They are pruned later, as finished runs, not by the prune that cancels them, even when they outnumber max runs.
    const justCancelled = new Set(req.dry_run ? [] : cancelled);
    const doomed = this.doomed(condition).filter((r) => !justCancelled.has(r.execution_id));
    const rows: Record<string, number> = {};
    const add = (table: string, n: number) => {
      if (n > 0) rows[table] = (rows[table] ?? 0) + n;
    };
    const doomedIds = new Set(doomed.map((r) => r.execution_id));
    const countedTasks = new Set<string>();
    let done = doomed.length;
    if (req.dry_run) {
      for (let i = 0; i < doomed.length; i += PRUNE_BATCH) this.count(doomed.slice(i, i + PRUNE_BATCH), doomedIds, countedTasks, add);
      // The texts the prune deletes after its runs: those no step of a kept run names.
      if (condition && done > 0) {
        const gone = `execution_id IN (SELECT execution_id FROM executions WHERE ${condition.where})`;
        add('step_texts', store.get<{ n: number }>(orphanTexts('SELECT COUNT(*) AS n', gone), [...condition.params, ...condition.params])!.n);
      }
    } else {
      done = await this.inBatches(doomed, async (batch) => {
        await store.transaction(() => this.delete(batch, add));
        this.deps.forget(batch.map((r) => r.execution_id));
      });
    }
    if (!req.dry_run && done > 0) {
      // Definitions and contracts (schema v8) that no step names any more: a spec run's phases are its own.
      // The cache is dropped in the same transaction: no call may take a text for stored between the two.
      await store.transaction(() => {
        add('step_texts', store.run(orphanTexts('DELETE')));
        this.deps.forgetTexts();
      });
    }
    const kept = store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM executions WHERE ${TERMINAL}`, TERMINAL_STATES)!.n;
    const gone = doomed.slice(0, done);
    const result: PruneResult = {
      pruned: gone.length, execution_ids: gone.slice(0, PRUNED_IDS_SHOWN).map((r) => r.execution_id), rows,
      kept: req.dry_run ? kept - gone.length + cancelled.length : kept, cancelled: cancelled.length, cancelled_ids: cancelled.slice(0, PRUNED_IDS_SHOWN),
      policy, dry_run: req.dry_run === true, compacted: null,
    };
    if (!req.dry_run && !this.stopped && store.compact && (req.compact ?? this.worthCompacting())) result.compacted = await store.compact();
    return { result, ids: gone.map((r) => r.execution_id) };
  }

  /**
   * Cancels the unfinished runs with no activity (`updated_at`) for `policy.idleDays` days, longest idle first, in
   * batches (a dry run only picks them). Returns their ids.
   */
  private async cancelIdle(policy: RetentionPolicy, dryRun: boolean): Promise<string[]> {
    if (policy.idleDays === 0) return [];
    const since = new Date(this.deps.now() - policy.idleDays * DAY_MS).toISOString();
    const idle = this.deps.store.all<{ execution_id: string }>(
      `SELECT execution_id FROM executions WHERE NOT ${TERMINAL} AND updated_at < ? ORDER BY updated_at, rowid`,
      [...TERMINAL_STATES, since],
    ).map((r) => r.execution_id).filter((id) => !this.deps.served(id));
    if (dryRun) return idle;
    const reason = `no activity for more than ${plural(policy.idleDays, 'day')}`;
    const cancelled: string[] = [];
    await this.inBatches(idle, async (batch) => void cancelled.push(...await this.deps.cancelIdle(batch, since, reason)));
    return cancelled;
  }

  /**
   * Hands `items` to `work` PRUNE_BATCH at a time until all are done or the core closes. Calls get at least half of
   * the time: after each batch, as long a pause as it took (from its start until durable). Returns how many were done.
   */
  private async inBatches<T>(items: T[], work: (batch: T[]) => Promise<void>): Promise<number> {
    let done = 0;
    while (done < items.length && !this.stopped) {
      const batch = items.slice(done, done + PRUNE_BATCH);
      const start = this.deps.now();
      await work(batch);
      done += batch.length;
      const took = this.deps.now() - start;
      if (took > 0 && done < items.length) await new Promise((resolve) => setTimeout(resolve, took));
    }
    return done;
  }

  /** The finished runs `condition` (doomedWhere's) selects, oldest first; none without one (pruning is off). */
  private doomed(condition: { where: string; params: Array<string | number> } | null): Run[] {
    if (!condition) return [];
    return this.deps.store.all<Run>(`SELECT execution_id, task_id FROM executions WHERE ${condition.where} ORDER BY ${FINISHED}, rowid`, condition.params);
  }

  /** Deletes one batch of runs and what belongs to them (inside a transaction). */
  private delete(batch: Run[], add: (table: string, n: number) => void): void {
    const { store } = this.deps;
    for (const { table, where, params } of runRows(batch)) add(table, store.run(`DELETE FROM ${table} WHERE ${where}`, params));
    const ids = batch.map((r) => r.execution_id);
    add('executions', store.run(`DELETE FROM executions WHERE execution_id IN (${marks(ids.length)})`, ids));
    const tasks = tasksOf(batch);
    if (tasks.length) {
      const taskList = marks(tasks.length);
      // A task another (kept) execution still names stays.
      add('agent_tasks', store.run(
        `DELETE FROM agent_tasks WHERE task_id IN (${taskList}) AND task_id NOT IN (SELECT task_id FROM executions WHERE task_id IN (${taskList}))`,
        [...tasks, ...tasks],
      ));
      store.run(`UPDATE projects SET active_task_id = NULL WHERE active_task_id IN (${taskList})`, tasks);
    }
  }

  /** Counts what `delete` would remove for one batch (a dry run); `doomed` is every run the dry run would prune. */
  private count(batch: Run[], doomed: ReadonlySet<string>, countedTasks: Set<string>, add: (table: string, n: number) => void): void {
    const { store } = this.deps;
    const n = (sql: string, params: string[]) => store.get<{ n: number }>(sql, params)!.n;
    for (const { table, where, params } of runRows(batch)) add(table, n(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params));
    add('executions', batch.length);
    const tasks = tasksOf(batch);
    if (!tasks.length) return;
    // A task goes with the last run naming it: count it once, and only if no run that stays names it.
    const stays = new Set(
      store.all<{ execution_id: string; task_id: string }>(`SELECT execution_id, task_id FROM executions WHERE task_id IN (${marks(tasks.length)})`, tasks)
        .filter((r) => !doomed.has(r.execution_id)).map((r) => r.task_id),
    );
    const going = tasks.filter((t) => !stays.has(t) && !countedTasks.has(t));
    for (const t of going) countedTasks.add(t);
    if (going.length) add('agent_tasks', n(`SELECT COUNT(*) AS n FROM agent_tasks WHERE task_id IN (${marks(going.length)})`, going));
  }

  /** Whether enough of the database is free pages to be worth a VACUUM. */
  private worthCompacting(): boolean {
    const r = this.deps.store.get<{ free: number; total: number; size: number }>(
      'SELECT f.freelist_count AS free, c.page_count AS total, s.page_size AS size FROM pragma_freelist_count() f, pragma_page_count() c, pragma_page_size() s',
    );
    if (!r || r.total === 0) return false;
    return r.free / r.total >= COMPACT_FREE_RATIO && r.free * r.size >= COMPACT_MIN_FREE_BYTES;
  }
}

/** When a run finished. */
const FINISHED = 'COALESCE(completed_at, updated_at)';

/**
 * The condition on `executions` that selects the finished runs past the policy (which prunes some: see pruningOff).
 * `reserved`: runs not finished yet that will be the newest finished ones (those a dry run would cancel), whose places
 * among the newest `maxRuns` are kept for them.
 */
function doomedWhere(policy: RetentionPolicy, now: number, reserved = 0): { where: string; params: Array<string | number> } {
  const where: string[] = [];
  const params: Array<string | number> = [...TERMINAL_STATES];
  if (policy.days > 0) {
    where.push(`${FINISHED} < ?`);
    params.push(new Date(now - policy.days * DAY_MS).toISOString());
  }
  if (policy.maxRuns > 0) {
    // Ties on the time are broken by rowid, so the same runs are kept however often this runs.
    where.push(`rowid NOT IN (SELECT rowid FROM executions WHERE ${TERMINAL} ORDER BY ${FINISHED} DESC, rowid DESC LIMIT ?)`);
    params.push(...TERMINAL_STATES, Math.max(policy.maxRuns - reserved, 0));
  }
  return { where: `${TERMINAL} AND (${where.join(' OR ')})`, params };
}

/** A finished run, as pruning selects it. */
interface Run {
  execution_id: string;
  task_id: string | null;
}

/** The rows a batch of runs owns outside `executions` and `agent_tasks`, table by table: what is deleted, or counted. */
function runRows(batch: Run[]): Array<{ table: string; where: string; params: string[] }> {
  const ids = batch.map((r) => r.execution_id);
  const list = marks(ids.length);
  // A run's rate bucket is keyed by its task id, or its execution id when it has none.
  const keys = [...ids, ...tasksOf(batch)];
  return [
    ...RUN_TABLES.map((table) => ({ table, where: `execution_id IN (${list})`, params: ids })),
    // A run's shared memory is scoped to it; global entries (scope '') are the project's and stay.
    { table: 'memory_entries', where: `scope_key IN (${list})`, params: ids },
    { table: 'rate_buckets', where: `scope = 'task' AND scope_key IN (${marks(keys.length)})`, params: keys },
  ];
}

/** The distinct task ids of `runs`. */
function tasksOf(runs: Run[]): string[] {
  return [...new Set(runs.flatMap((r) => (r.task_id ? [r.task_id] : [])))];
}

/** `?, ?, …` for `n` parameters. */
function marks(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}
