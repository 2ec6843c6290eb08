// Shapes of the lifecycle, logging, query and content tools (specs/lifecycle-tools.md names, camelCase).
import { ARTIFACT_TYPES, type ExecutionStatus, type RedactPolicy, type StepStatus } from './types.js';

/** A phase of a workflow, as `start_execution` returns it. */
export interface WorkflowPhase {
  phase: string;
  agent: string;
  description: string;
  dependsOn: string[];
  allowParallel: boolean;
}

/** An execution (any kind) in the spec's shape. */
export interface WorkflowExecution {
  id: string;
  workflowName: string | null;
  kind: string;
  taskId: string | null;
  projectId: number | null;
  state: ExecutionStatus;
  metadata: Record<string, unknown> | null;
  timeoutMs: number | null;
  startedAt: string | null;
  completedAt: string | null;
  error: string | null;
  output: unknown;
  progress: number;
  createdAt: string;
  updatedAt: string;
  phases?: WorkflowPhase[];
}

/** A step in the spec's shape; `id` is the step row id as a string. */
export interface WorkflowStep {
  id: string;
  executionId: string;
  stepName: string;
  phaseName: string | null;
  agentName: string;
  state: StepStatus;
  dependsOn: string[];
  startedAt: string | null;
  completedAt: string | null;
  durationMs: number | null;
  output: unknown;
  error: string | null;
}

/** Log layers. */
export const LOG_LAYERS = ['orchestrator', 'workflow', 'step', 'agent_task'] as const;
/** A log layer. */
export type LogLayer = (typeof LOG_LAYERS)[number];
/** Log levels. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** An execution log entry. */
export interface ExecutionLog {
  id: string;
  executionId: string;
  layer: LogLayer;
  layerId: string;
  logLevel: LogLevel;
  message: string;
  context: Record<string, unknown> | null;
  contractInput: Record<string, unknown> | null;
  contractOutput: Record<string, unknown> | null;
  timestamp: string;
}

/** Artifact content types of the lifecycle spec. */
export const CONTENT_TYPES = ['text', 'markdown', 'json', 'binary'] as const;
/** An artifact content type. */
export type ContentType = (typeof CONTENT_TYPES)[number];
/** Every type a stored artifact can have: a step's (the broker's types) or store_artifact's content type. */
export const STORED_ARTIFACT_TYPES: readonly string[] = [...new Set<string>([...ARTIFACT_TYPES, ...CONTENT_TYPES])];

/** A stored artifact; binary content is base64 in `content`, `sizeBytes` is the decoded size. */
export interface LifecycleArtifact {
  id: string;
  executionId: string;
  stepId: string | null;
  stepName: string | null;
  name: string;
  contentType: string;
  mimeType: string | null;
  encoding: 'utf8' | 'base64';
  content: string;
  sizeBytes: number;
  isFinal: boolean;
  metadata: Record<string, unknown>;
  createdAt: string;
  /** In a get_execution_details answer: the content was cut, or left out, to the answer's budget. */
  truncated?: true;
  /** With `truncated`: the workflow-artifacts:// URI that reads the artifact whole. */
  uri?: string;
}

/** Finding severities of the lifecycle spec (the broker's plus `info`). */
export const FINDING_SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const;
/** A finding severity. */
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];

/** A stored finding. */
export interface Finding {
  id: string;
  executionId: string | null;
  stepId: string | null;
  stepName: string | null;
  projectId: number | null;
  isGlobal: boolean;
  severity: string;
  category: string;
  title: string | null;
  description: string;
  tags: string[];
  location: unknown;
  metadata: Record<string, unknown>;
  createdAt: string;
  /** Relevance when the query had `searchText` (higher is better). */
  score?: number;
}

/** A project. */
export interface Project {
  id: number;
  name: string;
  path: string;
  isGitRepo: boolean;
  metadata: Record<string, unknown> | null;
  discoveredAt: string;
  lastUsedAt: string;
}

/** Whether a contract check ran, and why not. */
export interface ContractCheck {
  schema: string;
  validated: boolean;
  /** Why validation was skipped (no schema file). */
  notice?: string;
}

// ---- inputs ----

/** `start_execution`. */
export interface StartExecutionInput {
  workflowName: string;
  projectPath?: string;
  projectId?: number;
  metadata?: Record<string, unknown>;
  timeoutMs?: number;
}

/** `start_step`. */
export interface StartStepInput {
  executionId: string;
  stepName: string;
  phaseName?: string;
  dependsOn?: string[];
  agentName?: string;
}

/** `log_execution`. */
export interface LogExecutionInput {
  executionId: string;
  layer: LogLayer;
  layerId: string;
  logLevel: LogLevel;
  message: string;
  context?: Record<string, unknown>;
  contractInput?: Record<string, unknown>;
  contractOutput?: Record<string, unknown>;
}

/** `store_artifact`. */
export interface StoreArtifactInput {
  executionId: string;
  stepId?: string;
  name: string;
  contentType: ContentType;
  content: string;
  metadata?: Record<string, unknown>;
}

/** `store_finding`. */
export interface StoreFindingInput {
  executionId: string;
  stepId?: string;
  severity: FindingSeverity;
  category: string;
  title: string;
  description: string;
  tags?: string[];
  isGlobal?: boolean;
  projectId?: number;
  location?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/** `query_findings`. */
export interface QueryFindingsInput {
  executionId?: string;
  projectId?: number;
  severity?: FindingSeverity | FindingSeverity[];
  category?: string;
  tags?: string[];
  isGlobal?: boolean;
  searchText?: string;
  limit?: number;
  offset?: number;
}

/** `get_execution_history`. */
export interface ExecutionHistoryInput {
  workflowName?: string;
  projectId?: number;
  state?: string;
  limit?: number;
  offset?: number;
}

/** `get_execution_details`; `<list>Limit` / `<list>Offset` page a list, the offset counted from its newest item. */
export interface ExecutionDetailsInput {
  executionId: string;
  includeSteps?: boolean;
  includeLogs?: boolean;
  includeArtifacts?: boolean;
  includeFindings?: boolean;
  stepsLimit?: number;
  stepsOffset?: number;
  logsLimit?: number;
  logsOffset?: number;
  artifactsLimit?: number;
  artifactsOffset?: number;
  findingsLimit?: number;
  findingsOffset?: number;
}

/** The lists of `get_execution_details`, each one paged. */
export const DETAILS_LISTS = ['steps', 'logs', 'artifacts', 'findings'] as const;
/** One list of `get_execution_details`. */
export type DetailsList = (typeof DETAILS_LISTS)[number];

/**
 * Where one list of `get_execution_details` stands, in the shape of the other paged tools (total, limit, offset):
 * `offset` items newer than the page were skipped; `nextOffset`, present while older items remain, pages on to them.
 */
export interface DetailsPage {
  total: number;
  limit: number;
  offset: number;
  nextOffset?: number;
}

/** What `get_execution_details` returns. */
export interface ExecutionDetails {
  execution: WorkflowExecution;
  steps?: WorkflowStep[];
  /** Ids of pending steps whose dependencies are all completed (the first DETAILS_LIST_MAX of them, in step order). */
  readyStepIds?: string[];
  logs?: ExecutionLog[];
  artifacts?: LifecycleArtifact[];
  findings?: Finding[];
  /** Each list's page, for the lists asked for. */
  pages: Partial<Record<DetailsList, DetailsPage>>;
}

/** The result of a state change. */
export interface TransitionResult {
  success: true;
  executionId: string;
  from: ExecutionStatus;
  state: ExecutionStatus;
}

/** A page of findings. */
export interface FindingsPage {
  findings: Finding[];
  total: number;
  limit: number;
  offset: number;
  /** The FTS4 expression that ran, when searchText was given. */
  ftsQuery?: string;
}

// ---- content tools ----

/** How much of an item to return. */
export type DetailLevel = 'name' | 'summary' | 'full';
/** How a full item carries its content: parsed, file text, a markdown rendering, or parsed plus file text. */
export type ContentMode = 'normalized' | 'raw' | 'synthesized' | 'mixed';
/** Workflow complexity, derived from the number of steps (≤ 3 simple, ≤ 6 moderate, more high). */
export type Complexity = 'simple' | 'moderate' | 'high';

/** Options shared by the single-item content tools. */
export interface ContentOptions {
  detailLevel?: DetailLevel;
  fields?: string[];
  contentMode?: ContentMode;
  includeHash?: boolean;
  ifNoneMatch?: string;
  redactPolicy?: RedactPolicy;
}

/** A content item as the tools return it; which keys are present depends on the options. */
export type ContentResponse = { kind: 'workflow' | 'agent' | 'rule'; name: string } & Record<string, unknown>;

/** `{ notModified: true }` when `ifNoneMatch` equals the current hash (`fileHash`; `contentHash` is its older alias). */
export interface NotModified {
  notModified: true;
  fileHash?: string;
  listHash?: string;
  contentHash: string;
}

/** `search_workflows` input. */
export interface SearchWorkflowsInput {
  tags?: string[];
  keywords?: string[];
  complexity?: Complexity;
  detailLevel?: DetailLevel;
  page?: number;
  limit?: number;
}

/** `get_relevant_rules` input. */
export interface RelevantRulesInput extends ContentOptions {
  tags?: string[];
  fileTypes?: string[];
  alwaysApply?: boolean;
  page?: number;
  limit?: number;
}
