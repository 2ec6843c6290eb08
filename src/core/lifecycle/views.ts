// Rows of the shared tables in the lifecycle spec's shapes.
import { parseJson } from '../broker/executionRepo.js';
import type { ExecutionStatus, StepStatus } from '../types.js';
import type { ExecutionLog, Finding, LifecycleArtifact, LogLayer, LogLevel, Project, WorkflowExecution, WorkflowPhase, WorkflowStep } from '../lifecycleTypes.js';

type Raw = Record<string, unknown>;

const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** An executions row as a WorkflowExecution; lifecycle executions keep the caller's metadata under `user`. */
export function toExecutionView(r: Raw, withPhases = false): WorkflowExecution {
  const meta = parseJson<Record<string, unknown>>(r.metadata, {});
  const lifecycle = meta.origin === 'lifecycle';
  const status = r.status as ExecutionStatus;
  const view: WorkflowExecution = {
    id: String(r.execution_id),
    workflowName: str(r.template_name),
    kind: String(r.kind),
    taskId: str(r.task_id),
    projectId: r.project_id === null || r.project_id === undefined ? null : Number(r.project_id),
    state: status,
    metadata: lifecycle ? ((meta.user as Record<string, unknown> | null | undefined) ?? null) : meta,
    timeoutMs: r.timeout_ms === null || r.timeout_ms === undefined ? null : Number(r.timeout_ms),
    // A lifecycle execution runs from its first move to running: one failed from pending never started. Other kinds
    // (no run_started_at) start as they are created.
    startedAt: str(r.run_started_at) ?? (status === 'pending' || lifecycle ? null : str(r.started_at)),
    completedAt: str(r.completed_at),
    error: str(r.error),
    output: parseJson<unknown>(r.output, null),
    progress: Number(r.progress ?? 0),
    createdAt: str(r.created_at) ?? String(r.started_at),
    updatedAt: String(r.updated_at),
  };
  if (withPhases && Array.isArray(meta.phases)) view.phases = meta.phases as WorkflowPhase[];
  return view;
}

/** A steps row as a WorkflowStep; `ids` maps the execution's step names to their ids (dependencies are stored by name). */
export function toStepView(r: Raw, ids: ReadonlyMap<string, number>): WorkflowStep {
  const deps = parseJson<string[]>(r.dependencies, []);
  return {
    id: String(r.id),
    executionId: String(r.execution_id),
    stepName: String(r.step_name),
    phaseName: str(r.phase_name),
    agentName: String(r.agent_name),
    state: r.status as StepStatus,
    dependsOn: deps.map((d) => (ids.has(d) ? String(ids.get(d)) : d)),
    startedAt: str(r.started_at),
    completedAt: str(r.completed_at),
    durationMs: r.duration_ms === null || r.duration_ms === undefined ? null : Number(r.duration_ms),
    output: parseJson<unknown>(r.output, null),
    error: str(r.error),
  };
}

/** An execution_logs row (`executionId` when the query left that column out). */
export function toLogView(r: Raw, executionId?: string): ExecutionLog {
  return {
    id: String(r.id),
    executionId: executionId ?? String(r.execution_id),
    layer: r.layer as LogLayer,
    layerId: String(r.layer_id),
    logLevel: r.log_level as LogLevel,
    message: String(r.message),
    context: parseJson(r.context, null),
    contractInput: parseJson(r.contract_input, null),
    contractOutput: parseJson(r.contract_output, null),
    timestamp: String(r.created_at),
  };
}

/** An artifacts row (binary content stays base64 here; `Lifecycle.artifactBytes` decodes it). */
export function toArtifactView(r: Raw): LifecycleArtifact {
  return {
    id: String(r.artifact_id),
    executionId: String(r.execution_id),
    stepId: r.step_id === null || r.step_id === undefined ? null : String(r.step_id),
    stepName: str(r.step_name),
    name: str(r.title) ?? String(r.artifact_id),
    contentType: String(r.artifact_type),
    mimeType: str(r.mime_type),
    encoding: r.content_encoding === 'base64' ? 'base64' : 'utf8',
    content: String(r.content),
    sizeBytes: Number(r.content_size_bytes),
    isFinal: r.is_final === 1,
    metadata: parseJson(r.metadata, {}),
    createdAt: String(r.created_at),
  };
}

/** A findings row; `location` is JSON when it was stored as an object. */
export function toFindingView(r: Raw): Finding {
  const loc = r.location;
  let location: unknown = loc ?? null;
  if (typeof loc === 'string' && loc.startsWith('{')) location = parseJson(loc, loc);
  return {
    id: String(r.finding_id),
    executionId: str(r.execution_id),
    stepId: r.step_id === null || r.step_id === undefined ? null : String(r.step_id),
    stepName: str(r.step_name),
    projectId: r.project_id === null || r.project_id === undefined ? null : Number(r.project_id),
    isGlobal: r.is_global === 1,
    severity: String(r.severity),
    category: String(r.category),
    title: str(r.title),
    description: String(r.description),
    tags: parseJson<string[]>(r.tags, []),
    location,
    metadata: parseJson(r.metadata, {}),
    createdAt: String(r.created_at),
  };
}

/** A projects row. */
export function toProjectView(r: Raw): Project {
  return {
    id: Number(r.id),
    name: String(r.name),
    path: String(r.path),
    isGitRepo: r.is_git_repo === 1,
    metadata: parseJson<Record<string, unknown> | null>(r.metadata, null),
    discoveredAt: String(r.created_at),
    lastUsedAt: str(r.last_used_at) ?? String(r.updated_at),
  };
}
