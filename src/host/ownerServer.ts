// The owner's endpoint on 127.0.0.1: Streamable HTTP MCP at /mcp, /control for the CLI and editor clients, /events
// (Server-Sent Events), /healthz. Bearer token + Host/Origin checks.
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { BatonApi } from '../core/api.js';
import { BatonError } from '../core/errors.js';
import type { Log } from '../core/ports.js';
import { handleControl } from './controlOps.js';
import { McpHttpTransport } from './mcpHttpTransport.js';

export { handleControl, type ControlRequest } from './controlOps.js';

/** Options of `startOwnerServer`. */
export interface OwnerServerOptions {
  baton: BatonApi;
  /** A fresh McpServer per session. */
  createServer: () => McpServer;
  log: Log;
  host?: string;
  port?: number;
  /** Largest request body; 4 MB unless set. */
  maxBodyBytes?: number;
  /** A session with no open stream and no request for this long is closed (its client vanished without DELETE). */
  idleSessionMs?: number;
  /** How often /events sends a comment line so a dead peer is noticed; 15 s unless set. */
  heartbeatMs?: number;
}

/** A running owner endpoint. */
export interface OwnerServer {
  url: string;
  token: string;
  port: number;
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;
const IDLE_SESSION_MS = 30 * 60_000;

/** One MCP session on the endpoint. */
interface Session {
  transport: McpHttpTransport;
  server: McpServer;
  /** Requests still open: calls being answered and GET streams (a live client keeps one for notifications). */
  open: number;
  /** When the last request came in or was answered. */
  lastSeen: number;
}

/** A JSON reply. */
function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A JSON error reply in the control format. */
function refuse(res: ServerResponse, status: number, reason: string, message: string): void {
  reply(res, status, { error: { reason, message } });
}

/** Reads the body up to `limit` bytes; null when it is larger (the caller answers 413). */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Starts the endpoint on a random port with a random token. */
export async function startOwnerServer(options: OwnerServerOptions): Promise<OwnerServer> {
  const { baton, log } = options;
  const host = options.host ?? '127.0.0.1';
  const limit = options.maxBodyBytes ?? MAX_BODY;
  const token = randomBytes(32).toString('hex');
  const expected = Buffer.from(`Bearer ${token}`);
  const sessions = new Map<string, Session>();
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  let allowedHosts = new Set<string>();
  let allowedOrigins = new Set<string>();

  const authorized = (req: IncomingMessage): boolean => {
    const got = Buffer.from(req.headers.authorization ?? '');
    return got.length === expected.length && timingSafeEqual(got, expected);
  };

  const handleMcp = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let body: unknown;
    if (req.method === 'POST') {
      const raw = await readBody(req, limit);
      if (raw === null) return refuse(res, 413, 'invalid_input', `request body larger than ${limit} bytes`);
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return reply(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: body is not JSON' }, id: null });
      }
    }
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing) {
      track(existing, res);
      return existing.transport.handle(req, res, body);
    }
    if (sessionId !== undefined) {
      return reply(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found; initialize again' }, id: null });
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return reply(res, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'Bad request: no session; send initialize first' }, id: null });
    }
    const server = options.createServer();
    const transport: McpHttpTransport = new McpHttpTransport(randomUUID(), (id) => {
      const session = { transport, server, open: 0, lastSeen: Date.now() };
      sessions.set(id, session);
      track(session, res);
    });
    transport.onclose = () => {
      sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    transport.handle(req, res, body);
  };

  /** A session is idle only with no request open, from its last answer on (not from when a long call came in). */
  const track = (session: Session, res: ServerResponse): void => {
    session.open++;
    session.lastSeen = Date.now();
    res.once('close', () => {
      session.open--;
      session.lastSeen = Date.now();
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!allowedHosts.has(req.headers.host ?? '')) return refuse(res, 403, 'unauthorized', 'Host header not allowed');
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin)) return refuse(res, 403, 'unauthorized', 'Origin not allowed');
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz' && req.method === 'GET') return reply(res, 200, { ok: true, pid: process.pid });
    if (!authorized(req)) return refuse(res, 401, 'unauthorized', 'missing or wrong bearer token (see server.json beside the database)');
    if (path === '/mcp') return handleMcp(req, res);
    if (path === '/events' && req.method === 'GET') return streamEvents(baton, req, res, heartbeatMs);
    if (path === '/control' && req.method === 'POST') {
      const raw = await readBody(req, limit);
      if (raw === null) return refuse(res, 413, 'invalid_input', `request body larger than ${limit} bytes`);
      const { status, body } = await handleControl(baton, raw.toString('utf8'), log);
      return reply(res, status, body);
    }
    return refuse(res, 404, 'not_found', `no route ${req.method} ${path}`);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((ex: unknown) => {
      log.error('owner endpoint request failed', ex);
      if (BatonError.is(ex)) refuse(res, 400, ex.reason, ex.message);
      else refuse(res, 500, 'internal', "internal error; see Baton's log");
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  allowedOrigins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]);
  const url = `http://127.0.0.1:${port}/mcp`;
  const idleMs = options.idleSessionMs ?? IDLE_SESSION_MS;
  const sweeper = setInterval(() => {
    for (const [id, s] of sessions) {
      if (s.open > 0 || Date.now() - s.lastSeen < idleMs) continue;
      log.info(`closing idle MCP session ${id}`);
      sessions.delete(id);
      void s.transport.close().then(() => s.server.close()).catch(() => undefined);
    }
  }, Math.min(60_000, Math.max(50, idleMs / 2)));
  sweeper.unref();
  log.info(`owner endpoint listening on ${url}`);

  return {
    url,
    token,
    port,
    async close() {
      clearInterval(sweeper);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map(async (s) => {
        await s.transport.close();
        await s.server.close();
      }));
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

/** Streams the core's events as Server-Sent Events (`data: <BatonEvent JSON>`) until the caller or the server hangs up. */
function streamEvents(baton: BatonApi, req: IncomingMessage, res: ServerResponse, heartbeatMs: number): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.write(': baton events\n\n');
  const unsubscribe = baton.onEvent((event) => void res.write(`data: ${JSON.stringify(event)}\n\n`));
  const heartbeat = setInterval(() => void res.write(': ping\n\n'), heartbeatMs);
  heartbeat.unref();
  req.socket.setTimeout(0);
  res.once('close', () => {
    clearInterval(heartbeat);
    unsubscribe();
  });
}
