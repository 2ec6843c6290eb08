// The facade contract that the MCP server, the CLI and the editor call; implemented by `Baton`.
import type {
  BatonEvent, CallContext, DecisionInput, FindingInput, GateWait, ExecutionStatus, NextStepRequest, NextStepResponse, StepContract,
  StepStatus, WorkflowTemplate,
} from './types.js';
import type {
  ContentOptions, ContentResponse, ContractCheck, ExecutionDetails, ExecutionDetailsInput, ExecutionHistoryInput, ExecutionLog, Finding,
  FindingsPage, LifecycleArtifact, LogExecutionInput, NotModified, Project, QueryFindingsInput, RelevantRulesInput, SearchWorkflowsInput,
  StartExecutionInput, StartStepInput, StoreArtifactInput, StoreFindingInput, TransitionResult, WorkflowExecution, WorkflowStep,
} from './lifecycleTypes.js';
import type { PruneRequest, PruneResult } from './retention.js';
import type { SpecApi } from './specTypes.js';

/** A stored artifact as resources return it. */
export interface ArtifactRecord {
  id: number;
  artifact_id: string;
  execution_id: string;
  step_name: string | null;
  agent_name: string | null;
  type: string;
  title: string | null;
  content: string;
  description: string | null;
  is_final: boolean;
  metadata: Record<string, unknown>;
  created_at: string;
  content_size_bytes: number;
}

/** `current-step://{task_id}`. */
export interface CurrentStepResource {
  execution_id: string;
  task_id: string | null;
  workflow: string | null;
  status: ExecutionStatus;
  progress: number;
  current_step: string | null;
  /** Steps currently claimed or waiting for a person. */
  active_steps: Array<{
    step_name: string; status: StepStatus; agent_name: string; contract: StepContract | null; feedback: string | null;
    /** What the agent handed in, for a step waiting for approval (null otherwise; absent from an older owner). */
    submitted?: SubmittedOutput | null;
  }>;
  artifacts: ArtifactRecord[];
}

/** What an agent submitted for a step, as a person reviews it at the gate; artifact contents are read as artifacts. */
export interface SubmittedOutput {
  summary: string;
  confidence: number | null;
  references: string[];
  decisions: DecisionInput[];
  findings: FindingInput[];
  blockers: string[];
  next_steps: string[];
  artifacts: Array<{ type: string; title: string }>;
}

/** One step in `workflow-status://{task_id}`. */
export interface StepStatusView {
  step_name: string;
  status: StepStatus;
  agent_name: string;
  dependencies: string[];
  started_at: string | null;
  completed_at: string | null;
  duration_ms: number | null;
  outcome_summary: string | null;
  feedback: string | null;
  attempt: number;
  artifacts: ArtifactRecord[];
  /** A step under way when the run was cancelled (the cancel failed it); absent from an older owner. */
  stopped?: true;
}

/** `workflow-status://{task_id}`. */
export interface WorkflowStatusResource {
  execution_id: string;
  task_id: string | null;
  workflow: string | null;
  status: ExecutionStatus;
  current_step: string | null;
  progress: number;
  started_at: string;
  completed_at: string | null;
  /** What the person (or agent) said the task is when it started; absent from an older owner. */
  task_description?: string | null;
  /** Whether a person or agent cancelled it (its status is then `failed`); absent from an older owner. */
  cancelled?: boolean;
  steps: StepStatusView[];
  /** For a team run (execution kind 'worker'): its instance, agents with unread counts, and the channel's newest entries. */
  team?: TeamStatusView;
}

/** A team run as workflow-status:// shows it. */
export interface TeamStatusView {
  instance: string;
  source: string | null;
  context_dir: string | null;
  agents: Array<{ agent: string; backend: string; model: string; state: string; read_cursor: string | null; unread: number }>;
  /** Every entry recorded. */
  messages: number;
  /** The newest entries (at most 50), oldest first. */
  channel: Array<{ timestamp: string; from: string; message: string; mentions: string[] }>;
}

/** `project-context://{project_id}`. */
export interface ProjectContextResource {
  project: { id: number; name: string; path: string; tech_stack: string[]; architecture_pattern: string | null };
  active_task: null | {
    task_id: string;
    execution_id: string;
    workflow: string | null;
    status: string;
    current_step: string | null;
    progress: number;
    last_activity: string;
  };
}

/** `available-workflows://all`. */
export interface AvailableWorkflowsResource {
  workflows: Array<{
    name: string;
    description: string;
    type: string;
    steps_count: number;
    estimated_duration_minutes: number | null;
    tags: string[];
  }>;
}

/** A parsed `workflow-artifacts://` query. */
export type ArtifactQuery =
  | { type: 'recent'; limit: number }
  | { type: 'by_type'; artifact_type: string; limit: number }
  | { type: 'final'; limit: number }
  /**
   * `newest_first`: the newest `limit` (a capped list); otherwise the oldest first, in the order they were written.
   * `artifact_id` (the URI's `#fragment`): that one artifact of the execution, whole.
   */
  | { type: 'execution'; execution_id: string; is_final?: boolean; limit: number; newest_first?: boolean; artifact_id?: string };

/** `workflow-artifacts://…`. */
export interface ArtifactsResource {
  artifacts: ArtifactRecord[];
  total: number;
  query: Record<string, unknown>;
}

/** A person's decision on a gated step. */
export interface GateDecision {
  /** Execution id or task id. */
  execution_id: string;
  /** Defaults to the one step awaiting approval. */
  step_name?: string;
  decision: 'approve' | 'reject';
  feedback?: string;
  /** Who decided (for the audit trail). */
  by?: string;
}

/** What a decision did. */
export interface GateDecisionResult {
  execution_id: string;
  step_name: string;
  decision: 'approve' | 'reject';
  step_status: StepStatus;
  execution_status: ExecutionStatus;
}

/** What a release did: a running step whose agent went away, ready again for the next agent that asks. */
export interface StepRelease {
  execution_id: string;
  step_name: string;
  /** The agent (or client) that held it, as the step recorded it. */
  held_by: string | null;
  /** When it was handed out. */
  held_since: string | null;
  execution_status: ExecutionStatus;
}

/** Which executions a listing holds: `limit` (50 by default) of the newest that pass the rest. */
export interface ExecutionFilter {
  /** Only those not finished. */
  active_only?: boolean;
  limit?: number;
  /**
   * Only these executions (at most MAX_LISTED_IDS; unknown ids are left out). The editor reads again only the runs
   * that events named since its last reading, not every unfinished run.
   */
  ids?: readonly string[];
}

/** The most ids one listing takes. */
export const MAX_LISTED_IDS = 1000;

/** One execution in a status listing. */
export interface ExecutionSummary {
  execution_id: string;
  task_id: string | null;
  workflow: string | null;
  kind: string;
  status: ExecutionStatus;
  progress: number;
  current_step: string | null;
  started_at: string;
  updated_at: string;
  /** What the person (or agent) said the task is when it started; absent from an older owner. */
  task_description?: string | null;
  /** Whether a person or agent cancelled it (its status is then `failed`); absent from an older owner. */
  cancelled?: boolean;
  /**
   * Why and by whom a cancelled one was cancelled, as "cancelled (…)" says it ("stopped by baton stop @pr-1", "no
   * activity for more than 30 days, by the retention policy"); absent when it was not, or from an older owner.
   */
  cancel_reason?: string;
  /** Why a failed (not cancelled) run failed, in full ("step build failed: …"); absent when not recorded. */
  error?: string;
  /**
   * A pipeline run left unfinished by the Baton process that drove it, which ended: it goes on with resume. A team run
   * whose process ended (set by `baton status` reading the file with no owner): `baton stop @instance` ends it.
   */
  orphaned?: boolean;
  /**
   * `stopped`: a step under way when the run was cancelled (the cancel failed it); absent from an older owner.
   * `error`: why a failed step (not one a cancel stopped) failed, when that was recorded.
   */
  steps: Array<{ step_name: string; status: StepStatus; agent_name: string; stopped?: true; error?: string }>;
  /** For a team run (kind 'worker'): its instance; absent from an older owner. */
  instance?: string;
  /** For a running team run: its agents whose last turn failed, with why (null: not recorded); absent when none. */
  failing_agents?: Array<{ agent: string; error: string | null }>;
}

/** One MCP call for the call log (redacted by the core before it is stored). */
export interface CallLogEntry {
  call_type: 'tool' | 'resource' | 'prompt';
  name: string;
  request: unknown;
  response: unknown;
  duration_ms: number;
  success: boolean;
  error_message?: string;
  error_category?: 'validation' | 'rate_limit' | 'stall' | 'token' | 'state' | 'system_error';
  agent_name?: string;
  ide_type?: string;
  parent_call_id?: string;
}

/** A problem found while loading content. */
export interface ContentProblem {
  path: string;
  line: number | null;
  message: string;
}

/** What a content sync did. */
export interface ContentReport {
  agents: number;
  rules: number;
  workflows: number;
  changed: Array<'agents' | 'rules' | 'workflows'>;
  problems: ContentProblem[];
}

/** One entry of an execution's audit timeline. */
export interface TimelineEvent {
  event_type: string;
  event_data: unknown;
  created_at: string;
}

/** The facade. Every method's errors are `BatonError`s with a message saying what to do. */
export interface BatonApi {
  /**
   * The broker: create, continue, claim, refresh. Never throws for domain errors: returns `status: 'error'`. A
   * continue with only the token of a step awaiting approval waits for the decision; `wait` follows that wait.
   */
  nextStep(req: NextStepRequest, ctx?: CallContext, wait?: GateWait): Promise<NextStepResponse>;
  /** Starts a workflow without claiming a step (a person starts it; agents pick up its ready steps). */
  startWorkflow(templateName: string, taskDescription?: string, ctx?: CallContext): Promise<ExecutionSummary>;
  /** Approve or reject a step waiting in `awaiting_approval`. */
  decide(decision: GateDecision): Promise<GateDecisionResult>;
  /** Stops an execution that is not finished: it becomes `failed` (reason `cancelled`); its tokens stop working. */
  cancel(executionId: string, reason?: string, by?: string): Promise<ExecutionSummary>;
  /**
   * Takes a running step from the agent that holds it (one that went away, say): its token stops working and the step
   * is ready again for the next agent that asks, at once. `stepName` is needed when several steps are running.
   */
  release(executionId: string, stepName?: string, by?: string): Promise<StepRelease>;
  /**
   * A client connection (CallContext.session_id) closed: the running steps handed out on it go to the next agent that
   * asks, at once, as a released step would (its agent went away); its token goes on working until one does.
   */
  connectionClosed?(sessionId: string): void;
  /** An execution's audit timeline, oldest first. */
  events(executionId: string): TimelineEvent[];
  /** Executions, newest first (optionally only those not finished, or only those of `ids`). */
  listExecutions(filter?: ExecutionFilter): ExecutionSummary[];
  /** `persona://{agent}` markdown; `default` means supervisor. */
  persona(agent: string): string;
  /** `guardrails://active` markdown. */
  guardrails(): string;
  /** `current-step://{id}`; `id` is a task id, execution id, or `active`. */
  currentStep(id?: string): CurrentStepResource;
  /**
   * `workflow-status://{id}`. `artifacts: false` leaves the steps' artifact lists empty, unread (for a view that
   * lists a run's artifacts capped on its own: a run may have thousands).
   */
  workflowStatus(id?: string, opts?: { artifacts?: boolean }): WorkflowStatusResource;
  /** `project-context://{id}`; clears a dangling active task. `current` means the workspace project. */
  projectContext(projectId?: string): Promise<ProjectContextResource>;
  /** `available-workflows://all`. */
  availableWorkflows(): AvailableWorkflowsResource;
  /** `workflow-artifacts://…`. */
  artifacts(query: ArtifactQuery): ArtifactsResource;
  /** One artifact by its id, or undefined. */
  artifact(artifactId: string): ArtifactRecord | undefined;
  /** Names of agents (for resource listing). */
  agentNames(): string[];
  /** Full templates (for MCP prompts). */
  templates(): WorkflowTemplate[];
  /** Stores one call-log entry (redacted; bounded retention). Fire and forget. */
  logCall(entry: CallLogEntry): void;
  /** Subscribes to domain events; returns the unsubscribe function. */
  onEvent(listener: (event: BatonEvent) => void): () => void;
  /** Re-reads content directories into the database. */
  syncContent(): Promise<ContentReport>;
  /**
   * Cancels the unfinished runs idle past the retention policy, then deletes the finished runs past it (the instance's
   * policy, or the days, run count and idle days asked for) with their steps, artifacts, events, tokens, logs and run
   * memory; findings stay. A dry run only counts.
   */
  prune(req?: PruneRequest): Promise<PruneResult>;
  /** Periodic work: stall detection and the timeout sweep. The host calls it on a timer; tests call it with a fake clock. */
  tick(): Promise<void>;
  /** Lifecycle, logging and query operations (the `lifecycle` tool group). */
  readonly lifecycle: LifecycleApi;
  /** Content and project queries (the `content` tool group). */
  readonly catalog: ContentApi;
  /** Spec workflows: a tasks.md run as gated phases (the `specs` tools, `baton spec`, the editor). */
  readonly specs: SpecApi;
}

/** The lifecycle, logging and query tools of specs/lifecycle-tools.md (the `lifecycle` tool group). */
export interface LifecycleApi {
  /**
   * Creates a `pending` template execution with the template's steps as phases; a `requestKey` recorded already gives
   * the execution that start created instead (see requestKeys.ts).
   */
  startExecution(input: StartExecutionInput, requestKey?: string): Promise<WorkflowExecution>;
  /** Moves an execution through the one state machine; an illegal move names the allowed ones. */
  transition(executionId: string, newState: ExecutionStatus, error?: string): Promise<TransitionResult>;
  /** Starts a step once its dependencies are completed (it is kept pending otherwise). */
  startStep(input: StartStepInput): Promise<WorkflowStep>;
  /** Completes a running step (output checked against StepOutput) or fails it with `error`. */
  completeStep(stepId: string, output?: Record<string, unknown>, error?: string): Promise<WorkflowStep & { contract?: ContractCheck }>;
  /** Moves running executions past their deadline (injected clock) to `timeout`; returns them. */
  checkTimeouts(): Promise<WorkflowExecution[]>;
  /** Brings a `timeout`, `escalated` or `paused` execution back to `running`. */
  resume(executionId: string): Promise<TransitionResult>;
  /** Completes (output checked against WorkflowOutput) or fails an execution. */
  completeExecution(executionId: string, output?: Record<string, unknown>, error?: string): Promise<TransitionResult & { contract?: ContractCheck }>;
  /** Unfinished executions, oldest first. */
  incomplete(workflowName?: string): WorkflowExecution[];
  /** Pending steps whose dependencies are all completed. */
  readySteps(executionId: string): WorkflowStep[];
  /** An execution in the spec's shape (execution id or task id). */
  execution(executionId: string): WorkflowExecution;
  /** Logs once per (execution, layer, layerId); a repeat returns the stored entry. */
  log(input: LogExecutionInput): Promise<{ log: ExecutionLog; duplicate: boolean; contracts: ContractCheck[] }>;
  /** Stores an immutable artifact (binary as base64 with its decoded size). */
  storeArtifact(input: StoreArtifactInput): Promise<LifecycleArtifact>;
  /** An artifact's bytes, base64 decoded for binary content. */
  artifactBytes(artifactId: string): Uint8Array;
  /** Stores a project-scoped or global finding, indexed for full-text search. */
  storeFinding(input: StoreFindingInput): Promise<Finding>;
  /** Findings by filters and ranked full-text search, paginated. */
  queryFindings(query: QueryFindingsInput): FindingsPage;
  /** Executions by workflow, project and state, newest first, paginated. */
  history(query: ExecutionHistoryInput): { executions: WorkflowExecution[]; total: number; limit: number; offset: number };
  /** An execution with its steps, logs, artifacts and findings (by flags). */
  details(query: ExecutionDetailsInput): ExecutionDetails;
}

/** The content provider tools of specs/lifecycle-tools.md (the `content` tool group). */
export interface ContentApi {
  /** Workflows by tags (any), keywords (all) and complexity, a page at a time. */
  searchWorkflows(query: SearchWorkflowsInput): { workflows: ContentResponse[]; total: number; page: number; limit: number };
  /** One workflow at the asked detail; `{ notModified }` when `ifNoneMatch` is its hash. */
  getWorkflow(name: string, options: ContentOptions): Promise<ContentResponse | NotModified>;
  /** One agent persona at the asked detail; `{ notModified }` when `ifNoneMatch` is its hash. */
  getAgentPersona(name: string, options: ContentOptions): Promise<ContentResponse | NotModified>;
  /** Rules by tags, file types and alwaysApply, a page at a time, with a list hash. */
  getRelevantRules(query: RelevantRulesInput): Promise<{ rules: ContentResponse[]; total: number; page: number; limit: number; listHash?: string } | NotModified>;
  /** Projects, most recently used first, a page at a time. */
  listProjects(page?: number, limit?: number): { projects: Project[]; total: number; page: number; limit: number };
  /** The project at a path (discovered: git detection up the tree), or the workspace project. */
  projectContext(path?: string): Promise<Project>;
}
