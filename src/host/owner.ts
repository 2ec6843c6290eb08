// Becoming the owner of a database: the core, the HTTP endpoint, the discovery file, and an orderly shutdown.
import type { Log } from '../core/ports.js';
import { removeDiscovery, writeDiscovery } from './discovery.js';
import { openBaton, type OpenedBaton } from './openBaton.js';
import { startOwnerServer, type OwnerServer } from './ownerServer.js';
import { createMcpServer } from '../mcp/createMcpServer.js';
import type { ToolGroup } from '../mcp/toolGroups.js';
import type { RateLimitConfig } from '../core/broker/rateLimiter.js';

/** What `baton mcp` and `baton serve` need to become the owner. */
export interface OwnerOptions {
  dbPath: string;
  toolGroups: ToolGroup[];
  rateLimits?: RateLimitConfig;
  tokenTtlMs?: number;
  stallMinutes?: number;
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
  const { log } = options;
  const opened = await openBaton({
    dbPath: options.dbPath,
    contentDir: options.contentDir,
    workspace: options.workspace,
    workspaceFolders: options.workspaceFolders,
    workspaceContent: options.workspaceContent,
    rateLimits: options.rateLimits,
    tokenTtlMs: options.tokenTtlMs,
    stallMinutes: options.stallMinutes,
    watchContent: true,
    log,
  });
  let endpoint: OwnerServer;
  try {
    endpoint = await startOwnerServer({
      baton: opened.baton,
      createServer: () => createMcpServer(opened.baton, { toolGroups: options.toolGroups, version: options.version, log }),
      log,
      port: options.port,
    });
  } catch (ex) {
    await opened.close();
    throw ex;
  }
  // Agents of pipelines run here reach this endpoint (the runners give each run a scoped token of its own).
  opened.baton.pipelines.setMcp(() => ({ url: endpoint.url, token: endpoint.token }));
  const discoveryFile = writeDiscovery(options.dbPath, { url: endpoint.url, token: endpoint.token, pid: process.pid });
  let closing: Promise<void> | undefined;
  return {
    opened,
    endpoint,
    discoveryFile,
    close: () =>
      (closing ??= (async () => {
        removeDiscovery(options.dbPath, process.pid);
        await endpoint.close().catch((ex: unknown) => log.warn('closing the endpoint failed', ex));
        await opened.close();
      })()),
  };
}
