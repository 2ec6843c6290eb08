// Becoming the owner of a database: the core, the HTTP endpoint, the discovery file, and an orderly shutdown.
import type { Log } from '../core/ports.js';
import { discoveryPath, removeDiscovery, writeDiscovery } from './discovery.js';
import { openBaton, type OpenedBaton } from './openBaton.js';
import type { OwnerServer } from './ownerServer.js';
import { CATALOG_FILE, readCatalog } from '../mcp/catalog.js';
import { assertToolGroups, type ToolGroup } from '../mcp/toolGroups.js';
import type { RateLimitConfig } from '../core/broker/rateLimiter.js';
import type { RetentionPolicy } from '../core/retention.js';
import type { HeldLock } from '../store/lock.js';
import type { SnapshotRead } from '../store/snapshotRead.js';
import { dirname, join } from 'node:path';
import { attachTeams } from './worker/teams.js';

/** What `baton mcp` and `baton serve` need to become the owner. */
export interface OwnerOptions {
  dbPath: string;
  toolGroups: ToolGroup[];
  rateLimits?: RateLimitConfig;
  tokenTtlMs?: number;
  stallMinutes?: number;
  /** Finished runs kept (the rest of the policy is the default). */
  retention?: Partial<RetentionPolicy>;
  /** Baton's version, announced to MCP clients. */
  version: string;
  contentDir?: string;
  workspace?: string;
  /** Every folder of a multi-root workspace. */
  workspaceFolders?: string[];
  /** False: skip the workspace's `.baton/` content (untrusted workspace). */
  workspaceContent?: boolean;
  port?: number;
  log: Log;
  /** The database's lock, when the caller took it already (`baton mcp` does, before loading the engine). */
  lock?: HeldLock;
  /** sql.js's wasm, compiling since before the engine loaded. */
  wasm?: Promise<WebAssembly.Module>;
  /** The database file, being read since the caller took `lock` (`baton mcp` reads it while the engine loads). */
  snapshot?: SnapshotRead;
}

/** A running owner. */
export interface Owner {
  opened: OpenedBaton;
  endpoint: OwnerServer;
  discoveryFile: string;
  /** Closes the endpoint, removes the discovery file, checkpoints and releases the database. Idempotent. */
  close(): Promise<void>;
}

/** Opens the database (throws BatonError store_locked if another process owns it) and publishes the endpoint. */
export async function becomeOwner(options: OwnerOptions): Promise<Owner> {
  const opened = await openAsOwner(options);
  try {
    return await publishOwner(opened, options);
  } catch (ex) {
    await opened.close();
    throw ex;
  }
}

/** The first half of `becomeOwner`: the database and the core, watching content, not yet reachable by others. */
export function openAsOwner(options: OwnerOptions): Promise<OpenedBaton> {
  return openBaton({
    dbPath: options.dbPath,
    contentDir: options.contentDir,
    workspace: options.workspace,
    workspaceFolders: options.workspaceFolders,
    workspaceContent: options.workspaceContent,
    rateLimits: options.rateLimits,
    tokenTtlMs: options.tokenTtlMs,
    stallMinutes: options.stallMinutes,
    retention: options.retention,
    watchContent: true,
    log: options.log,
    lock: options.lock,
    wasm: options.wasm,
    snapshot: options.snapshot,
  });
}

/**
 * The second half of `becomeOwner`: serves the opened core over HTTP and publishes the discovery file (`opened` stays
 * open if that fails). The HTTP stack and the MCP server are loaded only now: `baton mcp` answers its first calls on
 * stdio meanwhile, and a command that ends before it owns the database (a usage error) never builds their schemas.
 */
export async function publishOwner(opened: OpenedBaton, options: OwnerOptions): Promise<Owner> {
  const { log } = options;
  const [{ startOwnerServer }, { createMcpServer }] = await Promise.all([import('./ownerServer.js'), import('../mcp/createMcpServer.js')]);
  const endpoint: OwnerServer = await startOwnerServer({
    baton: opened.baton,
    createServer: (scope, holderPid) => createMcpServer(opened.baton, {
      toolGroups: scope?.toolGroups ? assertToolGroups(scope.toolGroups) : options.toolGroups, version: options.version, log, scope, holderPid,
    }),
    log,
    port: options.port,
    discoveryPath: discoveryPath(options.dbPath),
    database: options.dbPath,
  });
  // Agent teams (`baton run|start`, or started through /control) run in the owner, their agents on this endpoint.
  const teams = attachTeams(opened.baton, { baton: opened.baton, endpoint, dataDir: dirname(options.dbPath), log });
  // With this build's catalog and the groups served, a forwarding `baton mcp` of the same build answers the handshake.
  const catalog = readCatalog(join(__dirname, CATALOG_FILE))?.id;
  const discovery = { url: endpoint.url, token: endpoint.token, pid: process.pid, ...(catalog ? { catalog, toolGroups: [...options.toolGroups] } : {}) };
  let discoveryFile: string;
  try {
    discoveryFile = writeDiscovery(options.dbPath, discovery);
  } catch (ex) {
    await endpoint.close().catch(() => undefined);
    throw ex;
  }
  // Its folder deleted and written again by the store: the discovery file went with it, so clients could not find us.
  opened.store.onRecreated(() => {
    try {
      writeDiscovery(options.dbPath, discovery);
    } catch (ex) {
      log.error('could not write the discovery file again', ex);
    }
  });
  // Each agent step of a pipeline run here reaches this endpoint with a token of its own, scoped to its run and agent
  // (memory tools, calls logged under the agent), revoked when the step ends (see PipelineRuns.setMcp).
  const agentGroups: ToolGroup[] = options.toolGroups.includes('memory') ? [...options.toolGroups] : [...options.toolGroups, 'memory'];
  opened.baton.pipelines.setMcp((runId, agent) => {
    const grant = endpoint.issueRunToken({ runId, agent, toolGroups: agentGroups });
    return { endpoint: { url: endpoint.url, token: grant.token }, revoke: grant.revoke };
  });
  let closing: Promise<void> | undefined;
  return {
    opened,
    endpoint,
    discoveryFile,
    close: () =>
      (closing ??= (async () => {
        // First, synchronously: a command that waited for this owner to be idle (othersDone) hands it no new work.
        endpoint.stopTaking();
        removeDiscovery(options.dbPath, process.pid);
        await teams.closeAll().catch((ex: unknown) => log.warn('stopping the agent teams failed', ex));
        await endpoint.close().catch((ex: unknown) => log.warn('closing the endpoint failed', ex));
        await opened.close();
      })()),
  };
}
