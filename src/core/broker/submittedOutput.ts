// The output a step handed in, as its row keeps it (its artifacts named, their contents in the artifacts table) and as
// the gate shows it to a person, and the execution facts listings carry (the task as typed, whether it was
// cancelled). Reads stored JSON defensively: rows written by older versions may lack fields.
import type { SubmittedOutput } from '../api.js';
import type { DecisionInput, FindingInput, ModelOutput } from '../types.js';
import { isWellFormed, utf8Length } from '../utf8.js';
import { withFields } from '../withFields.js';
import { IDLE_CANCELLED_BY } from '../retention.js';
import type { ExecutionRow } from './executionRepo.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function records(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** An artifact as a step's stored output names it: its content is kept once, in the artifacts table (`artifact_id`). */
export interface StoredArtifactRef {
  artifact_id: string;
  type: string;
  title: string;
  content_size_bytes: number;
  description?: string;
  metadata?: Record<string, unknown>;
  /** Only a content SQLite would not give back as it is (a lone surrogate): JSON keeps it whole. */
  content?: string;
}

/** A submitted output as the step's row keeps it (see storedOutput). */
export type StoredOutput = Omit<ModelOutput, 'artifacts'> & { artifacts: StoredArtifactRef[] };

/**
 * A submitted output as the step's row keeps it: each artifact named by its id and size, without its content, which
 * the artifacts table holds (a 6 KB artifact journaled, stored and read back once, not twice). A content SQLite would
 * not give back as it is (see storedAsIs) stays in the output too, where JSON keeps it whole. Rows written by earlier
 * versions keep every content inline; readers take both.
 */
export function storedOutput(output: ModelOutput, artifactIds: readonly string[]): StoredOutput {
  const artifacts = output.artifacts.map((a, i) => {
    const ref: StoredArtifactRef = { artifact_id: artifactIds[i]!, type: a.type, title: a.title, content_size_bytes: utf8Length(a.content) };
    if (a.description !== undefined) ref.description = a.description;
    if (a.metadata !== undefined) ref.metadata = a.metadata;
    if (!storedAsIs(a.content)) ref.content = a.content;
    return ref;
  });
  return withFields(output, { artifacts });
}

/**
 * Whether SQLite gives `text` back as it is: well-formed UTF-16 (a lone surrogate is stored as U+FFFD). A NUL is
 * stored and read back whole (only SQLite's text functions stop there: see headPastNul).
 */
export function storedAsIs(text: string): boolean {
  return isWellFormed(text);
}

/** A stored step output (ModelOutput JSON) as the gate shows it, artifact contents left out; null when there is none. */
export function submittedOutput(output: unknown): SubmittedOutput | null {
  if (!isRecord(output)) return null;
  return {
    summary: typeof output.summary === 'string' ? output.summary : '',
    confidence: typeof output.confidence === 'number' && Number.isFinite(output.confidence) ? output.confidence : null,
    references: strings(output.references),
    decisions: records(output.decisions).filter((d) => typeof d.decision === 'string') as unknown as DecisionInput[],
    findings: records(output.findings).filter((f) => typeof f.description === 'string') as unknown as FindingInput[],
    blockers: strings(output.blockers),
    next_steps: strings(output.next_steps),
    artifacts: records(output.artifacts).map((a) => ({
      type: typeof a.type === 'string' ? a.type : 'artifact', title: typeof a.title === 'string' ? a.title : '',
    })),
  };
}

/** An execution's metadata with the mark that it was cancelled (what `executionFacts` reads as `cancelled`). */
export function withCancelledMark(metadata: ExecutionRow['metadata'], reason: string, by: string | null, at: string): ExecutionRow['metadata'] {
  return { ...metadata, cancelled: { reason, by, at } };
}

/**
 * The task description an execution started with (a pipeline run's: its input), and whether it was cancelled (both
 * kept in its metadata).
 */
export function executionFacts(e: Pick<ExecutionRow, 'metadata'>): { task_description: string | null; cancelled: boolean } {
  const description = e.metadata.task_description ?? (e.metadata.origin === 'pipeline' ? e.metadata.input : undefined);
  return { task_description: typeof description === 'string' && description.trim() ? description : null, cancelled: e.metadata.cancelled !== undefined };
}

/**
 * Who cancelled a run and why, from its `workflow_cancelled` event's data, as "cancelled (…)" says it: "by baton
 * pipeline cancel", "by the editor", "no activity for more than 30 days, by the retention policy"; empty when the
 * event says neither.
 */
export function cancelledText(data: unknown): string {
  const d = isRecord(data) ? data : {};
  const by = typeof d.by === 'string' ? d.by : null;
  // The `by` of `baton pipeline cancel`, of the editor (its EDITOR_ACTOR) and of retention's idle limit.
  const who = by === 'cli' ? 'baton pipeline cancel' : by === 'vscode' ? 'the editor' : by === IDLE_CANCELLED_BY ? 'the retention policy' : by;
  // "cancelled" (pipeline cancel's) and "cancelled from the editor" say no more than who it was.
  const why = typeof d.reason === 'string' && !/^cancelled\b/.test(d.reason) ? d.reason : null;
  return [why, who && `by ${who}`].filter(Boolean).join(', ');
}
