// The engine's port to durable state: every step transition is written (and flushed) through it before the next
// step starts, and a step it reports as finished is replayed from its record, never run again.
import type { ProcessTrack } from '../agentProcesses.js';
import type { AgentRunner, McpGrant, TokenUsage } from '../runner.js';
import type { PipelineProgress, StepType, SystemAgent } from '../types.js';

/** A step instance: one run of a step (a step inside a loop has one per iteration, e.g. `refine[2]/review`). */
export interface StepInstance {
  name: string;
  type: StepType;
  agent: string | null;
  attempt: number;
  /** human_review: what a rejection does. */
  onReject?: 'fail' | 'continue';
  /** human_review: what the person is asked. */
  prompt?: string;
}

/** What a finished step left: its text output and its variable's value. */
export interface StepRecord {
  status: 'completed' | 'failed';
  output: string;
  value: unknown;
  error: string | null;
}

/** Tokens and dollars a step spent in this pass (all its tries; the journal adds what earlier passes spent). */
export interface StepSpend {
  usage: TokenUsage;
  costUsd: number | null;
  /** The part the ending attempt spent (a retry's earlier tries left out); all of it when absent. */
  attempt?: { usage: TokenUsage; costUsd: number | null };
}

/** Durable state of one run, as the engine sees it. */
export interface RunJournal {
  /** The record of a step instance that finished in an earlier pass, if any. */
  finished(instance: string): StepRecord | undefined;
  /** The attempt a step instance last started, in this pass or an earlier one (0: never): one run again counts on. */
  attempts(instance: string): number;
  /** Durably marks a step instance running (attempt n) before it starts. */
  begin(step: StepInstance): Promise<void>;
  /** Durably records a step's success; an agent step's output also becomes an artifact. */
  complete(step: StepInstance, output: string, value: unknown, spend: StepSpend): Promise<void>;
  /** Durably records a step's failure. */
  fail(step: StepInstance, error: string, spend: StepSpend): Promise<void>;
  /**
   * Durably records, on the run's timeline, an attempt that failed with the step to be tried again after `waitMs` (its
   * retry policy): why, and what that attempt spent. The step stays running; its spend is billed when it ends.
   */
  retrying(step: StepInstance, error: string, spend: StepSpend, waitMs: number): Promise<void>;
  /**
   * Durably puts a step back to pending (the run paused or stopped under it); what it spent stays billed, and what the
   * stopped attempt streamed (`produced`: its text's tail, its tool calls) is kept for the run's view until the step
   * starts again.
   */
  interrupt(step: StepInstance, reason: string, spend: StepSpend, produced?: { text: string; toolCalls: string[] }): Promise<void>;
  /** human_review: durably marks the step awaiting approval and settles once a person decided (its record then). */
  review(step: StepInstance, signal: AbortSignal): Promise<StepRecord>;
}

/** What the engine needs besides the journal. */
export interface EngineDeps {
  journal: RunJournal;
  /** The runner of an agent (the runner registry); throws `runner_unavailable` for a kind this build lacks. */
  runnerFor(agent: SystemAgent): AgentRunner;
  /** The memory context injected into an agent's system prompt ("Context from previous agents"). */
  memoryContext(agent: string): string;
  /** A token to Baton's MCP server for one attempt of an agent step (memory tools scoped to its run and agent), when one is served; revoked when the attempt ends. */
  mcpFor(agent: string): McpGrant | undefined;
  /** The project folder agents work in. */
  cwd: string;
  /** Records the process of one attempt of an agent step while it runs (agentProcesses.ts); none: not recorded. */
  track?(step: string, agent: SystemAgent): ProcessTrack | undefined;
  /** A reason to pause when the run's spend plus `live` (tokens and dollars of steps still running) passes its budget. */
  overBudget(live: { tokens: number; usd: number }): string | null;
  progress(p: PipelineProgress): void;
  /** Why a person stopped the run (an interrupt, which pauses it), if one did; none for a cancel. */
  interruptedBecause?(): string | undefined;
  /** Waits `ms` or until `signal` aborts (retries' backoff). */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}
