// Shapes of spec workflows (a spec's tasks.md run as gated phases): what the facade, the MCP tools, the CLI and the
// editor see. A leaf: it imports only types.ts.
import type { ExecutionStatus, SpecTaskBrief, StepStatus } from './types.js';

export type { SpecTaskBrief };

/** Where a checkbox sits in the source text, so that a write-back can tick it (and find it again after edits). */
export interface CheckboxRef {
  /** 1-based line. */
  line: number;
  /** UTF-16 offset of the mark (the character between `[` and `]`) within its line. */
  column: number;
  /** The mark as parsed: ' ', 'x', 'X', '-', '~' or '/'. */
  mark: string;
  /** The whole line as parsed (no line ending), to find it again if lines moved. */
  line_text: string;
}

/** One task parsed from a tasks.md. */
export interface SpecTask {
  /** 1-based position in its phase (what `get_task` takes). */
  number: number;
  /** The id the source gives it: `1.1`, `T001`, `3`; its position when it has none. */
  id: string;
  name: string;
  description: string;
  estimated_time: string | null;
  /** Ids of the tasks it depends on. */
  dependencies: string[];
  acceptance_criteria: string[];
  /** `_Requirements: 1.2, 3.1_` of spec-driven tools. */
  requirements: string[];
  /** Marked `[P]`: can run beside its neighbours. */
  parallel: boolean;
  /** Story labels (`[US1]`), priorities and the like. */
  tags: string[];
  line: number;
  checkbox: CheckboxRef | null;
  /** Its box was already ticked in the source when the workflow started. */
  done_in_source: boolean;
}

/** One item of a phase's validation gate. */
export interface SpecGateItem {
  text: string;
  checkbox: CheckboxRef | null;
}

/** One phase parsed from a tasks.md (the workflow's Phase 0 is its own, not parsed). */
export interface SpecPhase {
  /** 1..N in source order. */
  number: number;
  /** How the source names it: `Phase 2`, `3.1`, a task id, or the heading. */
  label: string;
  name: string;
  description: string;
  estimated_duration: string | null;
  validation_gate: SpecGateItem[];
  /** False when the source gives no gate and the default one applies. */
  gate_from_source: boolean;
  line: number;
  /** The phase's own checkbox (a top-level item of a checkbox list), if it has one. */
  checkbox: CheckboxRef | null;
  /**
   * The boxes of items that only group some of the phase's tasks (Kiro's `- [ ] 1. Schema` over `1.1` and `1.2`, two
   * or more such under one phase heading): no task of their own, ticked with the phase. Absent when there are none.
   */
  group_checkboxes?: CheckboxRef[];
  tasks: SpecTask[];
}

/** A parsed tasks.md. */
export interface ParsedSpec {
  /** The parser that read it: `spec_tasks_parser` or `checkbox_tasks_parser`. */
  parser: string;
  /** The document's first `#` heading, if any. */
  title: string | null;
  phases: SpecPhase[];
  /** What looks wrong in a file that still runs (a task id written twice), by line; absent when nothing does. */
  warnings?: SpecWarning[];
}

/** A note about a parsed tasks.md: the line to look at and what to change there. */
export interface SpecWarning {
  line: number;
  message: string;
}

/** Whether the file still says what the snapshot says (checkbox marks and line endings aside). */
export interface SourceDrift {
  state: 'in_sync' | 'drifted' | 'missing';
  /** The workspace-relative path. */
  source: string;
  /** The first line that differs (1-based, in the snapshot and in the file). */
  first_difference?: { line: number; snapshot: string; current: string };
}

/** What one write-back did: boxes ticked and the ones it refused to touch, with why. */
export interface WriteBackRecord {
  at: string;
  /** The phase whose completion it wrote. */
  phase: number;
  ticked: number;
  refused: Array<{ line: number; reason: string }>;
  /** Set when the whole write was refused (the file changed under it, is missing, …). */
  error?: string;
}

/** A task as the editor's tree and `baton spec status` list it. */
export interface SpecTaskView {
  number: number;
  id: string;
  name: string;
  /** `pending` until its phase is handed out, `active` while the phase runs or waits, `completed` once it passed. */
  state: 'pending' | 'active' | 'completed';
  done_in_source: boolean;
  line: number;
}

/** A gate item with the evidence handed in for it (null until the phase is submitted). */
export interface SpecGateView {
  text: string;
  evidence: string | null;
}

/** A phase as the editor's tree and panel show it. */
export interface SpecPhaseView {
  /** 0 for the workflow's own Phase 0. */
  phase: number;
  name: string;
  /** How tasks.md numbers it when that is not `phase` (`Phase 3.1` read as Phase 1); null when it is, and for Phase 0. */
  source_label: string | null;
  /** The step it is in the execution (`phase-0`, `phase-1`, …). */
  step_name: string;
  status: StepStatus;
  human_signoff: boolean;
  /** Line of the phase in tasks.md; null for Phase 0. */
  line: number | null;
  tasks: SpecTaskView[];
  gate: SpecGateView[];
  /** The last submission refused for missing evidence, while the phase is still open. */
  last_refusal: { at: string; missing: string[] } | null;
}

/** One spec execution: its phases and tasks with state, the current phase, drift and write-backs. */
export interface SpecStatus {
  execution_id: string;
  task_id: string | null;
  workflow: string;
  status: ExecutionStatus;
  progress: number;
  /** The workspace-relative tasks.md. */
  source: string;
  parser: string;
  title: string | null;
  /** The phase in progress (0..N), or null once the workflow is finished. */
  current_phase: number | null;
  /** Phases including Phase 0. */
  total_phases: number;
  phases: SpecPhaseView[];
  drift: SourceDrift;
  write_backs: WriteBackRecord[];
  /** What the parse found wrong in the file as it was when the workflow started; absent when nothing. */
  warnings?: SpecWarning[];
}

/** A phase's content as the `specs` tools return it (the broker carries the same in `context.spec`). */
export interface SpecPhaseContent {
  phase: number;
  phase_name: string;
  /** The phase rendered through phase-template.md: the instructions, gate included. */
  phase_overview: string;
  /** The tasks that fit the size budget, in order. */
  tasks: SpecTaskBrief[];
  task_count: number;
  /** How to get the tasks that did not fit, when some did not. */
  more_tasks?: string;
  validation_gate: string[];
  human_signoff: boolean;
}

/** The answer of `start_workflow`, `get_current_phase` and `complete_phase`. */
export interface SpecPhaseResult {
  session_id: string;
  workflow_type: string;
  /** `running`, `awaiting_approval` (a person signs the phase off), or `completed`. */
  status: ExecutionStatus;
  current_phase: number | null;
  total_phases: number;
  source: string;
  /** The current phase; null once the workflow is complete. */
  phase_content: SpecPhaseContent | null;
  /** What to do next, in one or two sentences. */
  human_message: string;
  /** The phase just completed, when this answers `complete_phase`. */
  completed_phase?: number;
  /** How a person approves a phase waiting for sign-off. */
  approve_command?: string;
  /** Set when a start sent again with an earlier start's request key answers: the workflow that start created. */
  already_started?: true;
  /** On a start: what the parse found wrong in the file, which runs as parsed (a task id written twice). */
  warnings?: SpecWarning[];
}

/** The answer of `get_task`: the task rendered through task-template.md. */
export interface SpecTaskContent {
  session_id: string;
  phase: number;
  task_number: number;
  task_count: number;
  task_id: string;
  task_name: string;
  /** The task rendered through task-template.md, acceptance criteria included. */
  task_content: string;
  source: 'dynamic';
}

/** Evidence for a phase's validation gate: an object keyed by gate item (its text or its number), or a list in gate order. */
export type EvidenceInput = Record<string, unknown> | unknown[];

/** A replacement in a text: `length` UTF-16 units at `offset` become `text`. */
export interface TextEdit {
  offset: number;
  length: number;
  text: string;
}

/** The outcome of applying edits to a source. */
export type ApplyOutcome = { applied: true } | { applied: false; reason: string };

/**
 * Where a spec's tasks.md is read and its checkboxes ticked. Headless: the file on disk, written atomically. In the
 * editor: the open document (an unsaved buffer included), changed with a WorkspaceEdit so that undo works.
 */
export interface SpecSourcePort {
  /** The text as the user sees it (BOM and line endings kept), or undefined when there is no such file. */
  read(absolutePath: string): Promise<string | undefined>;
  /** The path with every symlink resolved, or undefined when it does not exist (to refuse links out of the workspace). */
  realPath(absolutePath: string): Promise<string | undefined>;
  /** Applies `edits` (offsets into `base`) only if the text is still exactly `base`; otherwise refuses with why. */
  apply(absolutePath: string, base: string, edits: TextEdit[]): Promise<ApplyOutcome>;
}

/** How a spec workflow is started (the editor's command, `baton spec start`, `start_workflow`). */
export interface SpecStartInput {
  /** The tasks.md, relative to the workspace (an absolute path inside it is accepted). */
  source: string;
  /** The template; defaults to `spec_execution_v1`. */
  template_name?: string;
  task_description?: string;
  /** Hand Phase 0 out to the caller now (an agent starting its own work); false leaves it ready for an agent to claim. */
  claim?: boolean;
  /** `start_workflow`'s metadata, kept with the execution; its entry named by the template's `source_path_key` (`spec_path`) overrides `source`. */
  metadata?: Record<string, unknown>;
}

/** A spec execution as lists show it. */
export interface SpecSummary {
  execution_id: string;
  source: string;
  status: ExecutionStatus;
  current_phase: number | null;
  total_phases: number;
  started_at: string;
}

/** The spec workflows of a Baton core: what the `specs` tools, `baton spec` and the editor call. */
export interface SpecApi {
  /**
   * Starts a spec workflow on a tasks.md (read, parsed and snapshotted now); Phase 0 comes first. With a request key,
   * the same key again starts nothing and answers with the workflow the first start created.
   */
  start(input: SpecStartInput, ctx?: { client_name?: string; agent_name?: string; request_key?: string }): Promise<SpecPhaseResult>;
  /** The current phase with its content (claims it when it is ready and nobody holds it). */
  currentPhase(sessionId: string): Promise<SpecPhaseResult>;
  /** One task of a phase that has been handed out, rendered; a later phase is `phase_locked`. */
  getTask(sessionId: string, phase: number, taskNumber: number): SpecTaskContent;
  /** Submits the current phase with evidence for its gate; a later phase is `phase_locked`, missing evidence `evidence_incomplete`. */
  completePhase(sessionId: string, phase: number, evidence: EvidenceInput, summary?: string): Promise<SpecPhaseResult>;
  /** Phases and tasks with their states, the evidence handed in, drift and write-backs (omit the id: the latest spec execution). */
  status(id?: string): Promise<SpecStatus>;
  /**
   * The tasks.md files a spec workflow could start on, relative to the workspace: the workspace's own, those in the
   * folders spec tools write them to (`SPEC_FOLDERS`), then earlier sources that still exist. At most 200.
   */
  sources(): Promise<string[]>;
  /** Spec executions, newest first (optionally only those started on one source). */
  list(filter?: { source?: string; limit?: number }): SpecSummary[];
  /** Whether the source file has drifted from the execution's snapshot. */
  drift(id: string): Promise<SourceDrift>;
  /** The edits that tick a completed phase's boxes in `text` (the source as it is now), for a WorkspaceEdit. */
  tickEdits(id: string, phase: number, text: string): { edits: TextEdit[]; already: number; refused: Array<{ line: number; reason: string }> };
  /** Replaces where sources are read and written (the editor's open documents instead of the files). */
  setSourcePort(port: SpecSourcePort): void;
}
