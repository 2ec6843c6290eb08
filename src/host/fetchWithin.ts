// A fetch to another Baton process whose time limit keeps this process alive until it fires.
//
// AbortSignal.timeout's timer does not keep the event loop alive. A process killed just as it accepted a connection
// closes it before reading the request, and undici then neither answers nor fails that fetch: with nothing else
// pending, a CLI command (baton approve) ended there with exit code 0, having done nothing.

/** Fetches `url` and reads its answer with `read`, failing (a TimeoutError) if both take longer than `ms`. */
export async function fetchWithin<T>(url: string | URL, init: RequestInit, ms: number, read: (res: Response) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')), ms);
  try {
    return await read(await fetch(url, { ...init, signal: controller.signal }));
  } finally {
    clearTimeout(timer);
  }
}
