// Gathers a burst of calls into one: `schedule()` runs the action once the calls stop for `quietMs`, and, while they
// never stop (agents finishing steps every few ms), at least every `maxWaitMs`, so what the editor shows does not freeze
// for as long as a burst lasts. No 'vscode' import (unit-tested with mocked timers).

/** Timings of a Coalescer: the quiet time a burst ends on, and the longest a scheduled call waits under a steady stream. */
export interface CoalescerTimes {
  quietMs: number;
  maxWaitMs: number;
}

/** The refresh timings the tree, the status bar and the panel share. */
export const REFRESH_TIMES: CoalescerTimes = { quietMs: 100, maxWaitMs: 500 };

/** Runs `action` once per burst of `schedule()` calls (see the file's comment). */
export class Coalescer {
  private quiet: ReturnType<typeof setTimeout> | undefined;
  private deadline: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly action: () => void, private times: CoalescerTimes = REFRESH_TIMES) {}

  /**
   * Learns what one action costs: the longest wait becomes `share` times that (never under the configured one), so a
   * refresh that takes 200 ms on a big database runs at most every 2 s under a steady stream, not every 500 ms.
   */
  costs(ms: number, share = 10, base: CoalescerTimes = REFRESH_TIMES): void {
    this.times = { ...this.times, maxWaitMs: Math.max(base.maxWaitMs, Math.round(ms * share)) };
  }

  /** The longest a call waits now. */
  get maxWaitMs(): number {
    return this.times.maxWaitMs;
  }

  /** Asks for the action: after `quietMs` without another call, or `maxWaitMs` after the first call not yet served. */
  schedule(): void {
    clearTimeout(this.quiet);
    this.quiet = setTimeout(() => this.fire(), this.times.quietMs);
    this.deadline ??= setTimeout(() => this.fire(), this.times.maxWaitMs);
  }

  /** Whether a call waits to be served. */
  get pending(): boolean {
    return this.quiet !== undefined;
  }

  /** Drops what is scheduled (the action ran another way, or its owner is disposed). */
  cancel(): void {
    clearTimeout(this.quiet);
    clearTimeout(this.deadline);
    this.quiet = undefined;
    this.deadline = undefined;
  }

  private fire(): void {
    this.cancel();
    this.action();
  }
}
