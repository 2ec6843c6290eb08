// Becoming the owner of a database: the core, the HTTP endpoint, the discovery file, and an orderly shutdown.
import type { Log } from '../core/ports.js';
import { removeDiscovery, writeDiscovery } from '../host/discovery.js';
import { openBaton, type OpenedBaton } from '../host/openBaton.js';
import { startOwnerServer, type OwnerServer } from '../host/ownerServer.js';
import { createMcpServer } from '../mcp/createMcpServer.js';
import { VERSION } from './common.js';
import type { EngineSettings } from './engineOptions.js';

/** What `baton mcp` and `baton serve` need to become the owner. */
export interface OwnerOptions extends EngineSettings {
  dbPath: string;
  contentDir?: string;
  workspace?: string;
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
      createServer: () => createMcpServer(opened.baton, { toolGroups: options.toolGroups, version: VERSION, log }),
      log,
      port: options.port,
    });
  } catch (ex) {
    await opened.close();
    throw ex;
  }
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

/** Runs `stop` once on SIGINT, SIGTERM or stdin end (if asked), then exits. */
export function onShutdown(stop: (why: string) => Promise<void>, log: Log, watchStdin: boolean): void {
  let stopping = false;
  const handler = (why: string) => {
    if (stopping) return;
    stopping = true;
    stop(why)
      .then(() => process.exit(0))
      .catch((ex: unknown) => {
        log.error('shutdown failed', ex);
        process.exit(1);
      });
  };
  process.once('SIGINT', () => handler('SIGINT'));
  process.once('SIGTERM', () => handler('SIGTERM'));
  if (watchStdin) {
    process.stdin.once('end', () => handler('stdin ended'));
    process.stdin.once('close', () => handler('stdin closed'));
  }
}
