// Lets a call that waits on a human gate resume as soon as a person decides.

/** Waiters keyed by execution and step. */
export class GateWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Resolves when `wake` is called for this step, after `ms`, or when `signal` aborts, whichever comes first. */
  wait(executionId: string, stepName: string, ms: number, signal?: AbortSignal): Promise<void> {
    const key = `${executionId}\u0000${stepName}`;
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const set = this.waiting.get(key) ?? new Set();
      this.waiting.set(key, set);
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        set.delete(done);
        if (set.size === 0) this.waiting.delete(key);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      set.add(done);
    });
  }

  /** Wakes every call waiting on this step. */
  wake(executionId: string, stepName: string): void {
    for (const done of [...(this.waiting.get(`${executionId}\u0000${stepName}`) ?? [])]) done();
  }

  /** Wakes everyone (shutdown). */
  wakeAll(): void {
    for (const set of [...this.waiting.values()]) for (const done of [...set]) done();
  }

  /** How many calls are waiting. */
  get size(): number {
    let n = 0;
    for (const set of this.waiting.values()) n += set.size;
    return n;
  }
}
