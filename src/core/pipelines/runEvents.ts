// An AgentRun built from pushed events: the producer pushes events and finally a result (or a failure); one consumer
// iterates them in order, and `result` settles whether or not anyone iterates.
import type { AgentRun, AgentRunEvent, AgentRunResult } from './runner.js';

/** The producer's side of an AgentRun. */
export class RunEventQueue implements AgentRun {
  readonly result: Promise<AgentRunResult>;
  private readonly buffered: AgentRunEvent[] = [];
  private waiting: ((step: IteratorResult<AgentRunEvent>) => void) | null = null;
  private failWaiting: ((ex: unknown) => void) | null = null;
  private ended = false;
  private failure: { ex: unknown } | null = null;
  private settle!: { resolve: (r: AgentRunResult) => void; reject: (ex: unknown) => void };

  constructor() {
    this.result = new Promise<AgentRunResult>((resolve, reject) => (this.settle = { resolve, reject }));
    // A failed start is reported through the iteration as well; nobody has to await `result` for it.
    this.result.catch(() => undefined);
  }

  /** Hands an event to the consumer (buffered until it asks). Ignored once the run has ended. */
  push(event: AgentRunEvent): void {
    if (this.ended) return;
    if (this.waiting) {
      const wake = this.waiting;
      this.waiting = this.failWaiting = null;
      wake({ value: event, done: false });
    } else {
      this.buffered.push(event);
    }
  }

  /** Ends the run: a `done` event carrying `result`, then the end of the iteration. */
  finish(result: AgentRunResult): void {
    if (this.ended) return;
    this.push({ type: 'done', result });
    this.ended = true;
    this.settle.resolve(result);
    this.wakeAtEnd();
  }

  /** Ends the run without a result (it could not start): the iteration and `result` fail with `ex`. */
  fail(ex: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = { ex };
    this.settle.reject(ex);
    this.wakeAtEnd();
  }

  [Symbol.asyncIterator](): AsyncIterator<AgentRunEvent> {
    return {
      next: () => {
        const event = this.buffered.shift();
        if (event) return Promise.resolve({ value: event, done: false });
        if (this.failure) return Promise.reject(this.failure.ex);
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => {
          this.waiting = resolve;
          this.failWaiting = reject;
        });
      },
    };
  }

  private wakeAtEnd(): void {
    if (!this.waiting) return;
    const wake = this.waiting;
    const fail = this.failWaiting;
    this.waiting = this.failWaiting = null;
    if (this.failure) fail?.(this.failure.ex);
    else wake({ value: undefined, done: true });
  }
}
