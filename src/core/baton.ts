// The facade every face calls: broker, gates, resources, content sync, stall detection and the call log.
import type {
  ArtifactQuery, ArtifactRecord, ArtifactsResource, AvailableWorkflowsResource, BatonApi, CallLogEntry, ContentApi, ContentReport, CurrentStepResource,
  ExecutionFilter, ExecutionSummary, GateDecision, StepRelease, LifecycleApi, TimelineEvent, GateDecisionResult, ProjectContextResource,
  WorkflowStatusResource,
} from './api.js';
import { MAX_LISTED_IDS } from './api.js';
import { Broker, type BrokerDeps, type BrokerOptions } from './broker/broker.js';
import { ContentCache } from './broker/contentCache.js';
import { ExecutionRepo, stoppedByCancel, toArtifact, type ExecutionRow } from './broker/executionRepo.js';
import { GateWaiters } from './broker/gateWaiters.js';
import { cancelledText, executionFacts, submittedOutput, withCancelledMark } from './broker/submittedOutput.js';
import { releaseInTx } from './broker/stepRelease.js';
import { DEFAULT_RATE_LIMITS, type RateLimitConfig } from './broker/rateLimiter.js';
import { leftOutNote, loadContent, syncContent, type ContentParseCache, type LoadedContent } from './content/index.js';
import { callLogText, responseDigest } from './callLogText.js';
import { BatonError, echo, errorMessage } from './errors.js';
import { isoTime } from './isoTime.js';
import { ContentQueries, ContractValidator, Projects, createLifecycle } from './lifecycle/index.js';
import type { CorePorts, SqlValue } from './ports.js';
import { AgentProcesses } from './pipelines/agentProcesses.js';
import { Memory } from './pipelines/memory.js';
import { interruptedReason, PipelineRuns } from './pipelines/pipelineRuns.js';
import { TeamRuns } from './worker/teamRuns.js';
import { SpecWorkflows } from './specs/specWorkflows.js';
import { isMoving, TERMINAL_STATES } from './stateMachine.js';
import {
  checkPolicy, DEFAULT_RETENTION, describeIdle, describePolicy, IDLE_CANCELLED_BY, mib, Retention, type PruneRequest, type PruneResult, type RetentionPolicy,
} from './retention.js';
import type { BatonEvent, CallContext, GateWait, NextStepRequest, NextStepResponse, WorkflowTemplate } from './types.js';
import { keptText, plural, statusText } from '../shared/labels.js';

/** Settings of a Baton instance. */
export interface BatonOptions {
  /** The workspace folder this instance serves (its project). */
  workspacePath: string;
  /** Content folders in increasing precedence: bundled first, then the workspace's `.baton/`. */
  contentDirs: string[];
  tokenTtlMs: number;
  rateLimits: RateLimitConfig;
  /** Minutes without activity after which a running workflow is reported as stalled. */
  stallMinutes: number;
  /** Byte budget of each form of a step result (structured JSON and text); dependency artifacts fill what is left. */
  inlineBudgetBytes: number;
  /** How long a call waiting on a gate blocks before answering `awaiting_approval` again. */
  approvalWaitMs: number;
  /**
   * How a person approves a gate from a terminal, named in the `awaiting_approval` answer (the execution id is
   * appended): `baton approve`, with `--db` when that alone would not find this database; null when no terminal can.
   */
  approveCommand: string | null;
  /** Call-log rows kept. */
  callLogRetention: number;
  /** Finished runs kept and idle runs cancelled: `tick()` applies it about hourly (see retention.ts). */
  retention: RetentionPolicy;
  /** How often `tick()` sweeps for timed-out executions (by the injected clock); 0 turns the sweep off. */
  timeoutSweepMs: number;
  /** Every workspace folder (multi-root): each becomes a project at start-up. Defaults to `[workspacePath]`. */
  workspaceFolders?: string[];
  /** On a read-only store: start-up only looks up what it would otherwise write (secret, project, content). */
  readOnly?: boolean;
  /** Whether process `pid` still runs (the host's check): a step handed out on a gone process's stdio is abandoned. */
  processAlive?: (pid: number) => boolean;
  /** The build's parses of the bundled content (see CachedParse): loading does not parse those files again. */
  contentCache?: ContentParseCache;
}

/** Defaults for everything but the paths. */
export const DEFAULT_OPTIONS: Omit<BatonOptions, 'workspacePath' | 'contentDirs'> = {
  tokenTtlMs: 10 * 60_000,
  rateLimits: DEFAULT_RATE_LIMITS,
  stallMinutes: 30,
  inlineBudgetBytes: 4096,
  approvalWaitMs: 25_000,
  approveCommand: 'baton approve',
  callLogRetention: 10_000,
  retention: DEFAULT_RETENTION,
  timeoutSweepMs: 60_000,
};

/** How long call-log entries wait to be written together... */
const CALL_LOG_FLUSH_MS = 250;
/**
 * ...unless this many are waiting: then they are written on the next turn. Under load a quarter second of entries
 * (hundreds, each redacted, outlined and inserted) held the event loop for tens of milliseconds at a time, and every
 * call in flight waited for it; small batches spread the same work out.
 */
const CALL_LOG_BATCH = 16;

/** The INSERT of `rows` call-log rows, built once per row count (the store caches its statements by text). */
const callLogInserts: string[] = [];
function callLogInsert(rows: number): string {
  return (callLogInserts[rows] ??= `INSERT INTO call_log (correlation_id, call_type, tool_or_resource_name, request_full, response_full,
    request_size_bytes, response_size_bytes, duration_ms, success, error_message, error_category, created_at, project_id, agent_name,
    ide_type, parent_call_id) VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`);
}

/** The first automatic prune waits this long after start-up (nothing a first call needs), the next ones PRUNE_EVERY_MS. */
const FIRST_PRUNE_MS = 60_000;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * The refusal of a step's decision or release on a team run (`why` there is none): its agents take turns, wait on no
 * gate and hold no steps, so say what a person can do instead while it runs.
 */
function teamRunRefusal(exec: ExecutionRow, instance: string | undefined, why: string): BatonError {
  const at = instance ? `@${instance}` : '@INSTANCE';
  const then = exec.status === 'running'
    ? ` Talk to it with \`baton send MESSAGE --to ${at}\`, or stop it with \`baton stop ${at}\`.`
    : '';
  return new BatonError('invalid_state', `${exec.execution_id} is a team run: its agents take turns ${why}.${then}`);
}

const TECH_MARKERS: Array<[string, string]> = [
  ['package.json', 'nodejs'], ['tsconfig.json', 'typescript'], ['pyproject.toml', 'python'], ['requirements.txt', 'python'],
  ['Cargo.toml', 'rust'], ['go.mod', 'go'], ['pom.xml', 'java'], ['build.gradle', 'java'], ['Gemfile', 'ruby'],
];

/** The Baton core. Build it with `Baton.create`. */
export class Baton implements BatonApi {
  readonly options: BatonOptions;
  private readonly repo: ExecutionRepo;
  private readonly content: ContentCache;
  private readonly waiters = new GateWaiters();
  private readonly broker: Broker;
  private readonly listeners = new Set<(e: BatonEvent) => void>();
  private secret = '';
  private projectId = 0;
  private callsSincePrune = 0;
  /** The content files the last sync left out for their problems (see LoadedContent.leftOut). */
  private leftOut: LoadedContent['leftOut'] = new Map();
  /** Call-log entries whose answer is still on its way: outlined on the turn after (`outlineCalls`). */
  private readonly unoutlinedCalls: Array<{ entry: CallLogEntry; id: string; at: string }> = [];
  private outlineSoon: ReturnType<typeof setImmediate> | undefined;
  private readonly outlineCallsBound = () => {
    this.outlineCalls();
    this.scheduleCallFlush();
  };
  /** Call-log rows, outlined and redacted, waiting to be written together. */
  private readonly pendingCallRows: SqlValue[][] = [];
  private callFlush: ReturnType<typeof setTimeout> | undefined;
  /** Whether `callFlush` is the next-turn flush of a full batch (not the CALL_LOG_FLUSH_MS one). */
  private callFlushSoon = false;
  private lastTimeoutSweep = Number.NEGATIVE_INFINITY;
  private readonly retention: Retention;
  /** When `tick()` prunes next (by the injected clock). */
  private nextPruneAt: number;
  /** The prune running now; the next waits for it. */
  private pruning: Promise<unknown> = Promise.resolve();
  private readonly projects: Projects;
  /** @inheritdoc */
  readonly lifecycle: LifecycleApi;
  /** @inheritdoc */
  readonly catalog: ContentApi;
  /** Shared memory of pipeline runs (the `memory` tool group); faces reach it with `pipelineHost`. */
  readonly memory: Memory;
  /** Pipeline runs: start, drive, resume, budgets; faces reach them with `pipelineHost`. */
  readonly pipelines: PipelineRuns;
  /** The agent processes runs spawned (pipeline steps, team turns); the host installs its process control here. */
  readonly agentProcesses: AgentProcesses;
  /** Agent team runs and the contexts served in this process (the `context` tool group); faces reach it with `teamHost`. */
  readonly teams: TeamRuns;
  /** @inheritdoc */
  readonly specs: SpecWorkflows;

  private constructor(private readonly ports: CorePorts, options: Partial<BatonOptions> & Pick<BatonOptions, 'workspacePath' | 'contentDirs'>) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
    checkPolicy(this.options.retention);
    this.nextPruneAt = ports.clock.now() + FIRST_PRUNE_MS;
    this.retention = new Retention({
      store: ports.store, now: () => ports.clock.now(),
      forget: (ids) => {
        this.repo.forgetExecutions(ids);
        this.broker.forgetRateBuckets(); // the runs' task buckets went with them
      },
      forgetTexts: () => this.repo.forgetStoredTexts(),
      cancelIdle: (ids, since, reason) => this.cancelIdle(ids, since, reason),
      // A team this process serves is not abandoned, however quiet its channel: it ends when the team is stopped.
      served: (id) => this.teams.get(id) !== undefined,
    });
    this.repo = new ExecutionRepo(ports.store, (text) => ports.crypto.sha256(text));
    this.content = new ContentCache(ports.store);
    this.content.leftOutNote = (kind, name) => leftOutNote(this.leftOut, kind, name); // the catalog's too
    const brokerOptions: BrokerOptions = {
      tokenTtlMs: this.options.tokenTtlMs, reclaimAfterMs: this.options.stallMinutes * 60_000, rateLimits: this.options.rateLimits,
      inlineBudgetBytes: this.options.inlineBudgetBytes, approvalWaitMs: this.options.approvalWaitMs,
      approveCommand: this.options.approveCommand, processAlive: this.options.processAlive,
    };
    const brokerDeps: BrokerDeps = {
      ports, repo: this.repo, content: this.content, secret: () => this.secret, projectId: () => this.projectId,
      emit: (events) => this.emit(events), waiters: this.waiters,
    };
    this.broker = new Broker(brokerDeps, brokerOptions);
    this.specs = new SpecWorkflows({
      ports, repo: this.repo, broker: this.broker, workspacePath: this.options.workspacePath, contentDirs: () => this.options.contentDirs,
      template: (name) => this.content.template(name), templateNames: () => this.content.templates().map((t) => t.name),
      emit: (events) => this.emit(events), approveCommand: this.options.approveCommand,
    }, ports.specSource);
    brokerDeps.dynamic = this.specs;
    this.projects = new Projects(ports);
    const contracts = new ContractValidator(ports.fs, () => this.options.contentDirs.map((d) => `${d}/contracts`), ports.log);
    this.lifecycle = createLifecycle({
      ports, repo: this.repo, content: this.content, contracts, projects: this.projects, projectId: () => this.projectId,
      emit: (events) => this.emit(events), event: (id, type, data) => this.broker.event(id, type, data),
    });
    this.catalog = new ContentQueries(ports, this.projects, () => this.projectId, this.content.leftOutNote);
    this.memory = new Memory(ports);
    this.agentProcesses = new AgentProcesses({ ports, event: (id, type, data) => this.broker.event(id, type, data) });
    this.pipelines = new PipelineRuns({
      ports, repo: this.repo, memory: this.memory, processes: this.agentProcesses, projectId: () => this.projectId,
      emit: (events) => this.emit(events), event: (id, type, data) => this.broker.event(id, type, data),
    });
    this.teams = new TeamRuns({
      ports, repo: this.repo, processes: this.agentProcesses, projectId: () => this.projectId,
      emit: (events) => this.emit(events), event: (id, type, data) => this.broker.event(id, type, data),
    });
  }

  /** Opens the core on a migrated store: token secret, workspace project, content sync. */
  static async create(ports: CorePorts, options: Partial<BatonOptions> & Pick<BatonOptions, 'workspacePath' | 'contentDirs'>): Promise<Baton> {
    const baton = new Baton(ports, options);
    await baton.init();
    return baton;
  }

  private async init(): Promise<void> {
    if (this.options.readOnly) return this.initReadOnly();
    const { store, crypto, clock } = this.ports;
    const existing = store.get<{ value: string }>("SELECT value FROM meta WHERE key = 'token_secret'");
    if (existing) this.secret = existing.value;
    else {
      const secret = crypto.randomHex(32);
      await store.transaction(() => store.run("INSERT INTO meta (key, value) VALUES ('token_secret', ?)", [secret]));
      this.secret = secret;
    }
    const path = this.options.workspacePath;
    const techStack: string[] = [];
    for (const [file, tech] of TECH_MARKERS) {
      if (!techStack.includes(tech) && (await this.ports.fs.exists(`${path}/${file}`))) techStack.push(tech);
    }
    const iso = new Date(clock.now()).toISOString();
    const name = path.split(/[\\/]/).filter(Boolean).pop() ?? path;
    await store.transaction(() => {
      store.run(
        `INSERT INTO projects (name, path, tech_stack, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (path) DO UPDATE SET tech_stack = excluded.tech_stack`,
        [name, path, JSON.stringify(techStack), iso, iso],
      );
    });
    this.projectId = store.get<{ id: number }>('SELECT id FROM projects WHERE path = ?', [path])!.id;
    for (const folder of this.options.workspaceFolders ?? [path]) {
      // Git detection and last use for each workspace folder; a folder that is gone is reported, not fatal.
      await this.projects.discover(folder).catch((ex: unknown) => this.ports.log.warn(`project ${folder}: ${ex instanceof Error ? ex.message : String(ex)}`));
    }
    await this.syncContent();
  }

  /** Start-up on a read-only store: the content is what the owner last synced; an unknown workspace has no project. */
  private initReadOnly(): void {
    const { store } = this.ports;
    this.secret = store.get<{ value: string }>("SELECT value FROM meta WHERE key = 'token_secret'")?.value ?? '';
    this.projectId = store.get<{ id: number }>('SELECT id FROM projects WHERE path = ?', [this.options.workspacePath])?.id ?? 0;
  }

  // ---- broker and gates ----

  /** @inheritdoc */
  async nextStep(req: NextStepRequest, ctx?: CallContext, wait?: GateWait): Promise<NextStepResponse> {
    const res = await this.broker.nextStep(req, ctx, wait);
    // A spec phase that passed has its boxes ticked before the agent hears back.
    await this.specs.flushWriteBacks();
    return res;
  }

  /** @inheritdoc */
  async startWorkflow(templateName: string, taskDescription?: string, ctx?: CallContext): Promise<ExecutionSummary> {
    const { execution_id } = await this.broker.start({ template_name: templateName, task_description: taskDescription }, ctx);
    return this.summaryOf(this.repo.execution(execution_id)!);
  }

  /** @inheritdoc */
  async decide(d: GateDecision): Promise<GateDecisionResult> {
    if (d.decision !== 'approve' && d.decision !== 'reject') throw new BatonError('invalid_input', `decision must be "approve" or "reject" (got "${String(d.decision)}").`);
    const feedback = d.feedback?.trim();
    if (d.decision === 'reject' && !feedback) {
      throw new BatonError('invalid_input', 'Rejecting needs feedback: say what the agent must change (it redoes the step with your words), or why you reject a pipeline\'s review.');
    }
    const events: BatonEvent[] = [];
    const result = await this.ports.store.transaction(() => {
      const exec = this.broker.resolve(d.execution_id);
      if (!exec) throw new BatonError('execution_not_found', `No execution or task ${echo(d.execution_id)}; list them with \`baton status\`.`);
      if (exec.kind === 'worker') {
        throw teamRunRefusal(exec, this.teams.statusView(exec.execution_id)?.instance, 'and no step waits for approval');
      }
      const steps = this.repo.stepStates(exec.execution_id);
      const waiting = steps.filter((s) => s.status === 'awaiting_approval');
      const step = d.step_name ? steps.find((s) => s.step_name === d.step_name) : waiting.length === 1 ? waiting[0] : undefined;
      if (!step) {
        if (d.step_name) throw new BatonError('step_not_found', `Execution ${exec.execution_id} has no step "${d.step_name}"; its steps: ${steps.map((s) => s.step_name).join(', ')}.`);
        if (waiting.length > 1) throw new BatonError('invalid_input', `Several steps wait for approval (${waiting.map((s) => s.step_name).join(', ')}); name one with step_name.`);
        const states = steps.length ? ` (${steps.map((s) => `${s.step_name}: ${s.status}`).join(', ')})` : ': it has no steps';
        // A run that ended (the usual slip: an old id) will never wait again: say so, and where the waiting ones are.
        if (TERMINAL_STATES.includes(exec.status)) {
          const ended = executionFacts(exec).cancelled ? 'cancelled' : exec.status;
          throw new BatonError('invalid_state', `Execution ${exec.execution_id} has ended (${ended}), so no step of it waits for approval any more${states}; `
            + 'baton status lists the runs that wait for a decision (⏸).');
        }
        throw new BatonError('invalid_state', `No step of execution ${exec.execution_id} is waiting for approval${states}.`);
      }
      if (step.status !== 'awaiting_approval') {
        throw new BatonError('invalid_state', `Step "${step.step_name}" is ${step.status}, not awaiting approval; only a submitted gated step can be approved or rejected.`);
      }
      if (exec.kind === 'pipeline') {
        // A pipeline's human_review step: the engine driving the run goes on (or `baton pipeline resume` does).
        this.pipelines.decideInTx(exec, step.step_name, { decision: d.decision, feedback, by: d.by }, events);
        const after = this.repo.execution(exec.execution_id)!;
        return {
          execution_id: exec.execution_id, step_name: step.step_name, decision: d.decision,
          step_status: this.repo.step(exec.execution_id, step.step_name)!.status, execution_status: after.status,
        };
      }
      const row = this.repo.step(exec.execution_id, step.step_name)!;
      const now = this.ports.clock.now();
      const iso = new Date(now).toISOString();
      if (d.decision === 'approve') {
        this.repo.updateStep(exec.execution_id, step.step_name, {
          status: 'completed', completed_at: iso, duration_ms: row.started_at ? now - Date.parse(row.started_at) : null, feedback: null,
        });
        this.broker.event(exec.execution_id, 'gate_approved', { step_name: step.step_name, by: d.by ?? null, feedback: feedback ?? null });
        events.push({ type: 'step', execution_id: exec.execution_id, step_name: step.step_name, status: 'completed' });
      } else {
        this.repo.updateStep(exec.execution_id, step.step_name, { status: 'running', attempt: row.attempt + 1, feedback: feedback! });
        this.broker.event(exec.execution_id, 'gate_rejected', { step_name: step.step_name, by: d.by ?? null, feedback });
        events.push({ type: 'step', execution_id: exec.execution_id, step_name: step.step_name, status: 'running' });
      }
      this.broker.settle(exec, events);
      const after = this.repo.execution(exec.execution_id)!;
      return {
        execution_id: exec.execution_id, step_name: step.step_name, decision: d.decision,
        step_status: this.repo.step(exec.execution_id, step.step_name)!.status, execution_status: after.status,
      };
    });
    this.emit(events);
    this.waiters.wake(result.execution_id, result.step_name);
    this.pipelines.wake(result.execution_id, result.step_name);
    await this.specs.flushWriteBacks();
    return result;
  }

  /** @inheritdoc */
  async cancel(executionId: string, reason = 'cancelled', by?: string): Promise<ExecutionSummary> {
    const events: BatonEvent[] = [];
    const id = await this.ports.store.transaction(() => {
      const exec = this.broker.resolve(executionId);
      if (!exec) throw new BatonError('execution_not_found', `No execution or task ${echo(executionId)}; list them with \`baton status\`.`);
      if (exec.status === 'completed' || exec.status === 'failed') {
        throw new BatonError('invalid_state', `Execution ${exec.execution_id} is already ${statusText(exec.status, executionFacts(exec).cancelled)}; only an unfinished execution can be cancelled.`);
      }
      this.cancelInTx(exec, reason, by ?? null, events);
      return exec.execution_id;
    });
    this.cancelled([id], events);
    return this.summaryOf(this.repo.execution(id)!);
  }

  /** @inheritdoc */
  async release(executionId: string, stepName?: string, by?: string): Promise<StepRelease> {
    const events: BatonEvent[] = [];
    const iso = new Date(this.ports.clock.now()).toISOString();
    const result = await this.ports.store.transaction(() => releaseInTx({
      repo: this.repo, broker: this.broker, iso,
      teamRun: (exec) => teamRunRefusal(exec, this.teams.statusView(exec.execution_id)?.instance, 'and hold no steps, so there is none to release'),
    }, executionId, stepName, by ?? null, events));
    this.emit(events);
    return result;
  }

  /** @inheritdoc */
  connectionClosed(sessionId: string): void {
    this.broker.connectionClosed(sessionId);
  }

  /** Retention's cancellation of runs idle since `since`: those still unfinished and idle, in one transaction. */
  private async cancelIdle(ids: string[], since: string, reason: string): Promise<string[]> {
    const events: BatonEvent[] = [];
    const cancelled = await this.ports.store.transaction(() => ids.filter((id) => {
      const exec = this.repo.execution(id);
      if (!exec || TERMINAL_STATES.includes(exec.status) || exec.updated_at >= since) return false;
      this.cancelInTx(exec, reason, IDLE_CANCELLED_BY, events);
      return true;
    }));
    this.cancelled(cancelled, events);
    return cancelled;
  }

  /** Fails an unfinished execution and its open steps as cancelled (inside a transaction); adds the events to `events`. */
  private cancelInTx(exec: ExecutionRow, reason: string, by: string | null, events: BatonEvent[]): void {
    const now = this.ports.clock.now();
    const iso = new Date(now).toISOString();
    for (const s of this.repo.stepsWithStatus(exec.execution_id, ['running', 'awaiting_approval'])) {
      if (s.token_nonce) this.repo.closeToken(s.token_nonce, 'superseded', iso);
      this.repo.updateStep(exec.execution_id, s.step_name, { status: 'failed', token_nonce: null, completed_at: iso });
      events.push({ type: 'step', execution_id: exec.execution_id, step_name: s.step_name, status: 'failed' });
    }
    // Cancelled executions are `failed` to the state machine; the mark lets the views say "cancelled".
    this.repo.updateExecution(exec.execution_id, {
      status: 'failed', completed_at: iso, duration_ms: now - Date.parse(exec.started_at), current_step: null,
      metadata: withCancelledMark(exec.metadata, reason, by, iso),
    }, iso);
    if (exec.task_id) this.repo.setTaskStatus(exec.task_id, 'failed', iso);
    this.broker.event(exec.execution_id, 'workflow_cancelled', { reason, by });
    events.push({ type: 'execution', execution_id: exec.execution_id, task_id: exec.task_id, status: 'failed' });
  }

  /**
   * After a cancellation is durable: tells the listeners, wakes the agents waiting on its steps, stops its pipeline
   * runs, and the agents that a run's process, which died, left running (in the background; unproven ones are kept).
   */
  private cancelled(ids: string[], events: BatonEvent[]): void {
    this.emit(events);
    for (const e of events) if (e.type === 'step') this.waiters.wake(e.execution_id, e.step_name);
    for (const id of ids) {
      const here = this.pipelines.isDriving(id) || this.teams.get(id) !== undefined;
      this.pipelines.abort(id);
      if (here) continue; // its agents are this process's, stopped as it stops the run
      void this.agentProcesses.stopLeftovers(id, 'keep').catch((ex: unknown) => this.ports.log.warn(`stopping the agents left by run ${id}`, ex));
    }
  }

  /** @inheritdoc */
  listExecutions(filter: ExecutionFilter = {}): ExecutionSummary[] {
    if (filter.ids && filter.ids.length > MAX_LISTED_IDS) {
      throw new BatonError('invalid_input', `ids names ${filter.ids.length} executions; list at most ${MAX_LISTED_IDS} at a time (or leave ids out)`);
    }
    return this.repo.executions({ activeOnly: filter.active_only, limit: filter.limit ?? 50, ids: filter.ids }).map((e) => this.summaryOf(e));
  }

  /** One execution as listings show it. */
  private summaryOf(e: ExecutionRow): ExecutionSummary {
    const facts = executionFacts(e);
    return {
      execution_id: e.execution_id, task_id: e.task_id, workflow: e.template_name, kind: e.kind, status: e.status,
      progress: e.progress, current_step: e.current_step, started_at: e.started_at, updated_at: e.updated_at, ...facts,
      steps: this.repo.stepList(e.execution_id, facts.cancelled ? e.completed_at : null),
      ...(e.kind === 'worker' && typeof e.metadata.instance === 'string' ? { instance: e.metadata.instance } : {}),
      ...(e.kind === 'pipeline' && this.pipelines.isOrphaned(e) ? { orphaned: true } : {}),
      ...(facts.cancelled && cancelledText(e.metadata.cancelled) ? { cancel_reason: cancelledText(e.metadata.cancelled) } : {}),
      ...(e.status === 'failed' && !facts.cancelled && e.error ? { error: e.error } : {}),
      ...this.failingAgents(e),
    };
  }

  /** A running team run's agents whose last turn failed (a CLI not installed, one exiting at once), for listings. */
  private failingAgents(e: ExecutionRow): { failing_agents?: Array<{ agent: string; error: string | null }> } {
    if (e.kind !== 'worker' || e.status !== 'running') return {};
    const failing = this.teams.failingAgents(e.execution_id);
    return failing.length ? { failing_agents: failing } : {};
  }

  // ---- resources ----

  /** @inheritdoc */
  persona(agent: string): string {
    const name = agent === 'default' ? 'supervisor' : agent;
    const found = this.content.agent(name) ?? (agent === 'default' ? this.content.agent(this.content.agentNames()[0] ?? '') : undefined);
    if (!found) throw new BatonError('not_found', `No agent ${echo(agent)}${leftOutNote(this.leftOut, 'agents', name)}. Agents: ${this.content.agentNames().join(', ') || '(none)'}.`);
    return found.content;
  }

  /** @inheritdoc */
  guardrails(): string {
    return this.content.guardrailsMarkdown();
  }

  /** @inheritdoc The active steps with their contracts, plus the artifacts they and their dependencies produced. */
  currentStep(id?: string): CurrentStepResource {
    const exec = this.resolveForRead(id);
    const active = this.repo.stepsWithStatus(exec.execution_id, ['running', 'awaiting_approval']);
    const names = [...new Set(active.flatMap((s) => [s.step_name, ...s.dependencies]))];
    return {
      execution_id: exec.execution_id, task_id: exec.task_id, workflow: exec.template_name, status: exec.status,
      progress: exec.progress, current_step: exec.current_step,
      active_steps: active.map((s) => ({
        step_name: s.step_name, status: s.status, agent_name: s.agent_name, contract: s.contract, feedback: s.feedback,
        submitted: s.status === 'awaiting_approval' ? submittedOutput(s.output) : null,
      })),
      artifacts: this.repo.artifactsOf(exec.execution_id, names),
    };
  }

  /** @inheritdoc */
  workflowStatus(id?: string, opts: { artifacts?: boolean } = {}): WorkflowStatusResource {
    const exec = this.resolveForRead(id);
    const artifacts = opts.artifacts === false ? [] : this.repo.artifactsOf(exec.execution_id);
    const facts = executionFacts(exec);
    const cancelledAt = facts.cancelled ? exec.completed_at : null;
    return {
      execution_id: exec.execution_id, task_id: exec.task_id, workflow: exec.template_name, status: exec.status,
      current_step: exec.current_step, progress: exec.progress, started_at: exec.started_at, completed_at: exec.completed_at,
      ...facts,
      steps: this.repo.steps(exec.execution_id).map((s) => ({
        step_name: s.step_name, status: s.status, agent_name: s.agent_name, dependencies: s.dependencies,
        started_at: s.started_at, completed_at: s.completed_at, duration_ms: s.duration_ms, outcome_summary: s.outcome_summary,
        feedback: s.feedback, attempt: s.attempt, artifacts: artifacts.filter((a) => a.step_name === s.step_name),
        ...(stoppedByCancel(s, cancelledAt) ? { stopped: true as const } : {}),
      })),
      ...(exec.kind === 'worker' ? { team: this.teams.statusView(exec.execution_id) } : {}),
    };
  }

  /** @inheritdoc */
  async projectContext(projectId?: string): Promise<ProjectContextResource> {
    const store = this.ports.store;
    const id = !projectId || projectId === 'current' ? this.projectId : Number(projectId);
    const project = Number.isInteger(id) ? store.get<Record<string, string | number | null>>('SELECT * FROM projects WHERE id = ?', [id]) : undefined;
    if (!project) throw new BatonError('not_found', `No project ${echo(projectId)}; read project-context://current for the workspace project.`);
    let activeTask = project.active_task_id as string | null;
    const exec = activeTask ? this.repo.executionByTask(activeTask) : undefined;
    if (activeTask && (!exec || exec.status === 'completed' || exec.status === 'failed')) {
      // Auto-cleanup: a task that is gone or finished is no longer active.
      const iso = new Date(this.ports.clock.now()).toISOString();
      await store.transaction(() => store.run('UPDATE projects SET active_task_id = NULL, updated_at = ? WHERE id = ? AND active_task_id = ?', [iso, id, activeTask]));
      this.emit([{ type: 'project', project_id: id }]);
      activeTask = null;
    }
    return {
      project: {
        id, name: String(project.name), path: String(project.path), tech_stack: JSON.parse(String(project.tech_stack ?? '[]')) as string[],
        architecture_pattern: (project.architecture_pattern as string | null) ?? null,
      },
      active_task: activeTask && exec ? {
        task_id: activeTask, execution_id: exec.execution_id, workflow: exec.template_name,
        status: isMoving(exec.status) ? 'active' : exec.status,
        current_step: exec.current_step, progress: exec.progress, last_activity: exec.updated_at,
      } : null,
    };
  }

  /** @inheritdoc */
  availableWorkflows(): AvailableWorkflowsResource {
    return {
      workflows: this.content.templates().map((t) => ({
        name: t.name, description: t.description, type: t.type, steps_count: t.steps.length,
        estimated_duration_minutes: t.estimated_duration_minutes, tags: t.tags,
      })),
    };
  }

  /** @inheritdoc */
  artifacts(q: ArtifactQuery): ArtifactsResource {
    const where: string[] = [];
    const params: Array<string | number> = [];
    if (q.type === 'by_type') { where.push('artifact_type = ?'); params.push(q.artifact_type); }
    if (q.type === 'final') where.push('is_final = 1');
    if (q.type === 'execution') {
      where.push('execution_id = ?');
      params.push(q.execution_id);
      if (q.is_final !== undefined) { where.push('is_final = ?'); params.push(q.is_final ? 1 : 0); }
      if (q.artifact_id !== undefined) { where.push('artifact_id = ?'); params.push(q.artifact_id); }
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const store = this.ports.store;
    const total = store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM artifacts ${clause}`, params)!.n;
    if (q.type === 'execution' && q.artifact_id !== undefined && total === 0) {
      throw new BatonError('not_found', `No artifact ${echo(q.artifact_id)} in execution ${echo(q.execution_id)}; an execution's artifacts are listed by workflow-artifacts://{execution_id} and get_execution_details.`);
    }
    const order = q.type === 'execution' && q.newest_first !== true ? 'id ASC' : 'id DESC';
    // The ids are picked first (from an index, sorted without the rows), then only those rows are read: ordering the
    // rows themselves read every artifact of the run, content and all, to keep `limit` of them.
    const rows = store.all<Record<string, string | number | null>>(
      `SELECT * FROM artifacts WHERE id IN (SELECT id FROM artifacts ${clause} ORDER BY ${order} LIMIT ?) ORDER BY ${order}`, [...params, q.limit]);
    return { artifacts: rows.map(toArtifact), total, query: { ...q } };
  }

  /** @inheritdoc */
  artifact(artifactId: string): ArtifactRecord | undefined {
    return this.repo.artifactById(artifactId);
  }

  /** @inheritdoc */
  agentNames(): string[] {
    return this.content.agentNames();
  }

  /** @inheritdoc */
  templates(): WorkflowTemplate[] {
    return this.content.templates();
  }

  // ---- content, events, housekeeping ----

  /** @inheritdoc */
  async syncContent(): Promise<ContentReport> {
    const loaded = await loadContent(this.ports.fs, this.options.contentDirs, this.ports.crypto, this.options.contentCache);
    const { changed } = await syncContent(this.ports.store, this.ports.clock, loaded);
    this.leftOut = loaded.leftOut;
    for (const p of loaded.problems) this.ports.log.warn(`content: ${p.path}${p.line ? `:${p.line}` : ''}: ${p.message}`);
    if (changed.length) {
      this.content.invalidate();
      this.emit([{ type: 'content', kinds: changed }]);
    }
    return { agents: loaded.agents.length, rules: loaded.rules.length, workflows: loaded.workflows.length, changed, problems: loaded.problems };
  }

  /** @inheritdoc */
  onEvent(listener: (event: BatonEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(events: BatonEvent[]): void {
    for (const e of events) {
      this.specs.onEvent(e);
      for (const l of this.listeners) {
        try {
          l(e);
        } catch (ex) {
          this.ports.log.error('event listener failed', ex);
        }
      }
    }
  }

  /**
   * @inheritdoc Entries are redacted and outlined off the request path, one by one on the turn after their answer
   * went out (in the gap before the client's next call), then written in batches: one write every CALL_LOG_FLUSH_MS,
   * or on the next turn once CALL_LOG_BATCH are waiting.
   */
  logCall(entry: CallLogEntry): void {
    this.unoutlinedCalls.push({ entry, id: this.ports.ids.orderedUuid(), at: isoTime(this.ports.clock.now()) });
    this.outlineSoon ??= setImmediate(this.outlineCallsBound);
  }

  /** Turns the logged entries into rows, dropping the request and response objects. */
  private outlineCalls(): void {
    if (this.outlineSoon) clearImmediate(this.outlineSoon);
    this.outlineSoon = undefined;
    for (const { entry, id, at } of this.unoutlinedCalls.splice(0)) {
      let request: { text: string; size: number };
      let response: { text: string; size: number };
      try {
        request = callLogText(entry.request, entry.success);
        response = callLogText(entry.response, entry.success, entry.success ? responseDigest(entry.name, entry.response) : entry.response);
      } catch (ex) {
        // This runs on a turn of its own: an exception here would end the process, over one row of the log.
        this.ports.log.error(`call log: cannot record the call of ${entry.name}`, ex);
        request = response = { text: JSON.stringify({ unloggable: errorMessage(ex) }), size: 0 };
      }
      this.pendingCallRows.push([
        id, entry.call_type, entry.name, request.text, response.text, request.size, response.size, Math.round(entry.duration_ms),
        entry.success ? 1 : 0, entry.error_message ?? null, entry.error_category ?? null, at, this.projectId,
        entry.agent_name ?? null, entry.ide_type ?? null, entry.parent_call_id ?? null,
      ]);
    }
  }

  /** Writes the waiting rows on the next turn once CALL_LOG_BATCH are waiting, else within CALL_LOG_FLUSH_MS. */
  private scheduleCallFlush(): void {
    const full = this.pendingCallRows.length >= CALL_LOG_BATCH;
    if (this.callFlush && !(full && !this.callFlushSoon)) return;
    if (this.callFlush) clearTimeout(this.callFlush);
    this.callFlushSoon = full;
    this.callFlush = setTimeout(() => void this.flushCalls(), full ? 0 : CALL_LOG_FLUSH_MS);
    (this.callFlush as { unref?: () => void }).unref?.();
  }

  /**
   * Writes the batched call-log entries (and prunes past the retention) in one transaction. No call waits for it, so
   * it is a background write: on disk with the next call's writes (or about a second later), and when the store closes.
   */
  async flushCalls(): Promise<void> {
    if (this.unoutlinedCalls.length) this.outlineCalls();
    if (this.callFlush) clearTimeout(this.callFlush);
    this.callFlush = undefined;
    this.callFlushSoon = false;
    const rows = this.pendingCallRows.splice(0);
    if (!rows.length) return;
    const store = this.ports.store;
    this.callsSincePrune += rows.length;
    const prune = this.callsSincePrune >= 200;
    if (prune) this.callsSincePrune = 0;
    void store.transaction(() => {
      // One statement per CALL_LOG_BATCH rows: each statement is a journal entry and a round trip into SQLite.
      for (let i = 0; i < rows.length; i += CALL_LOG_BATCH) {
        const batch = rows.slice(i, i + CALL_LOG_BATCH);
        store.run(callLogInsert(batch.length), batch.flat());
      }
      if (prune) store.run('DELETE FROM call_log WHERE id <= (SELECT MAX(id) FROM call_log) - ?', [this.options.callLogRetention]);
    }, { background: true, unwatched: true }).catch((ex: unknown) => this.ports.log.error('call log write failed', ex));
  }

  /** Call-log rows, newest first (for diagnostics and tests). */
  recentCalls(limit = 50): Array<Record<string, unknown>> {
    return this.ports.store.all('SELECT * FROM call_log ORDER BY id DESC LIMIT ?', [limit]);
  }

  /** @inheritdoc */
  events(executionId: string): TimelineEvent[] {
    return this.ports.store
      .all<{ event_type: string; event_data: string; created_at: string }>('SELECT event_type, event_data, created_at FROM events WHERE execution_id = ? ORDER BY id', [executionId])
      .map((e) => ({ ...e, event_data: JSON.parse(e.event_data) as unknown }));
  }

  /** @inheritdoc Stall detection (informational events for running workflows idle past the threshold), then the timeout sweep. */
  async tick(): Promise<void> {
    await this.detectStalls();
    const now = this.ports.clock.now();
    if (this.options.timeoutSweepMs > 0 && now - this.lastTimeoutSweep >= this.options.timeoutSweepMs) {
      this.lastTimeoutSweep = now;
      await this.lifecycle.checkTimeouts();
    }
    if (now >= this.nextPruneAt) {
      this.nextPruneAt = now + PRUNE_EVERY_MS;
      const r = await this.prune();
      if (r.cancelled) this.ports.log.info(`retention: cancelled ${plural(r.cancelled, 'unfinished run')} ${describeIdle(r.policy)}`);
      if (r.pruned || r.compacted) {
        const compacted = r.compacted ? `; compacted ${mib(r.compacted.beforeBytes)} to ${mib(r.compacted.afterBytes)}` : '';
        this.ports.log.info(`retention: pruned ${plural(r.pruned, 'finished run')} (${describePolicy(r.policy)}), ${keptText(r.kept)}${compacted}`);
      }
    }
  }

  /**
   * @inheritdoc Batches of runs are deleted in transactions of their own, so calls go on between them; one prune runs
   * at a time.
   */
  async prune(req: PruneRequest = {}): Promise<PruneResult> {
    const own = this.options.retention;
    const policy = checkPolicy({ days: req.days ?? own.days, maxRuns: req.max_runs ?? own.maxRuns, idleDays: req.idle_days ?? own.idleDays });
    const run = this.pruning.then(async () => {
      const { result, ids } = await this.retention.prune(policy, req);
      if (ids.length && !result.dry_run) this.emit([{ type: 'pruned', execution_ids: ids }]);
      return result;
    });
    this.pruning = run.catch(() => undefined);
    return run;
  }

  private async detectStalls(): Promise<void> {
    const now = this.ports.clock.now();
    const stalled: Array<{ exec: ExecutionRow; elapsed: number }> = [];
    for (const exec of this.repo.executionsWithStatus(['running'])) {
      const last = this.ports.store.get<{ t: string | null }>(
        "SELECT MAX(created_at) AS t FROM events WHERE execution_id = ? AND event_type != 'error_occurred'",
        [exec.execution_id],
      )?.t ?? exec.started_at;
      const elapsed = (now - Date.parse(last)) / 60_000;
      const lastStall = typeof exec.metadata.last_stall_at === 'number' ? exec.metadata.last_stall_at : 0;
      const thresholdMs = this.options.stallMinutes * 60_000;
      if (elapsed > this.options.stallMinutes && now - lastStall >= thresholdMs) stalled.push({ exec, elapsed });
    }
    if (!stalled.length) return;
    await this.ports.store.transaction(() => {
      for (const { exec, elapsed } of stalled) {
        const minutes = Math.floor(elapsed);
        this.broker.event(exec.execution_id, 'error_occurred', {
          message: `Workflow appears stalled (>${this.options.stallMinutes} min). Options: summarize findings, request review, or skip this step.`,
          elapsed_minutes: minutes,
        });
        const metadata = { ...exec.metadata, stall_count: Number(exec.metadata.stall_count ?? 0) + 1, last_stall_at: now };
        // Not an update of the workflow's own activity: keep updated_at as it was.
        this.ports.store.run('UPDATE executions SET metadata = ? WHERE execution_id = ?', [JSON.stringify(metadata), exec.execution_id]);
      }
    });
    this.emit(stalled.map(({ exec, elapsed }) => ({ type: 'stall', execution_id: exec.execution_id, elapsed_minutes: Math.floor(elapsed) })));
  }

  /** Writes pending call-log entries and releases waiters; the host closes the store after. */
  async close(): Promise<void> {
    // Runs this process drives pause (resumable), their agents stopped, before the store closes under them.
    await this.pipelines.interruptAll(interruptedReason('the Baton process running it closed'));
    this.waiters.wakeAll();
    // A prune under way stops after its batch; its last writes go before the store closes.
    this.retention.stop();
    await this.pruning;
    this.listeners.clear();
    await this.flushCalls();
  }

  /** Resolves `active` (or nothing) to the project's active or latest execution; otherwise an execution or task id. */
  private resolveForRead(id?: string): ExecutionRow {
    if (!id || id === 'active') {
      const active = this.ports.store.get<{ active_task_id: string | null }>('SELECT active_task_id FROM projects WHERE id = ?', [this.projectId])?.active_task_id;
      const exec = (active ? this.repo.executionByTask(active) : undefined) ?? this.repo.latestExecution(this.projectId);
      if (!exec) throw new BatonError('execution_not_found', 'No workflow has run in this project yet; start one with workflow_next_step({ template_name }) (see available-workflows://all).');
      return exec;
    }
    const exec = this.broker.resolve(id);
    if (!exec) throw new BatonError('execution_not_found', `No execution or task ${echo(id)}; read current-step://active or workflow-status://active.`);
    return exec;
  }
}
