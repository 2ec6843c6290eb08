// An HTTP request to another Baton process (its health check, a control request), with a time limit that keeps this
// process alive until it fires, and what a failed one means.
//
// On node:http, not fetch: fetch loads undici (about 7 MiB and 20-30 ms of a start), and a forwarding `baton mcp`
// asks the owner's /healthz before anything else. A connection of its own each time (no pool): a kept-alive socket
// the owner has closed meanwhile would fail a health check of an owner that answers. A failure has fetch's shape,
// which the callers' messages name: TypeError('fetch failed') with the socket's error as its cause (ECONNREFUSED: the
// request never reached a process), and a DOMException TimeoutError when nothing came within the limit.
import { request, type ClientRequest } from 'node:http';
import type { Readable } from 'node:stream';

/** The answer to a request: its status, then its body once (as text, or parsed as JSON). */
export interface HttpAnswer {
  readonly ok: boolean;
  readonly status: number;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** What to send: GET with no body unless told. */
export interface HttpAsk {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Sends a request to `url` and reads its answer with `read`, failing (a TimeoutError) if both take longer than `ms`. */
export function requestWithin<T>(url: string | URL, ask: HttpAsk, ms: number, read: (res: HttpAnswer) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const headers: Record<string, string> = { ...ask.headers };
    if (ask.body !== undefined) headers['content-length'] = String(Buffer.byteLength(ask.body));
    const req: ClientRequest = request(url, { method: ask.method ?? 'GET', headers, agent: false }, (res) => {
      const body = bodyText(res);
      body.catch(() => undefined); // read may not ask for it
      const status = res.statusCode ?? 0;
      const answer: HttpAnswer = { ok: status >= 200 && status < 300, status, text: () => body, json: async () => JSON.parse(await body) as unknown };
      read(answer).then((value) => settle(() => resolve(value)), (ex: unknown) => settle(() => reject(ex)));
    });
    const timer = setTimeout(() => {
      const ex = new DOMException(`no answer within ${ms} ms`, 'TimeoutError');
      settle(() => reject(ex));
      req.destroy(ex);
    }, ms);
    req.on('error', (ex) => settle(() => reject(fetchFailed(ex))));
    req.end(ask.body);
  });
}

/**
 * An answer's whole body as text. A connection that fails before its end fails it with `failure` of the socket's error:
 * by default as fetch's would.
 */
export function bodyText(res: Readable & { readonly complete: boolean }, failure: (cause: unknown) => unknown = fetchFailed): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', (ex) => reject(failure(ex)));
    res.on('close', () => {
      if (!res.complete) reject(failure(new Error('the connection closed before the answer ended')));
    });
  });
}

/** A failed connection, as fetch reports one: TypeError('fetch failed'), the socket's error as its cause. */
export function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

/** Whether a send failed because nothing listened any more (so the message was never received). */
export function connectionRefused(ex: unknown): boolean {
  for (let e = ex as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e.code === 'ECONNREFUSED') return true;
  }
  return false;
}
