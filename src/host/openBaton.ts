// Composes the core on the durable store with node ports: what `baton mcp`, `baton serve` and the editor open.
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { join, resolve } from 'node:path';
import { Baton, DEFAULT_OPTIONS, type BatonOptions } from '../core/baton.js';
import { DEFAULT_RATE_LIMITS, type RateLimitConfig } from '../core/broker/rateLimiter.js';
import type { Clock, Log } from '../core/ports.js';
import type { RetentionPolicy } from '../core/retention.js';
import { isLiveBaton, type HeldLock } from '../store/lock.js';
import type { SnapshotRead } from '../store/snapshotRead.js';
import { readContentCache } from './contentCache.js';
import { openStore, type SqlJsStore, type StoreAccess } from '../store/sqlJsStore.js';
import { runnerFor } from './pipelines/runnerRegistry.js';
import { processControl } from './runners/processControl.js';
import { nodeCrypto, nodeFileSystem, randomIds, stderrLog, systemClock } from './nodePorts.js';
import { fileSpecSource } from './specSourceFile.js';

/** How to open Baton. */
export interface OpenBatonOptions {
  /** Database file; null for an in-memory database (tests). */
  dbPath: string | null;
  /** Bundled content folder; defaults to the `content/` shipped beside the bundle. */
  contentDir?: string;
  /** Workspace folder (the project); its `.baton/` content overrides the bundled content. Defaults to cwd. */
  workspace?: string;
  /** Whether the workspace's `.baton/` content is loaded (false in an untrusted editor workspace); true unless set. */
  workspaceContent?: boolean;
  /** Every folder of a multi-root workspace (each becomes a project); `workspace` is the one whose content is used. */
  workspaceFolders?: string[];
  /** How often the timeout sweep runs (ms); 0 turns it off. */
  timeoutSweepMs?: number;
  /** On/off, or the spec's buckets with other rates. */
  rateLimits?: boolean | RateLimitConfig;
  tokenTtlMs?: number;
  stallMinutes?: number;
  /** Finished runs kept (the rest of the policy is the default): `tick` prunes the others. */
  retention?: Partial<RetentionPolicy>;
  approvalWaitMs?: number;
  inlineBudgetBytes?: number;
  /** 'read': read the database without writing anything (no content sync, timers or watchers); see openStore. */
  access?: StoreAccess;
  /** Journal flush mode; 'fsync' unless a benchmark asks otherwise. */
  durability?: 'fsync' | 'write';
  /** Re-sync content when files under the content folders change (sends list_changed to clients). */
  watchContent?: boolean;
  log?: Log;
  clock?: Clock;
  /** The database's lock, when the caller took it already. */
  lock?: HeldLock;
  /** sql.js's wasm, compiling since before the engine loaded. */
  wasm?: Promise<WebAssembly.Module>;
  /** The database file, being read since the caller took `lock` (see openStore). */
  snapshot?: SnapshotRead;
}

/** An open Baton and what to close. */
export interface OpenedBaton {
  baton: Baton;
  store: SqlJsStore;
  /** Stops timers, wakes waiters, checkpoints and releases the database. */
  close(): Promise<void>;
}

/** The content folder shipped with Baton (beside `dist/`, or at the repository root when run from source). */
export function bundledContentDir(): string {
  const candidates = [join(__dirname, '..', 'content'), join(__dirname, '..', '..', 'content')];
  return candidates.find((c) => existsSync(join(c, 'workflows'))) ?? candidates[0]!;
}

/** Opens the store (taking ownership of the database, unless `access` is 'read') and the core on it. */
export async function openBaton(options: OpenBatonOptions): Promise<OpenedBaton> {
  const log = options.log ?? stderrLog();
  const workspace = resolve(options.workspace ?? process.cwd());
  const readOnly = options.access === 'read';
  const store = await openStore({ path: options.dbPath, log, durability: options.durability, access: options.access, lock: options.lock, wasmModule: options.wasm, snapshot: options.snapshot });
  let baton: Baton;
  try {
    const overrides: Partial<BatonOptions> = {};
    if (options.tokenTtlMs !== undefined) overrides.tokenTtlMs = options.tokenTtlMs;
    if (options.stallMinutes !== undefined) overrides.stallMinutes = options.stallMinutes;
    if (options.approvalWaitMs !== undefined) overrides.approvalWaitMs = options.approvalWaitMs;
    if (options.inlineBudgetBytes !== undefined) overrides.inlineBudgetBytes = options.inlineBudgetBytes;
    if (options.timeoutSweepMs !== undefined) overrides.timeoutSweepMs = options.timeoutSweepMs;
    if (options.retention) overrides.retention = { ...DEFAULT_OPTIONS.retention, ...options.retention };
    if (options.workspaceFolders?.length) overrides.workspaceFolders = options.workspaceFolders.map((f) => resolve(f));
    if (readOnly) overrides.readOnly = true;
    baton = await Baton.create(
      { store, clock: options.clock ?? systemClock, ids: randomIds, crypto: nodeCrypto, log, fs: nodeFileSystem, specSource: fileSpecSource },
      {
        ...overrides,
        workspacePath: workspace,
        approveCommand: approveCommandFor(options.dbPath, workspace),
        // A pid reused by another program (Linux's /proc tells) is not the process a token was handed out on.
        processAlive: isLiveBaton,
        contentDirs: [options.contentDir ?? bundledContentDir(), ...(options.workspaceContent === false ? [] : [join(workspace, '.baton')])],
        // Keyed by each file's name and text: it serves the bundled files as they are, whatever folder they are in.
        contentCache: readContentCache(),
        rateLimits: typeof options.rateLimits === 'object'
          ? options.rateLimits
          : { ...DEFAULT_RATE_LIMITS, enabled: options.rateLimits ?? DEFAULT_OPTIONS.rateLimits.enabled },
      },
    );
  } catch (ex) {
    await store.close();
    throw ex;
  }
  // Pipelines run their agents through the runner registry (its one seam).
  baton.pipelines.setRunners(runnerFor);
  // Agents are recorded as they start, to be stopped when a run whose process died is taken up again.
  baton.agentProcesses.setControl(processControl);
  const timer = readOnly ? undefined : setInterval(() => {
    baton.tick().catch((ex: unknown) => log.error('periodic check failed', ex));
  }, 60_000);
  timer?.unref();
  const watchers = options.watchContent && !readOnly ? watchContent(baton, baton.options.contentDirs, log) : [];
  let closed: Promise<void> | undefined;
  return {
    baton,
    store,
    close: () => (closed ??= (async () => {
      clearInterval(timer);
      for (const w of watchers) w.close();
      try {
        await baton.close();
      } finally {
        // Even when the core's last writes fail (a database another process took refuses them): the store lets go.
        await store.close();
      }
    })()),
  };
}

const CONTENT_FOLDERS = ['agents', 'rules', 'workflows'];

/**
 * Watches the content folders and re-syncs (debounced) when a content file changes. Only the content
 * subfolders are watched recursively: the workspace's `.baton/` also holds the database and its journal,
 * written on every call. Where a subfolder does not exist yet, `.baton/` itself is watched (shallowly)
 * so that creating it is noticed.
 */
function watchContent(baton: Baton, dirs: string[], log: Log): FSWatcher[] {
  let pending: ReturnType<typeof setTimeout> | undefined;
  const resync = () => {
    clearTimeout(pending);
    pending = setTimeout(() => {
      baton.syncContent().then(
        (r) => r.changed.length && log.info(`content changed: ${r.changed.join(', ')}`),
        (ex: unknown) => log.error('content sync failed', ex),
      );
    }, 200);
    pending.unref();
  };
  const watchers: FSWatcher[] = [];
  const add = (path: string, recursive: boolean, onChange: (file: string) => void): boolean => {
    try {
      const w = watch(path, { recursive }, (_event, file) => onChange(String(file ?? '')));
      // Said once, in a line: a link loop in the folder makes the watcher report an error on every change, while it
      // goes on seeing the other files.
      let warned = false;
      w.on('error', (ex) => {
        if (warned) return;
        warned = true;
        log.warn(`watching ${path}: ${ex.message}; a change Baton misses there is picked up at the next restart`);
      });
      w.unref();
      watchers.push(w);
      return true;
    } catch (ex) {
      log.warn(`cannot watch ${path}; content changes need a restart`, ex);
      return false;
    }
  };
  for (const dir of dirs) {
    const watched = new Set<string>();
    const watchFolder = (name: string) => {
      if (watched.has(name) || !existsSync(join(dir, name))) return;
      if (add(join(dir, name), true, resync)) watched.add(name);
    };
    CONTENT_FOLDERS.forEach(watchFolder);
    if (watched.size < CONTENT_FOLDERS.length && existsSync(dir)) {
      add(dir, false, (file) => {
        if (!CONTENT_FOLDERS.includes(file) || watched.has(file)) return;
        watchFolder(file);
        resync();
      });
    }
  }
  return watchers;
}

/**
 * The command a person runs to approve a gate: `baton approve`, which finds `.baton/baton.db` of the folder it runs
 * in, so `--db` is added whenever this database is not that of the workspace; none for an in-memory database.
 */
export function approveCommandFor(dbPath: string | null, workspace: string): string | null {
  if (dbPath === null) return null;
  const db = resolve(dbPath);
  if (db === join(workspace, '.baton', 'baton.db')) return 'baton approve';
  return `baton approve --db ${/^[\w@%+=:,./-]+$/.test(db) ? db : `'${db.replace(/'/g, "'\\''")}'`}`;
}
