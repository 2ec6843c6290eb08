// One MCP session over Streamable HTTP, served straight from node:http: the SDK's server transport converts every
// request and answer to Web Request/Response objects and streams (through @hono/node-server) and answers each call
// with its own SSE stream, which cost more CPU per call than Baton's whole broker step under load. Here a call is
// answered with one JSON body; a message the server sends about a call before answering it (progress, a
// question) switches that call's answer to an SSE stream; everything else goes out on the session's GET stream.
// Every SSE event carries an id, and the session keeps its latest events (bounded, sseReplay.ts), so that a client
// whose stream dropped gets what it missed by a GET with Last-Event-ID. An SSE stream with nothing to send gets a
// comment line now and then (sseKeepAlive.ts), or an idle client or proxy would cut it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  InitializeRequestSchema, isInitializeRequest, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type InitializeRequest, type JSONRPCMessage, type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { batchesAllowed, batchRefusal, idInUse, invalidMessage, isRequestId, issueLine, requestIdOf } from '../mcp/invalidMessage.js';
import { isAnswer, isRequest, toMessage } from '../mcp/jsonRpc.js';
import { keepSseAlive, SSE_KEEP_ALIVE_MS } from './sseKeepAlive.js';
import { GET_STREAM, SseReplay, type Cursor } from './sseReplay.js';

/** The calls of one POST that are still being answered. */
interface PendingPost {
  /** Where its answer goes: null once the connection of its SSE stream dropped, until a GET resumes the stream. */
  res: ServerResponse | null;
  /** The calls it carries, in order (a cancelled one is dropped). */
  ids: RequestId[];
  answers: Map<RequestId, JSONRPCMessage>;
  batch: boolean;
  /** The answer is an SSE stream (the client asked for one, or a message came before the answer). */
  sse: boolean;
  /** The client accepts an SSE answer (else messages about the call go on the session's stream). */
  sseAccepted: boolean;
  /** The number of its SSE stream in event ids (0 until it has one). */
  stream: number;
}

/**
 * A JSON-RPC error reply with an HTTP status, under the id of the request `body` carries when it is one (see
 * requestIdOf), else under a null id as the SDK's transport answers.
 */
function rpcError(res: ServerResponse, status: number, code: number, message: string, body?: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: requestIdOf(body) ?? null }));
}

/**
 * Whether an Accept header takes this media type: the most specific range that covers it (the type itself, then its
 * `text/` or `application/` wildcard, then the wildcard of every type) decides, and `q=0` there means "not this one"
 * (RFC 9110 12.5.1): `application/json;q=0, text/event-stream` takes only an SSE answer.
 */
export function accepts(header: string | undefined, type: string): boolean {
  if (!header) return false;
  let seen = acceptsSeen.get(type);
  if (!seen) acceptsSeen.set(type, (seen = new Map()));
  let taken = seen.get(header);
  if (taken === undefined) {
    // A client sends the same Accept header on every request: each is read once (a few headers for as many clients).
    if (seen.size >= ACCEPTS_SEEN_LIMIT) seen.clear();
    seen.set(header, (taken = acceptsType(header, type)));
  }
  return taken;
}

/** The Accept headers read so far, by the media type asked of them, with the answer; at most this many per type. */
const acceptsSeen = new Map<string, Map<string, boolean>>();
const ACCEPTS_SEEN_LIMIT = 64;

function acceptsType(header: string, type: string): boolean {
  let rank = -1;
  let q = 1;
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const r = range === type ? 2 : range === `${type.split('/')[0]}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (r <= rank) continue;
    rank = r;
    const weight = params.find((p) => /^q\s*=/.test(p));
    q = weight === undefined ? 1 : Number(weight.split('=')[1]);
  }
  // A weight that is no number is not read as a refusal.
  return rank >= 0 && !(q <= 0);
}

/**
 * Refuses (400) a request after `initialize` whose MCP-Protocol-Version header names a version this server does not
 * speak, as the transport specification says for every such request (a POST, the GET stream, a DELETE); true if so.
 */
function unsupportedVersion(req: IncomingMessage, res: ServerResponse, body?: unknown): boolean {
  const version = req.headers['mcp-protocol-version'];
  if (typeof version !== 'string' || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return false;
  rpcError(res, 400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`, body);
  return true;
}

/**
 * Refuses (400) a request that names no session and does not start one, saying what is wrong with it: an initialize
 * whose params the schema refuses names the fields (as stdio's server does), an initialize in a batch is told to come
 * alone, a body that is no JSON-RPC message names what to fix, and anything else is told to initialize first.
 */
export function refuseWithoutSession(res: ServerResponse, method: string | undefined, body: unknown): void {
  const init = (m: unknown) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize';
  if (method === 'POST' && !Array.isArray(body) && init(body) && toMessage(body)) {
    const issues = InitializeRequestSchema.safeParse(body).error?.issues ?? [];
    const id = (body as { id?: unknown }).id;
    const message = `Invalid params for initialize: ${issues.slice(0, 5).map(issueLine).join('; ')}.`;
    return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', ...(isRequestId(id) ? { id } : {}), error: { code: -32602, message } }));
  }
  if (method === 'POST' && Array.isArray(body) && body.some(init)) {
    return rpcError(res, 400, -32600, 'Invalid Request: send initialize alone, not in a batch: nothing may come before the session it starts');
  }
  const invalid = method === 'POST' && !Array.isArray(body) && !toMessage(body) ? invalidMessage(body, schemaError(body)) : undefined;
  if (invalid) return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(invalid.answer));
  rpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header: send initialize first, then the Mcp-Session-Id header of its answer with every request', body);
}

/** What the SDK's message schema says about a value it refuses. */
const schemaError = (value: unknown): Error | undefined => JSONRPCMessageSchema.safeParse(value).error;

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' } as const;

/** Whether a session of this protocol version takes an SSE event with no data (a priming event): 2025-11-25 on. */
const takesPriming = (version: string | undefined): boolean => version !== undefined && version >= '2025-11-25';

/** Options of an McpHttpTransport. */
export interface McpHttpTransportOptions {
  /** How long an SSE stream may send nothing before a keep-alive comment goes out on it; SSE_KEEP_ALIVE_MS if unset. */
  keepAliveMs?: number;
}

/** A server-side Streamable HTTP transport for one session (create it for an `initialize` POST). */
export class McpHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  private readonly pending = new Map<RequestId, PendingPost>();
  private stream: ServerResponse | null = null;
  /** The session's SSE events, kept for a client that resumes a stream with Last-Event-ID. */
  private readonly replay: SseReplay;
  /** Every event of the GET stream up to this seq was written to a connection (a later one was not, yet). */
  private written = 0;
  /** The POSTs answered over SSE that still wait for an answer, by stream number (a GET may resume them). */
  private readonly ssePosts = new Map<number, PendingPost>();
  private initialized = false;
  private closed = false;
  /**
   * The session's protocol version: the one the client asked for in its `initialize`, then the one the server's
   * answer settled on (whether batches are taken depends on it).
   */
  private protocolVersion: string | undefined;
  /** The id of the session's `initialize`, until it is answered. */
  private initializeId: RequestId | undefined;
  private readonly keepAliveMs: number;
  /** Stops the keep-alive of each SSE stream still open. */
  private readonly keepAlives = new Set<() => void>();

  /** `onInitialized` runs once the session's `initialize` POST is accepted (register the session there). */
  constructor(readonly sessionId: string, private readonly onInitialized: (sessionId: string) => void, options: McpHttpTransportOptions = {}) {
    this.replay = new SseReplay(sessionId);
    this.keepAliveMs = options.keepAliveMs ?? SSE_KEEP_ALIVE_MS;
  }

  async start(): Promise<void> {}

  /** Whether the session has a GET stream open. */
  get streaming(): boolean {
    return this.stream !== null;
  }

  /** Serves one HTTP request of this session; `body` is the parsed JSON of a POST. */
  handle(req: IncomingMessage, res: ServerResponse, body?: unknown): void {
    if (this.closed) return rpcError(res, 404, -32001, 'Session not found; initialize again', body);
    if (req.method === 'POST') return this.post(req, res, body);
    if (unsupportedVersion(req, res)) return;
    if (req.method === 'GET') return this.get(req, res);
    if (req.method === 'DELETE') {
      res.writeHead(200).end();
      void this.close();
      return;
    }
    res.setHeader('allow', 'GET, POST, DELETE');
    rpcError(res, 405, -32000, 'Method not allowed.');
  }

  private post(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const json = accepts(req.headers.accept, 'application/json');
    const sseAccepted = accepts(req.headers.accept, 'text/event-stream');
    if (!json && !sseAccepted) {
      return rpcError(res, 406, -32000, 'Not Acceptable: Client must accept application/json or text/event-stream', body);
    }
    if ((req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/json') {
      return rpcError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json', body);
    }
    if (Array.isArray(body)) {
      // The session's version decides: a header naming another version the server speaks is taken (the transport
      // specification asks only that it SHOULD be the negotiated one), but it does not bring batches into a session
      // of 2025-06-18 or later, nor take them from one of 2025-03-26.
      const header = req.headers['mcp-protocol-version'];
      const version = this.initialized ? this.protocolVersion : typeof header === 'string' ? header : body.find(isInitializeRequest)?.params.protocolVersion;
      if (!batchesAllowed(version)) return rpcError(res, 400, -32600, batchRefusal(version));
    }
    const raw = Array.isArray(body) ? body : [body];
    const messages: JSONRPCMessage[] = [];
    for (const m of raw) {
      const message = toMessage(m);
      if (!message) {
        const { answer } = invalidMessage(m, schemaError(m));
        return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      }
      messages.push(message);
    }
    if (messages.length === 0) return rpcError(res, 400, -32600, 'Invalid Request: empty batch');
    const initialize = messages.find((m): m is JSONRPCMessage & InitializeRequest => 'method' in m && m.method === 'initialize' && isInitializeRequest(m));
    if (initialize) {
      if (this.initialized) return rpcError(res, 400, -32600, 'Invalid Request: Server already initialized', body);
      if (messages.length > 1) return rpcError(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
      this.initialized = true;
      this.protocolVersion = initialize.params.protocolVersion;
      this.initializeId = (initialize as { id?: RequestId }).id;
      this.onInitialized(this.sessionId);
    } else {
      if (!this.initialized) return rpcError(res, 400, -32000, 'Bad Request: Server not initialized', body);
      if (unsupportedVersion(req, res, body)) return;
    }
    const extra: MessageExtraInfo = { requestInfo: { headers: req.headers } };
    const requests = messages.filter(isRequest);
    const reuse = this.reusedId(requests.map((r) => r.id));
    if (reuse) return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(reuse));
    if (requests.length === 0) {
      res.writeHead(202).end();
    } else {
      const post: PendingPost = { res, ids: requests.map((r) => r.id), answers: new Map(), batch: Array.isArray(body), sse: false, sseAccepted, stream: 0 };
      for (const id of post.ids) this.pending.set(id, post);
      res.once('close', () => {
        if (post.res !== res) return;
        // A dropped SSE stream is not the client cancelling (the specification): its calls stay open, and what
        // the server sends about them is kept for the client to fetch with a GET and the stream's Last-Event-ID.
        if (post.sse && this.ssePosts.get(post.stream) === post) return void (post.res = null);
        for (const id of post.ids) if (this.pending.get(id) === post) this.pending.delete(id);
      });
      if (!json) this.startSse(post);
    }
    for (const message of messages) {
      if ('method' in message && message.method === 'notifications/cancelled' && !('id' in message)) this.cancelled((message.params as { requestId?: RequestId } | undefined)?.requestId);
      this.onmessage?.(message, extra);
    }
  }

  /**
   * The client cancelled a request: the server sends it no answer (MCP's cancellation), so its POST is ended here —
   * an SSE stream closes once the POST's other calls are answered, a POST of that call alone gets an empty SSE
   * stream (202 if the client takes only JSON) — or it would stay open, with its socket, for good.
   */
  private cancelled(id: RequestId | undefined): void {
    const post = id === undefined ? undefined : this.pending.get(id);
    if (!post) return;
    this.pending.delete(id!);
    post.ids = post.ids.filter((i) => i !== id);
    this.settle(post);
  }

  /** Ends a POST once every call it carries has its answer (or was cancelled). */
  private settle(post: PendingPost): void {
    if (post.answers.size < post.ids.length) return;
    if (post.sse) {
      this.ssePosts.delete(post.stream);
      post.res?.end();
      return;
    }
    const res = post.res!; // only an SSE answer loses its connection and stays
    if (post.ids.length === 0) {
      // Every call it carried was cancelled, so nothing answers them. A POST of requests must be answered with an SSE
      // stream or a JSON body: an empty stream says it, for a client that takes one; one that takes only JSON gets 202.
      if (post.sseAccepted) res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.sessionId }).end();
      else res.writeHead(202, { 'mcp-session-id': this.sessionId }).end();
      return;
    }
    const out = post.batch ? post.ids.map((i) => post.answers.get(i)) : post.answers.get(post.ids[0]!);
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': this.sessionId }).end(JSON.stringify(out));
  }

  /**
   * The refusal of a request whose id is already waiting for its answer in this session (or twice in one batch):
   * both answers would go to whichever POST holds the id last, and the other would never be answered.
   */
  private reusedId(ids: RequestId[]): JSONRPCMessage | null {
    const index = ids.findIndex((id, i) => this.pending.has(id) || ids.indexOf(id) !== i);
    if (index < 0) return null;
    const id = ids[index]!;
    const where = this.pending.has(id) ? 'a request in flight in this session' : 'another request in this batch';
    return { jsonrpc: '2.0', ...(ids.length === 1 ? { id } : {}), error: { code: -32600, message: idInUse(id, where) } } as JSONRPCMessage;
  }

  /**
   * Opens the session's GET stream, or resumes a stream whose Last-Event-ID this session handed out. A Last-Event-ID
   * it cannot place (garbage, another session's, or one of a stream or seq it never reached) is taken as none: it
   * says nothing of what the client received, so replaying from anywhere could send it twice what it had. Such a GET,
   * like one with no Last-Event-ID, gets the GET stream's events that were never written to a connection (sent while
   * none was open): no client has them. A cursor older than every kept event gets all those kept (sseReplay.ts).
   */
  private get(req: IncomingMessage, res: ServerResponse): void {
    if (!accepts(req.headers.accept, 'text/event-stream')) return rpcError(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    const cursor = this.replay.cursor(req.headers['last-event-id']);
    if (cursor && cursor.stream !== GET_STREAM) return this.resumePost(req, res, cursor);
    if (this.stream && !cursor) {
      return rpcError(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session; to resume it, send the Last-Event-ID header of its last event');
    }
    // A client resuming the stream has lost the connection the server may still hold (a sleeping laptop's socket is
    // not seen to close for minutes, and refusing it would lose every message until then): the new one takes over.
    const old = this.stream;
    this.stream = null;
    old?.end();
    this.openSse(req, res);
    this.stream = res;
    res.once('close', () => {
      if (this.stream === res) this.stream = null;
    });
    for (const text of this.replay.after(cursor ?? { stream: GET_STREAM, seq: this.written })) res.write(text);
    if (takesPriming(this.protocolVersion)) res.write(this.replay.priming(GET_STREAM));
    this.written = this.replay.last;
  }

  /**
   * A GET with the Last-Event-ID of a POST's SSE stream (the SDK client sends one when that stream ends before the
   * call's answer): it gets the stream's kept events after that id, then, if the call is still open, the rest of
   * them as they come, its answer last; a stream already over ends once its kept events are written. One over with
   * nothing after the id gets 204, which tells an SSE client to stop reconnecting (HTML's EventSource): the SDK
   * client resumes a stream that ended without a result (a call cancelled, or answered with an error) and, given an
   * empty stream, would then try a plain GET, which the session's open GET stream refuses (409), twice.
   */
  private resumePost(req: IncomingMessage, res: ServerResponse, cursor: Cursor): void {
    const events = this.replay.after(cursor);
    const post = this.ssePosts.get(cursor.stream);
    if (!post && events.length === 0) return void res.writeHead(204, { 'mcp-session-id': this.sessionId }).end();
    this.openSse(req, res);
    for (const text of events) res.write(text);
    if (!post) return void res.end();
    const old = post.res;
    post.res = res;
    old?.end();
    res.once('close', () => {
      if (post.res === res) post.res = null;
    });
  }

  /** Starts an SSE answer to a GET, kept open for as long as the client wants it. */
  private openSse(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.sessionId });
    res.flushHeaders();
    req.socket.setTimeout(0);
    this.keepAlive(res);
  }

  /** Keeps an SSE stream's connection from going idle until it closes, or the transport does. */
  private keepAlive(res: ServerResponse): void {
    const stop = keepSseAlive(res, this.keepAliveMs);
    this.keepAlives.add(stop);
    res.once('close', () => this.keepAlives.delete(stop));
  }

  async send(message: JSONRPCMessage, options?: { relatedRequestId?: RequestId }): Promise<void> {
    const answer = isAnswer(message); // the server's own message: no need to validate it again
    const id = answer ? (message as { id: RequestId }).id : options?.relatedRequestId;
    if (answer && id !== undefined && id === this.initializeId) this.settleVersion(message);
    const post = id === undefined ? undefined : this.pending.get(id);
    if (!post || (!answer && !post.sseAccepted)) {
      // An answer whose caller hung up has nowhere to go; other messages fall back to the session's stream (so
      // does a message about a call whose client accepts only a JSON answer).
      if (!answer) this.toGetStream(message);
      return;
    }
    if (!answer) {
      this.startSse(post);
      post.res?.write(this.replay.event(post.stream, message));
      return;
    }
    this.pending.delete(id!);
    post.answers.set(id!, message);
    if (post.sse) post.res?.write(this.replay.event(post.stream, message));
    this.settle(post);
  }

  /** Sends a message on the GET stream, or keeps it for the next GET if none is open. */
  private toGetStream(message: JSONRPCMessage): void {
    const text = this.replay.event(GET_STREAM, message);
    if (!this.stream) return;
    this.stream.write(text);
    this.written = this.replay.last;
  }

  /** Takes the version the server's answer to `initialize` settled on (it may differ from the one asked for). */
  private settleVersion(answer: JSONRPCMessage): void {
    this.initializeId = undefined;
    const version = 'result' in answer ? (answer.result as { protocolVersion?: unknown }).protocolVersion : undefined;
    if (typeof version === 'string') this.protocolVersion = version;
  }

  private startSse(post: PendingPost): void {
    if (post.sse) return;
    post.sse = true;
    post.stream = this.replay.newStream();
    this.ssePosts.set(post.stream, post);
    const res = post.res!; // a POST's own connection: it has not dropped, or the call would no longer be pending
    res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.sessionId });
    this.keepAlive(res);
    // The 2025-11-25 specification: an id at once, so that the client can resume a stream dropped before any message.
    if (takesPriming(this.protocolVersion)) res.write(this.replay.priming(post.stream));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stream?.end();
    this.stream = null;
    // Every call still open gets an answer that says so: an SSE stream ended without one would leave its client
    // waiting for its own timeout.
    const message = 'Session closed before this call was answered (the server is stopping, or the session was deleted); call again in a new session';
    for (const post of new Set(this.pending.values())) {
      if (!post.sse) {
        rpcError(post.res!, 404, -32001, message);
        continue;
      }
      for (const id of post.ids) if (!post.answers.has(id)) post.res?.write(this.replay.event(post.stream, { jsonrpc: '2.0', id, error: { code: -32001, message } } as JSONRPCMessage));
      post.res?.end();
    }
    this.pending.clear();
    this.ssePosts.clear();
    for (const stop of this.keepAlives) stop();
    this.keepAlives.clear();
    this.onclose?.();
  }
}
