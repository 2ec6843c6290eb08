// The workflow engine: interprets a system's steps (agent, sequential, parallel, conditional, loop, human_review,
// transform) against a run journal. Deterministic replay makes resumption exact: a pass walks the workflow from the
// top, a finished step instance is replayed from its record (variables restored, nothing run), so the run goes on
// at the step that was running and no completed step runs twice.
import { BatonError } from '../../errors.js';
import { addUsage, ZERO_USAGE, type AgentRunResult, type McpGrant, type TokenUsage } from '../runner.js';
import { appendStreamed, pushToolCall, STOPPED_TEXT_CHARS, STOPPED_TOOL_CALLS } from '../streamedText.js';
import type { System, SystemAgent, SystemWorkflowStep } from '../types.js';
import { describeCondition, evaluate } from './conditions.js';
import { interpolate, type Variables } from './interpolate.js';
import type { EngineDeps, StepInstance, StepSpend } from './journal.js';
import { transform } from './transform.js';

/** How a pass ended: `paused` (budget), `awaiting_approval` never ends a pass (the engine waits), `aborted` by the signal. */
export interface RunOutcome {
  status: 'completed' | 'failed' | 'paused' | 'aborted';
  error: string | null;
  variables: Variables;
}

/** A step failed for good (after its retries). */
export class StepFailure extends Error {
  constructor(readonly step: string, message: string) {
    super(message);
  }
}

/** The run must pause (budget). */
class PauseRun extends Error {}
/** The run was aborted. */
class AbortRun extends Error {}

interface Scope {
  vars: Variables;
  signal: AbortSignal;
}

/** The memory-context heading the spec shows; runners and tests look for it. */
export const MEMORY_HEADING = '## Context from Previous Agents';

/** Runs one system's workflow for one run. */
export class PipelineEngine {
  private readonly agents: Map<string, SystemAgent>;
  /** Tokens and dollars of agent steps running now, keyed by instance (counted against the budget live). */
  private readonly live = new Map<string, { tokens: number; usd: number }>();
  private pauseReason: string | null = null;
  private runCtl = new AbortController();

  constructor(private readonly system: System, private readonly runId: string, private readonly deps: EngineDeps) {
    this.agents = new Map(system.agents.map((a) => [a.id, a]));
  }

  /** One pass over the workflow from the top; `vars` holds `system.input` and the run's starting variables. */
  async run(vars: Variables, signal: AbortSignal): Promise<RunOutcome> {
    const ctl = new AbortController();
    this.runCtl = ctl;
    this.pauseReason = null;
    const relay = () => ctl.abort();
    signal.addEventListener('abort', relay, { once: true });
    if (signal.aborted) ctl.abort();
    try {
      await this.sequence(this.system.workflow, '', { vars, signal: ctl.signal });
      return { status: 'completed', error: null, variables: vars };
    } catch (ex) {
      if (ex instanceof PauseRun || this.pauseReason) return { status: 'paused', error: this.pauseReason ?? (ex as Error).message, variables: vars };
      if (ex instanceof AbortRun || signal.aborted) return { status: 'aborted', error: 'aborted', variables: vars };
      if (ex instanceof StepFailure) return { status: 'failed', error: `step ${ex.step}: ${ex.message}`, variables: vars };
      if (BatonError.is(ex)) return { status: 'failed', error: ex.message, variables: vars };
      throw ex;
    } finally {
      signal.removeEventListener('abort', relay);
    }
  }

  private async sequence(steps: readonly SystemWorkflowStep[], prefix: string, scope: Scope): Promise<void> {
    for (const s of steps) {
      if (scope.signal.aborted) throw this.pauseReason ? new PauseRun(this.pauseReason) : new AbortRun('aborted');
      await this.step(s, prefix, scope);
    }
  }

  private async step(s: SystemWorkflowStep, prefix: string, scope: Scope): Promise<void> {
    const name = `${prefix}${s.id}`;
    switch (s.type) {
      case 'sequential':
        return this.sequence(s.children ?? [], `${name}/`, scope);
      case 'parallel':
        return this.parallel(s, name, scope);
      case 'conditional': {
        const holds = evaluate(s.condition!, scope.vars);
        return this.sequence((holds ? s.trueBranch : s.falseBranch) ?? [], `${name}/${holds ? 'then' : 'else'}/`, scope);
      }
      case 'loop':
        return this.loop(s, name, scope);
      case 'agent':
      case 'human_review':
      case 'transform':
        return this.leaf(s, name, scope);
    }
  }

  private async loop(s: SystemWorkflowStep, name: string, scope: Scope): Promise<void> {
    const outer = scope.vars.loop;
    try {
      for (let i = 1; i <= s.maxIterations!; i++) {
        scope.vars.loop = { iteration: i, maxIterations: s.maxIterations };
        for (const child of s.children ?? []) {
          if (scope.signal.aborted) throw this.pauseReason ? new PauseRun(this.pauseReason) : new AbortRun('aborted');
          await this.step(child, `${name}[${i}]/`, scope);
          if (s.breakCondition && evaluate(s.breakCondition, scope.vars)) return;
        }
      }
    } finally {
      scope.vars.loop = outer;
    }
  }

  private async parallel(s: SystemWorkflowStep, name: string, scope: Scope): Promise<void> {
    const ctl = new AbortController();
    const relay = () => ctl.abort();
    scope.signal.addEventListener('abort', relay, { once: true });
    const failFast = (s.failurePolicy ?? 'fail_fast') === 'fail_fast';
    const child: Scope = { vars: scope.vars, signal: ctl.signal };
    try {
      const results = await Promise.allSettled((s.children ?? []).map((c) => this.step(c, `${name}/`, child).catch((ex: unknown) => {
        if (failFast) ctl.abort();
        throw ex;
      })));
      const errors = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
      if (errors.length === 0) return;
      const pause = errors.find((e) => e instanceof PauseRun);
      if (pause || this.pauseReason) throw pause ?? new PauseRun(this.pauseReason!);
      if (scope.signal.aborted) throw new AbortRun('aborted');
      const failures = errors.filter((e) => !(e instanceof AbortRun));
      const first = failures[0] ?? errors[0];
      if (failures.length <= 1 && first instanceof Error) throw first;
      throw new StepFailure(name, `${failures.length} of ${results.length} parallel steps failed: ${failures.map((e) => (e as Error).message).join('; ')}`);
    } finally {
      scope.signal.removeEventListener('abort', relay);
    }
  }

  private async leaf(s: SystemWorkflowStep, name: string, scope: Scope): Promise<void> {
    const record = this.deps.journal.finished(name);
    if (record?.status === 'completed') {
      if (s.outputVariable) scope.vars[s.outputVariable] = record.value;
      this.deps.progress({ type: 'step_completed', runId: this.runId, step: name, output: record.output, usage: ZERO_USAGE, costUsd: null, replayed: true });
      return;
    }
    if (s.type === 'transform') return this.transformStep(s, name, scope);
    if (s.type === 'human_review') return this.review(s, name, scope);
    return this.agentStep(s, name, scope);
  }

  private async transformStep(s: SystemWorkflowStep, name: string, scope: Scope): Promise<void> {
    const inst: StepInstance = { name, type: 'transform', agent: null, attempt: 1 };
    await this.deps.journal.begin(inst);
    let value: unknown;
    try {
      value = transform(s, scope.vars);
    } catch (ex) {
      const message = ex instanceof Error ? ex.message : String(ex);
      await this.deps.journal.fail(inst, message, { usage: ZERO_USAGE, costUsd: null });
      this.deps.progress({ type: 'step_failed', runId: this.runId, step: name, error: message });
      throw new StepFailure(name, message);
    }
    const output = typeof value === 'string' ? value : JSON.stringify(value);
    await this.deps.journal.complete(inst, output, value, { usage: ZERO_USAGE, costUsd: null });
    if (s.outputVariable) scope.vars[s.outputVariable] = value;
    this.deps.progress({ type: 'step_completed', runId: this.runId, step: name, output, usage: ZERO_USAGE, costUsd: null, replayed: false });
  }

  private async review(s: SystemWorkflowStep, name: string, scope: Scope): Promise<void> {
    const prompt = interpolate(s.inputTemplate ?? `Review the run of ${this.system.name} so far and approve or reject it.`, scope.vars);
    const inst: StepInstance = { name, type: 'human_review', agent: null, attempt: 1, onReject: s.onReject ?? 'fail', prompt };
    this.deps.progress({ type: 'step_awaiting_approval', runId: this.runId, step: name, prompt });
    let record;
    try {
      record = await this.deps.journal.review(inst, scope.signal);
    } catch (ex) {
      if (scope.signal.aborted) throw this.pauseReason ? new PauseRun(this.pauseReason) : new AbortRun('aborted');
      throw ex;
    }
    if (record.status === 'failed') {
      this.deps.progress({ type: 'step_failed', runId: this.runId, step: name, error: record.error ?? 'rejected' });
      throw new StepFailure(name, record.error ?? 'rejected by a person');
    }
    if (s.outputVariable) scope.vars[s.outputVariable] = record.value;
    this.deps.progress({ type: 'step_completed', runId: this.runId, step: name, output: record.output, usage: ZERO_USAGE, costUsd: null, replayed: false });
  }

  private async agentStep(s: SystemWorkflowStep, name: string, scope: Scope): Promise<void> {
    const agent = this.agents.get(s.agentId!)!;
    const maxAttempts = s.retry?.maxAttempts ?? 1;
    let wait = s.retry?.backoffMs ?? 0;
    let spend: StepSpend = { usage: ZERO_USAGE, costUsd: null };
    // A step started again in a later pass (a resumed run: paused at its budget, interrupted, its process gone) is its
    // next attempt, as a retry is; the retry policy counts only the tries of this pass, which ended in failure.
    const before = this.deps.journal.attempts(name);
    for (let tries = 1; ; tries++) {
      const attempt = before + tries;
      const inst: StepInstance = { name, type: 'agent', agent: agent.id, attempt };
      const over = this.deps.overBudget(this.liveTotal());
      if (over) {
        this.pause(over);
        throw new PauseRun(over);
      }
      await this.deps.journal.begin(inst);
      this.deps.progress({ type: 'step_started', runId: this.runId, step: name, stepType: 'agent', agent: agent.id, attempt });
      const got = await this.attempt(s, agent, name, scope);
      spend = {
        usage: addUsage(spend.usage, got.result.usage), costUsd: sumCost(spend.costUsd, got.result.costUsd),
        attempt: { usage: got.result.usage, costUsd: got.result.costUsd },
      };
      this.live.delete(name);
      if (got.result.status === 'completed') {
        // Finished work is kept even when the run is pausing or stopping around it: it was paid for.
        const output = got.result.text;
        await this.deps.journal.complete(inst, output, output, spend);
        if (s.outputVariable) scope.vars[s.outputVariable] = output;
        this.deps.progress({ type: 'step_completed', runId: this.runId, step: name, output, usage: spend.usage, costUsd: spend.costUsd, replayed: false });
        return;
      }
      if (got.paused || this.pauseReason) {
        await this.deps.journal.interrupt(inst, this.pauseReason ?? 'budget exceeded', spend, got.streamed);
        throw new PauseRun(this.pauseReason ?? 'budget exceeded');
      }
      if (scope.signal.aborted) {
        await this.deps.journal.interrupt(inst, this.deps.interruptedBecause?.() ?? 'aborted', spend, got.streamed);
        throw new AbortRun('aborted');
      }
      const error = got.timedOut ? `timed out after ${s.timeoutMs} ms` : got.result.error ?? `ended ${got.result.status}`;
      if (tries >= maxAttempts || got.fatal) {
        await this.deps.journal.fail(inst, error, spend);
        this.deps.progress({ type: 'step_failed', runId: this.runId, step: name, error });
        throw new StepFailure(name, tries > 1 ? `${error} (after ${tries} attempts)` : error);
      }
      await this.deps.journal.retrying(inst, error, spend, wait);
      this.deps.progress({ type: 'step_retry', runId: this.runId, step: name, attempt, error, waitMs: wait });
      await this.deps.sleep(wait, scope.signal);
      wait = Math.round(wait * (s.retry?.multiplier ?? 2));
    }
  }

  /** One attempt of an agent step: streams its events, enforces the timeout and the budget. */
  private async attempt(s: SystemWorkflowStep, agent: SystemAgent, name: string, scope: Scope) {
    const ctl = new AbortController();
    const relay = () => ctl.abort();
    scope.signal.addEventListener('abort', relay, { once: true });
    let timedOut = false;
    let paused = false;
    const timer = s.timeoutMs ? setTimeout(() => { timedOut = true; ctl.abort(); }, s.timeoutMs) : undefined;
    const prompt = interpolate(s.inputTemplate ?? '{{system.input}}', scope.vars);
    const memory = this.deps.memoryContext(agent.id);
    const systemPrompt = [agent.systemPromptOverride, memory].filter(Boolean).join('\n\n') || undefined;
    let result: AgentRunResult;
    // What the attempt wrote and called, kept with the step if it is stopped (paused, interrupted) before it ends.
    const streamed = { text: '', toolCalls: [] as string[] };
    let grant: McpGrant | undefined;
    const track = this.deps.track?.(name, agent);
    try {
      grant = this.deps.mcpFor(agent.id);
      const run = this.deps.runnerFor(agent).run({
        agent: agent.id, model: agent.modelConfig?.model, systemPrompt, prompt, mcp: grant?.endpoint, cwd: this.deps.cwd,
        env: agent.env, timeoutMs: s.timeoutMs, signal: ctl.signal, allowedTools: agent.allowedTools, price: agent.price,
        onProcess: track?.onProcess,
      });
      for await (const ev of run) {
        if (ev.type === 'text') {
          streamed.text = appendStreamed(streamed.text, ev.text, ev.delta === true, STOPPED_TEXT_CHARS);
          this.deps.progress({ type: 'step_output', runId: this.runId, step: name, text: ev.text, ...(ev.delta ? { delta: true as const } : {}) });
        }
        if (ev.type === 'tool_call') {
          pushToolCall(streamed.toolCalls, ev.name, ev.server, STOPPED_TOOL_CALLS);
          this.deps.progress({ type: 'step_tool_call', runId: this.runId, step: name, name: ev.name, server: ev.server });
        }
        if (ev.type === 'usage' || ev.type === 'cost') {
          const cur = this.live.get(name) ?? { tokens: 0, usd: 0 };
          if (ev.type === 'usage') cur.tokens = ev.usage.input + ev.usage.output;
          else cur.usd = ev.usd;
          this.live.set(name, cur);
          if (ev.type === 'usage') this.deps.progress({ type: 'step_usage', runId: this.runId, step: name, usage: ev.usage, costUsd: null });
          const over = this.deps.overBudget(this.liveTotal());
          if (over && !paused) {
            paused = true;
            this.pause(over);
          }
        }
      }
      result = await run.result;
    } catch (ex) {
      const fatal = BatonError.is(ex) && (ex.reason as string) === 'runner_unavailable';
      result = failedResult(ex instanceof Error ? ex.message : String(ex));
      return { result, timedOut, paused, fatal, streamed };
    } finally {
      // The step's token ends with it: nothing the agent left running can act for the run afterwards.
      grant?.revoke();
      if (timer) clearTimeout(timer);
      scope.signal.removeEventListener('abort', relay);
      // The run settles once its process ended and its group was killed: nothing is left to find again.
      await track?.ended();
    }
    return { result, timedOut, paused, fatal: false, streamed };
  }

  /** Stops every running step: the run pauses once they are all put back. */
  private pause(reason: string): void {
    this.pauseReason ??= reason;
    this.runCtl.abort();
  }

  private liveTotal(): { tokens: number; usd: number } {
    let tokens = 0;
    let usd = 0;
    for (const v of this.live.values()) {
      tokens += v.tokens;
      usd += v.usd;
    }
    return { tokens, usd };
  }

  /** Why the run paused, if it did. */
  get pausedBecause(): string | null {
    return this.pauseReason;
  }

  /** A condition as text (for events). */
  static describe = describeCondition;
}

function sumCost(a: number | null, b: number | null): number | null {
  return a === null && b === null ? null : (a ?? 0) + (b ?? 0);
}

function failedResult(error: string): AgentRunResult {
  return {
    status: 'failed', text: '', usage: ZERO_USAGE as TokenUsage, costUsd: null, costSource: null, toolCalls: 0, malformedLines: 0,
    error, exitCode: null, sessionId: null, durationMs: 0, stderr: '',
  };
}
