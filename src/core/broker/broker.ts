// The `workflow_next_step` broker: create, continue, claim and refresh, each one atomic transaction.
import { BatonError, echo } from '../errors.js';
import type { CorePorts } from '../ports.js';
import { isoTime } from '../isoTime.js';
import type {
  BatonEvent, CallContext, GateWait, ModelOutput, NextStepRequest, NextStepResponse, SelectionInfo, StepDefinition,
} from '../types.js';
import { earlierStart, keyStartedText, requestKeyMark } from '../requestKeys.js';
import { withFields } from '../withFields.js';
import { contractFor, stepHumanMessage } from './contract.js';
import type { ContentCache } from './contentCache.js';
import {
  ExecutionRepo, headOf, type ArtifactHead, type ExecutionRow, type NewExecution, type NewStep, type StepRow, type StepState, type TokenRow,
} from './executionRepo.js';
import type { GateWaiters } from './gateWaiters.js';
import type { DynamicPhases, PreparedSource } from './dynamicPhases.js';
import { errorResult } from './brokerErrors.js';
import { RateBuckets, type DrawnBucket } from './rateBuckets.js';
import type { RateLimitConfig } from './rateLimiter.js';
import { computeReadySet, scoreParallelCandidates, type SelectableStep } from './selection.js';
import { buildStepContext } from './stepContext.js';
import { fitStepResult } from './stepResult.js';
import { defaultTaskDescription } from './stepText.js';
import { storedAsIs, storedOutput, type StoredOutput } from './submittedOutput.js';
import { buildSynthesis } from './synthesis.js';
import { isMoving } from '../stateMachine.js';
import { awaitingResponse, readCurrent, TokenLedger } from './tokenLedger.js';
import { decodeTokenUnverified, type TokenPayload } from './tokens.js';

/** Broker settings. */
export interface BrokerOptions {
  tokenTtlMs: number;
  /**
   * How long after its token expired unused a running step is taken to be abandoned (its agent went away) and is
   * handed to the next claim. A slow agent that comes back sooner refreshes its token and keeps the step.
   */
  reclaimAfterMs: number;
  /** Whether process `pid` still runs (the host's check): a step handed out on a gone process's stdio is abandoned. */
  processAlive?: (pid: number) => boolean;
  rateLimits: RateLimitConfig;
  /** Byte budget of each form of a step result (structured JSON and text); dependency artifacts fill what is left. */
  inlineBudgetBytes: number;
  /** How long a call waiting on a gate blocks for the decision before answering `awaiting_approval`. */
  approvalWaitMs: number;
  /** How a person approves a gate from a terminal (the execution id is appended); null when no terminal can. */
  approveCommand: string | null;
}

/** What the broker needs from the facade. */
export interface BrokerDeps {
  ports: CorePorts;
  repo: ExecutionRepo;
  content: ContentCache;
  secret: () => string;
  projectId: () => number;
  emit: (events: BatonEvent[]) => void;
  waiters: GateWaiters;
  /** Spec workflows' hooks (templates with `dynamic_phases`), set by the facade once they exist. */
  dynamic?: DynamicPhases;
}

/** The step `advance` hands out next (see `pick`). */
interface NextPick {
  name: string;
  selection: SelectionInfo;
  /** Several steps were ready: the execution counts the decision. */
  parallel: boolean;
}

/**
 * What `advance` reads to hand out the next step, had without reading back what the call wrote: read ahead of a
 * submission's writes (`readAhead`), or built from the rows a create writes.
 */
interface ReadAhead {
  steps: StepState[];
  next: NextPick;
  row: StepRow;
  heads: ArtifactHead[];
  /** The execution's metadata, when `next.parallel`. */
  metadata: Record<string, unknown> | undefined;
}

/** The work of one transaction: its response and the events to emit once it is durable. */
interface TxResult {
  response: NextStepResponse;
  events: BatonEvent[];
  /** An unclaimed keyed start found its key recorded: nothing was created, `response` names the earlier execution. */
  earlier?: boolean;
}

const FINISHED = new Set(['completed', 'failed']);
const DONE_STEP = new Set(['completed', 'skipped']);
const BUSY_STEP = new Set(['running', 'awaiting_approval', 'failed']);

/** Ready steps whose rows a read ahead of a submission reads at most (see Broker.readAheadOf). */
const READ_AHEAD_STEPS = 4;

/** Tokens whose connection the broker remembers for request `reclaim` (the newest). */
const HANDED_KEPT = 10_000;

// How an answer given again opens (see answerAgain). It must be true both for an agent that called again itself (its
// connection dropped, its client gave up) and for an agent that called once, whose call `baton mcp` sent again to the
// next owner after the owner that ran it stopped before answering: so no "your earlier call" (and keyStartedText).
const TOKEN_USED = "This step_token was used already, by a call that was recorded; here is that call's answer.";

/** The broker. */
export class Broker {
  private readonly buckets: RateBuckets;
  private readonly tokens: TokenLedger;
  private lastNow = { ms: Number.NaN, iso: '' };

  constructor(private readonly deps: BrokerDeps, private readonly options: BrokerOptions) {
    this.buckets = new RateBuckets(deps.ports.store, options.rateLimits);
    this.tokens = new TokenLedger({ repo: deps.repo, ports: deps.ports, secret: deps.secret, ttlMs: options.tokenTtlMs });
  }

  private get repo() {
    return this.deps.repo;
  }

  /**
   * The connection each token was handed to (token nonce → session), for request `reclaim`: kept in memory, since a
   * connection does not outlive this process; the newest HANDED_KEPT only.
   */
  private readonly handedTo = new Map<string, string>();

  private handTo(nonce: string, ctx: CallContext): void {
    if (ctx.session_id === undefined) return;
    if (this.handedTo.size >= HANDED_KEPT) this.handedTo.delete(this.handedTo.keys().next().value!);
    this.handedTo.set(nonce, ctx.session_id);
  }

  /** Connections that closed while a token handed out on them was known (the newest HANDED_KEPT). */
  private readonly closed = new Set<string>();

  /** A client connection closed: the running steps handed out on it go to the next caller (see advance). */
  connectionClosed(sessionId: string): void {
    if (![...this.handedTo.values()].includes(sessionId)) return;
    if (this.closed.size >= HANDED_KEPT) this.closed.delete(this.closed.values().next().value!);
    this.closed.add(sessionId);
  }

  /** Whether the token `nonce` was handed out on a connection that has closed since. */
  private handedToClosed(nonce: string | null | undefined): boolean {
    const session = nonce ? this.handedTo.get(nonce) : undefined;
    return session !== undefined && this.closed.has(session);
  }

  private now(): { ms: number; iso: string } {
    const ms = this.deps.ports.clock.now();
    // A call asks for the time several times within the same millisecond: format it once.
    if (ms !== this.lastNow.ms) this.lastNow = { ms, iso: isoTime(ms) };
    return this.lastNow;
  }

  /**
   * Handles one `workflow_next_step` call; domain failures come back as `status: 'error'`. Creating, claiming and
   * submitting draw from the rate buckets; waiting for a gate decision and refreshing a token do not (they hand in
   * nothing), unless they are refused: a refused call spends its token, so hammering with bad tokens is slowed down.
   */
  async nextStep(req: NextStepRequest, ctx: CallContext = {}, wait?: GateWait): Promise<NextStepResponse> {
    this.inFlight++;
    const started = ++this.started;
    try {
      const res = await this.handle(req, ctx, wait);
      // A call no other overlapped: the agent's next call is most likely the submission of the step it got.
      if (res.status === 'ok' && res.new_step_token && this.started === started) this.readAheadSoon(res.new_step_token, started);
      return res;
    } finally {
      this.inFlight--;
    }
  }

  /** Calls under way, and calls started so far. */
  private inFlight = 0;
  private started = 0;

  /**
   * On the turn after the answer, unless another call has started since: reads what submitting `token`'s step will
   * read (`speculate`), in the gap before the agent's next call. Calls that overlap read nothing ahead: the writes of
   * one would make another's rows stale, and the reading would take processor time they need.
   */
  private readAheadSoon(token: string, started: number): void {
    setImmediate(() => {
      // A read ahead scheduled before a later call's answer finds that call started since, and reads nothing.
      if (this.inFlight !== 0 || this.started !== started) return;
      try {
        this.readAheadOf(token);
      } catch {
        // Nothing is lost: the call reads for itself (a store closed right after the answer, say).
      }
    });
  }

  /** Reads, through the repository, what submitting the step `token` hands out reads first (see continueInTx, readAhead). */
  private readAheadOf(token: string): void {
    const p = this.tokens.signedPayload(token);
    if (!p) return;
    const repo = this.repo;
    repo.speculate(() => {
      const exec = repo.execution(p.execution_id);
      const tok = repo.token(p.nonce);
      const step = repo.step(p.execution_id, p.step_name);
      if (!exec || tok?.state !== 'active' || step?.status !== 'running') return;
      if (gatedStep(step)) return;
      // The steps ready once this one completes (one, unless the workflow branches): their rows and artifacts' heads.
      const steps = repo.stepStates(exec.execution_id).map((s) => (s.step_name === step.step_name ? { ...s, status: 'completed' as const } : s));
      for (const ready of readySteps(steps).slice(0, READ_AHEAD_STEPS)) {
        const row = repo.step(exec.execution_id, ready.name);
        if (row) repo.artifactHeads(exec.execution_id, row.dependencies, this.options.inlineBudgetBytes);
      }
    });
  }

  private async handle(req: NextStepRequest, ctx: CallContext, wait?: GateWait): Promise<NextStepResponse> {
    let buckets: DrawnBucket[] | undefined;
    let mode: 'create' | 'continue' | 'refresh' | 'claim' | 'task' | 'reclaim' | undefined;
    const draw = () => (buckets = this.buckets.draw(this.rateKeys(req, ctx, mode!), this.now().ms));
    try {
      const picked = this.mode(req);
      mode = picked.mode;
      if (picked.activeTaskId) req = { ...req, task_id: picked.activeTaskId };
      if (mode === 'task') {
        const payload = this.tokens.verify(req.step_token!, this.now().ms);
        return this.taskOf(payload, req);
      }
      if (mode === 'continue' || mode === 'refresh') {
        const waiting = mode === 'continue' && !req.model_output_so_far && this.unverified(req.step_token!)?.wait === true;
        if (mode === 'continue' && !waiting) draw();
        const payload = this.tokens.verify(req.step_token!, this.now().ms, { allowExpired: mode === 'refresh' });
        if (mode === 'continue' && !req.model_output_so_far) await this.waitForGate(payload, wait);
        if (mode === 'continue' && req.model_output_so_far) req = withFields(req, { evidence: await this.checkEvidence(payload, req) });
        return await this.run(buckets ?? [], () => this.continueInTx(payload, req, ctx, mode === 'refresh'));
      }
      draw();
      if (mode === 'create') {
        const prepared = await this.prepare(req);
        const key = ctx.request_key;
        // The tokens a keyed start hands out follow its key: the same start sent again gets them again (answerAgain).
        if (key !== undefined) return await this.run(buckets!, () => this.tokens.following(requestKeyMark(key), () => this.createInTx(req, ctx, true, prepared, key)));
        return await this.run(buckets!, () => this.createInTx(req, ctx, true, prepared));
      }
      if (mode === 'reclaim') return await this.run(buckets!, () => this.handBackInTx(req.task_id!, ctx));
      return await this.run(buckets!, () => this.claimInTx(req.task_id!, req, ctx));
    } catch (ex) {
      if (!BatonError.is(ex)) throw ex;
      if (mode && !buckets && ex.reason !== 'rate_limited') {
        try {
          draw();
        } catch (limited) {
          if (!BatonError.is(limited, 'rate_limited')) throw limited;
          return this.errorResult(limited, req);
        }
      }
      if (buckets?.length) await this.deps.ports.store.transaction(() => this.buckets.save(buckets!)).catch(() => undefined);
      return this.errorResult(ex, req);
    }
  }

  /** The error answer, with where the execution stands and the call that recovers when the caller can make it. */
  private errorResult(ex: BatonError, req: NextStepRequest): NextStepResponse {
    return errorResult(ex, req, (id) => {
      const exec = this.resolve(id);
      return exec && { exec, steps: this.repo.stepStates(exec.execution_id) };
    });
  }

  /** Which of the four operations the request asks for; for a bare call, the active task it picks up. */
  private mode(req: NextStepRequest): { mode: 'create' | 'continue' | 'refresh' | 'claim' | 'task' | 'reclaim'; activeTaskId?: string } {
    if (req.request === 'reclaim') {
      if (req.step_token) throw new BatonError('invalid_input', "request 'reclaim' is for a step whose token you lost; with the token, use request 'refresh_token' (or just submit).");
      const activeTaskId = req.task_id ? undefined : this.activeTaskId();
      if (!req.task_id && !activeTaskId) throw new BatonError('invalid_input', "request 'reclaim' needs the task_id (or execution_id) of the workflow whose step you lost the token of.");
      return { mode: 'reclaim', activeTaskId };
    }
    if (req.request === 'get_task') {
      if (!req.step_token) throw new BatonError('invalid_input', "request 'get_task' needs the step_token of the spec phase you hold, and task_number.");
      return { mode: 'task' };
    }
    if (req.request === 'refresh_token') {
      if (!req.step_token) throw new BatonError('invalid_input', "request 'refresh_token' needs the step_token to refresh (an expired one is fine).");
      return { mode: 'refresh' };
    }
    if (req.step_token) {
      if (req.template_name) throw new BatonError('invalid_input', 'Pass either template_name (to start a new workflow) or step_token (to continue one), not both.');
      return { mode: 'continue' };
    }
    if (req.model_output_so_far) {
      throw new BatonError('invalid_input', 'model_output_so_far was sent without step_token: include the new_step_token from the response that gave you this step.');
    }
    if (req.template_name) return { mode: 'create' };
    if (req.task_id) return { mode: 'claim' };
    // A bare call picks up the project's active workflow (one a person started in the editor, say).
    const activeTaskId = this.activeTaskId();
    if (activeTaskId) return { mode: 'claim', activeTaskId };
    throw new BatonError(
      'invalid_input',
      'Nothing to do: no workflow is active in this project for a call without template_name, step_token or task_id to pick up; pass template_name to start a workflow (see available-workflows://all), step_token with model_output_so_far to submit a step, or task_id to claim a ready step of a running workflow.',
    );
  }

  /** Runs `fn` in a transaction, persists rate buckets with it, and emits its events once durable. */
  private async run(buckets: DrawnBucket[], fn: () => TxResult): Promise<NextStepResponse> {
    const result = await this.deps.ports.store.transaction(() => {
      // Saved after fn: a call refused before it writes anything (a used token, say) leaves nothing to undo.
      const r = fn();
      this.buckets.save(buckets);
      return r;
    });
    this.deps.emit(result.events);
    return result.response;
  }

  /** A token's payload before its signature is checked (for rate-limit keys and the like): one this process signed needs no decoding. */
  private unverified(token: string): Partial<TokenPayload> | null {
    return this.tokens.signedPayload(token) ?? decodeTokenUnverified(token);
  }

  /** Forgets the rate buckets this broker read or saved (buckets were deleted, as a prune does). */
  forgetRateBuckets(): void {
    this.buckets.forget();
  }

  /** The task and agent buckets a call draws from. */
  private rateKeys(req: NextStepRequest, ctx: CallContext, mode: string): Array<{ scope: 'task' | 'agent'; key: string }> {
    if (!this.buckets.enabled) return [];
    const keys: Array<{ scope: 'task' | 'agent'; key: string }> = [];
    let agent = ctx.agent_name ?? 'supervisor';
    if (mode === 'continue' || mode === 'refresh') {
      const p = this.unverified(req.step_token!);
      if (p?.execution_id) {
        keys.push({ scope: 'task', key: this.repo.executionTask(p.execution_id) ?? p.execution_id });
        if (!ctx.agent_name && p.step_name) agent = this.repo.stepAgent(p.execution_id, p.step_name) ?? agent;
      }
    } else if (mode === 'claim' || mode === 'reclaim') {
      const exec = this.resolve(req.task_id!);
      if (exec) keys.push({ scope: 'task', key: exec.task_id ?? exec.execution_id });
    }
    keys.push({ scope: 'agent', key: agent });
    return keys;
  }

  // ---- the four operations ----

  /** The project's active task, if its execution can still move. */
  private activeTaskId(): string | undefined {
    const row = this.deps.ports.store.get<{ task_id: string }>(
      `SELECT e.task_id FROM projects p JOIN executions e ON e.task_id = p.active_task_id
       WHERE p.id = ? AND e.status IN ('running', 'awaiting_approval')`,
      [this.deps.projectId()],
    );
    return row?.task_id;
  }

  /**
   * Creates an execution without handing out a step: agents claim its ready steps with `{ task_id }` (or a bare call).
   * With `ctx.request_key`, the key is recorded with it; a key recorded already creates nothing and gives the execution
   * the earlier start with it created (`earlier`), as it stands.
   */
  async start(req: NextStepRequest, ctx: CallContext = {}): Promise<{ execution_id: string; task_id?: string; earlier: boolean }> {
    if (!req.template_name) throw new BatonError('invalid_input', 'template_name is required to start a workflow (see available-workflows://all).');
    const prepared = await this.prepare(req);
    const result = await this.deps.ports.store.transaction(() => this.createInTx(req, ctx, false, prepared, ctx.request_key));
    this.deps.emit(result.events);
    return { execution_id: result.response.execution_id!, task_id: result.response.task_id, earlier: result.earlier === true };
  }

  /** The template a request names, or `template_not_found` naming the ones that exist. */
  private templateOf(name: string) {
    const template = this.deps.content.template(name);
    if (!template) {
      const names = this.deps.content.templates().map((t) => t.name);
      throw new BatonError('template_not_found', `No workflow template ${echo(name)}${this.deps.content.leftOutNote('workflows', name)}. Available: ${names.join(', ') || '(none)'}; see available-workflows://all.`, { templates: names });
    }
    return template;
  }

  /** For a template with dynamic phases: its source read and parsed, before the create transaction. */
  private async prepare(req: NextStepRequest): Promise<PreparedSource | undefined> {
    if (!req.template_name) return undefined;
    const template = this.templateOf(req.template_name);
    if (!template.dynamic_phases) {
      if (req.source) throw new BatonError('invalid_input', `Template "${template.name}" takes no source; only templates with dynamic phases (such as spec_execution_v1) do.`);
      return undefined;
    }
    if (!this.deps.dynamic) throw new BatonError('invalid_state', `Template "${template.name}" has dynamic phases, which this Baton cannot run.`);
    return this.deps.dynamic.prepare(template, req);
  }

  /**
   * Creates an execution and, with `claim`, hands out its first step. With `requestKey`, the key is recorded with it
   * (one insert, before any write is deferred), and a key recorded already answers with the run it started instead
   * (unclaimed: only names it, marked `earlier`).
   */
  private createInTx(req: NextStepRequest, ctx: CallContext, claim = true, prepared?: PreparedSource, requestKey?: string): TxResult {
    const name = req.template_name!;
    const { iso } = this.now();
    const ids = this.deps.ports.ids;
    const executionId = ids.uuid();
    const earlier = requestKey === undefined ? undefined : earlierStart(this.deps.ports.store, requestKey, executionId, iso);
    if (earlier !== undefined && !claim) return { response: { status: 'no_op', execution_id: earlier }, events: [], earlier: true };
    if (earlier !== undefined) return this.startedAgain(earlier, requestKey!, ctx);
    const template = this.templateOf(name);
    if (template.dynamic_phases && !prepared) throw new BatonError('invalid_input', `Template "${name}" needs a source: pass source, the tasks.md relative to the workspace.`);
    const taskId = ids.uuid();
    const projectId = this.deps.projectId();
    const description = req.task_description ?? req.rationale ?? defaultTaskDescription(name);
    // A plain create hands out its first step from the rows it writes, built as a read would give them: it reads
    // nothing after its writes, so they all reach SQLite after the answer (Store.deferWrites).
    const plain = claim && !prepared;
    const firstStepId = plain ? this.repo.nextStepId() : 0;
    if (plain) this.deps.ports.store.deferWrites?.();
    this.repo.insertTask({
      task_id: taskId, agent_name: 'supervisor', project_id: projectId, description, now: iso,
      metadata: { template_name: name, referenced_paths: req.referenced_paths ?? [], intent_tags: req.intent_tags ?? [] },
    });
    const execution: NewExecution = {
      execution_id: executionId, kind: prepared ? 'spec' : 'template', template_id: template.id, template_name: name, task_id: taskId,
      project_id: projectId, status: 'running', now: iso,
      metadata: { stall_count: 0, parallel_decision_count: 0, task_description: description, client: ctx.client_name ?? null },
    };
    this.repo.insertExecution(execution);
    const phases = prepared ? this.deps.dynamic!.create(executionId, template, prepared, iso) : [];
    const steps: NewStep[] = [...template.steps, ...phases].map((def, position) => ({
      execution_id: executionId, def, position, status: def.dependencies.length ? 'pending' : 'ready',
    }));
    for (const s of steps) this.repo.insertStep(s);
    this.deps.ports.store.run('UPDATE projects SET active_task_id = ?, updated_at = ? WHERE id = ?', [taskId, iso, projectId]);
    const events: BatonEvent[] = [{ type: 'execution', execution_id: executionId, task_id: taskId, status: 'running' }];
    this.event(executionId, 'workflow_started', { template: name, task_id: taskId, task_description: description });
    const states = plain ? this.repo.insertedStates(steps) : undefined;
    if (states) {
      const exec = this.repo.insertedExecution(execution);
      const next = this.pick(exec, states, req, ctx);
      if (next) {
        const i = states.findIndex((s) => s.step_name === next.name);
        const row = this.repo.insertedStep(steps[i]!, firstStepId + i);
        const heads = this.repo.artifactHeads(executionId, row.dependencies, this.options.inlineBudgetBytes);
        return this.advance(exec, req, ctx, events, { steps: states, next, row, heads, metadata: next.parallel ? exec.metadata : undefined });
      }
    }
    const exec = this.repo.execution(executionId)!;
    if (claim) return this.advance(exec, req, ctx, events);
    this.syncExecution(exec);
    return { response: { status: 'no_op', execution_id: executionId, task_id: taskId, progress: 0 }, events };
  }

  private claimInTx(id: string, req: NextStepRequest, ctx: CallContext): TxResult {
    const exec = this.resolve(id);
    if (!exec) throw new BatonError('execution_not_found', `No execution or task ${echo(id)}. Start one with template_name, or read project-context://current for the active task.`);
    if (exec.kind === 'pipeline') {
      throw new BatonError('invalid_state', `Execution ${exec.execution_id} is a pipeline run: Baton starts its agents itself, so it has no steps to claim. Follow it at workflow-status://${exec.execution_id}.`);
    }
    if (exec.status === 'completed') return this.closedResponse(exec, []);
    this.assertWorkable(exec);
    return this.advance(exec, req, ctx, []);
  }

  /**
   * Request `reclaim`: the step this connection holds, handed to it again with a new token (the one it lost is
   * superseded), or, for a step waiting for approval, a new wait token. Only the connection the step was handed to
   * gets it (another agent on another connection waits until the token expires and the step stalls); a connection
   * holding several steps of the workflow cannot say which token it lost, and is told so.
   */
  private handBackInTx(id: string, ctx: CallContext): TxResult {
    const exec = this.resolve(id);
    if (!exec) throw new BatonError('execution_not_found', `No execution or task ${echo(id)}; read current-step://active for the active one.`);
    this.assertWorkable(exec);
    const held = this.repo.stepsWithStatus(exec.execution_id, ['running', 'awaiting_approval'])
      .filter((s) => s.token_nonce !== null && ctx.session_id !== undefined && this.handedTo.get(s.token_nonce) === ctx.session_id);
    if (held.length === 0) {
      throw new BatonError(
        'invalid_state',
        `No step of execution ${exec.execution_id} was handed to this connection, so none is handed back: a step goes back only to the connection that got it (after a restart of Baton, to none), or to the next caller once its token has expired and the step stalls. ${readCurrent(exec.execution_id)}.`,
      );
    }
    if (held.length > 1) {
      throw new BatonError(
        'invalid_state',
        `This connection holds ${held.map((s) => s.step_name).join(', ')} of execution ${exec.execution_id}; 'reclaim' cannot tell which token was lost. Submit the steps whose tokens you have; the others stall once their tokens expire and go to the next caller.`,
      );
    }
    const step = held[0]!;
    const { iso } = this.now();
    this.repo.closeToken(step.token_nonce!, 'superseded', iso);
    this.event(exec.execution_id, 'token_reclaimed', { step_name: step.step_name });
    if (step.status === 'awaiting_approval') return { response: this.issueWaitToken(exec, step, ctx), events: [] };
    return this.offer(exec, step, undefined, ctx, []);
  }

  private continueInTx(p: TokenPayload, req: NextStepRequest, ctx: CallContext, refresh: boolean): TxResult {
    const exec = this.repo.execution(p.execution_id);
    if (!exec) throw new BatonError('execution_not_found', `The execution ${p.execution_id} of this token no longer exists; start a new workflow with template_name.`);
    if (req.task_id && req.task_id !== exec.execution_id && req.task_id !== exec.task_id) {
      throw new BatonError(
        'token_wrong_execution',
        `This step_token belongs to execution ${exec.execution_id}, not ${echo(req.task_id)}. Use the token from the last response for that workflow, or drop task_id.`,
        { execution_id: exec.execution_id },
      );
    }
    let tok: TokenRow;
    try {
      tok = this.tokens.check(p);
    } catch (ex) {
      // A used token presented again, or a refresh or wait made again with the token it superseded: the answer may
      // have been lost. (A submission with a superseded token is refused: its output would not be taken.)
      const repeated = BatonError.is(ex, 'token_replayed') || (BatonError.is(ex, 'token_out_of_order') && !req.model_output_so_far);
      const again = repeated ? this.answerAgain(exec, p.nonce, ctx, req.model_output_so_far !== undefined) : undefined;
      if (again) return again;
      throw ex;
    }
    const step = this.repo.step(p.execution_id, p.step_name)!;
    const { iso } = this.now();
    const output = req.model_output_so_far;
    if (exec.status === 'completed' && step.status === 'completed') {
      this.repo.closeToken(tok.nonce, 'consumed', iso);
      return this.closedResponse(exec, []);
    }
    this.assertWorkable(exec);
    switch (step.status) {
      case 'running':
        if (output && !refresh) return this.tokens.following(tok.nonce, () => this.submit(exec, step, tok, output, req, ctx));
        this.repo.closeToken(tok.nonce, 'superseded', iso);
        if (refresh) this.event(exec.execution_id, 'token_refreshed', { step_name: step.step_name });
        // Recorded as following this token, so the same call made again gets this answer again (see answerAgain).
        return this.tokens.following(tok.nonce, () => this.offer(exec, step, undefined, ctx, []));
      case 'awaiting_approval':
        if (output && !refresh) {
          throw new BatonError(
            'invalid_state',
            `Step "${step.step_name}" was already submitted and is waiting for a person's approval. Call workflow_next_step with only this step_token (no model_output_so_far) to wait for the decision.`,
            { execution_id: exec.execution_id, next_call: { step_token: req.step_token } },
          );
        }
        if (!refresh) return { response: awaitingResponse(exec, step.step_name, req.step_token!, p.expires_at, this.options.approveCommand), events: [] };
        this.repo.closeToken(tok.nonce, 'superseded', iso);
        return this.tokens.following(tok.nonce, () => ({ response: this.issueWaitToken(exec, step, ctx), events: [] }));
      case 'completed':
        // Approved while the agent waited: the wait token now moves the workflow on.
        this.repo.closeToken(tok.nonce, 'consumed', iso);
        return this.tokens.following(tok.nonce, () => this.advance(exec, req, ctx, []));
      default:
        throw new BatonError('token_out_of_order', `Step "${step.step_name}" is ${step.status}; this token no longer applies. ${readCurrent(exec.execution_id)}.`);
    }
  }

  /**
   * A used token (or one a refresh or a wait superseded) presented again: the agent may never have got the answer of
   * the call that used it (a dropped connection, a killed process, a client that timed out) and calls again. While
   * the token that answer handed out is unused and its step still waits for it, the call gets that answer again — the
   * same step, or the same wait on its gate, with the same token (a new one if it has expired) — and a workflow that
   * call closed answers task_closed again. Otherwise (that token was used or refreshed, or the call handed out
   * nothing) undefined: the replay is refused as before. Nothing moves twice: the output sent again is not taken.
   */
  private answerAgain(exec: ExecutionRow, used: string, ctx: CallContext, resubmitted: boolean, opening = TOKEN_USED): TxResult | undefined {
    const next = this.repo.followingToken(exec.execution_id, used);
    if (!next) return exec.status === 'completed' ? this.closedResponse(exec, []) : undefined;
    const step = next.state === 'active' ? this.repo.step(exec.execution_id, next.step_name) : undefined;
    if (!step || step.token_nonce !== next.nonce || (step.status !== 'running' && step.status !== 'awaiting_approval')) return undefined;
    const waiting = step.status === 'awaiting_approval';
    const same = this.tokens.reissue(next, waiting);
    this.event(exec.execution_id, 'answer_repeated', { step_name: step.step_name, status: step.status, same_token: same !== null });
    if (!same) this.repo.closeToken(next.nonce, 'superseded', this.now().iso);
    const result = this.tokens.following(used, (): TxResult => {
      if (!waiting) return this.offer(exec, step, undefined, ctx, [], undefined, same ? { token: same.token, nonce: next.nonce, expiresMs: same.expiresMs } : undefined);
      if (same) return { response: awaitingResponse(exec, step.step_name, same.token, same.expiresMs, this.options.approveCommand), events: [] };
      return { response: this.issueWaitToken(exec, step, ctx), events: [] };
    });
    // Another agent's submission with the same token may have won: this call's output, whatever it was, was not taken.
    const kept = resubmitted ? ' The step keeps the output of the call that used the token first; the output of this call was not taken.' : '';
    result.response.human_message = `${opening}${kept} ${result.response.human_message ?? ''}`.trim();
    return result;
  }

  /**
   * A start sent again with the request key of the one that created `executionId` (its answer was lost): no second
   * run. The first answer again while the step it handed out still waits for its token (see answerAgain), task_closed
   * for a finished workflow, else where the run stands now, with nothing handed out.
   */
  private startedAgain(executionId: string, key: string, ctx: CallContext): TxResult {
    const exec = this.repo.execution(executionId);
    if (!exec) throw new BatonError('execution_not_found', `The execution ${executionId} this request key started no longer exists; start the workflow again without the key, or with a new one.`);
    const again = this.answerAgain(exec, requestKeyMark(key), ctx, false, `${keyStartedText(key)}, so no second run was started; here is that start's answer.`);
    if (again) return again;
    return {
      response: {
        status: 'no_op', execution_id: exec.execution_id, task_id: exec.task_id ?? undefined, progress: exec.progress,
        human_message: `${keyStartedText(key)}, which has moved on since (it is ${exec.status}): no second run was started and nothing is handed out again; ${readCurrent(exec.execution_id)}.`,
      },
      events: [],
    };
  }

  /** Refuses executions that are not in a state where steps move. */
  private assertWorkable(exec: ExecutionRow): void {
    if (isMoving(exec.status)) return;
    if (FINISHED.has(exec.status)) {
      throw new BatonError('token_out_of_order', `Execution ${exec.execution_id} is ${exec.status}; read workflow-status://${exec.execution_id} for its outcome or start a new workflow.`);
    }
    throw new BatonError('invalid_state', `Execution ${exec.execution_id} is ${exec.status}; it must be resumed before steps can move.`);
  }

  // ---- step transitions ----

  private submit(exec: ExecutionRow, step: StepRow, tok: TokenRow, output: ModelOutput, req: NextStepRequest, ctx: CallContext): TxResult {
    const { iso, ms } = this.now();
    const gated = gatedStep(step);
    const hints = withFields(req, { last_agent: step.agent_name });
    // What handing out the next step reads, read now (this step's writes patched in): this step's writes and the
    // hand-out's then all come after the call's last read, and reach SQLite after the answer (Store.deferWrites).
    const ids = this.deps.ports.ids;
    const artifactIds = output.artifacts.map(() => ids.orderedUuid());
    const stored = storedOutput(output, artifactIds);
    const ahead = gated ? undefined : this.readAhead(exec, step, output, stored, artifactIds, hints, ctx);
    if (ahead) this.deps.ports.store.deferWrites?.();
    // The token was read active in this transaction (tokens.check), so its close cannot lose a race here, deferred or not.
    if (tok.state !== 'active' || !this.repo.closeToken(tok.nonce, 'consumed', iso)) {
      throw new BatonError('token_replayed', `This step_token was already used. ${readCurrent(exec.execution_id)}.`);
    }
    for (const [i, a] of output.artifacts.entries()) {
      this.repo.insertArtifact({
        artifact_id: artifactIds[i]!, execution_id: exec.execution_id, step_name: step.step_name, agent_name: step.agent_name,
        type: a.type, title: a.title, content: a.content, description: a.description ?? null, is_final: false,
        metadata: { ...(a.metadata ?? {}), attempt: step.attempt }, now: iso,
      });
    }
    for (const f of output.findings ?? []) {
      this.repo.insertFinding({ ...f, finding_id: ids.uuid(), execution_id: exec.execution_id, step_name: step.step_name, project_id: exec.project_id, now: iso });
    }
    if (exec.kind === 'spec' && Array.isArray(req.evidence)) {
      this.repo.updateStep(exec.execution_id, step.step_name, { metadata: { ...step.metadata, evidence: req.evidence, evidence_at: iso } });
    }
    const events: BatonEvent[] = [];
    if (output.artifacts.length) events.push({ type: 'artifact', execution_id: exec.execution_id, artifact_id: '*', is_final: false });
    const duration = step.started_at ? ms - Date.parse(step.started_at) : null;
    if (gated) {
      this.repo.updateStep(exec.execution_id, step.step_name, {
        status: 'awaiting_approval', output: stored, outcome_summary: output.summary, feedback: null, token_nonce: null,
      });
      this.event(exec.execution_id, 'step_submitted_for_approval', { step_name: step.step_name, artifacts: output.artifacts.length });
      events.push({ type: 'step', execution_id: exec.execution_id, step_name: step.step_name, status: 'awaiting_approval' });
      const fresh = this.repo.step(exec.execution_id, step.step_name)!;
      const response = this.issueWaitToken(exec, fresh, ctx);
      const { status, progress } = this.syncExecution(exec);
      events.push({ type: 'execution', execution_id: exec.execution_id, task_id: exec.task_id, status });
      return { response: withFields(response, { progress }), events };
    }
    this.repo.updateStep(exec.execution_id, step.step_name, {
      status: 'completed', output: stored, outcome_summary: output.summary, token_nonce: null, completed_at: iso, duration_ms: duration,
    });
    this.event(exec.execution_id, 'step_completed', { step_name: step.step_name, artifacts: output.artifacts.length, confidence: output.confidence });
    events.push({ type: 'step', execution_id: exec.execution_id, step_name: step.step_name, status: 'completed' });
    return this.advance(exec, hints, ctx, events, ahead);
  }

  /**
   * What `advance` reads to hand out the step that follows `step`, read before `step`'s submission is written, with
   * that submission patched in: its status (completed), its output's paths, its artifacts. Undefined when no step is
   * ready then (closing, waiting and failing read as they write).
   */
  private readAhead(
    exec: ExecutionRow, step: StepRow, output: ModelOutput, stored: StoredOutput, artifactIds: string[], hints: NextStepRequest & { last_agent?: string },
    ctx: CallContext,
  ): ReadAhead | undefined {
    // Texts SQLite would give back otherwise than they are (a lone surrogate re-encoded) are read back:
    // the stored output keeps such a content (storedOutput looked at each), and a title is looked at here.
    if (!stored.artifacts.every((a) => a.content === undefined && storedAsIs(a.title))) return undefined;
    const steps = this.repo.stepStates(exec.execution_id);
    for (const s of steps) if (s.step_name === step.step_name) s.status = 'completed';
    const next = this.pick(exec, steps, hints, ctx, output.references ?? []);
    if (!next) return undefined;
    const row = this.repo.step(exec.execution_id, next.name)!;
    const heads = this.repo.artifactHeads(exec.execution_id, row.dependencies, this.options.inlineBudgetBytes);
    // Its artifacts, about to be written, are the newest: last in id order, cut as artifactHeads cuts them.
    if (row.dependencies.includes(step.step_name)) {
      output.artifacts.forEach((a, i) => heads.push({
        artifact_id: artifactIds[i]!, step_name: step.step_name, type: a.type, title: a.title ?? null,
        content: headOf(a.content, this.options.inlineBudgetBytes), content_size_bytes: stored.artifacts[i]!.content_size_bytes,
      }));
    }
    return { steps, next, row, heads, metadata: next.parallel ? this.repo.execution(exec.execution_id)!.metadata : undefined };
  }

  /** Picks the next ready step and hands it out, or closes, waits or fails the workflow. */
  private advance(
    exec: ExecutionRow,
    hints: NextStepRequest & { last_agent?: string },
    ctx: CallContext,
    events: BatonEvent[],
    ahead?: ReadAhead,
  ): TxResult {
    const steps = ahead?.steps ?? this.repo.stepStates(exec.execution_id);
    const next = ahead ? ahead.next : this.pick(exec, steps, hints, ctx);
    if (!next) this.refreshReady(exec, events, steps);
    if (next) {
      if (next.parallel) {
        const meta = ahead?.metadata ?? this.repo.execution(exec.execution_id)!.metadata;
        this.repo.updateExecution(exec.execution_id, { metadata: { ...meta, parallel_decision_count: Number(meta.parallel_decision_count ?? 0) + 1 } }, this.now().iso);
      }
      this.refreshReady(exec, events, steps, next.name);
      const chosen = steps.find((st) => st.step_name === next.name)!;
      chosen.status = 'running';
      return this.offer(exec, ahead?.row ?? this.repo.step(exec.execution_id, next.name)!, next.selection, ctx, events, steps, undefined, ahead?.heads);
    }
    if (steps.every((s) => DONE_STEP.has(s.status))) return this.close(exec, events);
    const inFlight = steps.filter((s) => s.status === 'running' || s.status === 'awaiting_approval');
    const tokens = new Map(inFlight.filter((s) => s.status === 'running').map((s) => [s.step_name, this.heldToken(exec, s.step_name)]));
    // A step whose token expired unused long ago, or whose connection ended (its agent went away), is handed to
    // whoever asks for work now.
    const why = (tok: TokenRow | null): 'token_expired' | 'connection_closed' | null => {
      if (tok === null) return null;
      if (Date.parse(tok.expires_at) + this.options.reclaimAfterMs <= this.now().ms) return 'token_expired';
      return this.connectionGone(tok) ? 'connection_closed' : null;
    };
    const abandoned = [...tokens].map(([name, tok]) => ({ name, reason: why(tok) })).find((h) => h.reason !== null);
    if (abandoned) return this.reclaim(exec, this.repo.step(exec.execution_id, abandoned.name)!, ctx, events, steps, abandoned.reason!);
    if (inFlight.length > 0) {
      const { status, progress } = this.syncExecution(exec);
      events.push({ type: 'execution', execution_id: exec.execution_id, task_id: exec.task_id, status });
      const holding = (s: StepState) => {
        const tok = tokens.get(s.step_name);
        const free = tok ? new Date(Date.parse(tok.expires_at) + this.options.reclaimAfterMs).toISOString() : null;
        return `being worked on by ${s.agent_name}${free ? `; if its agent neither submits nor refreshes its token by ${free}, the step is handed to the next caller` : ''}`;
      };
      const list = inFlight.map((s) => `${s.step_name} (${s.status === 'running' ? holding(s) : 'waiting for approval'})`).join(', ');
      // A step this very connection holds: its agent may have lost the token (a compacted context, say).
      const mine = ctx.session_id === undefined ? undefined : inFlight.find((s) => {
        const nonce = this.repo.step(exec.execution_id, s.step_name)?.token_nonce;
        return nonce != null && this.handedTo.get(nonce) === ctx.session_id;
      });
      const lost = mine ? ` ${mine.step_name} was handed to this connection: if you lost its token, call workflow_next_step({ task_id: "${exec.execution_id}", request: "reclaim" }) to get it again.` : '';
      // A person can hand on a step whose agent went away at once (baton approve's database, or the editor).
      const command = this.options.approveCommand?.replace(/^baton approve/, 'baton release');
      const which = tokens.size > 1 ? ' --step NAME' : '';
      const release = tokens.size === 0 ? ''
        : ` If the agent holding a step went away, a person can hand it on now with ${command ? `\`${command} ${exec.execution_id}${which}\` (or ` : ''}Release Step in the editor${command ? ')' : ''}.`;
      return {
        response: {
          status: 'no_op', execution_id: exec.execution_id, task_id: exec.task_id ?? undefined, progress,
          human_message: `No step is ready right now: ${list}. Call workflow_next_step({ task_id: "${exec.execution_id}" }) later to claim the next step once these finish.${lost}${release}`,
        },
        events,
      };
    }
    return this.fail(exec, steps, events);
  }

  /**
   * The ready step to hand out next, by the spec's scoring, from `steps` as they stand; undefined when none is ready.
   * `focus` adds paths to those of the completed steps' outputs (a submission not written yet).
   */
  private pick(exec: ExecutionRow, steps: StepState[], hints: NextStepRequest & { last_agent?: string }, ctx: CallContext, focus: string[] = []): NextPick | undefined {
    const ready = readySteps(steps);
    if (ready.length === 0) return undefined;
    // Focus paths only matter when several candidates compete and one of them has path patterns.
    const needsFocus = ready.length > 1 && ready.some((r) => r.path_patterns.length > 0);
    const scored = scoreParallelCandidates(
      ready,
      { requested_step_name: hints.requested_step_name, referenced_paths: hints.referenced_paths, intent_tags: hints.intent_tags },
      { current_agent: hints.last_agent ?? ctx.agent_name, focus_paths: needsFocus ? [...this.focusPaths(exec), ...focus] : [] },
    );
    const selection: SelectionInfo = {
      scores: scored.scores, reason: scored.reason, all_candidates: scored.all_candidates,
      parallel_opportunities: scored.parallel_opportunities, tie_broken_by: scored.tie_broken_by,
    };
    return { name: scored.chosen.name, selection, parallel: ready.length > 1 };
  }

  /** Claims `step` (if not yet running), issues a fresh token and builds the `ok` response. */
  private offer(
    exec: ExecutionRow, step: StepRow, selection: SelectionInfo | undefined, ctx: CallContext, events: BatonEvent[], states?: StepState[],
    again?: { token: string; nonce: string; expiresMs: number },
    readHeads?: ArtifactHead[],
  ): TxResult {
    const { iso } = this.now();
    const def = step.metadata.definition ?? fallbackDefinition(step);
    const contract = contractFor(def, this.deps.content.topForbiddenActions());
    // The call's last read (`readHeads` when it was read ahead); the writes after it (the token, the claim, its event,
    // the progress) only have to be on disk before the answer, not in SQLite: they run on the turn after it
    // (Store.deferWrites).
    const heads = readHeads ?? this.repo.artifactHeads(exec.execution_id, step.dependencies, this.options.inlineBudgetBytes);
    this.deps.ports.store.deferWrites?.();
    // `again`: the running step's own token, for an answer given again (see answerAgain); the step keeps it.
    const { token, nonce, expiresAt } = again ? { ...again, expiresAt: new Date(again.expiresMs).toISOString() } : this.tokens.issue(exec.execution_id, step.step_name, false, ctx.holder_pid ?? null);
    this.handTo(nonce, ctx);
    if (step.status !== 'running') {
      this.repo.updateStep(exec.execution_id, step.step_name, {
        status: 'running', started_at: step.started_at ?? iso, claimed_by: ctx.agent_name ?? ctx.client_name ?? step.agent_name,
        contract, token_nonce: nonce, attempt: Math.max(step.attempt, 1),
      });
      this.event(exec.execution_id, 'step_started', { step_name: step.step_name, agent_name: step.agent_name, claimed_by: ctx.agent_name ?? ctx.client_name ?? null });
      events.push({ type: 'step', execution_id: exec.execution_id, step_name: step.step_name, status: 'running' });
    } else if (!again) {
      this.repo.updateStep(exec.execution_id, step.step_name, { contract, token_nonce: nonce });
    }
    const { status, progress } = this.syncExecution(exec, { current_step: step.step_name }, states);
    events.push({ type: 'execution', execution_id: exec.execution_id, task_id: exec.task_id, status });
    const workflow = exec.template_name ?? exec.kind;
    const attempt = Math.max(step.attempt, 1);
    const response: NextStepResponse = {
      status: 'ok', execution_id: exec.execution_id, task_id: exec.task_id ?? undefined, next_step_contract: contract,
      new_step_token: token, token_expires_at: expiresAt, human_message: stepHumanMessage(contract, workflow),
      context: buildStepContext({
        workflow, agentName: step.agent_name, agent: this.deps.content.agent(step.agent_name),
        taskDescription: String(exec.metadata.task_description ?? ''), stepDescription: def.description,
        feedback: step.feedback, attempt, required: this.deps.content.guardrails().required_actions, executionId: exec.execution_id,
      }),
      selection, progress,
    };
    if (exec.kind === 'spec') this.deps.dynamic?.decorate(exec, step, response, this.options.inlineBudgetBytes);
    fitStepResult(response, heads, this.options.inlineBudgetBytes);
    return { response, events };
  }

  /** The active token of running step `stepName`, or null when it holds none. */
  private heldToken(exec: ExecutionRow, stepName: string): TokenRow | null {
    const nonce = this.repo.step(exec.execution_id, stepName)?.token_nonce;
    const tok = nonce ? this.repo.token(nonce) : undefined;
    return tok && tok.state === 'active' ? tok : null;
  }

  /**
   * Whether the connection token `tok` was handed out on has ended: an MCP session of this process that closed, or
   * the stdio of a process that is gone (whose connection went with it).
   */
  private connectionGone(tok: TokenRow): boolean {
    if (this.handedToClosed(tok.nonce)) return true;
    return tok.holder_pid !== null && this.options.processAlive !== undefined && !this.options.processAlive(tok.holder_pid);
  }

  /**
   * Hands a running step whose token expired unused (reclaimAfterMs ago), or whose connection closed, to this caller:
   * the old token is superseded (its agent, if it comes back, is told the step moved on), and the step is offered
   * again with a fresh token.
   */
  private reclaim(
    exec: ExecutionRow, step: StepRow, ctx: CallContext, events: BatonEvent[], states: StepState[], reason: 'token_expired' | 'connection_closed',
  ): TxResult {
    const { iso } = this.now();
    if (step.token_nonce) this.repo.closeToken(step.token_nonce, 'superseded', iso);
    const by = ctx.agent_name ?? ctx.client_name ?? step.agent_name;
    this.repo.updateStep(exec.execution_id, step.step_name, { claimed_by: by });
    this.event(exec.execution_id, 'step_reclaimed', { step_name: step.step_name, from: step.claimed_by ?? null, claimed_by: by, reason });
    return this.offer(exec, step, undefined, ctx, events, states);
  }

  /** Issues a token for a step that waits on a person; the agent presents it to learn the decision. */
  private issueWaitToken(exec: ExecutionRow, step: StepRow, ctx: CallContext): NextStepResponse {
    const { token, nonce, expiresAt } = this.tokens.issue(exec.execution_id, step.step_name, true, ctx.holder_pid ?? null);
    this.handTo(nonce, ctx);
    this.repo.updateStep(exec.execution_id, step.step_name, { token_nonce: nonce });
    return awaitingResponse(exec, step.step_name, token, Date.parse(expiresAt), this.options.approveCommand);
  }

  /**
   * Marks pending steps whose dependencies are done as ready; returns the fresh step states.
   * `except` names a step about to be handed out: it goes straight to running, so its 'ready' write is skipped.
   */
  private refreshReady(exec: ExecutionRow, events: BatonEvent[], steps = this.repo.stepStates(exec.execution_id), except?: string): StepState[] {
    const done = new Set(steps.filter((s) => DONE_STEP.has(s.status)).map((s) => s.step_name));
    for (const s of steps) {
      if (s.status === 'pending' && s.dependencies.every((d) => done.has(d))) {
        s.status = 'ready';
        if (s.step_name === except) continue;
        this.repo.updateStep(exec.execution_id, s.step_name, { status: 'ready' });
        events.push({ type: 'step', execution_id: exec.execution_id, step_name: s.step_name, status: 'ready' });
      }
    }
    return steps;
  }

  /** Recomputes an execution's status and progress from its steps; returns the status. */
  syncExecution(
    exec: ExecutionRow, also: Partial<Pick<ExecutionRow, 'current_step'>> = {}, states?: StepState[],
  ): { status: 'running' | 'awaiting_approval'; progress: number } {
    const counts: Partial<Record<string, number>> = states ? {} : this.repo.statusCounts(exec.execution_id);
    for (const st of states ?? []) counts[st.status] = (counts[st.status] ?? 0) + 1;
    const total = Object.values(counts).reduce<number>((a, b) => a + (b ?? 0), 0);
    const done = (counts.completed ?? 0) + (counts.skipped ?? 0);
    const progress = total ? Math.round((done * 100) / total) : 100;
    const status = !counts.running && counts.awaiting_approval ? 'awaiting_approval' : 'running';
    this.repo.updateExecution(exec.execution_id, withFields(also, { status, progress }), this.now().iso, exec.status);
    exec.status = status; // `exec` was read in this transaction and stays its current view
    return { status, progress };
  }

  /** After a person's decision: closes the workflow if every step is done, else recomputes what is ready. */
  settle(exec: ExecutionRow, events: BatonEvent[]): void {
    const steps = this.refreshReady(exec, events);
    if (steps.every((s) => DONE_STEP.has(s.status))) {
      this.close(exec, events);
      return;
    }
    const { status } = this.syncExecution(exec);
    events.push({ type: 'execution', execution_id: exec.execution_id, task_id: exec.task_id, status });
  }

  /** Closes a workflow whose steps are all done: finalizes artifacts and stores the synthesis. */
  close(exec: ExecutionRow, events: BatonEvent[]): TxResult {
    const { iso, ms } = this.now();
    const steps = this.repo.steps(exec.execution_id);
    const task = exec.task_id
      ? this.deps.ports.store.get<{ task_description: string }>('SELECT task_description FROM agent_tasks WHERE task_id = ?', [exec.task_id])
      : undefined;
    this.repo.finalizeArtifacts(exec.execution_id);
    const synthesis = buildSynthesis(exec, task?.task_description ?? '', steps, this.repo.artifactLabels(exec.execution_id));
    const artifactId = this.deps.ports.ids.orderedUuid();
    this.repo.insertArtifact({
      artifact_id: artifactId, execution_id: exec.execution_id, step_name: null, agent_name: 'supervisor', type: 'design_doc',
      title: 'Workflow Synthesis', content: synthesis.outcome_summary, description: 'Final synthesis of workflow execution',
      is_final: true, metadata: synthesis.model_output, now: iso,
    });
    const stored = { ...synthesis, artifact_id: artifactId };
    this.repo.updateExecution(exec.execution_id, {
      status: 'completed', progress: 100, current_step: null, completed_at: iso, duration_ms: ms - Date.parse(exec.started_at),
      synthesis_output: JSON.stringify(stored),
    }, iso);
    if (exec.task_id) this.repo.setTaskStatus(exec.task_id, 'completed', iso);
    this.event(exec.execution_id, 'workflow_completed', { synthesis_artifact_id: artifactId });
    events.push(
      { type: 'artifact', execution_id: exec.execution_id, artifact_id: artifactId, is_final: true },
      { type: 'execution', execution_id: exec.execution_id, task_id: exec.task_id, status: 'completed' },
    );
    return this.closedResponse(exec, events, stored);
  }

  /** The `task_closed` response; `stored` is the synthesis as saved (read from the execution when not given). */
  private closedResponse(exec: ExecutionRow, events: BatonEvent[], stored = parseSynthesis(exec.synthesis_output)): TxResult {
    return {
      response: {
        status: 'task_closed', execution_id: exec.execution_id, task_id: exec.task_id ?? undefined, progress: 100,
        synthesis: stored,
        human_message: `The workflow is complete. The synthesis and every final artifact are at workflow-artifacts://final/${exec.execution_id}.`,
      },
      events,
    };
  }

  private fail(exec: ExecutionRow, steps: StepState[], events: BatonEvent[]): TxResult {
    const { iso, ms } = this.now();
    const stuck = steps.filter((s) => !DONE_STEP.has(s.status)).map((s) => `${s.step_name} (${s.status})`);
    const message = `No step can run any more: ${stuck.join(', ')} cannot complete, so execution ${exec.execution_id} failed.`;
    this.repo.updateExecution(exec.execution_id, {
      status: 'failed', completed_at: iso, duration_ms: ms - Date.parse(exec.started_at), current_step: null, error: message,
    }, iso);
    if (exec.task_id) this.repo.setTaskStatus(exec.task_id, 'failed', iso);
    this.event(exec.execution_id, 'workflow_failed', { reason: 'no ready steps', incomplete: stuck });
    events.push({ type: 'execution', execution_id: exec.execution_id, task_id: exec.task_id, status: 'failed' });
    return {
      response: {
        status: 'error', execution_id: exec.execution_id,
        error: {
          code: 'workflow_failed', message,
          recovery: `read workflow-status://${exec.execution_id} for details and start a new workflow`,
        },
      },
      events,
    };
  }

  /** Paths named by earlier steps' outputs: the focus of the work so far. */
  private focusPaths(exec: ExecutionRow): string[] {
    const rows = this.deps.ports.store.all<{ output: string | null }>(
      "SELECT output FROM steps WHERE execution_id = ? AND status = 'completed'",
      [exec.execution_id],
    );
    return rows.flatMap((r) => (r.output ? ((JSON.parse(r.output) as ModelOutput).references ?? []) : []));
  }

  /** Checks a spec phase's evidence before the submit transaction; other steps pass their evidence through. */
  private async checkEvidence(p: TokenPayload, req: NextStepRequest): Promise<NextStepRequest['evidence']> {
    if (this.repo.executionKind(p.execution_id) !== 'spec' || !this.deps.dynamic) return req.evidence;
    const exec = this.repo.execution(p.execution_id);
    const step = exec && this.repo.step(p.execution_id, p.step_name);
    if (!exec || step?.status !== 'running' || step.token_nonce !== p.nonce) return req.evidence; // the transaction refuses it
    return this.deps.dynamic.checkEvidence(exec, step, req.evidence);
  }

  /** Request `get_task`: one task of the spec phase a token holds (the token stays valid). */
  private taskOf(p: TokenPayload, req: NextStepRequest): NextStepResponse {
    const exec = this.repo.execution(p.execution_id);
    const step = exec && this.repo.step(p.execution_id, p.step_name);
    if (!exec || !step || exec.kind !== 'spec' || !this.deps.dynamic) {
      throw new BatonError('invalid_input', "request 'get_task' is for spec workflows (spec_execution_v1): this token's step is not a spec phase.");
    }
    if (step.status !== 'running' || step.token_nonce !== p.nonce) {
      throw new BatonError('token_out_of_order', `Step "${step.step_name}" is ${step.status}; this token no longer holds it. ${readCurrent(exec.execution_id)}.`);
    }
    const task = this.deps.dynamic.task(exec, step, req.task_number);
    return {
      status: 'ok', execution_id: exec.execution_id, task_id: exec.task_id ?? undefined, new_step_token: req.step_token ?? undefined,
      token_expires_at: new Date(p.expires_at).toISOString(), progress: exec.progress, spec_task: task,
      human_message: `Task ${task.task_id} (${task.task_number} of ${task.task_count}) of Phase ${task.phase}. Your step_token is unchanged: submit the phase with it when every task is done.`,
    };
  }

  /**
   * Submits the spec phase `stepName` for its holder without a token (the `specs` tools: the session id is the
   * execution id): the step's current token is spent, as a token submission would.
   */
  async submitHeld(executionId: string, stepName: string, output: ModelOutput, evidence: string[], ctx: CallContext = {}): Promise<NextStepResponse> {
    return this.run([], () => {
      const exec = this.repo.execution(executionId);
      const step = exec && this.repo.step(executionId, stepName);
      if (!exec || !step) throw new BatonError('execution_not_found', `No execution ${echo(executionId)} with step ${echo(stepName)}.`);
      this.assertWorkable(exec);
      if (step.status !== 'running' || !step.token_nonce) throw new BatonError('invalid_state', `Step "${stepName}" is ${step.status}; only the phase in progress can be completed.`);
      const tok = this.repo.token(step.token_nonce)!;
      return this.submit(exec, step, tok, output, { evidence }, ctx);
    });
  }

  /** Resolves an execution id or task id. */
  resolve(id: string): ExecutionRow | undefined {
    return this.repo.execution(id) ?? this.repo.executionByTask(id);
  }

  /** Appends to the audit timeline (inside the current transaction). */
  event(executionId: string | null, type: string, data: unknown): void {
    this.repo.insertEvent({ event_id: this.deps.ports.ids.orderedUuid(), execution_id: executionId, event_type: type, data, now: this.now().iso });
  }

  /** Blocks until a gated step is decided or the wait elapses (outside any transaction). */
  private async waitForGate(p: TokenPayload, wait: GateWait | undefined): Promise<void> {
    const ms = this.options.approvalWaitMs;
    if (ms <= 0 || wait?.signal?.aborted) return;
    const step = this.repo.step(p.execution_id, p.step_name);
    if (step?.status !== 'awaiting_approval' || step.token_nonce !== p.nonce) return;
    wait?.onWait?.({ execution_id: p.execution_id, step_name: p.step_name, wait_ms: ms });
    await this.deps.waiters.wait(p.execution_id, p.step_name, ms, wait?.signal);
  }
}

function parseSynthesis(json: string | null): { outcome_summary: string; model_output: unknown; artifact_id: string } | undefined {
  return json ? (JSON.parse(json) as { outcome_summary: string; model_output: unknown; artifact_id: string }) : undefined;
}

/** The steps ready to hand out, with `steps` as they stand: their dependencies done, none of them busy. */
function readySteps(steps: StepState[]): SelectableStep[] {
  const completed = new Set(steps.filter((s) => DONE_STEP.has(s.status)).map((s) => s.step_name));
  const busy = new Set(steps.filter((s) => BUSY_STEP.has(s.status)).map((s) => s.step_name));
  return computeReadySet(steps.map(toSelectable), completed, busy);
}

/** Whether a person approves `step` once it is submitted (its contract says, else its definition). */
function gatedStep(step: StepRow): boolean {
  return step.contract?.human_gate_required ?? step.metadata.definition?.human_gate ?? false;
}

function toSelectable(s: StepState): SelectableStep {
  return { name: s.step_name, dependencies: s.dependencies, agent_name: s.agent_name, path_patterns: s.path_patterns, tags: s.tags };
}

function fallbackDefinition(step: StepRow): StepDefinition {
  return {
    name: step.step_name, agent: step.agent_name, description: '', dependencies: step.dependencies, allowed_actions: [],
    required_output_format: 'A summary, artifacts, references and a confidence score.', human_gate: false, path_patterns: [], tags: [],
  };
}
