// The stdio side of `baton mcp` in the process that owns the database, from its first moment: it answers `initialize`
// and `tools/list` from the build-time catalog while the engine loads (and a method the server does not have with
// Method not found), holds every other message, and once the server is connected hands it the client's handshake and
// the held messages, in order. A `baton mcp` that forwards to an owner of the same build does the same while it loads
// the engine and reaches the owner (then the proxy takes it). If the database cannot be opened, it answers every call
// with that error instead. It imports only types from the SDK: it runs before the engine.
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCNotification, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Log } from '../core/ports.js';
import { initializeResult, toolsListResult, type McpCatalog } from '../mcp/catalog.js';
import {
  batchesAllowed, batchRefusal, idInUse, invalidMessage, isRequestId, limitText, MAX_MESSAGE_BYTES, methodNotFound, TOO_LARGE_FIX,
} from '../mcp/invalidMessage.js';
import { jsonTextOf } from '../mcp/jsonText.js';
import { tracePoint } from '../shared/tracePoints.js';

/** What the client set up on its session: what a proxy replays to another server to carry the session on there. */
export interface FrontSession {
  initialize: JSONRPCRequest | null;
  initialized: JSONRPCNotification | null;
  subscriptions: string[];
}

/** Options of a StdioFront. */
export interface StdioFrontOptions {
  catalog: McpCatalog;
  toolGroups: readonly string[];
  log: Log;
  /** Where messages come from and go to; the process's stdin and stdout unless a test passes others. */
  input?: Readable;
  output?: Writable;
  /**
   * How long the front waits after each message of the handshake (`initialize`, `notifications/initialized`) for
   * `tools/list` before it asks for the engine anyway: the engine's load holds the event loop, so a `tools/list`
   * arriving meanwhile would wait for it. A message that needs the engine asks for it at once. Default 100 ms.
   */
  graceMs?: number;
}

/** The catalog of a front attached before it reads (`StdioFront.ready`): it never answers from one. */
const NO_CATALOG: McpCatalog = { initialize: { protocolVersion: '' }, protocolVersions: [], groups: [] };

/** The id under which the client's `initialize` is replayed to the server (whose answer to it is dropped). */
const REPLAY_ID = 'baton-stdio-front-initialize';
/** A line longer than this is refused. */
const MAX_LINE = MAX_MESSAGE_BYTES;
/** How much of a refused line's start and end is kept, to find its id. */
const KEEP = 256;

/** A line over MAX_LINE being skipped: its size so far, its first bytes and its last. */
interface Oversize {
  bytes: number;
  head: Buffer;
  tail: Buffer;
}

/**
 * The id of a request too large to parse, from its first or last bytes: `"id":…` first after `{"jsonrpc":"2.0",`
 * (as most clients write it), or last before the closing brace (as the SDK's client writes it). Only the top
 * level's last key can be followed by the line's one closing brace, so a nested `"id"` is never taken for it.
 */
export function oversizeId(head: string, tail: string): string | number | undefined {
  const value = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*\}\s*$/.exec(tail)?.[1]
    ?? /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*,/.exec(head)?.[1];
  if (value === undefined) return undefined;
  const id = JSON.parse(value) as unknown;
  return isRequestId(id) ? id : undefined;
}

type Raw = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: Record<string, unknown> };

/** A message as JSON, or undefined when the line is not JSON (the SDK's parser reports it once attached). */
function peek(line: string): Raw | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Raw) : undefined;
  } catch {
    return undefined;
  }
}

function isRequest(m: Raw | undefined): m is Raw & { id: string | number; method: string } {
  return !!m && m.jsonrpc === '2.0' && typeof m.method === 'string' && (typeof m.id === 'string' || (typeof m.id === 'number' && Number.isInteger(m.id)));
}

/** Whether `initialize` params are well formed (a malformed one is left to the SDK, which answers with its error). */
function validInitialize(p: Record<string, unknown> | undefined): boolean {
  const info = p?.clientInfo as { name?: unknown; version?: unknown } | undefined;
  return typeof p?.protocolVersion === 'string' && typeof p.capabilities === 'object' && p.capabilities !== null
    && typeof info?.name === 'string' && typeof info.version === 'string';
}

/** The MCP transport `baton mcp` serves on stdio as the owner of the database. */
export class StdioFront implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  /** Resolves when the engine is needed: a held message, `tools/list` answered, or the grace time after `initialize`. */
  readonly engineWanted: Promise<void>;
  private wantEngine!: () => void;
  private phase: 'early' | 'attached' | 'failed' | 'closed' = 'early';
  /** The pieces of the line being read (none holds a newline), and their length. */
  private pieces: Buffer[] = [];
  private pieceBytes = 0;
  /** The line over MAX_LINE being skipped, if any. */
  private oversize: Oversize | null = null;
  private readonly held: string[] = [];
  private initialize: (Raw & { id: string | number }) | null = null;
  /** The client's session as the server saw it (see session). */
  private readonly seen: FrontSession = { initialize: null, initialized: null, subscriptions: [] };
  /** The replayed initialize's answer is still to come (and to be dropped). */
  private replayed = false;
  private deserialize: ((line: string) => JSONRPCMessage) | null = null;
  private failure = '';
  /** The protocol version the client asked for in its `initialize` (batches depend on it). */
  private protocolVersion: string | undefined;
  /** The requests of a JSON-RPC batch still being answered, by id: their answers go out together, as one array. */
  private readonly batches = new Map<string | number, { waiting: Set<string | number>; answers: JSONRPCMessage[] }>();
  /**
   * Ids of the requests handed to the server and not yet answered (nor cancelled): a request that reuses one is
   * refused, as the HTTP transport refuses it in a session (the SDK's server would answer both under one id).
   */
  private readonly inFlight = new Set<string | number>();
  /** Ids of the held requests not yet answered after `attach`. */
  private readonly waiting = new Set<string | number>();
  private allAnswered: () => void = () => undefined;
  private grace: ReturnType<typeof setTimeout> | undefined;
  private readonly input: Readable;
  private readonly output: Writable;
  private listening = false;
  /** Stdout failed: the client reads nothing more (see onOutputError). */
  private outputFailed = false;
  private attachWhenStarted: ((line: string) => JSONRPCMessage) | null = null;

  constructor(private readonly options: StdioFrontOptions) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.engineWanted = new Promise<void>((resolve) => {
      this.wantEngine = () => {
        clearTimeout(this.grace);
        resolve();
      };
    });
  }

  /**
   * A front for a server or proxy that is ready before the client speaks (`baton mcp` forwarding to another owner, or
   * owning the database after all): attached at once, so it has no handshake of its own and needs no catalog. It
   * starts reading when its server or proxy starts it.
   */
  static ready(log: Log, deserialize: (line: string) => JSONRPCMessage): StdioFront {
    const front = new StdioFront({ catalog: NO_CATALOG, toolGroups: [], log });
    void front.attach(deserialize);
    return front;
  }

  /** Starts reading; the engine is wanted after the grace time even if the client says nothing. */
  listen(): void {
    if (this.listening) return;
    this.listening = true;
    this.input.on('data', this.ondata);
    this.input.prependListener('end', this.onend); // before the shutdown's: the last line goes to the server first
    this.input.on('error', this.onInputError);
    this.output.on('error', this.onOutputError);
    this.armGrace();
  }

  /** Part of Transport: the server connects; messages stay held until `attach`. Reads from now on if not yet. */
  async start(): Promise<void> {
    this.listen();
    const deserialize = this.attachWhenStarted;
    this.attachWhenStarted = null;
    if (deserialize) void this.attach(deserialize);
  }

  /**
   * Attaches the front when whatever takes it over (a proxy to the owner, or a server after all) starts it: for a
   * front that answered the handshake for another process (a forwarding `baton mcp`, see `ownerFront`).
   */
  attachOnStart(deserialize: (line: string) => JSONRPCMessage): void {
    this.attachWhenStarted = deserialize;
  }

  /**
   * The server is connected: it gets the client's `initialize` (if the front answered it), then every held message,
   * each read with the SDK's `deserialize`; from now on every line goes to it. Resolves once the held requests have
   * all been answered.
   */
  attach(deserialize: (line: string) => JSONRPCMessage): Promise<void> {
    if (this.phase !== 'early') return Promise.resolve();
    this.deserialize = deserialize;
    this.phase = 'attached';
    clearTimeout(this.grace);
    const held = this.held.splice(0);
    for (const line of held) {
      const m = peek(line);
      if (isRequest(m)) this.waiting.add(m.id);
    }
    const answered = new Promise<void>((resolve) => (this.allAnswered = resolve));
    if (this.waiting.size === 0) this.allAnswered();
    if (this.initialize) {
      this.replayed = true;
      this.onmessage?.({ ...this.initialize, id: REPLAY_ID } as JSONRPCMessage);
    }
    for (const line of held) this.dispatch(line);
    return answered;
  }

  /**
   * The client's handshake and the resources it subscribed to (and did not unsubscribe from): what another server
   * needs to carry on its session when this one stops serving it (see forwardWhenLost in mcpEngine.ts).
   */
  session(): FrontSession {
    const initialize = this.seen.initialize ?? (this.initialize as JSONRPCRequest | null);
    return { initialize, initialized: this.seen.initialized, subscriptions: [...this.seen.subscriptions] };
  }

  /**
   * Resolves once every request read so far has its answer (or was cancelled), those held for the engine too: what an
   * owner waits for when its client closes stdin, or the server's close would drop the answers of calls sent just
   * before (the SDK aborts every request still running when its server closes).
   */
  async answered(): Promise<void> {
    const open = () => (this.phase === 'early' ? this.held.some((line) => isRequest(peek(line)))
      : this.phase === 'attached' && (this.inFlight.size > 0 || this.batches.size > 0));
    while (open()) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Whether the front answers the client itself still: no server or proxy has taken it over, nor is it closed. */
  get unattached(): boolean {
    return this.phase === 'early' || this.phase === 'failed';
  }

  /** The engine could not open: every held and later call is answered with `message` (a later one words it anew). */
  fail(message: string): void {
    if (this.phase === 'failed') this.failure = message;
    if (this.phase !== 'early') return;
    this.failure = message;
    this.phase = 'failed';
    clearTimeout(this.grace);
    for (const line of this.held.splice(0)) this.answerFailed(line);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const m = message as Raw;
    if (this.replayed && m.id === REPLAY_ID && m.method === undefined) {
      this.replayed = false; // one answer only: a client may use that id too, and its answers go through
      if ('error' in m) this.options.log.warn(`the server refused the client's replayed initialize: ${JSON.stringify(m)}`);
      return Promise.resolve();
    }
    if (m.method === undefined) this.inFlight.delete(m.id as string | number);
    const batch = this.batches.size && m.method === undefined ? this.batches.get(m.id as string | number) : undefined;
    if (batch) {
      this.batches.delete(m.id as string | number);
      batch.waiting.delete(m.id as string | number);
      batch.answers.push(message);
      return batch.waiting.size ? Promise.resolve() : this.write(batch.answers);
    }
    const written = this.write(message);
    if (m.method === undefined && this.waiting.delete(m.id as string | number) && this.waiting.size === 0) this.allAnswered();
    return written;
  }

  async close(): Promise<void> {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    clearTimeout(this.grace);
    this.input.off('data', this.ondata);
    this.input.off('end', this.onend);
    this.input.off('error', this.onInputError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.pieces = [];
    this.oversize = null;
    this.onclose?.();
  }

  /**
   * Stdout failed (EPIPE: the client closed its end, or died): nothing written reaches it any more. Unhandled, the
   * error ended the process with a stack trace and no orderly stop (its discovery file left behind); stdin is ended
   * instead, so the process stops as when its client closes stdin, and later answers are dropped.
   */
  private readonly onOutputError = (error: Error) => {
    if (this.outputFailed) return;
    this.outputFailed = true;
    this.options.log.warn(`stdout: ${error.message}; the client reads no answers any more, so this process stops`);
    this.input.destroy();
  };

  private readonly onInputError = (error: Error) => {
    this.options.log.warn(`stdin: ${error.message}`);
    this.onerror?.(error);
  };

  /**
   * Splits what arrives into lines. A line's pieces are held until its newline comes and joined once (the SDK's
   * ReadBuffer joins and searches everything held on every chunk, which takes seconds for a line of a few MB). A line
   * over MAX_LINE is skipped to its end and answered with an error, carrying its id when its first or last bytes
   * show it, so the client is not left waiting for an answer that never comes.
   */
  private readonly ondata = (chunk: Buffer) => {
    let start = 0;
    while (this.phase !== 'closed') {
      const end = chunk.indexOf(0x0a, start);
      if (end === -1) return this.hold(chunk.subarray(start));
      this.hold(chunk.subarray(start, end));
      start = end + 1;
      this.endLine();
    }
  };

  /**
   * Stdin ended: a last line with no newline after it is still a message (the SDK's transport drops it, and a client
   * that wrote its last request so, `printf` in a script, waited for an answer that never came).
   */
  private readonly onend = () => {
    if (this.phase !== 'closed' && (this.pieceBytes > 0 || this.oversize)) this.endLine();
  };

  /** The line whose pieces are held is whole: it is taken as a message (or refused, over MAX_LINE). */
  private endLine(): void {
    if (this.oversize) {
      this.refuseOversize(this.oversize);
      this.oversize = null;
      return;
    }
    // A byte order mark is not JSON, but RFC 8259 lets a parser ignore one, and encoders that write it (.NET's
    // UTF8Encoding(true), PowerShell 5) put it before a client's first line: its initialize would never be answered.
    const line = (this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces)).toString('utf8').replace(/^\uFEFF/, '').replace(/\r$/, '');
    this.pieces = [];
    this.pieceBytes = 0;
    if (!/\S/.test(line)) return; // a blank line is no message (the SDK's own transport skips it too)
    if (this.phase === 'attached') this.dispatch(line);
    else if (this.phase === 'failed') this.answerFailed(line);
    else this.early(line);
  }

  /** Holds a piece of the current line, or counts it (keeping its last bytes) once the line is over MAX_LINE. */
  private hold(piece: Buffer): void {
    if (piece.length === 0) return;
    if (!this.oversize && this.pieceBytes + piece.length > MAX_LINE) {
      const head = Buffer.concat([...this.pieces, piece], Math.min(KEEP, this.pieceBytes + piece.length)); // copies KEEP bytes, no more
      this.oversize = { bytes: this.pieceBytes, head, tail: Buffer.alloc(0) };
      this.pieces = [];
      this.pieceBytes = 0;
    }
    if (this.oversize) {
      this.oversize.bytes += piece.length;
      this.oversize.tail = Buffer.concat([this.oversize.tail, piece.subarray(-KEEP)]).subarray(-KEEP);
      return;
    }
    this.pieces.push(piece);
    this.pieceBytes += piece.length;
  }

  /** Answers a line that was over MAX_LINE: Invalid Request, with its id if one shows. */
  private refuseOversize(line: Oversize): void {
    const most = limitText(MAX_LINE);
    this.report(new Error(`a line of ${line.bytes} bytes is over the ${most} one message may be; it was skipped`));
    const id = oversizeId(line.head.toString('utf8'), line.tail.toString('utf8').replace(/\r$/, ''));
    const message = `Invalid Request: the message is ${line.bytes} bytes, over the ${most} one message may be; ${TOO_LARGE_FIX}`;
    void this.error(-32600, message, id);
  }

  private dispatch(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = this.deserialize!(line);
    } catch (ex) {
      this.refuse(line, ex as Error);
      return;
    }
    if (!this.admit(message)) {
      void this.error(-32600, idInUse((message as Raw).id as string | number, 'a request in flight'), (message as Raw).id as string | number);
      return;
    }
    if ((message as Raw).method === 'initialize') this.noteVersion((message as Raw).params);
    this.note(message);
    this.onmessage?.(message);
  }

  /**
   * Counts a request in flight until its answer, or refuses it (false) when its id is in flight already; a client's
   * cancel ends its request (the server sends no answer to it).
   */
  private admit(message: JSONRPCMessage): boolean {
    const m = message as Raw;
    if (typeof m.method !== 'string') return true;
    if (m.method === 'notifications/cancelled' && m.id === undefined) {
      const cancelled = (m.params as { requestId?: unknown } | undefined)?.requestId;
      if (isRequestId(cancelled)) this.inFlight.delete(cancelled);
      return true;
    }
    if (!isRequestId(m.id)) return true;
    if (this.inFlight.has(m.id)) return false;
    this.inFlight.add(m.id);
    return true;
  }

  /** Keeps what `session` returns. */
  private note(message: JSONRPCMessage): void {
    const m = message as Raw;
    const uri = m.params?.uri;
    if (m.method === 'initialize' && isRequestId(m.id)) this.seen.initialize = message as JSONRPCRequest;
    else if (m.method === 'notifications/initialized' && m.id === undefined) this.seen.initialized = message as JSONRPCNotification;
    else if (typeof uri !== 'string') return;
    else if (m.method === 'resources/subscribe' && !this.seen.subscriptions.includes(uri)) this.seen.subscriptions.push(uri);
    else if (m.method === 'resources/unsubscribe') this.seen.subscriptions = this.seen.subscriptions.filter((u) => u !== uri);
  }

  private noteVersion(params: Record<string, unknown> | undefined): void {
    if (typeof params?.protocolVersion === 'string') this.protocolVersion = params.protocolVersion;
  }

  /**
   * A line the server cannot take as one message: JSON that is not JSON-RPC gets an Invalid Request answer naming
   * what is wrong, a line that is not JSON a Parse error (neither has an id the client could wait on otherwise); an
   * array is a JSON-RPC batch, answered as one array when the client speaks MCP 2025-03-26 (or older), refused as
   * one Invalid Request error from 2025-06-18 on, which removed batches.
   */
  private refuse(line: string, error: Error): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.report(error);
      void this.error(-32700, `Parse error: ${error.message}. Send one JSON-RPC message per line.`);
      return;
    }
    if (Array.isArray(value)) {
      if (batchesAllowed(this.protocolVersion)) return this.batch(value);
      void this.error(-32600, batchRefusal(this.protocolVersion));
      return;
    }
    this.report(error);
    const invalid = invalidMessage(value, error);
    if (invalid.answered) void this.write(invalid.answer);
  }

  /** A JSON-RPC batch: each message goes to the server; the answers (and errors for bad members) go out as one array. */
  private batch(items: unknown[]): void {
    if (!items.length) {
      void this.error(-32600, 'Invalid Request: an empty batch');
      return;
    }
    const batch = { waiting: new Set<string | number>(), answers: [] as JSONRPCMessage[] };
    const messages: JSONRPCMessage[] = [];
    for (const item of items) {
      let message: JSONRPCMessage;
      try {
        message = this.deserialize!(JSON.stringify(item));
      } catch (ex) {
        const invalid = invalidMessage(item, ex as Error);
        if (invalid.answered) batch.answers.push(invalid.answer);
        continue;
      }
      const id = (message as Raw).id;
      if (!this.admit(message)) {
        batch.answers.push({ jsonrpc: '2.0', id, error: { code: -32600, message: idInUse(id as string | number, 'a request in flight') } } as JSONRPCMessage);
        continue;
      }
      if ('method' in message && isRequestId(id)) {
        batch.waiting.add(id);
        this.batches.set(id, batch);
      }
      messages.push(message);
    }
    if (!batch.waiting.size && batch.answers.length) void this.write(batch.answers);
    for (const message of messages) this.onmessage?.(message);
  }

  private report(error: Error): void {
    if (this.onerror) this.onerror(error);
    else this.options.log.warn(`stdin: ${error.message}`);
  }

  /** Before the engine: answers what the catalog knows, holds the rest. */
  private early(line: string): void {
    const m = peek(line);
    const { catalog, toolGroups } = this.options;
    if (isRequest(m)) {
      if (m.method === 'initialize' && !this.initialize && validInitialize(m.params)) {
        this.initialize = m;
        this.noteVersion(m.params);
        void this.reply(m.id, initializeResult(catalog, m.params!.protocolVersion));
        this.armGrace();
        return;
      }
      if (m.method === 'tools/list' && m.params?.cursor === undefined) { // a cursor is the server's to refuse
        void this.reply(m.id, toolsListResult(catalog, toolGroups));
        this.wantEngine();
        return;
      }
      if (m.method === 'ping') {
        void this.reply(m.id, {});
        return;
      }
      // A method the server does not have gets its Method not found at once, as the server would answer it (Claude
      // Code asks `server/discover` before `initialize`, and waits for the answer): the engine is not needed for it.
      if (catalog.methods && !catalog.methods.includes(m.method)) {
        void this.error(-32601, methodNotFound(m.method, catalog.methods), m.id);
        return;
      }
    }
    this.held.push(line);
    // The handshake's last message needs no engine (the client's tools/list usually follows it); everything else does.
    if (m?.method === 'notifications/initialized' && m.id === undefined) this.armGrace();
    else this.wantEngine();
  }

  /** After a failed open: tool calls and reads get the error; lists are empty; notifications are dropped. */
  private answerFailed(line: string): void {
    const m = peek(line);
    if (!isRequest(m)) return;
    const { catalog, toolGroups } = this.options;
    switch (m.method) {
      case 'initialize':
        // The server's instructions reach the model at once (Claude Code puts them in its context): the failure, there.
        void this.reply(m.id, { ...initializeResult(catalog, m.params?.protocolVersion), instructions: this.failure });
        return;
      case 'tools/list':
        void this.reply(m.id, toolsListResult(catalog, toolGroups));
        return;
      case 'tools/call':
        void this.reply(m.id, { content: [{ type: 'text', text: this.failure }], isError: true });
        return;
      case 'prompts/list':
        void this.reply(m.id, { prompts: [] });
        return;
      case 'resources/list':
        void this.reply(m.id, { resources: [] });
        return;
      case 'resources/templates/list':
        void this.reply(m.id, { resourceTemplates: [] });
        return;
      case 'ping':
      case 'logging/setLevel':
        void this.reply(m.id, {});
        return;
      default:
        void this.error(-32603, this.failure, m.id);
    }
  }

  private armGrace(): void {
    clearTimeout(this.grace);
    this.grace = setTimeout(() => this.wantEngine(), this.options.graceMs ?? 100);
  }

  private reply(id: string | number, result: Record<string, unknown>): Promise<void> {
    return this.write({ result, jsonrpc: '2.0', id } as JSONRPCMessage);
  }

  /** An error answer; without an id when the message it answers had none the client could wait on. */
  private error(code: number, message: string, id?: string | number): Promise<void> {
    return this.write({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code, message } } as JSONRPCMessage);
  }

  private write(message: JSONRPCMessage | JSONRPCMessage[]): Promise<void> {
    tracePoint?.('send');
    return new Promise((resolve) => {
      // A message passed on as it came (an owner's answer, see jsonText.ts) is written as its text.
      const text = (Array.isArray(message) ? undefined : jsonTextOf(message)) ?? JSON.stringify(message);
      if (this.outputFailed || this.output.write(text + '\n')) resolve();
      else this.output.once('drain', resolve);
    });
  }
}
