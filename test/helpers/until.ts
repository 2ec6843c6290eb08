// Polling for tests that wait on something another process or a timer does: `fn` is asked until it answers.

/** Asks `fn` every 20 ms until it returns a truthy value (returned); throws naming `what` after `ms`. */
export async function until<T>(what: string, fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
