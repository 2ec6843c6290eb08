// The connection a forwarding `baton mcp` keeps to the owner's Streamable HTTP endpoint (see proxy.ts): the client side
// of MCP's Streamable HTTP transport over kept-alive sockets (keptAliveClient.ts), in place of the SDK's
// StreamableHTTPClientTransport. That one goes through fetch (undici, web streams, Headers and Response objects, and
// zod for every message), which took about half of a forwarding process's CPU per call; a call through the proxy took
// three times as long as the same call to an owning `baton mcp` (see docs/performance.md). node:http's ClientRequest,
// used next, still took twice the CPU of the exchange it makes.
//
// It behaves as the SDK's transport does where the proxy relies on it: a POST per message, answered with JSON, an SSE
// stream or 202; the session id the owner hands out and the negotiated protocol version go on every request after;
// once `notifications/initialized` is accepted, a GET stream carries what the owner sends outside a call's answer,
// and is opened again (Last-Event-ID, backing off) when it drops; a POST's SSE stream that drops after an event id and
// before its answer is resumed the same way. Its failures have the SDK's shapes: an HTTP status as an OwnerHttpError
// (the SDK's StreamableHTTPError's: its code the status, its message the body; a class of Baton's own, as the SDK's
// comes with its client's OAuth modules), a failed connection as fetch's TypeError('fetch failed') with the socket's
// error as its cause (ECONNREFUSED and the like), and a send cut short by close() as an AbortError. Redirects are not
// followed (an owner never redirects): a 3xx is an error like any other status.
import type { IncomingHttpHeaders } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { isAnswer, isNotification, isRequest, plainAnswer, plainMessage } from '../mcp/jsonRpc.js';
import { keepJsonText } from '../mcp/jsonText.js';
import { sdkTypes } from '../mcp/sdkTypes.js';
import { KeptAliveClient, type KeptAliveAnswer } from './keptAliveClient.js';
import { bodyText, fetchFailed } from './requestWithin.js';

/** How a dropped GET stream is opened again: the SDK client's defaults (a retry the owner sends replaces the delay). */
export interface Reconnection {
  initialDelayMs: number;
  maxDelayMs: number;
  growFactor: number;
  maxRetries: number;
}

const DEFAULT_RECONNECTION: Reconnection = { initialDelayMs: 1000, maxDelayMs: 30_000, growFactor: 1.5, maxRetries: 2 };

/** Where a stream resumes and what it does with what it gets. */
interface StreamOptions {
  /** The last event id received on the stream (sent as Last-Event-ID). */
  lastEventId?: string;
  /** The id of the request whose answer a resumed POST stream carries (the answer gets it back). */
  replayId?: RequestId;
  onresumptiontoken?: (token: string) => void;
}

/** One event of an SSE stream. */
interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** An HTTP status the owner answered with: `code` is the status (-1: an answer of an unexpected media type). */
export class OwnerHttpError extends Error {
  constructor(readonly code: number, message: string) {
    super(`Streamable HTTP error: ${message}`);
  }
}

export class OwnerHttpTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private session: string | undefined;
  private version: string | undefined;
  /** The owner's sockets: close() ends the requests in flight on them (their answers' streams included). */
  private readonly client: KeptAliveClient;
  private started = false;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /** The delay before a stream is opened again, when the owner said one (an SSE `retry:` field). */
  private serverRetryMs: number | undefined;

  constructor(
    url: URL,
    /** Sent with every request: the owner's bearer token and the like. */
    private readonly headers: Readonly<Record<string, string>>,
    private readonly reconnection: Reconnection = DEFAULT_RECONNECTION,
  ) {
    this.client = new KeptAliveClient(url);
  }

  get sessionId(): string | undefined {
    return this.session;
  }

  get protocolVersion(): string | undefined {
    return this.version;
  }

  setProtocolVersion(version: string): void {
    this.version = version;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('OwnerHttpTransport already started');
    this.started = true;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.client.destroy(aborted());
    this.onclose?.();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      if (options?.resumptionToken) {
        const replayId = isRequest(message) ? message.id : undefined;
        this.openStream({ lastEventId: options.resumptionToken, replayId, onresumptiontoken: options.onresumptiontoken }).catch(() => undefined);
        return;
      }
      const body = JSON.stringify(message);
      const res = await this.exchange('POST', { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body);
      const status = res.statusCode ?? 0;
      if (!ok(status)) throw new OwnerHttpError(status, `Error POSTing to endpoint: ${await bodyText(res, this.failed)}`);
      if (status === 202) {
        res.resume();
        if (isInitialized(message)) this.openStream({}).catch(() => undefined);
        return;
      }
      if (!hasRequest(message)) return void res.resume();
      const type = mediaType(res.headers);
      if (type === 'text/event-stream') {
        // Resumed (should it drop before its answer), the stream's answer keeps the id of the request it answers.
        const replayId = isRequest(message) ? message.id : undefined;
        return this.readStream(res, false, { replayId, onresumptiontoken: options?.onresumptiontoken });
      }
      if (type !== 'application/json') {
        res.resume();
        throw new OwnerHttpError(-1, `Unexpected content type: ${res.headers['content-type']}`);
      }
      const text = await bodyText(res, this.failed);
      const data = JSON.parse(text) as unknown;
      if (Array.isArray(data)) {
        for (const value of data) this.onmessage?.(toMessage(value));
        return;
      }
      const answer = toMessage(data);
      // Checked as it is (not a copy the SDK's schema made): a forwarding `baton mcp` writes the owner's text on.
      if (answer === data) keepJsonText(answer, text);
      this.onmessage?.(answer);
    } catch (ex) {
      this.onerror?.(ex as Error);
      throw ex;
    }
  }

  /** Ends the session with a DELETE (an owner that does not allow it answers 405, which is fine). */
  async terminateSession(): Promise<void> {
    if (!this.session) return;
    try {
      const res = await this.exchange('DELETE', {});
      res.resume();
      const status = res.statusCode ?? 0;
      if (!ok(status) && status !== 405) throw new OwnerHttpError(status, `Failed to terminate session: ${res.statusMessage ?? status}`);
      this.session = undefined;
    } catch (ex) {
      this.onerror?.(ex as Error);
      throw ex;
    }
  }

  /** What a failed connection fails with: fetch's error, or an AbortError once this transport closed. */
  private readonly failed = (cause: unknown): Error => (this.closed ? aborted() : fetchFailed(cause));

  /** Sends one request with the common headers; resolves with the answer's head, its body still to read. */
  private exchange(method: string, headers: Record<string, string>, body?: string): Promise<KeptAliveAnswer> {
    if (this.closed) return Promise.reject(aborted());
    const all: Record<string, string> = { ...headers };
    if (this.session) all['mcp-session-id'] = this.session;
    if (this.version) all['mcp-protocol-version'] = this.version;
    Object.assign(all, this.headers);
    return this.client.request(method, all, body).then(
      (res) => {
        const session = res.headers['mcp-session-id'];
        if (typeof session === 'string' && session) this.session = session;
        return res;
      },
      (ex: unknown) => Promise.reject(this.failed(ex)),
    );
  }

  /** Opens the GET stream (or resumes one at `lastEventId`); an owner without one answers 405, which is fine. */
  private async openStream(options: StreamOptions): Promise<void> {
    try {
      const res = await this.exchange('GET', { accept: 'text/event-stream', ...(options.lastEventId ? { 'last-event-id': options.lastEventId } : {}) });
      const status = res.statusCode ?? 0;
      if (!ok(status)) {
        res.resume();
        if (status === 405) return;
        throw new OwnerHttpError(status, `Failed to open SSE stream: ${res.statusMessage ?? status}`);
      }
      this.readStream(res, true, options);
    } catch (ex) {
      this.onerror?.(ex as Error);
      throw ex;
    }
  }

  /**
   * Delivers a stream's messages as they come. A stream that ends before the answer it carries (a POST's, once it sent
   * an event id), or the GET stream at any time, is opened again from its last event id, unless this transport closed.
   */
  private readStream(res: KeptAliveAnswer, reconnectable: boolean, options: StreamOptions): void {
    let lastEventId = options.lastEventId;
    let primed = false;
    let answered = false;
    let ended = false;
    const parser = new SseParser((event) => {
      if (event.id !== undefined) {
        lastEventId = event.id;
        primed = true;
        options.onresumptiontoken?.(event.id);
      }
      if (!event.data || (event.event !== undefined && event.event !== 'message')) return;
      try {
        const message = toMessage(JSON.parse(event.data));
        if (isAnswer(message)) {
          answered = true;
          if (options.replayId !== undefined) (message as { id: RequestId }).id = options.replayId;
        }
        this.onmessage?.(message);
      } catch (ex) {
        this.onerror?.(ex as Error);
      }
    }, (ms) => (this.serverRetryMs = ms));
    const end = (failure?: Error) => {
      if (ended) return;
      ended = true;
      if (failure && !this.closed) this.onerror?.(new Error(`SSE stream disconnected: ${failure.message}`));
      if ((reconnectable || primed) && !answered && !this.closed) this.reconnect({ ...options, lastEventId }, 0);
    };
    res.setEncoding('utf8');
    res.on('data', (text: string) => parser.push(text));
    res.on('end', () => {
      parser.end();
      end();
    });
    res.on('error', (ex) => end(ex));
    res.on('close', () => (res.complete ? end() : end(new Error('the connection closed mid-stream'))));
  }

  private reconnect(options: StreamOptions, attempt: number): void {
    const { initialDelayMs, maxDelayMs, growFactor, maxRetries } = this.reconnection;
    if (attempt >= maxRetries) {
      this.onerror?.(new Error(`Maximum reconnection attempts (${maxRetries}) exceeded.`));
      return;
    }
    const delay = this.serverRetryMs ?? Math.min(initialDelayMs * growFactor ** attempt, maxDelayMs);
    this.reconnectTimer = setTimeout(() => {
      this.openStream(options).catch(() => {
        if (!this.closed) this.reconnect(options, attempt + 1);
      });
    }, delay);
    // The proxy's life is its client's: a retry waiting here does not keep the process up.
    this.reconnectTimer.unref();
  }
}

/**
 * An incremental parser of the SSE format (WHATWG's event-stream): lines end with CRLF, LF or CR; `data` lines join
 * with newlines; a comment (`:`) is skipped; a blank line dispatches what came before it, if anything did.
 */
export class SseParser {
  private buffer = '';
  /** How much of `buffer` holds no line terminator (searched already). */
  private scanned = 0;
  private first = true;
  private id: string | undefined;
  private event: string | undefined;
  private data: string[] = [];
  private seen = false;

  constructor(private readonly onEvent: (event: SseEvent) => void, private readonly onRetry: (ms: number) => void = () => undefined) {}

  push(text: string): void {
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.buffer += text;
    // Each character is looked at once: the search for each terminator goes on from where it stopped (in this chunk,
    // or at the end of the unfinished line before it), so a long line over many chunks costs no rescans.
    let start = 0;
    let cr = this.buffer.indexOf('\r', this.scanned);
    let lf = this.buffer.indexOf('\n', this.scanned);
    for (;;) {
      if (cr !== -1 && cr < start) cr = this.buffer.indexOf('\r', start);
      if (lf !== -1 && lf < start) lf = this.buffer.indexOf('\n', start);
      const at = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (at === -1) break;
      // A CR at the end of what came so far may be the first half of a CRLF: wait for the next chunk.
      if (at === cr && at === this.buffer.length - 1) break;
      this.line(this.buffer.slice(start, at));
      start = at + (at === cr && this.buffer.charCodeAt(at + 1) === 0x0a ? 2 : 1);
    }
    this.buffer = this.buffer.slice(start);
    this.scanned = this.buffer.endsWith('\r') ? this.buffer.length - 1 : this.buffer.length;
  }

  /** The stream ended: a last line without its terminator is taken; an event without its blank line is dropped. */
  end(): void {
    if (this.buffer.endsWith('\r')) this.buffer = this.buffer.slice(0, -1);
    if (this.buffer) this.line(this.buffer);
    this.buffer = '';
    this.scanned = 0;
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.onRetry(Number(value));
    else return;
    this.seen = true;
  }

  private dispatch(): void {
    if (this.seen) this.onEvent({ id: this.id, event: this.event, data: this.data.join('\n') });
    this.id = undefined;
    this.event = undefined;
    this.data = [];
    this.seen = false;
  }
}

const ok = (status: number) => status >= 200 && status < 300;

/** A message the owner sent, checked as the SDK's transport checks it (by hand for the plain ones, else by zod). */
function toMessage(value: unknown): JSONRPCMessage {
  return plainAnswer(value) ?? plainMessage(value) ?? sdkTypes().JSONRPCMessageSchema.parse(value);
}

const isInitialized = (message: JSONRPCMessage) => isNotification(message) && message.method === 'notifications/initialized';

/** Whether a message (or batch) holds a request: only a request's POST is answered with messages. */
const hasRequest = (message: JSONRPCMessage | JSONRPCMessage[]) => (Array.isArray(message) ? message : [message]).some(isRequest);

/** The media type of an answer, without parameters or case (`application/json; charset=utf-8` → application/json). */
function mediaType(headers: IncomingHttpHeaders): string {
  return (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** What a request cut short by close() fails with, as an aborted fetch does. */
function aborted(): Error {
  return new DOMException('This operation was aborted', 'AbortError');
}
