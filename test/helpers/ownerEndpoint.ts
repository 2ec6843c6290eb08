// A real owner endpoint (startOwnerServer) over an in-memory Baton in a scratch workspace, as the HTTP tests open it
// in `before` and close it in `after`, with the headers a raw client sends it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLog } from '../../src/core/ports.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer, type OwnerServer, type OwnerServerOptions } from '../../src/host/ownerServer.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';

export interface OwnerEndpoint {
  workspace: string;
  opened: OpenedBaton;
  owner: OwnerServer;
  /** Host, the bearer token, and the Content-Type and Accept of a Streamable HTTP POST. */
  headers: Record<string, string>;
}

/**
 * Opens Baton in a new workspace named from `prefix`, and its owner endpoint. `createServer` makes each session's MCP
 * server (default: Baton's own with the broker tools); `approvalWaitMs`, `maxBodyBytes` and `sseKeepAliveMs` go to
 * Baton and the endpoint.
 */
export async function openOwnerEndpoint(
  prefix: string,
  options: {
    createServer?: (opened: OpenedBaton) => OwnerServerOptions['createServer'];
    approvalWaitMs?: number;
    maxBodyBytes?: number;
    sseKeepAliveMs?: number;
  } = {},
): Promise<OwnerEndpoint> {
  const workspace = mkdtempSync(join(tmpdir(), prefix));
  const opened = await openBaton({ dbPath: null, workspace, rateLimits: false, log: silentLog, approvalWaitMs: options.approvalWaitMs });
  const owner = await startOwnerServer({
    baton: opened.baton,
    createServer: options.createServer?.(opened) ?? (() => createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog })),
    log: silentLog,
    maxBodyBytes: options.maxBodyBytes,
    sseKeepAliveMs: options.sseKeepAliveMs,
  });
  const headers = {
    host: `127.0.0.1:${owner.port}`,
    authorization: `Bearer ${owner.token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  return { workspace, opened, owner, headers };
}

/** Closes what openOwnerEndpoint opened, and removes its workspace. */
export async function closeOwnerEndpoint({ workspace, opened, owner }: Omit<OwnerEndpoint, 'headers'>): Promise<void> {
  await owner.close();
  await opened.close();
  rmSync(workspace, { recursive: true, force: true });
}
