// The editor as a client of a terminal owner (`baton mcp` / `baton serve`): reads and calls go to its /control
// endpoint, events arrive over its /events Server-Sent Events stream. No 'vscode' import (tested over real HTTP).
// While connected, the owner is watched: one stopped later (Ctrl-Z, a debugger) or silent for long is reported at once,
// and the calls waiting on it fail with the words the connection gives, rather than each waiting out its time limit.
import type {
  ArtifactQuery, ArtifactRecord, ExecutionFilter, ArtifactsResource, AvailableWorkflowsResource, CurrentStepResource, ExecutionSummary, StepRelease,
  GateDecision, GateDecisionResult, TimelineEvent, WorkflowStatusResource,
} from '../core/api.js';
import type { Finding } from '../core/lifecycleTypes.js';
import type { PruneRequest, PruneResult } from '../core/retention.js';
import type { SpecPhaseResult, SpecStartInput, SpecStatus, SpecSummary } from '../core/specTypes.js';
import type { BatonEvent, CallContext, NextStepRequest, NextStepResponse, WorkflowTemplate } from '../core/types.js';
import { BatonError } from '../core/errors.js';
import { callControl, isReadOp, notTaken } from '../host/controlClient.js';
import type { DiscoveryInfo } from '../host/discovery.js';
import type { ControlRequest } from '../host/ownerServer.js';
import { halted, ownerState, SilenceCount, stateFromPs, type OwnerState, type PsRunner } from '../host/silentOwner.js';
import { EDITOR_ACTOR, editorDecider, type BatonSource, type SourceDisposable, type SourceEndpoint } from './batonSource.js';

/** Reads and calls time out after this long, except next_step, which may wait on a gate. */
const CALL_TIMEOUT_MS = 15_000;
const NEXT_STEP_TIMEOUT_MS = 10 * 60_000;
/** A prune of a large database may compact it too (as `baton prune` allows through the owner). */
const PRUNE_TIMEOUT_MS = 5 * 60_000;


/** How the owner is watched while this source is in use (tests shorten them). */
export interface OwnerWatchTiming {
  /**
   * How often the owner's process state is read (from /proc: nothing is asked of the owner). Where it would take a
   * spawn of ps (macOS, the BSDs), it is read only once a probe failed.
   */
  checkMs: number;
  /**
   * How long the owner may say nothing (no answer, event or heartbeat) before its /healthz is asked, while no call
   * waits on it (it is then needed only to tell a hung owner: a stopped one shows in its process state).
   */
  idleQuietMs: number;
  /** The same while a call waits on it. */
  callQuietMs: number;
  /** How long one /healthz probe waits for its answer. */
  probeMs: number;
  /**
   * How long an owner that is not stopped (busy: a big checkpoint or compaction) may fail its probes, probe after
   * probe, before it is taken for hung.
   */
  silentLimitMs: number;
}

/**
 * The watch's defaults: a stopped owner is noticed within a second on Linux (within about 3 s while a call waits, 11 s
 * idle, where ps tells: macOS, the BSDs), a hung one after half a minute or so.
 */
export const OWNER_WATCH: OwnerWatchTiming = { checkMs: 1000, idleQuietMs: 10_000, callQuietMs: 2000, probeMs: 1000, silentLimitMs: 30_000 };

/** What the user of a watched source is told, and asked, when its owner goes silent. */
export interface OwnerWatch {
  /**
   * The owner is stopped (its `state` says how) or has not answered for the silent limit: called once, after which
   * the source's calls fail with `silenced()`'s words.
   */
  onSilent(state: OwnerState): void;
  timing?: OwnerWatchTiming;
  /** The system the owner's process state is read on, and its ps (tests force darwin's way on Linux). */
  platform?: NodeJS.Platform;
  ps?: PsRunner;
}

/** Splits a Server-Sent Events buffer into complete `data:` payloads and the unfinished rest. */
export function parseSse(buffer: string): { data: string[]; rest: string } {
  const blocks = buffer.split(/\r?\n\r?\n/);
  const rest = blocks.pop() ?? '';
  const data: string[] = [];
  for (const block of blocks) {
    const lines = block.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, ''));
    if (lines.length) data.push(lines.join('\n'));
  }
  return { data, rest };
}

/**
 * Control calls to a watched owner, for the editor's other sources on it (pipelines, teams): a call waiting when the
 * owner is found silent fails then, in the watch's words, as the source's own calls do.
 */
export interface OwnerControl {
  /** The owner's process id. */
  readonly pid: number;
  /** One POST /control (15 s to answer unless `timeoutMs`); its answer's body. */
  control(request: ControlRequest, timeoutMs?: number): Promise<unknown>;
}

/** A BatonSource over a live owner's HTTP endpoint. */
export class RemoteSource implements BatonSource, OwnerControl {
  readonly mode = 'client' as const;
  private readonly listeners = new Set<(event: BatonEvent) => void>();
  private readonly abort = new AbortController();
  /** Settles when the owner's event stream ends (it stopped, or the connection broke). */
  readonly closed: Promise<void>;
  private disposed = false;
  /** The calls sent and not answered yet: each fails with the given words once the owner is found silent. */
  private readonly waiting = new Map<(ex: Error) => void, ControlRequest['op']>();
  /** Set once the owner was found silent: the words calls fail with from then on. */
  private silence: string | undefined;
  private readonly timer: ReturnType<typeof setInterval> | undefined;
  /** When the owner last said anything (an answer, an event, a heartbeat); the probes failed since. */
  private lastHeard = Date.now();
  private readonly silenceCount: SilenceCount;
  private probing = false;

  constructor(
    private readonly owner: DiscoveryInfo,
    private readonly onStreamError: (ex: unknown) => void = () => undefined,
    private readonly watch?: OwnerWatch,
  ) {
    this.closed = this.stream();
    this.silenceCount = new SilenceCount((watch?.timing ?? OWNER_WATCH).silentLimitMs);
    if (watch) {
      this.timer = setInterval(() => this.check(), (watch.timing ?? OWNER_WATCH).checkMs);
      this.timer.unref();
    }
  }

  /** Stops the event stream and the watch. */
  dispose(): void {
    this.disposed = true;
    clearInterval(this.timer);
    this.listeners.clear();
    this.abort.abort();
  }

  /**
   * The owner went silent: every call waiting on it, and every later one, fails with `text` (a call that may change
   * something is told it may still be carried out once the owner resumes), and the source is disposed.
   */
  silenced(text: string): void {
    this.silence = text;
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const [fail, op] of waiting) fail(this.silentError(op));
    this.dispose();
  }

  endpoint(): SourceEndpoint {
    return { url: this.owner.url, token: this.owner.token };
  }

  /** The owner's process id. */
  get pid(): number {
    return this.owner.pid;
  }

  async listExecutions(filter: ExecutionFilter = {}): Promise<ExecutionSummary[]> {
    const body = (await this.call({ op: 'executions', ...filter })) as { executions: ExecutionSummary[] };
    return body.executions;
  }

  workflowStatus(id: string, opts: { artifacts?: boolean } = {}): Promise<WorkflowStatusResource> {
    // An owner that predates `artifacts` sends them all: the panel still lists only its own capped reading.
    return this.result({ op: 'workflow_status', id, ...(opts.artifacts === false ? { artifacts: false } : {}) });
  }

  currentStep(id: string): Promise<CurrentStepResource> {
    return this.result({ op: 'current_step', id });
  }

  events(executionId: string): Promise<TimelineEvent[]> {
    return this.result({ op: 'events', execution_id: executionId });
  }

  availableWorkflows(): Promise<AvailableWorkflowsResource> {
    return this.result({ op: 'workflows' });
  }

  templates(): Promise<WorkflowTemplate[]> {
    return this.result({ op: 'templates' });
  }

  async artifact(artifactId: string): Promise<ArtifactRecord | undefined> {
    return (await this.result<ArtifactRecord | null>({ op: 'artifact', artifact_id: artifactId })) ?? undefined;
  }

  artifacts(query: ArtifactQuery): Promise<ArtifactsResource> {
    return this.result({ op: 'artifacts', query });
  }

  findings(executionId: string): Promise<Finding[]> {
    return this.result({ op: 'findings', execution_id: executionId });
  }

  decide(decision: GateDecision): Promise<GateDecisionResult> {
    return this.result({ op: 'decide', by: editorDecider(), ...decision });
  }

  cancel(executionId: string, reason?: string): Promise<ExecutionSummary> {
    return this.result({ op: 'cancel', execution_id: executionId, reason, by: EDITOR_ACTOR });
  }

  release(executionId: string, stepName: string): Promise<StepRelease> {
    return this.result({ op: 'release', execution_id: executionId, step_name: stepName, by: editorDecider() });
  }

  nextStep(req: NextStepRequest, ctx?: CallContext): Promise<NextStepResponse> {
    return this.result({ op: 'next_step', request: req, context: { client_name: EDITOR_ACTOR, ...ctx } }, NEXT_STEP_TIMEOUT_MS);
  }

  prune(req: PruneRequest = {}): Promise<PruneResult> {
    return this.result({ op: 'prune', ...req }, PRUNE_TIMEOUT_MS);
  }

  startWorkflow(templateName: string, taskDescription?: string): Promise<ExecutionSummary> {
    return this.result({ op: 'start_workflow', template_name: templateName, task_description: taskDescription, context: { client_name: EDITOR_ACTOR } });
  }

  guardrails(): Promise<string> {
    return this.result({ op: 'guardrails' });
  }

  async startSpec(input: SpecStartInput): Promise<SpecSummary> {
    const started = await this.result<SpecPhaseResult>({ op: 'spec_start', source: input.source, template_name: input.template_name, task_description: input.task_description });
    const summary = (await this.listSpecs({ source: started.source })).find((x) => x.execution_id === started.session_id);
    if (!summary) throw new Error(`spec workflow ${started.session_id} started but the owner does not list it`);
    return summary;
  }

  specStatus(id: string): Promise<SpecStatus> {
    return this.result({ op: 'spec_status', id });
  }

  async listSpecs(filter: { source?: string; limit?: number } = {}): Promise<SpecSummary[]> {
    const all = await this.result<SpecSummary[]>({ op: 'spec_list', source: filter.source });
    return filter.limit === undefined ? all : all.slice(0, filter.limit);
  }

  onEvent(listener: (event: BatonEvent) => void): SourceDisposable {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  control(request: ControlRequest, timeoutMs = CALL_TIMEOUT_MS): Promise<unknown> {
    return this.call(request, timeoutMs);
  }

  private async result<T>(request: ControlRequest, timeoutMs = CALL_TIMEOUT_MS): Promise<T> {
    return ((await this.call(request, timeoutMs)) as { result: T }).result;
  }

  /**
   * One POST /control; domain errors come back as BatonErrors with the owner's reason and message. A call still
   * waiting when the owner is found silent fails then, with the words `silenced` was given.
   */
  private call(request: ControlRequest, timeoutMs = CALL_TIMEOUT_MS): Promise<unknown> {
    if (this.silence !== undefined) return Promise.reject(this.silentError(request.op));
    return new Promise((resolve, reject) => {
      const fail = (ex: Error) => reject(ex);
      this.waiting.set(fail, request.op);
      this.send(request, timeoutMs).then(
        (body) => {
          this.heard();
          resolve(body);
        },
        (ex: unknown) => {
          // The owner's own answer (a domain error) is news of it too; a call it never answered is not.
          if (!BatonError.is(ex, 'owner_unreachable')) this.heard();
          reject(ex);
        },
      ).finally(() => this.waiting.delete(fail));
    });
  }

  /**
   * Sends `request`. An owner of an older Baton busy past its keep-alive time (Node's 5 s: a big checkpoint) closes
   * its idle connections as it comes back, and a request sent on one meanwhile is reset unread; a read is then sent
   * once more (it did nothing) if a second of its time is left. Not one that timed out, one refused (the owner is
   * gone), or a change.
   */
  private async send(request: ControlRequest, timeoutMs: number): Promise<unknown> {
    const sent = Date.now();
    try {
      return await callControl(this.owner, request, timeoutMs);
    } catch (ex) {
      const left = timeoutMs - (Date.now() - sent);
      const again = isReadOp(request.op) && BatonError.is(ex, 'owner_unreachable') && !notTaken(ex) && left >= 1000;
      if (!again || this.silence !== undefined || this.disposed) throw ex;
      return callControl(this.owner, request, left);
    }
  }

  private silentError(op: ControlRequest['op']): BatonError {
    const taken = isReadOp(op) ? '' : ` The ${op} call reached it before it went silent, so it may still carry it out ` +
      'once it is resumed: look before doing it again.';
    return new BatonError('owner_unreachable', `${this.silence ?? ''}${taken}`, { ownerPid: this.owner.pid });
  }

  private heard(): void {
    this.lastHeard = Date.now();
    this.silenceCount.heard();
  }

  /**
   * One look at the owner. On Linux its process state comes from /proc and costs it nothing: stopped or traced, it is
   * silent now. Otherwise /healthz is asked only after it said nothing for a while (shorter while a call waits), and a
   * process that is not stopped (busy with a big checkpoint, say) is silent only once it fails probe after probe for
   * the silent limit. Where the state takes a spawn of ps (about 7 ms of CPU, blocking this process), it is read only
   * after a failed probe, not each second: a stopped owner is then noticed a probe later (a few seconds while a call
   * waits), still named stopped rather than hung.
   */
  private check(): void {
    if (this.disposed || !this.watch) return;
    const timing = this.watch.timing ?? OWNER_WATCH;
    if (!stateFromPs(this.watch.platform)) {
      const state = this.state();
      if (halted(state)) return this.wentSilent(state);
    }
    if (this.probing || Date.now() - this.lastHeard < (this.waiting.size ? timing.callQuietMs : timing.idleQuietMs)) return;
    this.probing = true;
    const at = Date.now();
    void this.probe(timing.probeMs).then((answers) => {
      this.probing = false;
      if (this.disposed) return;
      if (answers) return this.heard();
      const now = this.state();
      if (halted(now)) return this.wentSilent(now);
      if (this.silenceCount.failed(at)) this.wentSilent(now);
    });
  }

  /** What the system says of the owner's process. */
  private state(): OwnerState {
    return ownerState(this.owner.pid, undefined, this.watch?.platform, this.watch?.ps);
  }

  /** Whether the owner answers /healthz as itself within `ms`. */
  private async probe(ms: number): Promise<boolean> {
    // Loaded with the connection already (it asked the same before it chose this owner).
    const { ownerAnswers } = await import('../host/discovery.js');
    return ownerAnswers(this.owner, ms);
  }

  private wentSilent(state: OwnerState): void {
    clearInterval(this.timer);
    if (this.disposed || this.silence !== undefined) return;
    this.watch?.onSilent(state);
  }

  /** Reads /events until it ends (the owner stopped or the connection broke: both mean the owner is gone). */
  private async stream(): Promise<void> {
    let res: Response;
    try {
      res = await fetch(new URL('/events', this.owner.url), {
        headers: { authorization: `Bearer ${this.owner.token}`, accept: 'text/event-stream' },
        signal: this.abort.signal,
      });
      if (!res.ok || !res.body) throw new Error(`owner answered HTTP ${res.status} to GET /events`);
    } catch (ex) {
      if (!this.disposed) this.onStreamError(ex);
      return;
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        this.heard();
        const parsed = parseSse(buffer + decoder.decode(chunk, { stream: true }));
        buffer = parsed.rest;
        for (const data of parsed.data) this.emit(JSON.parse(data) as BatonEvent);
      }
    } catch {
      // The connection closed under the read ("terminated"): the owner went away, which `closed` reports.
    }
  }

  private emit(event: BatonEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch (ex) {
        this.onStreamError(ex);
      }
    }
  }
}
