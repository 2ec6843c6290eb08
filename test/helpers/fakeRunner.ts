// A scripted AgentRunner for unit tests of the pipeline engine: each call's answer comes from a function of the
// request; every invocation is recorded.
import { ZERO_USAGE, type AgentRun, type AgentRunEvent, type AgentRunRequest, type AgentRunResult, type AgentRunner, type TokenUsage } from '../../src/core/pipelines/runner.js';

/** What one scripted call does. */
export interface FakeReply {
  text?: string;
  /** Fail with this error instead of completing. */
  error?: string;
  usage?: Partial<TokenUsage>;
  costUsd?: number;
  /** Wait this long before answering (aborts end it early, with status aborted). */
  delayMs?: number;
  /** Never answer until aborted. */
  hang?: boolean;
  /** Usage events to stream before the answer (each the total so far). */
  stream?: Array<Partial<TokenUsage>>;
}

/** A runner whose replies are scripted. */
export class FakeRunner implements AgentRunner {
  readonly kind = 'command' as const;
  readonly calls: AgentRunRequest[] = [];
  aborted = 0;

  constructor(private readonly script: (req: AgentRunRequest, call: number) => FakeReply) {}

  /** Calls made for one agent. */
  callsOf(agent: string): AgentRunRequest[] {
    return this.calls.filter((c) => c.agent === agent);
  }

  run(req: AgentRunRequest): AgentRun {
    this.calls.push(req);
    const reply = this.script(req, this.calls.length);
    const events: AgentRunEvent[] = [];
    const self = this;
    let settle!: (r: AgentRunResult) => void;
    const result = new Promise<AgentRunResult>((resolve) => (settle = resolve));
    const usage = { ...ZERO_USAGE, ...(reply.usage ?? {}) };
    async function* iterate(): AsyncGenerator<AgentRunEvent> {
      for (const u of reply.stream ?? []) {
        yield { type: 'usage', usage: { ...ZERO_USAGE, ...u } };
        await new Promise((r) => setTimeout(r, 5));
        if (req.signal?.aborted) break;
      }
      const aborted = await new Promise<boolean>((resolve) => {
        if (req.signal?.aborted) return resolve(true);
        const onAbort = () => {
          clearTimeout(t);
          resolve(true);
        };
        const t = reply.hang ? undefined : setTimeout(() => {
          req.signal?.removeEventListener('abort', onAbort);
          resolve(false);
        }, reply.delayMs ?? 0);
        req.signal?.addEventListener('abort', onAbort, { once: true });
      });
      if (aborted) self.aborted++;
      const r: AgentRunResult = {
        status: aborted ? 'aborted' : reply.error ? 'failed' : 'completed', text: aborted ? '' : reply.text ?? `done by ${req.agent}`,
        usage: aborted && reply.stream?.length ? { ...ZERO_USAGE, ...reply.stream.at(-1) } : usage,
        costUsd: reply.costUsd ?? null, costSource: reply.costUsd === undefined ? null : 'cli', toolCalls: 0, malformedLines: 0,
        error: aborted ? 'aborted' : reply.error ?? null, exitCode: aborted ? null : reply.error ? 1 : 0, sessionId: null, durationMs: 0, stderr: '',
      };
      if (r.text) yield { type: 'text', text: r.text };
      yield { type: 'usage', usage: r.usage };
      if (r.costUsd !== null) yield { type: 'cost', usd: r.costUsd };
      yield { type: 'done', result: r };
      settle(r);
    }
    void events;
    return { result, [Symbol.asyncIterator]: () => iterate() };
  }
}
