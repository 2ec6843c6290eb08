// What the editor's views need from Baton, all async so the same UI runs on the in-process core (owner) or on a
// terminal owner's /control endpoint (client). No 'vscode' import: the panel protocol and unit tests use it too.
import type {
  ArtifactQuery, ArtifactRecord, ExecutionFilter, ArtifactsResource, AvailableWorkflowsResource, BatonApi, CurrentStepResource,
  ExecutionSummary, StepRelease, GateDecision, GateDecisionResult, TimelineEvent, WorkflowStatusResource,
} from '../core/api.js';
import type { Finding } from '../core/lifecycleTypes.js';
import type { PruneRequest, PruneResult } from '../core/retention.js';
import type { SpecStartInput, SpecStatus, SpecSummary } from '../core/specTypes.js';
import type { BatonEvent, CallContext, NextStepRequest, NextStepResponse, WorkflowTemplate } from '../core/types.js';
import { deciderOn } from '../host/nodePorts.js';

/** Something to stop (structurally a `vscode.Disposable`). */
export interface SourceDisposable {
  dispose(): void;
}

/** Where the MCP endpoint of the database's owner is. */
export interface SourceEndpoint {
  url: string;
  token: string;
}

/** The editor's view of Baton: reads, decisions and the broker, plus a live event feed. */
export interface BatonSource {
  /** `owner`: this editor holds the database; `client`: a terminal `baton mcp`/`baton serve` does. */
  readonly mode: 'owner' | 'client';
  /** The owner's MCP endpoint (the URL and bearer token registered with the editor). */
  endpoint(): SourceEndpoint;
  listExecutions(filter?: ExecutionFilter): Promise<ExecutionSummary[]>;
  /** `artifacts: false`: the steps' artifact lists are left out (the panel reads its capped list on its own). */
  workflowStatus(id: string, opts?: { artifacts?: boolean }): Promise<WorkflowStatusResource>;
  currentStep(id: string): Promise<CurrentStepResource>;
  events(executionId: string): Promise<TimelineEvent[]>;
  availableWorkflows(): Promise<AvailableWorkflowsResource>;
  templates(): Promise<WorkflowTemplate[]>;
  /** One artifact by its id; `executionId` narrows the search when known. */
  artifact(artifactId: string): Promise<ArtifactRecord | undefined>;
  artifacts(query: ArtifactQuery): Promise<ArtifactsResource>;
  /** The findings recorded in an execution's steps, newest first. */
  findings(executionId: string): Promise<Finding[]>;
  decide(decision: GateDecision): Promise<GateDecisionResult>;
  cancel(executionId: string, reason?: string): Promise<ExecutionSummary>;
  /** Takes running step `stepName` from the agent that holds it: the next agent that asks gets it. */
  release(executionId: string, stepName: string): Promise<StepRelease>;
  nextStep(req: NextStepRequest, ctx?: CallContext): Promise<NextStepResponse>;
  /** Cancels idle runs and deletes finished runs past the owner's retention policy (or the one asked for); a dry run only counts. */
  prune(req?: PruneRequest): Promise<PruneResult>;
  /** Starts a workflow without claiming a step: an agent picks it up. */
  startWorkflow(templateName: string, taskDescription?: string): Promise<ExecutionSummary>;
  /** `guardrails://active` markdown. */
  guardrails(): Promise<string>;
  /** Starts a spec workflow on a tasks.md (Phase 0 waits for an agent); answers with its summary. */
  startSpec(input: SpecStartInput): Promise<SpecSummary>;
  /** A spec execution's phases, tasks, gates with evidence, drift and write-backs. */
  specStatus(id: string): Promise<SpecStatus>;
  /** Spec executions, newest first (optionally those of one workspace-relative source). */
  listSpecs(filter?: { source?: string; limit?: number }): Promise<SpecSummary[]>;
  /** Domain events as they happen (after the write is durable). */
  onEvent(listener: (event: BatonEvent) => void): SourceDisposable;
}

/** How many findings of one execution the editor shows. */
export const FINDINGS_LIMIT = 500;

/** Who the editor says it is in decisions and calls. */
export const EDITOR_ACTOR = 'vscode';

/** Who decides a gate from the editor: the person by their OS user, as `baton approve` records it (cli:$USER). */
export function editorDecider(): string {
  return deciderOn(EDITOR_ACTOR);
}

/** The in-process core: this editor owns the database. */
export class LocalSource implements BatonSource {
  readonly mode = 'owner' as const;

  constructor(
    private readonly baton: BatonApi,
    private readonly ownerEndpoint: SourceEndpoint,
  ) {}

  endpoint(): SourceEndpoint {
    return { ...this.ownerEndpoint };
  }

  async listExecutions(filter?: ExecutionFilter): Promise<ExecutionSummary[]> {
    return this.baton.listExecutions(filter);
  }

  async workflowStatus(id: string, opts?: { artifacts?: boolean }): Promise<WorkflowStatusResource> {
    return this.baton.workflowStatus(id, opts);
  }

  async currentStep(id: string): Promise<CurrentStepResource> {
    return this.baton.currentStep(id);
  }

  async events(executionId: string): Promise<TimelineEvent[]> {
    return this.baton.events(executionId);
  }

  async availableWorkflows(): Promise<AvailableWorkflowsResource> {
    return this.baton.availableWorkflows();
  }

  async templates(): Promise<WorkflowTemplate[]> {
    return this.baton.templates();
  }

  async artifact(artifactId: string): Promise<ArtifactRecord | undefined> {
    return this.baton.artifact(artifactId);
  }

  async artifacts(query: ArtifactQuery): Promise<ArtifactsResource> {
    return this.baton.artifacts(query);
  }

  async findings(executionId: string): Promise<Finding[]> {
    return this.baton.lifecycle.queryFindings({ executionId, limit: FINDINGS_LIMIT }).findings;
  }

  decide(decision: GateDecision): Promise<GateDecisionResult> {
    return this.baton.decide({ by: editorDecider(), ...decision });
  }

  cancel(executionId: string, reason?: string): Promise<ExecutionSummary> {
    return this.baton.cancel(executionId, reason, EDITOR_ACTOR);
  }

  release(executionId: string, stepName: string): Promise<StepRelease> {
    return this.baton.release(executionId, stepName, editorDecider());
  }

  nextStep(req: NextStepRequest, ctx?: CallContext): Promise<NextStepResponse> {
    return this.baton.nextStep(req, { client_name: EDITOR_ACTOR, ...ctx });
  }

  prune(req?: PruneRequest): Promise<PruneResult> {
    return this.baton.prune(req);
  }

  startWorkflow(templateName: string, taskDescription?: string): Promise<ExecutionSummary> {
    return this.baton.startWorkflow(templateName, taskDescription, { client_name: EDITOR_ACTOR });
  }

  async guardrails(): Promise<string> {
    return this.baton.guardrails();
  }

  async startSpec(input: SpecStartInput): Promise<SpecSummary> {
    const started = await this.baton.specs.start({ ...input, claim: false }, { client_name: EDITOR_ACTOR });
    const summary = this.baton.specs.list({ source: started.source, limit: 20 }).find((x) => x.execution_id === started.session_id);
    if (!summary) throw new Error(`spec workflow ${started.session_id} started but is not listed`);
    return summary;
  }

  specStatus(id: string): Promise<SpecStatus> {
    return this.baton.specs.status(id);
  }

  async listSpecs(filter?: { source?: string; limit?: number }): Promise<SpecSummary[]> {
    return this.baton.specs.list(filter);
  }

  onEvent(listener: (event: BatonEvent) => void): SourceDisposable {
    return { dispose: this.baton.onEvent(listener) };
  }
}
