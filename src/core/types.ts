// Domain types shared by the broker, content, store and faces.

/** Artifact types of the broker spec. */
export const ARTIFACT_TYPES = [
  'design_doc', 'implementation_plan', 'code_review', 'api_contract', 'adr', 'test_plan',
  'security_analysis', 'performance_analysis', 'data_model', 'diagram', 'markdown', 'yaml', 'json',
] as const;
/** One of the broker spec's artifact types. */
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

/** Finding severities. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
/** A finding severity. */
export type Severity = (typeof SEVERITIES)[number];

/** Execution states: one machine for every kind of run. */
export type ExecutionStatus =
  | 'pending' | 'running' | 'paused' | 'timeout' | 'escalated' | 'awaiting_approval' | 'completed' | 'failed';
/** What drives an execution. */
export type ExecutionKind = 'template' | 'spec' | 'pipeline' | 'worker';
/** Step states. */
export type StepStatus = 'pending' | 'ready' | 'running' | 'awaiting_approval' | 'completed' | 'failed' | 'skipped';

/** A step of a workflow template. */
export interface StepDefinition {
  name: string;
  agent: string;
  description: string;
  dependencies: string[];
  allowed_actions: string[];
  required_output_format: string;
  human_gate: boolean;
  path_patterns: string[];
  tags: string[];
  /** Items a submission must give evidence for, one entry each (spec phases; Phase 0 of spec_execution_v1). */
  validation_gate?: string[];
  /** Whether the step may run beside others, as its file says (a phase's `allowParallel`); else its template's type. */
  allow_parallel?: boolean;
}

/** How a template with `dynamic_phases` builds its phases from a source file (the dynamic-spec-workflows spec). */
export interface DynamicConfig {
  /** What the source is: `spec_tasks_md`. */
  source_type: string;
  /** The key of `start_workflow`'s metadata that names the source (else its target_file). */
  source_path_key: string;
  /** Templates the phases and tasks are rendered through, relative to a content folder. */
  templates: { phase: string; task: string };
  /** `auto` (chosen by content), `spec_tasks_parser` or `checkbox_tasks_parser`. */
  parser: string;
  /** What every generated phase step is: its agent, allowed actions, output format and tags. */
  phase_step: { agent: string; allowed_actions: string[]; required_output_format: string; tags: string[] };
}

/**
 * A workflow template: `content/workflows/*.yaml`, or `*.md` with the fields as YAML frontmatter and its steps as the
 * lifecycle spec's `phases` (the seed's own workflow files) or as `steps`.
 */
export interface WorkflowTemplate {
  name: string;
  description: string;
  type: 'sequential' | 'parallel' | 'hybrid';
  tags: string[];
  estimated_duration_minutes: number | null;
  steps: StepDefinition[];
  /** How demanding the workflow is, when its file says; else it is judged by its number of steps. */
  complexity?: 'simple' | 'moderate' | 'high';
  /** The Markdown below the frontmatter of a `.md` workflow: what it is for and how its phases go. */
  content?: string;
  /** Phases after the template's own steps come from a source file (a spec's tasks.md). */
  dynamic_phases?: boolean;
  /** How those phases are built; present when `dynamic_phases` is true. */
  dynamic_config?: DynamicConfig;
}

/** An agent persona (`content/agents/*.md`). */
export interface AgentDefinition {
  name: string;
  description: string;
  /** Full markdown (frontmatter removed). */
  content: string;
}

/** A rule (`content/rules/*.md`). */
export interface RuleDefinition {
  name: string;
  description: string;
  tags: string[];
  always_apply: boolean;
  globs: string[];
  content: string;
}

/** What to redact: nothing, personal data, secrets, or both (the content tools' `redactPolicy`). */
export type RedactPolicy = 'none' | 'pii' | 'secrets' | 'pii+secrets';

/** Where a content item came from. */
export type ContentSource = 'bundled' | 'workspace';

/** An artifact as an agent submits it. */
export interface ArtifactInput {
  type: ArtifactType;
  title: string;
  content: string;
  description?: string;
  metadata?: Record<string, unknown>;
}

/** A decision recorded in step output. */
export interface DecisionInput {
  decision: string;
  rationale: string;
  alternatives_rejected: string[];
  trade_offs: string;
  context?: string;
}

/** A finding recorded in step output. */
export interface FindingInput {
  severity: Severity;
  category: string;
  description: string;
  location?: string;
  recommendation: string;
  impact?: string;
}

/** The output an agent submits for its step (`model_output_so_far`). */
export interface ModelOutput {
  summary: string;
  artifacts: ArtifactInput[];
  references: string[];
  confidence: number;
  decisions?: DecisionInput[];
  findings?: FindingInput[];
  next_steps?: string[];
  blockers?: string[];
  metadata?: Record<string, unknown>;
}

/** What `workflow_next_step` may be asked to do besides `continue` (`get_task`: a task of the spec phase you hold). */
export type NextStepRequestKind = 'continue' | 'refresh_token' | 'get_task' | 'reclaim';

/** The request of `workflow_next_step` (spec names). */
export interface NextStepRequest {
  template_name?: string;
  step_token?: string | null;
  request?: NextStepRequestKind;
  model_output_so_far?: ModelOutput;
  requested_step_name?: string;
  intent_tags?: string[];
  referenced_paths?: string[];
  rationale?: string;
  /** An execution id or task id; with no token it joins that execution and claims a ready step. */
  task_id?: string;
  /** Optional description of the task when creating a workflow. */
  task_description?: string;
  /** A spec workflow's tasks.md, relative to the workspace (templates with dynamic phases). */
  source?: string;
  /** Evidence for the validation gate of the step submitted: one entry per gate item (its text or number → what shows it). */
  evidence?: Record<string, unknown> | unknown[];
  /** With request `get_task`: the task of your spec phase to read (1-based). */
  task_number?: number;
}

/** A step contract. */
export interface StepContract {
  step_name: string;
  allowed_actions: string[];
  forbidden_actions: string[];
  required_output_format: string;
  human_gate_required: boolean;
}

/** Statuses of a `workflow_next_step` response. */
export type NextStepStatus = 'ok' | 'no_op' | 'task_closed' | 'error' | 'awaiting_approval';

/** An artifact carried inline in a response. */
export interface InlineArtifact {
  artifact_id: string;
  step_name: string | null;
  type: string;
  title: string | null;
  /** Content, possibly truncated to the size budget. */
  content: string;
  truncated: boolean;
  /** Where the whole artifact can be read. */
  uri: string;
}

/** Everything an agent needs for its step besides the contract, inline. */
export interface StepContext {
  /** The workflow template the step belongs to. */
  workflow: string;
  agent_name: string;
  /** What the whole workflow is for (given when it was started). */
  task_description: string;
  /** What this step is for. */
  step_description: string;
  /** A reviewer's feedback when the step was sent back; address it in this attempt. */
  feedback?: string;
  /** The attempt number, from 2 on (a step sent back by a reviewer). */
  attempt?: number;
  persona_summary: string;
  persona_uri: string;
  /** Actions the active rules require (the forbidden ones are in the contract's forbidden_actions). */
  guardrails: string[];
  guardrails_uri: string;
  dependency_artifacts: InlineArtifact[];
  /** Resources holding what did not fit the size budget. */
  more: string[];
  /** For a phase of a spec workflow: its tasks (as many as fit), gate and where it stands. */
  spec?: SpecPhaseContext;
}

/** A task inline in a phase: enough to work on it; `get_task` renders it whole. */
export interface SpecTaskBrief {
  task_number: number;
  task_id: string;
  name: string;
  estimated_time?: string;
  dependencies?: string[];
  acceptance_criteria: string[];
  done_in_source?: boolean;
}

/** A phase of a spec workflow inline in a step result (`context.spec`); its instructions are `step_description`. */
export interface SpecPhaseContext {
  /** The tasks.md, relative to the workspace. */
  source: string;
  phase: number;
  /** Phases including Phase 0. */
  total_phases: number;
  phase_name: string;
  /** The tasks that fit the size budget. */
  tasks: SpecTaskBrief[];
  task_count: number;
  /** How to get the tasks that did not fit (request `get_task`), when some did not. */
  more_tasks?: string;
  /** Submit `evidence` with one entry per item, keyed by its number or text. */
  validation_gate: string[];
  /** Phase 0 only: the phases that follow, one line each. */
  outline?: string[];
  /** Phase 0 only: what the parse found wrong in the file (a task id written twice), the first few, one line each. */
  warnings?: string[];
}

/** How the broker chose the step. */
export interface SelectionInfo {
  scores: Record<string, number>;
  reason: string;
  all_candidates: string[];
  parallel_opportunities: string[];
  tie_broken_by: 'alphabetical' | 'none';
}

/** An error inside a response (`status: 'error'`). */
export interface NextStepError {
  code: string;
  message: string;
  /** What to call to recover. */
  recovery: string;
  retry_after_ms?: number;
  /** Where the execution stands, e.g. `review-code (awaiting_approval)`, when the error concerns a known execution. */
  current_step?: string;
  /** The arguments of the `workflow_next_step` call that recovers, when one call does. */
  next_call?: Record<string, unknown>;
}

/** The response of `workflow_next_step` (its structured form; the text form is rendered from it). */
export interface NextStepResponse {
  status: NextStepStatus;
  execution_id?: string;
  task_id?: string;
  next_step_contract?: StepContract;
  new_step_token?: string;
  token_expires_at?: string;
  human_message?: string;
  context?: StepContext;
  selection?: SelectionInfo;
  progress?: number;
  synthesis?: { outcome_summary?: string; model_output?: unknown; artifact_id?: string };
  error?: NextStepError;
  /** The answer to request `get_task`: one task of the spec phase the token holds, rendered. */
  spec_task?: { phase: number; task_number: number; task_count: number; task_id: string; task_name: string; task_content: string };
}

/** Who is calling, for rate limits, affinity and the call log. */
export interface CallContext {
  agent_name?: string;
  client_name?: string;
  /** The MCP connection the call came on (one per client session): a step handed to it may be handed back to it. */
  session_id?: string;
  /**
   * The process whose own stdio client this connection is (it lives exactly as long as that process): the tokens
   * handed out on it record it, so that another owner can tell their agent went away once the process is gone.
   */
  holder_pid?: number;
  correlation_id?: string;
  /**
   * A start's request key (the client's, or the one `baton mcp` adds): a start sent again with the same key starts no
   * second run but is answered with the first (see requestKeys.ts). Other calls ignore it.
   */
  request_key?: string;
}

/**
 * How a caller follows a continue that blocks on a human gate (the long poll): `signal` ends the wait early (the
 * client cancelled the call), and `onWait` hears once that the wait has begun, so a face can tell its client why the
 * answer takes a while.
 */
export interface GateWait {
  signal?: AbortSignal;
  onWait?: (wait: { execution_id: string; step_name: string; wait_ms: number }) => void;
}

/** A domain event, emitted after the write that caused it is durable. */
export type BatonEvent =
  | { type: 'execution'; execution_id: string; task_id: string | null; status: ExecutionStatus }
  | { type: 'step'; execution_id: string; step_name: string; status: StepStatus }
  | { type: 'artifact'; execution_id: string; artifact_id: string; is_final: boolean }
  | { type: 'content'; kinds: Array<'agents' | 'rules' | 'workflows'> }
  | { type: 'project'; project_id: number }
  | { type: 'stall'; execution_id: string; elapsed_minutes: number }
  /** A spec workflow wrote a phase's boxes back to its tasks.md, or refused a phase's evidence. */
  | { type: 'spec'; execution_id: string; phase: number; what: 'write_back' | 'evidence_refused' }
  /** A team run's channel got an entry, an agent acknowledged its inbox or changed state, or a document changed. */
  | { type: 'team'; execution_id: string; what: 'message' | 'ack' | 'agent' | 'document' }
  /** Finished runs were deleted by retention (`prune`): views drop them. */
  | { type: 'pruned'; execution_ids: string[] };
