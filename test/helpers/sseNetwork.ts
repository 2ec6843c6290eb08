// The network between an SDK client and Baton, as the client's fetch: the test sees each connection's status and SSE
// body, can cut open connections (as a proxy's timeout or a sleeping laptop does) and hold back new GETs until it lets
// them through; with `bodyTimeoutMs`, each response body is given up when it sends nothing for that long, as Node's
// fetch (undici) does after its bodyTimeout, 300 s unless set.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

/** One HTTP exchange the client made. */
export interface Connection {
  method: string;
  lastEventId: string | null;
  status: number;
  /** The SSE body as received so far (empty for any other body). */
  body: string;
  cut: AbortController;
}

/** The part of an undici Agent the tests use. */
interface Dispatcher {
  close(): Promise<void>;
}

/**
 * An Agent of the undici inside Node (the one its fetch uses), whose response bodies time out after `bodyTimeoutMs`
 * of silence. Node exports no Agent class, but fetch takes any undici dispatcher, and its global dispatcher, set up by
 * the first fetch, is an instance of that Agent.
 */
async function nodeAgent(bodyTimeoutMs: number): Promise<Dispatcher> {
  await (await fetch('data:,')).text();
  const global = (globalThis as Record<symbol, unknown>)[Symbol.for('undici.globalDispatcher.1')] as object | undefined;
  if (!global) throw new Error("Node's fetch set up no global undici dispatcher: this Node's fetch is not undici");
  const Agent = global.constructor as new (options: { bodyTimeout: number }) => Dispatcher;
  return new Agent({ bodyTimeout: bodyTimeoutMs });
}

/** A network as the header says; `close` ends its Agent (with `bodyTimeoutMs`). */
export function network(options: { bodyTimeoutMs?: number } = {}) {
  const connections: Connection[] = [];
  const attempts: Array<{ method: string; lastEventId: string | null }> = [];
  let held: Promise<void> | null = null;
  let release = () => {};
  const agent = options.bodyTimeoutMs === undefined ? undefined : nodeAgent(options.bodyTimeoutMs);
  const fetchFn: FetchLike = async (url, init) => {
    const method = init?.method ?? 'GET';
    const lastEventId = new Headers(init?.headers).get('last-event-id');
    attempts.push({ method, lastEventId });
    if (method === 'GET' && held) await held;
    const cut = new AbortController();
    init?.signal?.addEventListener('abort', () => cut.abort());
    const dispatcher = agent ? { dispatcher: await agent } : {};
    const res = await fetch(url, { ...init, ...dispatcher, signal: cut.signal } as RequestInit);
    const c: Connection = { method, lastEventId, status: res.status, body: '', cut };
    connections.push(c);
    if (!res.body || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return res;
    const text = new TextDecoder();
    const seen = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        c.body += text.decode(chunk, { stream: true });
        out.enqueue(chunk);
      },
    }));
    return new Response(seen, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return {
    fetchFn,
    connections,
    attempts,
    /** Cuts every open SSE connection of this method. */
    cut: (method: string) => {
      for (const c of connections) if (c.method === method) c.cut.abort();
    },
    hold: () => {
      held = new Promise((r) => (release = r));
    },
    release: () => {
      held = null;
      release();
    },
    close: async () => {
      await (await agent)?.close();
    },
  };
}

/** What two clients subscribed to one resource heard of it: `watcher` is the one under test, `driver` the control. */
export interface HeardUpdates {
  heard: string[];
  driverHeard: string[];
}

/** Subscribes both clients to `uri`, each recording the `resources/updated` of that uri it hears. */
export async function hearUpdates(watcher: Client, driver: Client, uri: string): Promise<HeardUpdates> {
  const got: HeardUpdates = { heard: [], driverHeard: [] };
  watcher.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void (n.params.uri === uri && got.heard.push(uri)));
  driver.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void (n.params.uri === uri && got.driverHeard.push(uri)));
  await watcher.subscribeResource({ uri });
  await driver.subscribeResource({ uri });
  return got;
}
