// The owner's endpoint on 127.0.0.1: Streamable HTTP MCP at /mcp, /control for the CLI and editor clients, /events
// (Server-Sent Events), /healthz. Bearer token + Host/Origin checks.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { BatonApi } from '../core/api.js';
import { BatonError } from '../core/errors.js';
import type { RunScope } from '../core/pipelines/runner.js';
import type { Log } from '../core/ports.js';
import { quoted } from '../mcp/inputErrors.js';
import { limitText, MAX_MESSAGE_BYTES, requestIdOf, TOO_LARGE_FIX } from '../mcp/invalidMessage.js';
import { connectServer } from '../mcp/jsonRpc.js';
import { handleControl } from './controlOps.js';
import { HOLDER_PID_HEADER } from './discovery.js';
import { McpHttpTransport, refuseWithoutSession } from './mcpHttpTransport.js';
import { isLiveBaton } from '../store/lock.js';

export { handleControl, type ControlRequest } from './controlOps.js';

/** Options of `startOwnerServer`. */
export interface OwnerServerOptions {
  baton: BatonApi;
  /**
   * A fresh McpServer per session; `scope` when the session came with a run's token (see `issueRunToken`), `holderPid`
   * when a forwarding `baton mcp` on this machine opened it (see holderPidOf).
   */
  createServer: (scope?: RunScope, holderPid?: number) => McpServer;
  log: Log;
  host?: string;
  port?: number;
  /** Largest request body; MAX_MESSAGE_BYTES (10 MiB) unless set. */
  maxBodyBytes?: number;
  /** A session with no open stream and no request for this long is closed (its client vanished without DELETE). */
  idleSessionMs?: number;
  /**
   * At most this many sessions with nothing open are kept (100 unless set); past it, a new session closes the ones
   * seen least recently. Each holds a server of its own; clients that start a session per call, or die without a
   * DELETE, would otherwise grow the owner until the idle timeout.
   */
  maxIdleSessions?: number;
  /** How often /events sends a comment line so a dead peer is noticed; 15 s unless set. */
  heartbeatMs?: number;
  /**
   * How long an MCP SSE stream (a session's GET stream, a call's SSE answer) may send nothing before a comment line
   * goes out on it, so that no client or proxy cuts it for idling; SSE_KEEP_ALIVE_MS (15 s) unless set.
   */
  sseKeepAliveMs?: number;
  /** On close, how long calls in flight may take to be answered before their sessions close; 2 s unless set. */
  drainMs?: number;
  /** Where the url and token are written (server.json), named to a caller refused for its token. */
  discoveryPath?: string;
  /**
   * The database this endpoint serves, named by /healthz: a `baton serve --port` refused the port says which Baton
   * holds it (a caller refused for its token is told the folder already, see discoveryPath).
   */
  database?: string;
}

/** A running owner endpoint. */
export interface OwnerServer {
  url: string;
  token: string;
  port: number;
  /**
   * A bearer token for one run and agent: it opens MCP sessions (only /mcp) whose server is built for that scope.
   * `revoke` retires the token and closes its sessions.
   */
  issueRunToken(scope: RunScope): { token: string; revoke(): void };
  /**
   * Whether a control call is being answered now (another command handing over work, a decision…); MCP calls are not
   * counted: an agent waiting on a gate through its `baton mcp` would keep a stopping command alive for good.
   */
  busy(): boolean;
  /** From now on new calls are refused (503), as while closing; the calls in flight go on. */
  stopTaking(): void;
  close(): Promise<void>;
}

const MAX_BODY = MAX_MESSAGE_BYTES;
const IDLE_SESSION_MS = 30 * 60_000;
const MAX_IDLE_SESSIONS = 100;
const DRAIN_MS = 2000;
/** On close with sessions open, how long at least new calls are refused (503) before idle connections are cut. */
const GRACE_MS = 100;
/** On close, how long connections still busy (an /events stream, a call just sent) get before they are cut. */
const CUT_AFTER_MS = 100;
/**
 * How long a client's idle connection is kept open: far past any busy spell of the owner (a big checkpoint or
 * compaction holds its event loop for seconds). With Node's 5 s, an owner busy past it closed its idle connections as
 * it came back, before reading a request a client had sent on one meanwhile: the client got ECONNRESET for a call the
 * owner never read, and could not tell whether a change had been made.
 */
const KEEP_IDLE_MS = 5 * 60_000;
/**
 * What clients are told of it (the Keep-Alive header Node would send for its own 5 s): a client drops an idle
 * connection before then (fetch's undici at the hint less 2 s), so one the owner closes has been unused for minutes.
 */
const KEEP_IDLE_HINT = 'timeout=5';
/**
 * What a forwarding `baton mcp` is told (its requests name its pid, HOLDER_PID_HEADER): a minute short of the real
 * time, so its client (keptAliveClient.ts) keeps its connection across an agent's turns of up to 4 minutes, and one
 * the owner closes has been unused for a minute longer than the forwarder keeps it. A call on a kept connection after a
 * pause costs about half a millisecond less than on a new one, in both processes' CPU (docs/performance.md).
 */
const FORWARDER_KEEP_IDLE_HINT = `timeout=${(KEEP_IDLE_MS - 60_000) / 1000}`;
/** The answer to an MCP request that comes while the owner stops (HTTP 503). */
const STOPPING = 'Baton is stopping: this process no longer takes calls for its database; call again (a `baton mcp` that forwards here sends it to the next owner)';

/** One MCP session on the endpoint. */
interface Session {
  transport: McpHttpTransport;
  server: McpServer;
  /** The run token that opened it (its hash); null for the owner's token. Later requests must carry the same. */
  grant: string | null;
  /** Requests still open: calls being answered and GET streams (a live client keeps one for notifications). */
  open: number;
  /** When the last request came in or was answered. */
  lastSeen: number;
  /** The order of that moment among all sessions': Date.now() ties within a millisecond, and which was seen last matters. */
  seenOrder: number;
}

/** A JSON reply. */
function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A JSON error reply in the control format. */
/** Ends a session's transport, then its server (which drops the server's subscription to the core's events). */
function closeServer(transport: McpHttpTransport, server: McpServer): void {
  void transport.close().then(() => server.close()).catch(() => undefined);
}

function refuse(res: ServerResponse, status: number, reason: string, message: string): void {
  reply(res, status, { error: { reason, message } });
}

/**
 * Why a Host header is refused, and the ones taken: a page on another host name that resolves to 127.0.0.1 (DNS
 * rebinding) must not reach the endpoint, and a client behind a port forward must call the owner's own port.
 */
function hostRefused(host: string | undefined, port: number): string {
  const got = host === undefined ? 'A request without a Host header' : `Host ${quoted(host)}`;
  return `${got} is not allowed: call 127.0.0.1:${port} or localhost:${port} (the url in server.json beside the database); other host names are refused against DNS rebinding`;
}

/**
 * Whether `path` is one an OAuth client asks for once a call was refused with 401: the metadata of RFC 9728 and RFC
 * 8414, OpenID discovery, and the endpoints the MCP SDK falls back to when there is no metadata.
 */
function isOAuthPath(path: string): boolean {
  return /\/\.well-known\/(oauth-protected-resource|oauth-authorization-server|openid-configuration)(\/|$)/.test(path)
    || path === '/register' || path === '/authorize' || path === '/token';
}

/** Why a request to /mcp with a method Streamable HTTP does not use is refused (HTTP 405). */
function methodRefused(method: string | undefined, url: string): string {
  return `Method not allowed: ${method ?? 'none'} ${url}; MCP over Streamable HTTP takes POST (a message), GET (the session's stream of server messages) and DELETE (end the session)`;
}

/** Why an Origin header is refused: web pages may not call the endpoint (a client that is no browser sends none). */
function originRefused(origin: string, port: number): string {
  return `Origin ${quoted(origin)} is not allowed: Baton's endpoint takes no calls from web pages but its own (http://127.0.0.1:${port}); a client that is not a browser sends no Origin header`;
}

/** A request body's JSON value; undefined when there is no body or it is not JSON. A byte order mark is not JSON, but
 * RFC 8259 lets a parser ignore one, and some clients' encoders write it. */
function jsonOf(raw: Buffer | null): unknown {
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    return undefined;
  }
}

/**
 * Reads the body up to `limit` bytes; null when it is larger (the caller answers 413), and the request is destroyed
 * then, as its connection would carry the rest. Rejects when the client hangs up before the body's end. Read with the
 * stream's own events: its async iterator had cost a POST as much CPU as parsing a step's JSON body.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settled = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      settled();
      req.destroy();
      resolve(null);
    };
    const onEnd = () => {
      settled();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (ex: Error) => {
      settled();
      reject(ex);
    };
    const onClose = () => onError(new Error('the client closed the connection before the end of its request body'));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/**
 * An Authorization header with a bearer token, written the one way tokens are compared (`Bearer <token>`); null for
 * any other. RFC 9110 makes the scheme case-insensitive and lets spaces (one or more) follow it, so `bearer <token>`
 * and `Bearer  <token>` are the same credentials, which some clients send.
 */
function bearerHeader(header: string | undefined): string | null {
  const token = header === undefined ? undefined : /^bearer +(\S+)$/i.exec(header)?.[1];
  return token === undefined ? null : `Bearer ${token}`;
}

/**
 * The pid a forwarding `baton mcp` names in its initialize (HOLDER_PID_HEADER), when this process sees it as a live
 * Baton: one in another PID namespace (a container sharing the network) is not recorded, or its steps would look
 * abandoned while it works.
 */
function holderPidOf(req: IncomingMessage): number | undefined {
  const raw = req.headers[HOLDER_PID_HEADER];
  const pid = typeof raw === 'string' && /^\d{1,10}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  return Number.isSafeInteger(pid) && pid > 1 && pid !== process.pid && isLiveBaton(pid) ? pid : undefined;
}

/** Starts the endpoint on a random port with a random token. */
export async function startOwnerServer(options: OwnerServerOptions): Promise<OwnerServer> {
  const { baton, log } = options;
  const host = options.host ?? '127.0.0.1';
  const limit = options.maxBodyBytes ?? MAX_BODY;
  const token = randomBytes(32).toString('hex');
  const expected = Buffer.from(`Bearer ${token}`);
  const tokenFix = `send the header "Authorization: Bearer <token>" with the token of ${options.discoveryPath ?? 'server.json beside the database'} (a new one each time Baton starts; its url is there too)`;
  const sessions = new Map<string, Session>();
  /** Set by close(): calls in flight are being answered and nothing new starts. */
  let stopping = false;
  /** The MCP requests still open (calls being answered, GET streams). */
  const answers = new Set<ServerResponse>();
  /** Control requests being answered (a team or pipeline another command starts here, a decision…). */
  let controlsOpen = 0;
  const answering = () => controlsOpen > 0 || [...sessions.values()].some((s) => s.open > (s.transport.streaming ? 1 : 0));
  /** How many times a session was seen, all sessions together (Session.seenOrder). */
  let seenCount = 0;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  let allowedHosts = new Set<string>();
  let allowedOrigins = new Set<string>();

  const authorized = (req: IncomingMessage): boolean => {
    const got = Buffer.from(bearerHeader(req.headers.authorization) ?? '');
    return got.length === expected.length && timingSafeEqual(got, expected);
  };
  // Run tokens, by the hash of their header (so a lookup compares no secret).
  const grants = new Map<string, RunScope>();
  const grantOf = (req: IncomingMessage): string | null => {
    const header = bearerHeader(req.headers.authorization);
    if (header === null) return null;
    const key = createHash('sha256').update(header).digest('hex');
    return grants.has(key) ? key : null;
  };

  const handleMcp = async (req: IncomingMessage, res: ServerResponse, grant: string | null): Promise<void> => {
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      // Before the session is looked up: with one or without, PUT, HEAD or OPTIONS is no method MCP serves (a 400
      // that asked for a session sent a client to initialize for nothing).
      res.setHeader('allow', 'GET, POST, DELETE');
      return reply(res, 405, { jsonrpc: '2.0', error: { code: -32000, message: methodRefused(req.method, url) }, id: null });
    }
    let body: unknown;
    if (req.method === 'POST') {
      const coding = req.headers['content-encoding']?.trim().toLowerCase();
      if (coding && coding !== 'identity') {
        // A compressed body read as text is "not JSON", which names the wrong fix (RFC 9110 15.5.16: 415 says it).
        const message = `Unsupported Media Type: Content-Encoding ${quoted(coding)} is not taken; send the body uncompressed, without a Content-Encoding header`;
        return reply(res, 415, { jsonrpc: '2.0', error: { code: -32000, message }, id: null });
      }
      const raw = await readBody(req, limit);
      if (raw === null) {
        const message = `Request too large: the body is over ${limitText(limit)}, the most one message may be; ${TOO_LARGE_FIX}`;
        return reply(res, 413, { jsonrpc: '2.0', error: { code: -32600, message }, id: null });
      }
      body = jsonOf(raw);
      if (body === undefined) return reply(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: body is not JSON' }, id: null });
    }
    const sessionId = req.headers['mcp-session-id'];
    const found = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    const existing = found && found.grant === grant ? found : undefined;
    if (existing) {
      track(existing, res);
      return existing.transport.handle(req, res, body);
    }
    if (sessionId !== undefined) {
      return reply(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found; initialize again' }, id: requestIdOf(body) ?? null });
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) return refuseWithoutSession(res, req.method, body);
    const server = options.createServer(grant === null ? undefined : grants.get(grant), holderPidOf(req));
    let accepted = false;
    const transport: McpHttpTransport = new McpHttpTransport(randomUUID(), (id) => {
      accepted = true;
      // `track` stamps when it was seen (lastSeen, seenOrder).
      const session: Session = { transport, server, grant, open: 0, lastSeen: 0, seenOrder: 0 };
      sessions.set(id, session);
      track(session, res);
      closeIdleOverLimit();
    }, { keepAliveMs: options.sseKeepAliveMs });
    transport.onclose = () => {
      sessions.delete(transport.sessionId);
    };
    await connectServer(server, transport);
    transport.handle(req, res, body);
    // An initialize the transport refused (a wrong Accept or Content-Type) made no session: its server is closed, or
    // it would stay subscribed to the core's events for good (a client retrying with a wrong header ran the owner
    // out of memory, about 70 KB a request).
    if (!accepted) closeServer(transport, server);
  };

  /** A session is idle only with no request open, from its last answer on (not from when a long call came in). */
  const track = (session: Session, res: ServerResponse): void => {
    session.open++;
    seen(session);
    answers.add(res);
    res.once('close', () => {
      session.open--;
      seen(session);
      answers.delete(res);
    });
  };
  const seen = (session: Session): void => {
    session.lastSeen = Date.now();
    session.seenOrder = ++seenCount;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Host names are case-insensitive (RFC 3986): LOCALHOST is localhost.
    if (!allowedHosts.has((req.headers.host ?? '').toLowerCase())) return refuse(res, 403, 'unauthorized', hostRefused(req.headers.host, port));
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin)) return refuse(res, 403, 'unauthorized', originRefused(origin, port));
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/healthz' && req.method === 'GET') return reply(res, 200, { ok: true, pid: process.pid, ...(options.database ? { database: options.database } : {}) });
    if (stopping && (path === '/mcp' || path === '/control')) {
      // Nothing new starts while the calls in flight are answered; a forwarding `baton mcp` sends it to the next owner.
      // The request is read whole first: an answer before it, then the connection's close, can reach the client as a
      // reset instead of the 503.
      const raw = await readBody(req, limit).catch(() => null);
      res.setHeader('retry-after', '1');
      res.setHeader('connection', 'close');
      if (path === '/control') return refuse(res, 503, 'owner_unreachable', `Baton process ${process.pid}, which owns the database, is stopping; run the command again in a moment`);
      return reply(res, 503, { jsonrpc: '2.0', error: { code: -32001, message: STOPPING }, id: requestIdOf(jsonOf(raw)) ?? null });
    }
    if (isOAuthPath(path)) {
      // An OAuth client refused for its token looks for a sign-in (mcp-remote, the MCP SDK's clients): no metadata
      // here (404, as RFC 8414 and 9728 say), and an error in OAuth's own form (RFC 6749 5.2), which such a client
      // shows, where Baton's form made it report an unreadable answer.
      const status = path.includes('/.well-known/') ? 404 : 400;
      return reply(res, status, { error: 'invalid_request', error_description: `Baton takes no OAuth sign-in: ${tokenFix}` });
    }
    if (!authorized(req)) {
      const grant = path === '/mcp' ? grantOf(req) : null;
      if (grant !== null) return handleMcp(req, res, grant);
      // RFC 6750 (and RFC 9110: a 401 carries WWW-Authenticate): a token was sent and is not this owner's, or none was.
      // The header keeps to ASCII (a path may not); the body names the file.
      const brief = 'missing or wrong bearer token (see server.json beside the database)';
      res.setHeader('www-authenticate', req.headers.authorization === undefined
        ? 'Bearer realm="baton"'
        : `Bearer realm="baton", error="invalid_token", error_description="${brief}"`);
      return refuse(res, 401, 'unauthorized', `missing or wrong bearer token: ${tokenFix}`);
    }
    if (path === '/mcp') return handleMcp(req, res, null);
    if (path === '/events' && req.method === 'GET') return streamEvents(baton, req, res, heartbeatMs);
    if (path === '/control' && req.method === 'POST') {
      controlsOpen++;
      try {
        const raw = await readBody(req, limit);
        if (raw === null) return refuse(res, 413, 'invalid_input', `request body larger than ${limit} bytes`);
        const { status, body } = await handleControl(baton, raw.toString('utf8'), log);
        return reply(res, status, body);
      } finally {
        controlsOpen--;
      }
    }
    // A client set up with the bare address, or for the older HTTP+SSE transport (GET /sse, POST /messages).
    return refuse(res, 404, 'not_found', `no route ${req.method} ${path}: Baton serves MCP at ${url} only, over Streamable HTTP (the older HTTP+SSE transport, GET /sse, is not served); point the client at that URL with its Streamable HTTP transport`);
  };

  const http = createServer((req, res) => {
    res.setHeader('keep-alive', req.headers[HOLDER_PID_HEADER] === undefined ? KEEP_IDLE_HINT : FORWARDER_KEEP_IDLE_HINT);
    handle(req, res).catch((ex: unknown) => {
      // A client that hangs up while it sends its body (a timeout, a cancelled call) is not Baton's failure.
      if (req.destroyed && !res.headersSent) return log.debug('owner endpoint: the client hung up during its request', ex);
      log.error('owner endpoint request failed', ex);
      if (BatonError.is(ex)) refuse(res, 400, ex.reason, ex.message);
      else refuse(res, 500, 'internal', "internal error; see Baton's log");
    });
  });
  // headersTimeout (60 s) applies only to a request being received, since Node 18: it cuts no idle connection.
  http.keepAliveTimeout = KEEP_IDLE_MS;
  http.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    // A client that asks before it sends its body (curl does past 1 MiB) is told 413 (by handle) without sending a
    // body over the limit; the connection closes after that answer, as the body it declared never comes.
    if (Number(req.headers['content-length'] ?? 0) > limit) res.setHeader('connection', 'close');
    else res.writeContinue();
    http.emit('request', req, res);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  allowedOrigins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]);
  const url = `http://127.0.0.1:${port}/mcp`;
  const closeSession = (id: string, s: Session) => {
    sessions.delete(id);
    closeServer(s.transport, s.server);
  };
  const maxIdle = options.maxIdleSessions ?? MAX_IDLE_SESSIONS;
  /** Called as a session starts (its initialize still open): room is made for it among the sessions with nothing open. */
  const closeIdleOverLimit = () => {
    const idle = [...sessions].filter(([, s]) => s.open === 0);
    const excess = idle.length + 1 - maxIdle;
    if (excess <= 0) return;
    idle.sort((a, b) => a[1].seenOrder - b[1].seenOrder);
    for (const [id, s] of idle.slice(0, excess)) {
      log.info(`closing MCP session ${id}: over ${maxIdle} sessions with nothing open, it was seen least recently`);
      closeSession(id, s);
    }
  };
  const idleMs = options.idleSessionMs ?? IDLE_SESSION_MS;
  const sweeper = setInterval(() => {
    for (const [id, s] of sessions) {
      if (s.open > 0 || Date.now() - s.lastSeen < idleMs) continue;
      log.info(`closing idle MCP session ${id}`);
      closeSession(id, s);
    }
  }, Math.min(60_000, Math.max(50, idleMs / 2)));
  sweeper.unref();
  log.info(`owner endpoint listening on ${url}`);

  return {
    url,
    token,
    port,
    issueRunToken(scope) {
      const runToken = randomBytes(32).toString('hex');
      const key = createHash('sha256').update(`Bearer ${runToken}`).digest('hex');
      grants.set(key, { ...scope });
      return {
        token: runToken,
        revoke() {
          grants.delete(key);
          for (const [id, s] of sessions) if (s.grant === key) closeSession(id, s);
        },
      };
    },
    busy: () => controlsOpen > 0,
    stopTaking() {
      stopping = true;
    },
    async close() {
      grants.clear();
      clearInterval(sweeper);
      // Calls in flight (another agent's, forwarded by its `baton mcp`) are answered first: their writes are made and
      // would be durable by the answer, and a session closed under them told the agent that its call may not have run.
      // A call that takes longer (one waiting on a gate) is answered as its session closes, as before.
      stopping = true;
      // Each connection closes after its answer, so no client sends another call down it that the close would cut.
      for (const res of answers) if (!res.headersSent) res.setHeader('connection', 'close');
      const deadline = Date.now() + (options.drainMs ?? DRAIN_MS);
      // With sessions open, a moment's grace too: a client busy on a pooled connection gets its 503 (and the
      // connection's close) before the idle connections are cut under a call it may just have sent.
      const graceEnds = Date.now() + (sessions.size ? GRACE_MS : 0);
      while ((answering() || Date.now() < graceEnds) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      if (answering()) log.warn(`owner endpoint: calls still open after ${options.drainMs ?? DRAIN_MS} ms; their sessions close now`);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map(async (s) => {
        await s.transport.close();
        await s.server.close();
      }));
      // Idle connections close now; a call already sent on one is answered (503) in the moment before the rest are cut.
      await new Promise<void>((resolve) => {
        const cut = setTimeout(() => http.closeAllConnections(), CUT_AFTER_MS);
        http.close(() => {
          clearTimeout(cut);
          resolve();
        });
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
