// The editor as a client of a terminal owner (`baton mcp` / `baton serve`): reads and calls go to its /control
// endpoint, events arrive over its /events Server-Sent Events stream. No 'vscode' import (tested over real HTTP).
import type {
  ArtifactQuery, ArtifactRecord, ArtifactsResource, AvailableWorkflowsResource, CurrentStepResource, ExecutionSummary, StepRelease,
  GateDecision, GateDecisionResult, TimelineEvent, WorkflowStatusResource,
} from '../core/api.js';
import type { Finding } from '../core/lifecycleTypes.js';
import type { PruneRequest, PruneResult } from '../core/retention.js';
import type { SpecPhaseResult, SpecStartInput, SpecStatus, SpecSummary } from '../core/specTypes.js';
import type { BatonEvent, CallContext, NextStepRequest, NextStepResponse, WorkflowTemplate } from '../core/types.js';
import { callControl } from '../host/controlClient.js';
import type { DiscoveryInfo } from '../host/discovery.js';
import type { ControlRequest } from '../host/ownerServer.js';
import { EDITOR_ACTOR, editorDecider, type BatonSource, type SourceDisposable, type SourceEndpoint } from './batonSource.js';

/** Reads and calls time out after this long, except next_step, which may wait on a gate. */
const CALL_TIMEOUT_MS = 15_000;
const NEXT_STEP_TIMEOUT_MS = 10 * 60_000;
/** A prune of a large database may compact it too (as `baton prune` allows through the owner). */
const PRUNE_TIMEOUT_MS = 5 * 60_000;

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

/** A BatonSource over a live owner's HTTP endpoint. */
export class RemoteSource implements BatonSource {
  readonly mode = 'client' as const;
  private readonly listeners = new Set<(event: BatonEvent) => void>();
  private readonly abort = new AbortController();
  /** Settles when the owner's event stream ends (it stopped, or the connection broke). */
  readonly closed: Promise<void>;
  private disposed = false;

  constructor(private readonly owner: DiscoveryInfo, private readonly onStreamError: (ex: unknown) => void = () => undefined) {
    this.closed = this.stream();
  }

  /** Stops the event stream. */
  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
    this.abort.abort();
  }

  endpoint(): SourceEndpoint {
    return { url: this.owner.url, token: this.owner.token };
  }

  /** The owner's process id. */
  get pid(): number {
    return this.owner.pid;
  }

  async listExecutions(filter: { active_only?: boolean; limit?: number } = {}): Promise<ExecutionSummary[]> {
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

  private async result<T>(request: ControlRequest, timeoutMs = CALL_TIMEOUT_MS): Promise<T> {
    return ((await this.call(request, timeoutMs)) as { result: T }).result;
  }

  /** One POST /control; domain errors come back as BatonErrors with the owner's reason and message. */
  private call(request: ControlRequest, timeoutMs = CALL_TIMEOUT_MS): Promise<unknown> {
    return callControl(this.owner, request, timeoutMs);
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
