// Waiting in tests on something another process or a timer does: `fn` asked until it answers, or a race's time limit.

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

/**
 * Resolves with `value` after `ms`, on a timer that does not keep the process up: the other side of a race with an
 * exit or a close, which would otherwise hold the test file's process for the whole `ms` after the race was won.
 */
export const settlesAfter = <T>(ms: number, value: T): Promise<T> => new Promise<T>((r) => setTimeout(() => r(value), ms).unref());
