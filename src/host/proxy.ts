// `baton mcp` when another process owns the database: raw JSON-RPC piped between stdio and the owner's HTTP endpoint.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BatonError } from '../core/errors.js';
import type { Log } from '../core/ports.js';
import type { DiscoveryInfo } from './discovery.js';

/** Options of `runProxy`. */
export interface ProxyOptions {
  owner: DiscoveryInfo;
  log: Log;
  /** The agent-facing side; stdio unless a test passes another transport. */
  downstream?: Transport;
}

/** Whether the owner's endpoint answers /healthz as the process the discovery file names. */
export async function ownerAnswers(owner: DiscoveryInfo, timeoutMs = 2000): Promise<boolean> {
  try {
    const res = await fetch(new URL('/healthz', owner.url), { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json()) as { ok?: boolean; pid?: number };
    return res.ok && body.ok === true && body.pid === owner.pid;
  } catch {
    return false;
  }
}

/** Forwards messages both ways until either side closes; resolves then. */
export async function runProxy(options: ProxyOptions): Promise<void> {
  const { owner, log } = options;
  if (!(await ownerAnswers(owner))) {
    throw new BatonError('owner_unreachable', `Baton process ${owner.pid} owns the database but its endpoint ${owner.url} does not answer`, {
      ownerPid: owner.pid,
    });
  }
  const down = options.downstream ?? new StdioServerTransport();
  const up = new StreamableHTTPClientTransport(new URL(owner.url), {
    requestInit: { headers: { authorization: `Bearer ${owner.token}` } },
  });
  const initializeIds = new Set<string | number>();
  let closing = false;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    log.info(`proxy closing: ${why}`);
    await up.terminateSession().catch(() => undefined);
    await Promise.allSettled([up.close(), down.close()]);
    finished();
  };

  down.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initializeIds.add(message.id);
    up.send(message).catch((ex: unknown) => {
      log.warn(`forwarding to the owner failed: ${(ex as Error).message}`);
      if (isJSONRPCRequest(message)) {
        void down.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32603, message: `Baton owner (pid ${owner.pid}) did not answer: ${(ex as Error).message}` },
        });
      }
    });
  };
  up.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCResultResponse(message) && initializeIds.delete(message.id)) {
      // The SDK's Client does this after initialize; a raw pipe must too, or later requests lack the protocol header.
      const version = (message.result as { protocolVersion?: string }).protocolVersion;
      if (version) up.setProtocolVersion(version);
    }
    down.send(message).catch((ex: unknown) => log.warn(`writing to the client failed: ${(ex as Error).message}`));
  };
  up.onerror = (ex) => log.debug(`owner connection: ${ex.message}`);
  down.onerror = (ex) => log.warn(`client connection: ${ex.message}`);
  down.onclose = () => void shutdown('client closed');
  up.onclose = () => void shutdown('owner closed');
  await up.start();
  await down.start();
  if (!options.downstream) process.stdin.once('end', () => void shutdown('stdin ended'));
  await done;
}
