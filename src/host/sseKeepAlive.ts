// Keeps an idle SSE stream's connection alive. Node's fetch (undici) gives up on a response body that sends nothing for
// its bodyTimeout (300 s unless set), and proxies and load balancers cut idle connections sooner (often 60 s): the
// session's GET stream, which may carry nothing for hours, and a POST's SSE answer that waits long died with them. A
// comment line (`: keep-alive`) is bytes on the wire that every SSE parser skips: it is no event, carries no id and
// does not move a client's Last-Event-ID, so replay (sseReplay.ts) is untouched. The work is one interval timer per
// stream that looks at the bytes its socket has taken: a stream that carried anything since the last look gets nothing.
import type { ServerResponse } from 'node:http';

/** How long an SSE stream may send nothing before a comment goes out on it (what SSE servers usually use). */
export const SSE_KEEP_ALIVE_MS = 15_000;

/** The comment line written on an idle stream, with the blank line that ends it (a parser dispatches nothing). */
export const KEEP_ALIVE_COMMENT = ': keep-alive\n\n';

/** What keepAliveTick needs of an SSE response (a ServerResponse has it). */
export interface SseSink {
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
  readonly writableNeedDrain: boolean;
  readonly socket: { readonly bytesWritten: number } | null;
  write(chunk: string): boolean;
}

/**
 * One look at a stream: writes the comment if its socket has taken no byte since the last look (`seen`, its count
 * then), and returns the count to compare at the next look; null once the stream is over (stop looking). A stream whose
 * client is not reading (its writes wait to drain) gets no comment: it would only pile up behind them.
 */
export function keepAliveTick(res: SseSink, seen: number): number | null {
  if (res.writableEnded || res.destroyed || !res.socket) return null;
  if (res.socket.bytesWritten === seen && !res.writableNeedDrain) res.write(KEEP_ALIVE_COMMENT);
  return res.socket.bytesWritten;
}

/**
 * Looks at `res` every `everyMs` (keepAliveTick) until it closes; the timer never keeps the process alive. Returns a
 * function that stops it at once (the transport's close, which ends its streams).
 */
export function keepSseAlive(res: ServerResponse, everyMs: number): () => void {
  let seen = res.socket?.bytesWritten ?? 0;
  const timer = setInterval(() => {
    const next = keepAliveTick(res, seen);
    if (next === null) stop();
    else seen = next;
  }, everyMs);
  timer.unref();
  const stop = () => {
    clearInterval(timer);
    res.off('close', stop);
  };
  res.once('close', stop);
  return stop;
}
