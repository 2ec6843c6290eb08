// Requests a client sends before its `initialize` (Claude Code asks `server/discover` first). Baton's server over
// stdio (the SDK's) answers them as it would after the handshake. The owner's HTTP endpoint refuses any request
// outside a session, so a forwarding `baton mcp` sends them on a session of their own with the owner, which it closes
// once the client's own session has begun and they are answered.
import { randomUUID } from 'node:crypto';
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Log } from '../core/ports.js';
import { isAnswer, isRequest, progressReportedFor, progressTokenOf } from '../mcp/jsonRpc.js';
import { sdkTypes } from '../mcp/sdkTypes.js';
import type { OwnerHttpTransport } from './ownerHttpTransport.js';
import type { Upstream } from './proxy.js';

/** Options of an EarlySession. */
export interface EarlySessionOptions {
  /** Opens a connection of its own to the owner. */
  open: () => Upstream;
  toClient: (message: JSONRPCMessage) => void;
  /** The error a request gets when it could not be sent. */
  failed: (request: JSONRPCRequest, ex: unknown) => { code: number; message: string };
  log: Log;
}

/** The id of the early session's own `initialize`. */
const EARLY_INITIALIZE = `baton-proxy-early-${randomUUID()}`;

/** A session of the proxy's own with the owner, for the requests its client sends before `initialize`. */
export class EarlySession {
  private readonly pending = new Map<RequestId, JSONRPCRequest>();
  private upstream: Upstream | null = null;
  private ready: Promise<void> | null = null;
  private initialized: ((answer: JSONRPCMessage) => void) | null = null;
  /** The client's own session has begun: this one closes once nothing waits on it. */
  private ending = false;

  constructor(private readonly options: EarlySessionOptions) {}

  /** How many requests wait here for the owner's answer. */
  get waiting(): number {
    return this.pending.size;
  }

  /** Sends a message of the client's on this session (opened with the first). */
  send(message: JSONRPCMessage): void {
    const request = isRequest(message) ? message : undefined;
    if (request) this.pending.set(request.id, request);
    const ready = (this.ready ??= this.start());
    ready.then(() => this.upstream!.transport.send(message)).catch((ex: unknown) => {
      // A session that could not open is opened again for the next request.
      if (this.ready === ready) void this.close();
      if (request && this.pending.delete(request.id)) this.options.toClient({ jsonrpc: '2.0', id: request.id, error: this.options.failed(request, ex) });
      this.closeIfDone();
    });
  }

  /** Answers every request waiting here with the error `why` gives; what the owner sends for them later is dropped. */
  fail(why: (request: JSONRPCRequest) => string): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const request of waiting) this.options.toClient({ jsonrpc: '2.0', id: request.id, error: { code: -32603, message: why(request) } });
    this.closeIfDone();
  }

  /** The client's own session has begun: this one closes once the requests sent on it are answered. */
  end(): void {
    this.ending = true;
    this.closeIfDone();
  }

  /** Ends the session with the owner (a new one opens if the client sends more). */
  async close(): Promise<void> {
    const upstream = this.upstream;
    this.upstream = null;
    this.ready = null;
    if (!upstream) return;
    this.options.log.debug(`closing the session with ${upstream.name} opened for requests before the client's initialize`);
    await upstream.close();
  }

  private async start(): Promise<void> {
    const upstream = this.options.open();
    this.upstream = upstream;
    upstream.transport.onmessage = (message) => this.fromOwner(message);
    upstream.transport.onerror = (ex) => this.options.log.debug(`owner connection (before the client's initialize): ${ex.message}`);
    await upstream.transport.start();
    const answered = new Promise<JSONRPCMessage>((resolve) => (this.initialized = resolve));
    const clientInfo = { name: 'baton-proxy', version: '1' };
    await upstream.transport.send({ jsonrpc: '2.0', id: EARLY_INITIALIZE, method: 'initialize', params: { protocolVersion: sdkTypes().LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo } });
    const answer = await answered;
    if (!('result' in answer)) throw new Error(`${upstream.name} refused a session: ${JSON.stringify(answer)}`);
    const version = (answer.result as { protocolVersion?: string }).protocolVersion;
    if (version) (upstream.transport as Partial<OwnerHttpTransport>).setProtocolVersion?.(version);
    await upstream.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  private fromOwner(message: JSONRPCMessage): void {
    if (isAnswer(message)) {
      if (message.id === EARLY_INITIALIZE) this.initialized?.(message);
      else if (message.id !== undefined && this.pending.delete(message.id)) this.options.toClient(message);
      this.closeIfDone();
      return;
    }
    // The progress of a request waiting here goes on; the rest (list changes, log lines) is the client's own
    // session's to send.
    const token = progressReportedFor(message);
    if (token !== undefined && [...this.pending.values()].some((r) => progressTokenOf(r) === token)) this.options.toClient(message);
  }

  private closeIfDone(): void {
    if (this.ending && this.pending.size === 0 && this.upstream) void this.close();
  }
}
