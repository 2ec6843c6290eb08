// HTTP/1.1 exchanges with one origin over kept-alive sockets, written and parsed here instead of by node:http's
// ClientRequest and Agent. A forwarding `baton mcp` sends each of its agent's calls to the owner this way; node:http's
// machinery per request cost about twice the CPU of the exchange itself (a 6.5 KB JSON answer: 170-190 against 77-80
// µs a call back to back, 720-780 against 400-440 after a 20 ms pause, as an agent's calls come; docs/performance.md).
//
// An answer is a Readable with the fields of node:http's IncomingMessage that its readers use (statusCode,
// statusMessage, headers, complete), so the transport reads both alike: its body ends with 'end' once whole (then
// `complete`), or fails with 'error' and 'close' when the connection drops before that. A socket goes back to the pool
// only after an answer read to its end that did not ask to close (and, kept there, holds no process up, as node:http's
// Agent's free sockets do not); one the server closes while idle leaves the pool. A server's `Keep-Alive: timeout=N`
// hint is kept as node:http's Agent keeps it: an idle socket is closed, and not reused, after N s less one (none is kept
// for N <= 1), so a request never goes out on a connection the server is closing for idleness (it would be reset
// unread, and the client could not tell whether the call ran). Without a hint, an idle socket stays until either side
// closes it.
// Failures are the socket's errors as node:http gives them (ECONNREFUSED, ECONNRESET for a connection closed before
// the answer's head).
import type { IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';

/** An answer's head and its body as a stream. */
export class KeptAliveAnswer extends Readable {
  statusCode = 0;
  statusMessage = '';
  headers: IncomingHttpHeaders = {};
  /** Whether the whole body arrived. */
  complete = false;

  override _read(): void {
    // The connection pushes the body as it comes.
  }
}

/** Longer heads, chunk-size lines or trailers are refused: an owner's are a few hundred bytes. */
const MAX_LINE_BYTES = 64 * 1024;
const EMPTY: Buffer = Buffer.alloc(0);
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/;
const FORBIDDEN_IN_HEAD = /[\r\n\0]/;
const KEEP_ALIVE_TIMEOUT = /(?:^|[,;\s])timeout\s*=\s*(\d{1,9})\b/i;
/** How much sooner than a server's Keep-Alive hint an idle socket is closed (node:http's agentKeepAliveTimeoutBuffer). */
const KEEP_ALIVE_MARGIN_MS = 1000;

/**
 * How long, in ms, a socket may stay idle by the answer's Keep-Alive header: Infinity without a timeout hint, 0 (do
 * not keep it) for a hint within the margin.
 */
export function idleLimitMs(keepAlive: string | undefined): number {
  const hint = keepAlive === undefined ? undefined : KEEP_ALIVE_TIMEOUT.exec(keepAlive)?.[1];
  return hint === undefined ? Infinity : Math.max(0, Number(hint) * 1000 - KEEP_ALIVE_MARGIN_MS);
}

type State = 'idle' | 'head' | 'length' | 'size' | 'chunk' | 'chunk-end' | 'trailers' | 'eof';

/** A connection that fails for the reason node:http gives. */
function hangUp(message: string): Error {
  return Object.assign(new Error(message), { code: 'ECONNRESET' });
}

/** One socket and the exchange on it, if any. */
class Connection {
  readonly socket: Socket;
  private state: State = 'idle';
  private pending: Buffer = EMPTY;
  private remaining = 0;
  private keepAlive = false;
  private answer: KeptAliveAnswer | null = null;
  private waiting: { resolve: (a: KeptAliveAnswer) => void; reject: (ex: Error) => void } | null = null;
  private failure: Error | undefined;
  /** How long the socket may stay idle after the current answer (its Keep-Alive hint). */
  private idleMs = Infinity;
  /** While kept idle: when it stops being reusable (performance.now()), and the timer that closes it then. */
  private idleUntil = Infinity;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(host: string, port: number, private readonly released: (c: Connection) => void, private readonly lost: (c: Connection) => void) {
    this.socket = connect({ host, port });
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (ex) => (this.failure ??= ex));
    this.socket.on('close', () => this.closed());
  }

  /** Sends a request's head and body; resolves with the answer once its head arrived. */
  exchange(head: string, body: string | undefined): Promise<KeptAliveAnswer> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.state = 'head';
      if (this.idleTimer) {
        clearTimeout(this.idleTimer);
        this.idleTimer = null;
      }
      this.socket.ref();
      this.socket.write(body === undefined ? head : head + body);
    });
  }

  private read(chunk: Buffer): void {
    if (this.pending.length > 0) {
      chunk = Buffer.concat([this.pending, chunk]);
      this.pending = EMPTY;
    }
    let at = 0;
    while (at < chunk.length && !this.socket.destroyed) {
      const next = this.step(chunk, at);
      if (next < 0) {
        // A line not whole yet: kept for the next chunk, unless it is already too long to be one.
        if (chunk.length - at > MAX_LINE_BYTES) return void this.socket.destroy(hangUp('the answer has a head or a line over 64 KB'));
        this.pending = chunk.subarray(at);
        return;
      }
      at = next;
    }
  }

  /** Takes what it can of `chunk` from `at`; returns where it stopped, or -1 to wait for more bytes. */
  private step(chunk: Buffer, at: number): number {
    switch (this.state) {
      case 'idle':
        // Bytes with no request in flight: the server broke the protocol, so the socket is of no further use.
        this.socket.destroy(hangUp('the server sent bytes with no request in flight'));
        return chunk.length;
      case 'head': {
        const end = chunk.indexOf('\r\n\r\n', at);
        if (end < 0) return -1;
        this.head(chunk.toString('latin1', at, end));
        return end + 4;
      }
      case 'length':
      case 'chunk': {
        const n = Math.min(this.remaining, chunk.length - at);
        this.answer!.push(chunk.subarray(at, at + n));
        this.remaining -= n;
        if (this.remaining === 0) {
          if (this.state === 'length') this.finish();
          else this.state = 'chunk-end';
        }
        return at + n;
      }
      case 'size': {
        const eol = chunk.indexOf('\r\n', at);
        if (eol < 0) return -1;
        const text = chunk.toString('latin1', at, eol).split(';', 1)[0]!.trim();
        const size = /^[0-9a-fA-F]{1,12}$/.test(text) ? parseInt(text, 16) : Number.NaN;
        if (Number.isNaN(size)) return this.broken(`a chunk size of ${JSON.stringify(text.slice(0, 40))}`);
        this.state = size === 0 ? 'trailers' : 'chunk';
        this.remaining = size;
        return eol + 2;
      }
      case 'chunk-end':
        if (chunk.length - at < 2) return -1;
        if (chunk[at] !== 0x0d || chunk[at + 1] !== 0x0a) return this.broken('a chunk not followed by CRLF');
        this.state = 'size';
        return at + 2;
      case 'trailers': {
        const eol = chunk.indexOf('\r\n', at);
        if (eol < 0) return -1;
        if (eol === at) this.finish();
        return eol + 2;
      }
      case 'eof':
        this.answer!.push(chunk.subarray(at));
        return chunk.length;
    }
  }

  private broken(what: string): number {
    this.socket.destroy(hangUp(`the answer is not HTTP/1.1: ${what}`));
    return Number.MAX_SAFE_INTEGER;
  }

  /** Parses the answer's head and hands the answer over; its body follows. */
  private head(text: string): void {
    const lines = text.split('\r\n');
    const status = STATUS_LINE.exec(lines[0]!);
    if (!status) return void this.broken(`a status line of ${JSON.stringify(lines[0]!.slice(0, 80))}`);
    const code = Number(status[2]);
    // An interim answer (100 Continue, 103 Early Hints) precedes the one that answers: its head is skipped.
    if (code >= 100 && code < 200 && code !== 101) return;
    const answer = new KeptAliveAnswer();
    answer.statusCode = code;
    answer.statusMessage = status[3] ?? '';
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) return void this.broken(`a header line of ${JSON.stringify(line.slice(0, 80))}`);
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    answer.headers = headers;
    const connection = (headers.connection ?? '').toLowerCase();
    this.idleMs = idleLimitMs(headers['keep-alive']);
    this.keepAlive = (status[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive')) && this.idleMs > 0;
    const length = headers['content-length'];
    if ((headers['transfer-encoding'] ?? '').toLowerCase().includes('chunked')) this.state = 'size';
    else if (code === 204 || code === 304 || code === 101) [this.state, this.remaining] = ['length', 0];
    else if (length !== undefined) {
      if (!/^\d{1,15}$/.test(length)) return void this.broken(`a content-length of ${JSON.stringify(length.slice(0, 40))}`);
      [this.state, this.remaining] = ['length', Number(length)];
    } else [this.state, this.keepAlive] = ['eof', false];
    this.answer = answer;
    const waiting = this.waiting!;
    this.waiting = null;
    waiting.resolve(answer);
    if (this.state === 'length' && this.remaining === 0) this.finish();
  }

  /** The answer's body is whole: the answer ends, and the socket goes back to the pool or is closed. */
  private finish(): void {
    const answer = this.answer!;
    this.answer = null;
    this.state = 'idle';
    answer.complete = true;
    answer.push(null);
    if (!this.keepAlive) return void this.socket.destroy();
    // As node:http's Agent does with a free socket: one kept for the next request does not keep the process alive.
    this.socket.unref();
    this.idleUntil = performance.now() + this.idleMs;
    if (this.idleMs !== Infinity) this.idleTimer = setTimeout(() => this.socket.destroy(), this.idleMs).unref();
    this.released(this);
  }

  /**
   * Whether the socket can carry a request now: not closed, and kept idle for less than its hint allows (checked here
   * too, as a busy event loop runs the closing timer late).
   */
  reusable(): boolean {
    if (this.socket.destroyed || !this.socket.writable) return false;
    if (performance.now() < this.idleUntil) return true;
    this.socket.destroy();
    return false;
  }

  private closed(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.lost(this);
    const failure = this.failure ?? hangUp('socket hang up');
    if (this.waiting) {
      this.waiting.reject(failure);
      this.waiting = null;
    }
    const answer = this.answer;
    this.answer = null;
    if (!answer) return;
    // Read to the connection's end, that answer is whole; any other is cut short.
    if (this.state === 'eof' && !this.failure) {
      answer.complete = true;
      answer.push(null);
    } else {
      answer.destroy(this.failure ?? hangUp('aborted'));
    }
  }
}

/** Requests to the origin of `url`, each on a socket of the pool or a new one. */
export class KeptAliveClient {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly host: string;
  private readonly port: number;
  /** What follows the method in every request's head: the target, the version and the Host header. */
  private readonly target: string;
  private destroyed: Error | undefined;

  constructor(url: URL) {
    if (url.protocol !== 'http:') throw new TypeError(`KeptAliveClient speaks plain HTTP only, not ${url.protocol}`);
    this.host = url.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(url.port) || 80;
    this.target = ` ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  }

  /** Sends `method` to the URL's path with `headers` (and `body`, with its length); resolves with the answer's head. */
  request(method: string, headers: Readonly<Record<string, string>>, body?: string): Promise<KeptAliveAnswer> {
    if (this.destroyed) return Promise.reject(this.destroyed);
    let head = method + this.target;
    for (const [name, value] of Object.entries(headers)) {
      if (FORBIDDEN_IN_HEAD.test(name) || FORBIDDEN_IN_HEAD.test(value)) {
        return Promise.reject(new TypeError(`Invalid character in header content ["${name}"]`));
      }
      head += `${name}: ${value}\r\n`;
    }
    if (body !== undefined) head += `content-length: ${Buffer.byteLength(body)}\r\n`;
    head += 'connection: keep-alive\r\n\r\n';
    let connection = this.idle.pop();
    while (connection && !connection.reusable()) connection = this.idle.pop();
    if (!connection) {
      connection = new Connection(this.host, this.port, (c) => this.idle.push(c), (c) => this.forget(c));
      this.all.add(connection);
    }
    return connection.exchange(head, body);
  }

  /** Ends every exchange in flight with `reason` and closes every socket; later requests fail with it. */
  destroy(reason: Error): void {
    this.destroyed = reason;
    for (const c of [...this.all]) c.socket.destroy(reason);
  }

  private forget(c: Connection): void {
    this.all.delete(c);
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
  }
}
