// Pipeline runs as executions: a run is an execution of kind `pipeline` in the same tables and state machine as
// every other, each step instance a step row, each agent step's output an artifact. This class is the engine's
// durable journal (every step transition is written and flushed before the next step starts), the human_review
// gate, budgets with their per-step / per-agent / per-run roll-ups, and resumption (which first stops the agents the
// run's earlier process left running: agentProcesses.ts).
import type { ExecutionRepo, ExecutionRow } from '../broker/executionRepo.js';
import type { AgentProcesses, LeftoverOutcome, LiveAgent } from './agentProcesses.js';
import { BatonError, echo } from '../errors.js';
import type { CorePorts } from '../ports.js';
import type { BatonEvent, ExecutionStatus } from '../types.js';
import { PipelineEngine, type RunOutcome } from './engine/engine.js';
import type { EngineDeps, RunJournal, StepInstance, StepRecord, StepSpend } from './engine/journal.js';
import type { Variables } from './engine/interpolate.js';
import type { Memory } from './memory.js';
import { MEMORY_LIMITS } from './memory.js';
import { isMoving } from '../stateMachine.js';
import { budgetReasonText, money, statusText, tokenCount } from '../../shared/labels.js';
import { executionFacts } from '../broker/submittedOutput.js';
import { addUsage, ZERO_USAGE, type AgentRunner, type McpGrant, type TokenUsage } from './runner.js';
import type { Budget, PipelineProgress, System, SystemAgent, SystemWorkflowStep } from './types.js';

/** Resolves an agent to its runner: the host's runner registry. */
export type RunnerResolver = (agent: SystemAgent) => AgentRunner;

/** What a run keeps in its execution's metadata. */
export interface PipelineRunMeta {
  [key: string]: unknown;
  origin: 'pipeline';
  system: System;
  input: string;
  variables: Record<string, string>;
  budget: Budget | null;
  cwd: string;
  source: string | null;
  pause_reason?: string | null;
  usage?: RunUsage;
}

/** Tokens and dollars rolled up per step, per agent and for the run. */
export interface RunUsage {
  total: { usage: TokenUsage; tokens: number; costUsd: number };
  byAgent: Record<string, { usage: TokenUsage; tokens: number; costUsd: number; steps: number }>;
  bySteps: Record<string, { agent: string | null; usage: TokenUsage; tokens: number; costUsd: number | null }>;
}

/** Options of a pass. */
export interface DriveOptions {
  signal?: AbortSignal;
  onProgress?: (p: PipelineProgress) => void;
}

/**
 * The pause reason of a run stopped by a person or by the process driving it closing (`cause`: "Ctrl-C", …), which
 * `baton pipeline resume` goes on with as it is; `isInterruption` tells it from a budget's.
 */
export function interruptedReason(cause: string): string {
  return `interrupted (${cause})`;
}

/** Whether a pause reason is an interruption's (interruptedReason), not a budget's. */
export function isInterruption(reason: string | null | undefined): reason is string {
  return reason?.startsWith('interrupted (') === true;
}

/** Whether a run is paused at its budget (paused, and not by an interruption): it waits for the budget to be raised. */
export function isBudgetPause(run: { status: string; pauseReason: string | null | undefined }): boolean {
  return run.status === 'paused' && !isInterruption(run.pauseReason);
}

/** A run as `baton pipeline list` shows it. */
export interface PipelineRunSummary {
  runId: string;
  system: string;
  status: ExecutionStatus;
  currentStep: string | null;
  startedAt: string;
  updatedAt: string;
  pauseReason: string | null;
  usage: RunUsage['total'] | null;
  budget: Budget | null;
  /** Its recorded agents still alive (a run's process that died may have left them running); absent when none. */
  agents?: LiveAgent[];
  /** Unfinished, and no process drives it (the one that did ended): it goes on with resume. Absent from an older owner. */
  orphaned?: boolean;
  /** Whether a person or agent cancelled it (its status is then `failed`); absent from an older owner. */
  cancelled?: boolean;
  /** Why a failed (not cancelled) run failed, in full ("step one: command exited with code 3: …"); absent otherwise. */
  error?: string;
}

/** One run as the editor's panel shows it: its system (the step graph), budget, spend and why it paused. */
export interface PipelineRunView {
  runId: string;
  system: System;
  input: string;
  status: ExecutionStatus;
  budget: Budget | null;
  pauseReason: string | null;
  usage: RunUsage;
  /** Unfinished, and no process drives it (the one that did ended): it goes on with resume. Absent from an older owner. */
  orphaned?: boolean;
  /** What the run asked a person at each human_review step it reached (filled in). Absent from an older owner. */
  prompts?: Record<string, string>;
  /**
   * What rejecting each human_review step it reached does: `fail` ends the run, failed with the reason; `continue`
   * lets it go on with the review not approved. Absent from an older owner.
   */
  onReject?: Record<string, ReviewRejection>;
  /**
   * The agent steps put back to pending when the run paused or stopped under them: what the stopped attempt streamed
   * (its tail) and why it stopped, until the step starts again. Absent from an older owner.
   */
  stopped?: Record<string, StoppedAttempt>;
}

/** An agent step's attempt stopped before it ended: what it had streamed (its text's tail, its tool calls) and why. */
export interface StoppedAttempt {
  text: string;
  /** "server/tool", the last ones. */
  toolCalls: string[];
  reason: string;
}

/** The stopped attempt kept in a step row's metadata, if the row is pending with one. */
function stoppedOf(row: Pick<StepRowLite, 'status' | 'metadata'>): StoppedAttempt | null {
  if (row.status !== 'pending') return null;
  try {
    const s = (JSON.parse(row.metadata) as { stopped?: { text?: unknown; toolCalls?: unknown; reason?: unknown } }).stopped;
    if (!s || typeof s.text !== 'string' || typeof s.reason !== 'string') return null;
    const toolCalls = Array.isArray(s.toolCalls) ? s.toolCalls.filter((t): t is string => typeof t === 'string') : [];
    return { text: s.text, toolCalls, reason: s.reason };
  } catch {
    return null;
  }
}

/** What rejecting a pipeline's human_review step does to its run. */
export type ReviewRejection = 'fail' | 'continue';

/** What rejecting `stepName` of a run does, as the run recorded it (the engine's default, fail, when not known). */
export function rejectionAt(view: Pick<PipelineRunView, 'onReject'>, stepName: string): ReviewRejection {
  return view.onReject?.[stepName] ?? 'fail';
}

/** The prompt and onReject a human_review step instance was begun with (kept in its row's metadata), if any. */
function reviewOf(metadata: string): { prompt: string | null; onReject: ReviewRejection } | null {
  try {
    const m = JSON.parse(metadata) as { type?: string; prompt?: unknown; on_reject?: unknown };
    if (m.type !== 'human_review') return null;
    // As decideInTx reads it: only `continue` lets the run go on.
    return { prompt: typeof m.prompt === 'string' ? m.prompt : null, onReject: m.on_reject === 'continue' ? 'continue' : 'fail' };
  } catch {
    return null;
  }
}

/** What the pipelines need from the facade. */
export interface PipelineDeps {
  ports: CorePorts;
  repo: ExecutionRepo;
  memory: Memory;
  processes: AgentProcesses;
  projectId: () => number;
  emit: (events: BatonEvent[]) => void;
  event: (executionId: string, type: string, data: unknown) => void;
}

type StepRowLite = {
  step_name: string; status: string; output: string | null; metadata: string; error: string | null; position: number; attempt: number;
};

const tokensOf = (u: TokenUsage) => u.input + u.output;

/** Pipeline runs: start, drive, resume, gates and budgets. */
export class PipelineRuns {
  private runners: RunnerResolver = (agent) => {
    throw new BatonError('runner_unavailable' as never, `No runners are registered in this process; the ${agent.runner} runner of agent ${agent.id} cannot start.`);
  };
  private mcp: (runId: string, agent: string) => McpGrant | undefined = () => undefined;
  /** The tokens lent to each run's agent steps and not yet revoked. */
  private readonly grants = new Map<string, Set<McpGrant>>();
  private readonly reviewWaiters = new Map<string, () => void>();
  private readonly driving = new Map<string, AbortController>();
  /** The passes under way, settled once each has written how it ended. */
  private readonly passes = new Set<Promise<unknown>>();
  /** Runs whose resumption is under way (stopping what their earlier process left running takes a while). */
  private readonly resuming = new Set<string>();
  /** Runs a person interrupted (Ctrl-C, the terminal closing), with why: their pass pauses rather than fails. */
  private readonly interrupting = new Map<string, string>();
  private driven = 0;
  private readonly watchers = new Set<(p: PipelineProgress) => void>();

  constructor(private readonly deps: PipelineDeps) {}

  /** Installs the runner registry (the host's, src/host/pipelines/runnerRegistry.ts). */
  setRunners(resolver: RunnerResolver): void {
    this.runners = resolver;
  }

  /**
   * Hears the progress of every run this process drives, whoever started it (the editor's panel follows runs that
   * `baton pipeline run` started through the owner's `pipeline_start`); returns the unsubscribe.
   */
  watch(listener: (p: PipelineProgress) => void): () => void {
    this.watchers.add(listener);
    return () => void this.watchers.delete(listener);
  }

  /**
   * Installs how an agent step of a run reaches Baton's MCP server: `issue` lends a bearer token for the run and agent
   * (the owner's), revoked when the step's attempt ends, and every token of a run when a pass over it ends (completed,
   * failed, paused or aborted).
   */
  setMcp(issue: (runId: string, agent: string) => McpGrant | undefined): void {
    this.mcp = issue;
  }

  private lend(runId: string, agent: string): McpGrant | undefined {
    const grant = this.mcp(runId, agent);
    if (!grant) return undefined;
    const held = this.grants.get(runId) ?? new Set<McpGrant>();
    this.grants.set(runId, held);
    const lent: McpGrant = {
      endpoint: grant.endpoint,
      revoke: () => {
        if (!held.delete(lent)) return;
        if (held.size === 0 && this.grants.get(runId) === held) this.grants.delete(runId);
        grant.revoke();
      },
    };
    held.add(lent);
    return lent;
  }

  /** Revokes every token a run's agent steps still hold. */
  private revokeAll(runId: string): void {
    for (const grant of [...(this.grants.get(runId) ?? [])]) grant.revoke();
  }

  /** How many tokens a run's steps hold now (0 once its steps ended). */
  liveTokens(runId: string): number {
    return this.grants.get(runId)?.size ?? 0;
  }

  private now() {
    const ms = this.deps.ports.clock.now();
    return { ms, iso: new Date(ms).toISOString() };
  }

  /** Creates a run (an execution in `running`) of `system`; drive it with `drive`. */
  async start(system: System, opts: { input: string; variables?: Record<string, string>; budget?: Budget; cwd: string; source?: string }): Promise<string> {
    const id = this.deps.ports.ids.uuid();
    const { iso } = this.now();
    const meta: PipelineRunMeta = {
      origin: 'pipeline', system, input: opts.input, variables: { ...(system.variables ?? {}), ...(opts.variables ?? {}) },
      budget: opts.budget ?? system.budget ?? null, cwd: opts.cwd, source: opts.source ?? null,
    };
    await this.deps.ports.store.transaction(() => {
      this.deps.repo.insertExecution({
        execution_id: id, kind: 'pipeline', template_id: null, template_name: system.name, task_id: null, project_id: this.deps.projectId(),
        status: 'running', now: iso, metadata: meta,
      });
      this.deps.ports.store.run('UPDATE executions SET created_at = ?, run_started_at = ? WHERE execution_id = ?', [iso, iso, id]);
      this.deps.event(id, 'pipeline_started', { system: system.name, input: opts.input, budget: meta.budget, source: meta.source });
    });
    this.deps.emit([{ type: 'execution', execution_id: id, task_id: null, status: 'running' }]);
    return id;
  }

  /** A pipeline run's execution row; `execution_not_found` otherwise. */
  run(runId: string): ExecutionRow & { metadata: PipelineRunMeta } {
    const exec = this.deps.repo.execution(runId);
    if (!exec || exec.kind !== 'pipeline') {
      throw new BatonError('execution_not_found', `No pipeline run ${echo(runId)}; list runs with \`baton pipeline list\`.`);
    }
    return exec as ExecutionRow & { metadata: PipelineRunMeta };
  }

  /**
   * Makes a paused run runnable again: `budget` replaces its limits (a person raised them); a run still over its
   * budget is refused with the figures. A `running` run (its process died) may have agents that process left running:
   * they are stopped first (proven ones; a live one that cannot be proved to be the agent refuses the resumption unless
   * `forgetAgents`). Returns what was done with those that had not ended on their own.
   */
  async prepareResume(runId: string, budget?: Budget, opts: { forgetAgents?: boolean } = {}): Promise<LeftoverOutcome[]> {
    let exec = this.resumable(runId);
    const meta = { ...exec.metadata, budget: budget ? { ...(exec.metadata.budget ?? {}), ...budget } : exec.metadata.budget };
    const spent = this.usage(runId).total;
    const over = overBy(meta.budget, spent, { tokens: 0, usd: 0 });
    if (over) {
      // In words for whoever asked (a person in the panel, a terminal): what the new limit must pass.
      const tokensOver = meta.budget?.tokens !== undefined && spent.tokens > meta.budget.tokens;
      const above = tokensOver ? `a token budget above ${tokenCount(spent.tokens)}` : `a budget above ${money(spent.costUsd)}`;
      throw new BatonError('budget_exceeded' as never, `Run ${runId} is still over its budget: ${budgetReasonText(over)}. Resume it with ${above}.`, {
        limit: tokensOver ? 'tokens' : 'usd',
      });
    }
    this.resuming.add(runId);
    try {
      const left = await this.deps.processes.stopLeftovers(runId, opts.forgetAgents ? 'forget' : 'refuse');
      exec = this.resumable(runId, true); // it may have been cancelled meanwhile
      const { iso } = this.now();
      const events: BatonEvent[] = [];
      await this.deps.ports.store.transaction(() => {
        const fields: Partial<ExecutionRow> = { metadata: { ...meta, pause_reason: null } };
        if (exec.status === 'paused' || exec.status === 'timeout' || exec.status === 'escalated') fields.status = 'running';
        this.deps.repo.updateExecution(runId, fields, iso, exec.status);
        this.deps.event(runId, 'pipeline_resumed', { budget: meta.budget, from: exec.status });
        if (fields.status) events.push({ type: 'execution', execution_id: runId, task_id: null, status: 'running' });
      });
      this.deps.emit(events);
      return left.filter((o) => o.outcome !== 'ended');
    } finally {
      this.resuming.delete(runId);
    }
  }

  /** The run, if it can be resumed now; `invalid_state` otherwise (`mine`: this call is the resumption under way). */
  private resumable(runId: string, mine = false): ExecutionRow & { metadata: PipelineRunMeta } {
    const exec = this.run(runId);
    if (exec.status === 'completed' || exec.status === 'failed') {
      throw new BatonError('invalid_state', `Run ${runId} is ${statusText(exec.status, executionFacts(exec).cancelled)}; only a paused or interrupted run can be resumed. Start a new one with \`baton pipeline run\`.`);
    }
    if (this.driving.has(runId) || (!mine && this.resuming.has(runId))) throw new BatonError('invalid_state', `Run ${runId} is already running in this process.`);
    return exec;
  }

  /** Runs a pass of the run to its end (completed, failed, paused or aborted); completed steps are replayed, not re-run. */
  drive(runId: string, opts: DriveOptions = {}): Promise<RunOutcome> {
    const pass = this.pass(runId, opts);
    const settled = pass.then(() => undefined, () => undefined);
    this.passes.add(settled);
    void settled.then(() => this.passes.delete(settled));
    return pass;
  }

  /**
   * Pauses every run this process drives, as a person interrupting it would (`why`), and waits up to `waitMs` for
   * their passes to write how they ended: their agents are stopped (SIGTERM, SIGKILL after the runners' grace) and
   * `baton pipeline resume` goes on with them. For a process that closes the database under its runs.
   */
  async interruptAll(why: string, waitMs = 5_000): Promise<void> {
    for (const id of [...this.driving.keys()]) this.interrupt(id, why);
    if (this.passes.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all([...this.passes]), new Promise((r) => (timer = setTimeout(r, waitMs)))]);
    clearTimeout(timer);
  }

  private async pass(runId: string, opts: DriveOptions): Promise<RunOutcome> {
    const exec = this.run(runId);
    if (exec.status !== 'running' && exec.status !== 'awaiting_approval') {
      throw new BatonError('invalid_state', `Run ${runId} is ${statusText(exec.status, executionFacts(exec).cancelled)}; ${exec.status === 'paused' ? `resume it with \`baton pipeline resume ${runId}\`` : 'it cannot run'}.`);
    }
    const ctl = new AbortController();
    this.driving.set(runId, ctl);
    this.driven++;
    const relay = () => ctl.abort();
    opts.signal?.addEventListener('abort', relay, { once: true });
    const meta = exec.metadata;
    const journal = new Journal(this, runId, this.loadSteps(runId), plannedSteps(meta.system.workflow));
    const progress = (p: PipelineProgress) => {
      opts.onProgress?.(p);
      for (const w of [...this.watchers]) {
        try {
          w(p);
        } catch (ex) {
          // A listener's bug must not stop the run it listens to.
          this.deps.ports.log.warn(`pipeline progress listener failed on ${p.type} of run ${runId}`, ex);
        }
      }
    };
    const deps: EngineDeps = {
      journal,
      runnerFor: (agent) => this.runners(agent),
      memoryContext: (agent) => this.deps.memory.contextFor(runId, agent),
      mcpFor: (agent) => this.lend(runId, agent),
      cwd: meta.cwd,
      track: (step, agent) => this.deps.processes.track(runId, step, agent.id, agent.runner),
      // The budget cannot change while this process drives the run (resume refuses a run being driven).
      overBudget: (live) => overBy(meta.budget, journal.total(), live),
      progress,
      interruptedBecause: () => this.interrupting.get(runId),
      sleep: (ms, signal) => new Promise<void>((resolve) => {
        const t = setTimeout(done, ms);
        function done() {
          clearTimeout(t);
          signal.removeEventListener('abort', done);
          resolve();
        }
        signal.addEventListener('abort', done, { once: true });
      }),
    };
    const vars: Variables = { ...meta.variables, system: { input: meta.input, name: meta.system.name, runId } };
    const engine = new PipelineEngine(meta.system, runId, deps);
    try {
      let outcome = await engine.run(vars, ctl.signal);
      const interrupted = outcome.status === 'aborted' ? this.interrupting.get(runId) : undefined;
      // Stopped by a person who may go on later: the running step was put back, the run waits for resume.
      if (interrupted !== undefined) outcome = { ...outcome, status: 'paused', error: interrupted };
      await this.finish(runId, outcome, journal, interrupted !== undefined);
      // A pass stopped under it ("aborted") and not interrupted was cancelled: the run is failed with the mark.
      const cancelled = outcome.status === 'aborted' && executionFacts(this.run(runId)).cancelled;
      progress({ type: 'run_finished', runId, status: outcome.status === 'aborted' ? 'failed' : outcome.status, error: cancelled ? 'cancelled' : outcome.error });
      return outcome;
    } finally {
      this.revokeAll(runId);
      this.driving.delete(runId);
      this.interrupting.delete(runId);
      opts.signal?.removeEventListener('abort', relay);
    }
  }

  /**
   * Stops a run this process drives as a person interrupting it (Ctrl-C, the terminal closing): like `abort`, but the
   * run pauses (`why` as its reason) instead of failing, and `baton pipeline resume` goes on from the step it stopped.
   * False when this process does not drive it.
   */
  interrupt(runId: string, why: string): boolean {
    if (!this.driving.has(runId)) return false;
    if (!this.interrupting.has(runId)) this.interrupting.set(runId, why);
    this.abort(runId);
    return true;
  }

  /** Stops a run this process drives (cancel); its running steps are put back and the run ends. */
  abort(runId: string): void {
    this.driving.get(runId)?.abort();
    this.revokeAll(runId);
    for (const [key, wake] of this.reviewWaiters) if (key.startsWith(`${runId}\u0000`)) wake();
  }

  /**
   * Whether a run is unfinished and no process drives it: runs are driven only by the database's owner, so one this
   * process (the owner, or a reader with no owner) does not drive was left by a process that ended.
   */
  isOrphaned(exec: Pick<ExecutionRow, 'execution_id' | 'status'>): boolean {
    return isMoving(exec.status) && !this.driving.has(exec.execution_id) && !this.resuming.has(exec.execution_id);
  }

  /** Whether this process drives the run now. */
  isDriving(runId: string): boolean {
    return this.driving.has(runId);
  }

  /** The runs this process drives now. */
  drivingIds(): string[] {
    return [...this.driving.keys()];
  }

  /** How many runs this process has driven (or begun to), ended ones included. */
  get drivenCount(): number {
    return this.driven;
  }

  private async finish(runId: string, outcome: RunOutcome, journal: Journal, interrupted = false): Promise<void> {
    const exec = this.run(runId);
    if (exec.status === 'completed' || exec.status === 'failed') return; // cancelled under us
    const { ms, iso } = this.now();
    const usage = journal.rollup();
    const events: BatonEvent[] = [];
    await this.deps.ports.store.transaction(() => {
      const meta: PipelineRunMeta = { ...exec.metadata, usage };
      const started = Date.parse(exec.started_at);
      if (outcome.status === 'completed') {
        const vars = Object.fromEntries(Object.entries(outcome.variables).filter(([k]) => k !== 'system' && k !== 'loop'));
        this.deps.repo.finalizeArtifacts(runId);
        this.deps.repo.updateExecution(runId, { status: 'completed', progress: 100, current_step: null, completed_at: iso, duration_ms: ms - started, metadata: meta }, iso, exec.status);
        this.deps.ports.store.run('UPDATE executions SET output = ? WHERE execution_id = ?', [JSON.stringify(vars), runId]);
        this.deps.event(runId, 'workflow_completed', { usage: usage.total });
      } else if (outcome.status === 'paused') {
        // A review waiting beside the step that passed the budget: the run is running again before it pauses.
        if (exec.status === 'awaiting_approval') this.deps.repo.updateExecution(runId, { status: 'running' }, iso, exec.status);
        this.deps.repo.updateExecution(runId, { status: 'paused', metadata: { ...meta, pause_reason: outcome.error } }, iso, 'running');
        if (interrupted) this.deps.event(runId, 'pipeline_interrupted', { reason: outcome.error, usage: usage.total });
        else this.deps.event(runId, 'budget_exceeded', { reason: outcome.error, usage: usage.total, budget: meta.budget });
      } else {
        const error = outcome.status === 'aborted' ? 'aborted' : outcome.error;
        if (exec.status === 'awaiting_approval') this.deps.repo.updateExecution(runId, { status: 'running' }, iso, exec.status);
        this.deps.repo.updateExecution(runId, { status: 'failed', current_step: null, completed_at: iso, duration_ms: ms - started, metadata: meta }, iso, 'running');
        this.deps.ports.store.run('UPDATE executions SET error = ? WHERE execution_id = ?', [error, runId]);
        this.deps.event(runId, 'workflow_failed', { error });
      }
      events.push({ type: 'execution', execution_id: runId, task_id: null, status: this.run(runId).status });
    });
    this.deps.emit(events);
  }

  private loadSteps(runId: string): Map<string, StepRowLite> {
    const rows = this.deps.ports.store.all<StepRowLite>('SELECT step_name, status, output, metadata, error, position, attempt FROM steps WHERE execution_id = ?', [runId]);
    return new Map(rows.map((r) => [r.step_name, r]));
  }

  /** Tokens and dollars of a run rolled up per step, per agent and in total (every attempt counts). */
  usage(runId: string): RunUsage {
    return rollup(this.loadSteps(runId));
  }

  /** A run with its system, budget and spend per step, per agent and in total. */
  view(runId: string): PipelineRunView {
    const exec = this.run(runId);
    const meta = exec.metadata;
    const steps = this.loadSteps(exec.execution_id);
    const prompts: Record<string, string> = {};
    const onReject: Record<string, ReviewRejection> = {};
    const stopped: Record<string, StoppedAttempt> = {};
    for (const row of steps.values()) {
      const attempt = stoppedOf(row);
      if (attempt) stopped[row.step_name] = attempt;
      const review = reviewOf(row.metadata);
      if (!review) continue;
      if (review.prompt !== null) prompts[row.step_name] = review.prompt;
      onReject[row.step_name] = review.onReject;
    }
    return {
      runId: exec.execution_id, system: meta.system, input: meta.input, status: exec.status, budget: meta.budget ?? null,
      pauseReason: meta.pause_reason ?? null, usage: rollup(steps), orphaned: this.isOrphaned(exec), prompts, onReject, stopped,
    };
  }

  /** Pipeline runs, newest first. */
  list(limit = 50): PipelineRunSummary[] {
    const live = this.deps.processes.live();
    return this.deps.repo.executions({ limit: 500 }).filter((e) => e.kind === 'pipeline').slice(0, limit).map((e) => {
      const meta = e.metadata as unknown as PipelineRunMeta;
      const agents = live.get(e.execution_id);
      const cancelled = executionFacts(e).cancelled;
      return {
        runId: e.execution_id, system: e.template_name ?? '', status: e.status, currentStep: e.current_step, startedAt: e.started_at,
        updatedAt: e.updated_at, pauseReason: meta.pause_reason ?? null, usage: this.usage(e.execution_id).total, budget: meta.budget ?? null,
        ...(agents ? { agents } : {}), orphaned: this.isOrphaned(e), cancelled,
        ...(e.status === 'failed' && !cancelled && e.error ? { error: e.error } : {}),
      };
    });
  }

  // ---- the human_review gate, decided through Baton.decide (panel, CLI, elicitation) ----

  /**
   * Records a person's decision on a pipeline's human_review step (inside Baton.decide's transaction): approve
   * completes it; reject fails it, or completes it with approved=false when the step says `onReject: continue`.
   */
  decideInTx(exec: ExecutionRow, stepName: string, d: { decision: 'approve' | 'reject'; feedback?: string; by?: string }, events: BatonEvent[]): void {
    const row = this.deps.repo.step(exec.execution_id, stepName)!;
    const { ms, iso } = this.now();
    const approved = d.decision === 'approve';
    const value = { approved, feedback: d.feedback ?? null, by: d.by ?? null };
    const continueOnReject = (row.metadata as { on_reject?: string }).on_reject === 'continue';
    const status = approved || continueOnReject ? 'completed' : 'failed';
    const text = approved ? `Approved${d.feedback ? `: ${d.feedback}` : ''}` : `Rejected: ${d.feedback ?? ''}`;
    this.deps.repo.updateStep(exec.execution_id, stepName, {
      status, output: { text, value }, outcome_summary: text, completed_at: iso, duration_ms: row.started_at ? ms - Date.parse(row.started_at) : null,
      feedback: d.feedback ?? null,
    });
    if (status === 'failed') this.deps.ports.store.run('UPDATE steps SET error = ? WHERE execution_id = ? AND step_name = ?', [`rejected by ${d.by ?? 'a person'}: ${d.feedback ?? ''}`, exec.execution_id, stepName]);
    this.deps.event(exec.execution_id, approved ? 'gate_approved' : 'gate_rejected', { step_name: stepName, by: d.by ?? null, feedback: d.feedback ?? null });
    const waiting = this.deps.repo.stepsWithStatus(exec.execution_id, ['awaiting_approval']).length;
    if (exec.status === 'awaiting_approval' && waiting === 0) this.deps.repo.updateExecution(exec.execution_id, { status: 'running' }, iso, exec.status);
    events.push({ type: 'step', execution_id: exec.execution_id, step_name: stepName, status }, {
      type: 'execution', execution_id: exec.execution_id, task_id: null, status: this.deps.repo.execution(exec.execution_id)!.status,
    });
  }

  /** Wakes the engine waiting on a decided review step (after the decision is durable). */
  wake(runId: string, stepName: string): void {
    this.reviewWaiters.get(`${runId}\u0000${stepName}`)?.();
  }

  /** @internal the journal's wait for a decision */
  waitForDecision(runId: string, stepName: string, signal: AbortSignal): Promise<void> {
    const key = `${runId}\u0000${stepName}`;
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        this.reviewWaiters.delete(key);
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.reviewWaiters.delete(key);
        reject(new Error('aborted'));
      };
      this.reviewWaiters.set(key, done);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** @internal */
  get internals() {
    return { deps: this.deps, now: () => this.now() };
  }
}

/** The reason a run is over budget with `live` spend on top of `total`, or null. */
function overBy(budget: Budget | null | undefined, total: RunUsage['total'], live: { tokens: number; usd: number }): string | null {
  if (!budget) return null;
  const tokens = total.tokens + live.tokens;
  const usd = total.costUsd + live.usd;
  if (budget.tokens !== undefined && tokens > budget.tokens) return `budget_exceeded: ${tokens} tokens used, budget ${budget.tokens}`;
  if (budget.usd !== undefined && usd > budget.usd) return `budget_exceeded: $${usd.toFixed(4)} spent, budget $${budget.usd}`;
  return null;
}

function spentOf(metadata: string): { usage: TokenUsage; costUsd: number | null; agent: string | null } {
  try {
    const m = JSON.parse(metadata) as { usage?: TokenUsage; cost_usd?: number | null; agent?: string | null };
    return { usage: m.usage ?? ZERO_USAGE, costUsd: m.cost_usd ?? null, agent: m.agent ?? null };
  } catch {
    return { usage: ZERO_USAGE, costUsd: null, agent: null };
  }
}

function rollup(steps: Map<string, StepRowLite>): RunUsage {
  const out: RunUsage = { total: { usage: ZERO_USAGE, tokens: 0, costUsd: 0 }, byAgent: {}, bySteps: {} };
  for (const row of steps.values()) {
    const s = spentOf(row.metadata);
    out.bySteps[row.step_name] = { agent: s.agent, usage: s.usage, tokens: tokensOf(s.usage), costUsd: s.costUsd };
    out.total = { usage: addUsage(out.total.usage, s.usage), tokens: out.total.tokens + tokensOf(s.usage), costUsd: out.total.costUsd + (s.costUsd ?? 0) };
    if (s.agent) {
      const a = out.byAgent[s.agent] ?? { usage: ZERO_USAGE, tokens: 0, costUsd: 0, steps: 0 };
      out.byAgent[s.agent] = { usage: addUsage(a.usage, s.usage), tokens: a.tokens + tokensOf(s.usage), costUsd: a.costUsd + (s.costUsd ?? 0), steps: a.steps + 1 };
    }
  }
  return out;
}

/**
 * How many step instances a pass over `steps` runs at least: a loop's children once, a conditional's larger arm
 * (rows are written only as steps start, so the steps not reached yet are counted from the system).
 */
export function plannedSteps(steps: readonly SystemWorkflowStep[]): number {
  return steps.reduce((n, s) => {
    switch (s.type) {
      case 'sequential':
      case 'parallel':
      case 'loop':
        return n + plannedSteps(s.children ?? []);
      case 'conditional':
        return n + Math.max(plannedSteps(s.trueBranch ?? []), plannedSteps(s.falseBranch ?? []));
      default:
        return n + 1;
    }
  }, 0);
}

/**
 * A running run's progress: its done steps over the larger of its recorded and planned steps, below 100 until the run
 * has finished (only `finish` says 100: a run whose last step or gate still runs is not done).
 */
export function runningProgress(counts: Partial<Record<string, number>>, planned: number): number {
  const recorded = Object.values(counts).reduce<number>((a, b) => a + (b ?? 0), 0);
  const total = Math.max(recorded, planned);
  const done = (counts.completed ?? 0) + (counts.skipped ?? 0);
  return total ? Math.min(99, Math.round((done * 100) / total)) : 0;
}

/** The durable journal of one pass over one run. */
class Journal implements RunJournal {
  private position: number;
  /** The run's spend so far, kept up to date as steps end (the budget is checked before every step). */
  private spent: RunUsage['total'];

  constructor(
    private readonly runs: PipelineRuns, private readonly runId: string, private readonly rows: Map<string, StepRowLite>,
    private readonly planned: number,
  ) {
    this.position = Math.max(0, ...[...rows.values()].map((r) => r.position)) + 1;
    this.spent = rollup(rows).total;
  }

  private get deps() {
    return this.runs.internals.deps;
  }

  finished(name: string): StepRecord | undefined {
    const row = this.rows.get(name);
    if (!row || (row.status !== 'completed' && row.status !== 'failed')) return undefined;
    const out = row.output ? (JSON.parse(row.output) as { text: string; value: unknown }) : { text: '', value: '' };
    return { status: row.status, output: out.text, value: out.value, error: row.error };
  }

  attempts(name: string): number {
    return this.rows.get(name)?.attempt ?? 0;
  }

  total(): RunUsage['total'] {
    return this.spent;
  }

  rollup(): RunUsage {
    return rollup(this.rows);
  }

  /** Usage already billed to a step instance in earlier attempts or passes. */
  private prior(name: string) {
    const row = this.rows.get(name);
    return row ? spentOf(row.metadata) : { usage: ZERO_USAGE, costUsd: null, agent: null };
  }

  /** Whether the run ended under us (cancelled): then nothing more is written. */
  private closed(): boolean {
    const s = this.status();
    return s === 'completed' || s === 'failed';
  }

  private status(): ExecutionStatus | undefined {
    return this.deps.ports.store.get<{ status: ExecutionStatus }>('SELECT status FROM executions WHERE execution_id = ?', [this.runId])?.status;
  }

  private metadata(step: StepInstance, spend: { usage: TokenUsage; costUsd: number | null }, extra: Record<string, unknown> = {}): string {
    return JSON.stringify({ type: step.type, agent: step.agent, attempt: step.attempt, usage: spend.usage, cost_usd: spend.costUsd, ...extra });
  }

  async begin(step: StepInstance, status: 'running' | 'awaiting_approval' = 'running', extra: Record<string, unknown> = {}): Promise<void> {
    const { iso } = this.runs.internals.now();
    const prior = this.prior(step.name);
    const meta = this.metadata(step, prior, extra);
    const events: BatonEvent[] = [];
    await this.deps.ports.store.transaction(() => {
      if (this.closed()) throw new BatonError('invalid_state', `Run ${this.runId} has ended; step ${step.name} is not started.`);
      const existing = this.rows.get(step.name);
      const agentName = step.agent ?? (step.type === 'human_review' ? 'person' : 'baton');
      if (existing) {
        this.deps.ports.store.run('UPDATE steps SET status = ?, started_at = ?, attempt = ?, metadata = ?, error = NULL WHERE execution_id = ? AND step_name = ?',
          [status, iso, step.attempt, meta, this.runId, step.name]);
      } else {
        this.deps.ports.store.run(
          `INSERT INTO steps (execution_id, step_name, agent_name, position, dependencies, status, attempt, started_at, metadata) VALUES (?, ?, ?, ?, '[]', ?, ?, ?, ?)`,
          [this.runId, step.name, agentName, this.position++, status, step.attempt, iso, meta],
        );
        this.deps.repo.forgetShapes(this.runId);
      }
      const from = this.status()!;
      // A step that starts counts in the progress (a run whose first step finished read 100% while its next one ran).
      const fields: Record<string, unknown> = { current_step: step.name, progress: runningProgress(this.deps.repo.statusCounts(this.runId), this.planned) };
      if (status === 'awaiting_approval' && from === 'running') fields.status = 'awaiting_approval';
      this.deps.repo.updateExecution(this.runId, fields, iso, from);
      this.deps.event(this.runId, status === 'running' ? 'step_started' : 'gate_requested', { step_name: step.name, type: step.type, agent: step.agent, attempt: step.attempt, ...extra });
      events.push({ type: 'step', execution_id: this.runId, step_name: step.name, status });
      if (fields.status) events.push({ type: 'execution', execution_id: this.runId, task_id: null, status: 'awaiting_approval' });
    });
    this.rows.set(step.name, {
      step_name: step.name, status, output: null, metadata: meta, error: null, position: this.rows.get(step.name)?.position ?? this.position - 1, attempt: step.attempt,
    });
    this.deps.emit(events);
  }

  async complete(step: StepInstance, output: string, value: unknown, spend: StepSpend): Promise<void> {
    await this.end(step, 'completed', spend, { output, value });
  }

  async fail(step: StepInstance, error: string, spend: StepSpend): Promise<void> {
    await this.end(step, 'failed', spend, { error });
  }

  async retrying(step: StepInstance, error: string, spend: StepSpend, waitMs: number): Promise<void> {
    await this.deps.ports.store.transaction(() => this.attemptEvent('step_retry', step, spend, { error, wait_ms: waitMs }));
  }

  /**
   * Records how an attempt of `step` ended (its end, or a failed try before a retry) with what that attempt spent: the
   * step's total (earlier attempts too) would read as if this attempt had spent it.
   */
  private attemptEvent(type: string, step: StepInstance, spend: StepSpend, rest: Record<string, unknown>): void {
    const own = spend.attempt ?? spend;
    this.deps.event(this.runId, type, { step_name: step.name, agent: step.agent, attempt: step.attempt, usage: own.usage, cost_usd: own.costUsd, ...rest });
  }

  async interrupt(step: StepInstance, reason: string, spend: StepSpend, produced = { text: '', toolCalls: [] as string[] }): Promise<void> {
    await this.end(step, 'pending', spend, { error: reason, stopped: { text: produced.text, toolCalls: produced.toolCalls, reason } });
  }

  private async end(
    step: StepInstance, status: 'completed' | 'failed' | 'pending', spend: StepSpend,
    r: { output?: string; value?: unknown; error?: string; stopped?: StoppedAttempt },
  ): Promise<void> {
    const { ms, iso } = this.runs.internals.now();
    const prior = this.prior(step.name);
    const total = { usage: addUsage(prior.usage, spend.usage), costUsd: prior.costUsd === null && spend.costUsd === null ? null : (prior.costUsd ?? 0) + (spend.costUsd ?? 0) };
    // A stopped attempt's text stays in the row's metadata until the step starts again (begin writes it anew).
    const meta = this.metadata(step, total, r.stopped ? { stopped: r.stopped } : {});
    const events: BatonEvent[] = [];
    const add = spend.usage.input + spend.usage.output;
    this.spent = { usage: addUsage(this.spent.usage, spend.usage), tokens: this.spent.tokens + add, costUsd: this.spent.costUsd + (spend.costUsd ?? 0) };
    const outputJson = r.output !== undefined ? JSON.stringify({ text: r.output, value: r.value }) : null;
    const done = await this.deps.ports.store.transaction(() => {
      if (this.closed()) {
        // Cancelled under us: keep what it spent, change nothing else.
        this.deps.ports.store.run('UPDATE steps SET metadata = ? WHERE execution_id = ? AND step_name = ?', [meta, this.runId, step.name]);
        return false;
      }
      const started = this.deps.ports.store.get<{ started_at: string | null }>('SELECT started_at FROM steps WHERE execution_id = ? AND step_name = ?', [this.runId, step.name])?.started_at;
      const summary = r.output !== undefined ? r.output.slice(0, 200) : r.error ?? null;
      this.deps.ports.store.run(
        `UPDATE steps SET status = ?, output = ?, outcome_summary = ?, error = ?, completed_at = ?, duration_ms = ?, metadata = ? WHERE execution_id = ? AND step_name = ?`,
        [status, outputJson, summary, status === 'completed' ? null : r.error ?? null, status === 'pending' ? null : iso, started ? ms - Date.parse(started) : null, meta, this.runId, step.name],
      );
      if (status === 'completed' && step.type === 'agent') this.storeOutput(step, r.output ?? '', iso, events);
      this.deps.repo.updateExecution(this.runId, { progress: runningProgress(this.deps.repo.statusCounts(this.runId), this.planned) }, iso);
      this.attemptEvent(status === 'completed' ? 'step_completed' : status === 'failed' ? 'step_failed' : 'step_interrupted', step, spend, { error: r.error ?? null });
      events.push({ type: 'step', execution_id: this.runId, step_name: step.name, status });
      return true;
    });
    this.rows.set(step.name, {
      step_name: step.name, status, output: outputJson, metadata: meta, error: r.error ?? null, position: this.rows.get(step.name)?.position ?? 0, attempt: step.attempt,
    });
    if (done) this.deps.emit(events);
  }

  /** An agent step's output: an artifact of the run, and a memory entry under its outputVariable (or step name). */
  private storeOutput(step: StepInstance, output: string, iso: string, events: BatonEvent[]): void {
    const artifactId = this.deps.ports.ids.orderedUuid();
    this.deps.repo.insertArtifact({
      artifact_id: artifactId, execution_id: this.runId, step_name: step.name, agent_name: step.agent, type: 'agent_output',
      title: `${step.name} (${step.agent})`, content: output, description: `Output of agent ${step.agent} at step ${step.name}`, is_final: false,
      metadata: { attempt: step.attempt }, now: iso,
    });
    events.push({ type: 'artifact', execution_id: this.runId, artifact_id: artifactId, is_final: false });
    const value = output.length > MEMORY_LIMITS.valueBytes / 4 ? `${output.slice(0, MEMORY_LIMITS.valueBytes / 4)}\n… (cut)` : output;
    this.deps.memory.storeInTx(this.runId, { runId: this.runId, agent: step.agent }, {
      key: `step:${step.name}`, value, category: 'findings', metadata: JSON.stringify({ stepId: step.name, agentId: step.agent }),
      size: value.length, id: this.deps.ports.ids.orderedUuid(), iso,
    });
  }

  async review(step: StepInstance, signal: AbortSignal): Promise<StepRecord> {
    const row = this.deps.repo.step(this.runId, step.name);
    if (!row || (row.status !== 'completed' && row.status !== 'failed')) {
      // Also when it was already waiting (a resumed run): the run is back in awaiting_approval.
      await this.begin(step, 'awaiting_approval', { prompt: step.prompt, on_reject: step.onReject });
    }
    for (;;) {
      const wait = this.runs.waitForDecision(this.runId, step.name, signal);
      const now = this.deps.repo.step(this.runId, step.name)!;
      if (now.status === 'completed' || now.status === 'failed') {
        this.runs.wake(this.runId, step.name);
        await wait;
        const out = (now.output ?? { text: '', value: null }) as { text: string; value: unknown };
        this.rows.set(step.name, {
          step_name: step.name, status: now.status, output: JSON.stringify(out), metadata: JSON.stringify(now.metadata), error: null, position: now.position,
          attempt: step.attempt,
        });
        const error = this.deps.ports.store.get<{ error: string | null }>('SELECT error FROM steps WHERE execution_id = ? AND step_name = ?', [this.runId, step.name])?.error ?? null;
        return { status: now.status, output: out.text, value: out.value, error };
      }
      await wait;
    }
  }
}
