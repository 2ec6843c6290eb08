// The execution panel's message protocol: one union per direction, only plain JSON, and a validator for what the
// webview sends (the extension trusts nothing that crosses the boundary). No 'vscode' import: the webview uses it too.
import type { ExecutionStatus, StepStatus } from '../core/types.js';

/** One step as the panel shows it. */
export interface PanelStep {
  name: string;
  status: StepStatus;
  agent: string;
  /** What the workflow template says the step is for. */
  description: string | null;
  dependencies: string[];
  startedAt: string | null;
  completedAt: string | null;
  durationMs: number | null;
  attempt: number;
  /** The person's feedback from the last rejection, if any. */
  feedback: string | null;
  /** The agent's summary of its output, shortened. */
  summary: string | null;
  /** A step under way when the run was cancelled (the cancel failed it, not its agent). */
  stopped?: true;
}

/** A step's contract: the live one of an active step, else what its template defines (no guardrail actions yet). */
export interface PanelContract {
  stepName: string;
  /** True for the contract issued to a running or waiting step. */
  active: boolean;
  status: StepStatus;
  agent: string;
  allowed: string[];
  forbidden: string[];
  outputFormat: string;
  gate: boolean;
  feedback: string | null;
}

/** One rule of the active guardrails with its bullet lines. */
export interface PanelGuardrail {
  rule: string;
  items: string[];
}

/** An artifact's description, never its content. */
export interface PanelArtifact {
  id: string;
  step: string | null;
  type: string;
  title: string;
  sizeBytes: number;
  isFinal: boolean;
  createdAt: string;
}

/** A finding reported by a step. */
export interface PanelFinding {
  severity: string;
  category: string;
  description: string;
  location: string | null;
  recommendation: string;
}

/** A decision an agent recorded with its output. */
export interface PanelDecision {
  decision: string;
  rationale: string;
  alternativesRejected: string[];
  tradeOffs: string;
}

/** Everything an agent handed in for a step that waits for approval: what the person decides on. */
export interface PanelSubmission {
  stepName: string;
  /**
   * `review`: a pipeline's human_review step, which no agent submits: `summary` is what the run asks the person and
   * `artifacts` what its agents produced so far. Absent: an agent's submission.
   */
  kind?: 'review';
  summary: string;
  /** 0–1 as the agent gave it; null when it gave none. */
  confidence: number | null;
  findings: PanelFinding[];
  blockers: string[];
  decisions: PanelDecision[];
  /** The artifacts submitted with it (open them from the Artifacts list). */
  artifacts: Array<{ type: string; title: string }>;
  references: string[];
  nextSteps: string[];
}

/** One entry of the audit timeline. */
export interface PanelTimelineEntry {
  type: string;
  at: string;
  step: string | null;
  /** A short, human-readable rendering of the event's data. */
  detail: string;
}

/** A task of a spec phase: done (its phase passed), current (its phase is handed out) or locked (a later phase). */
export interface PanelSpecTask {
  id: string;
  name: string;
  state: 'done' | 'current' | 'locked';
  /** Its box was already ticked in tasks.md when the workflow started. */
  doneInSource: boolean;
  line: number;
}

/** A gate item of a spec phase with the evidence handed in for it (null until the phase is submitted). */
export interface PanelSpecGateItem {
  text: string;
  evidence: string | null;
}

/** One phase of a spec workflow (Phase 0 first). */
export interface PanelSpecPhase {
  phase: number;
  /** "Phase 2/5: Name". */
  title: string;
  stepName: string;
  status: StepStatus;
  /** A person signs the phase off (Approve / Reject). */
  signoff: boolean;
  tasks: PanelSpecTask[];
  gate: PanelSpecGateItem[];
  /** The gate items the last refused submission lacked evidence for, while the phase is open. */
  missing: string[];
}

/** What the panel shows of a spec workflow: the phases, the current one, and whether tasks.md drifted from its snapshot. */
export interface PanelSpec {
  /** The workspace-relative tasks.md. */
  source: string;
  /** The phase in progress; null once every phase is done. */
  currentPhase: number | null;
  /** The phases of tasks.md (Phase 0 not counted). */
  phaseCount: number;
  phases: PanelSpecPhase[];
  drift: { state: 'in_sync' | 'drifted' | 'missing'; line: number | null; snapshot: string | null; current: string | null };
  /** Boxes ticked in tasks.md so far, and the last write-back's trouble if it had any. */
  ticked: number;
  writeBackProblem: string | null;
  /**
   * What the parse found wrong in tasks.md when the workflow started (a task id on two lines, …), which runs as parsed:
   * the first few, and how many there are in all.
   */
  warnings: Array<{ line: number; message: string }>;
  warningCount: number;
}

/** One node of a pipeline run's step graph: a step of the system (a container holds its children). */
export interface PanelPipelineNode {
  /** The step instance's name as the engine records it (`loop[2]/review`); a container's is its prefix. */
  name: string;
  label: string;
  /** A step type, or `branch` / `iteration` for the arms of a conditional and the passes of a loop. */
  type: string;
  status: PanelNodeStatus;
  agent: string | null;
  /** What the node is about: the condition, the loop's bound, the failure policy, the review prompt. */
  detail: string | null;
  /** A human_review step's: what rejecting it does (the run fails, or goes on with the review not approved). */
  onReject?: 'fail' | 'continue';
  attempt: number;
  tokens: number;
  costUsd: number | null;
  /**
   * The agent's output: streamed text while it runs (the tail), what a stopped attempt streamed (the same in every
   * window), else the recorded summary.
   */
  output: string | null;
  /** Set for an agent step put back when its run paused or stopped under it: why the attempt was stopped. */
  stopped?: string;
  /** Tools the agent called, in order ("server/tool"). */
  toolCalls: string[];
  children: PanelPipelineNode[];
}

/** Spend of one agent of a run. */
export interface PanelAgentUsage {
  agent: string;
  tokens: number;
  costUsd: number;
  steps: number;
}

/** The node of a pipeline's step graph named `name` (nested ones too), if any. */
export function findPipelineNode(nodes: readonly PanelPipelineNode[], name: string): PanelPipelineNode | undefined {
  for (const n of nodes) {
    const hit = n.name === name ? n : findPipelineNode(n.children, name);
    if (hit) return hit;
  }
  return undefined;
}

/** A pipeline step's status in the panel: `interrupted` is one recorded running in a run no process drives now. */
export type PanelNodeStatus = StepStatus | 'interrupted';

/** What the panel shows of a pipeline run: the step graph, spend per step / agent / run, and the budget. */
export interface PanelPipeline {
  system: string;
  input: string;
  nodes: PanelPipelineNode[];
  total: { tokens: number; costUsd: number };
  byAgent: PanelAgentUsage[];
  budget: { tokens: number | null; usd: number | null } | null;
  /** Share of the budget used, 0–100+ (the larger of tokens and dollars); null without a budget. */
  budgetUsedPercent: number | null;
  /** Set while the run is paused because it reached its budget. */
  pausedForBudget: string | null;
  /**
   * Set with `pausedForBudget`: the limits its pause box prefills (spent plus the old budget again; null: no such
   * limit) and the hint that says so.
   */
  raise: { tokens: number | null; usd: number | null; hint: string } | null;
  /**
   * Set while the run is paused because a person stopped the process driving it (Ctrl-C), or is left running by one
   * that ended: why, to resume as it is.
   */
  pausedInterrupted: string | null;
  /** Whether streamed output reaches this editor (runs driven in this editor's process). */
  live: boolean;
  /**
   * Whether another Baton process drives the run now: it moves (running, awaiting approval) and this editor does not
   * drive it, so its agents' output streams there, not here. False while it is paused or left: nothing drives it.
   */
  drivenElsewhere: boolean;
}

/** An agent of a team run as the panel shows it. */
export interface PanelTeamAgent {
  name: string;
  backend: string;
  model: string;
  /** 'idle', 'running', 'stopped' or 'failed'. */
  state: string;
  /** Unread @mentions in its inbox (after its read cursor). */
  unread: number;
}

/** One channel entry on the panel's timeline. */
export interface PanelTeamMessage {
  from: string;
  timestamp: string;
  message: string;
  /** The agents it @mentions (highlighted). */
  mentions: string[];
}

/** A shared document of a team run. */
export interface PanelTeamDocument {
  name: string;
  /** The file on disk (file provider); null for a document held in memory. */
  path: string | null;
}

/** What the panel shows of an agent team run: the channel, the agents, the documents. */
export interface PanelTeam {
  instance: string;
  workflow: string;
  /** As a person reads it: "running", "completed", "failed", or "cancelled" for a team stopped before it was done. */
  status: string;
  /** The workflow file. */
  source: string | null;
  contextDir: string | null;
  agents: PanelTeamAgent[];
  /** The agents working now. */
  working: string[];
  /** The newest entries, oldest first. */
  channel: PanelTeamMessage[];
  documents: PanelTeamDocument[];
  /** Whether a person can post (the team runs). */
  canSend: boolean;
}

/** Everything the panel renders for one execution; plain JSON. */
export interface PanelState {
  executionId: string;
  taskId: string | null;
  /** The task as the person (or agent) described it when the run started. */
  taskDescription: string | null;
  workflow: string | null;
  status: ExecutionStatus;
  /** Cancelled by a person or agent (`status` is then `failed`). */
  cancelled: boolean;
  /**
   * Why a failed or cancelled run ended, as its last `workflow_failed` / `workflow_cancelled` event says ("no ready
   * steps"; a cancelled one's who and why: "by the editor"); null while it runs, once it completed, or if none says.
   */
  endReason: string | null;
  /** 0–100. */
  progress: number;
  currentStep: string | null;
  startedAt: string;
  completedAt: string | null;
  steps: PanelStep[];
  /** Contracts: the active steps' issued ones, then the template's definitions of the others. */
  contracts: PanelContract[];
  guardrails: PanelGuardrail[];
  /** The newest artifacts (at most what the panel asked for), newest first. */
  artifacts: PanelArtifact[];
  /** How many artifacts the run has; more than `artifacts` holds when the list is capped. Absent: all are listed. */
  artifactsTotal?: number;
  findings: PanelFinding[];
  /** The last events, oldest first. */
  timeline: PanelTimelineEntry[];
  /** Steps waiting for a person's decision. */
  awaiting: string[];
  /** What the agents submitted for the steps in `awaiting` (one entry each when the source says). */
  submissions: PanelSubmission[];
  /** The step the person last selected in this panel, if any. */
  selectedStep: string | null;
  /** Set for a spec workflow (a tasks.md run as gated phases). */
  spec?: PanelSpec | null;
  /** Set for a pipeline run (a system of agents run step by step). */
  pipeline?: PanelPipeline | null;
  /** Set for an agent team run (agents that talk through a shared channel). */
  team?: PanelTeam | null;
}

/** Extension → webview. */
export type ToWebview =
  | { type: 'panel/init'; executionId: string; state: PanelState }
  | { type: 'panel/update'; state: PanelState }
  | { type: 'panel/error'; message: string };

/** Webview → extension. */
export type FromWebview =
  | { type: 'panel/ready' }
  | { type: 'panel/approve'; stepName: string }
  | { type: 'panel/reject'; stepName: string; feedback: string }
  | { type: 'panel/openArtifact'; artifactId: string }
  /** Lists more of the run's artifacts (the list is capped to the newest). */
  | { type: 'panel/moreArtifacts' }
  | { type: 'panel/selectStep'; stepName: string }
  | { type: 'panel/refresh' }
  | { type: 'pipeline/resume'; tokens: number | null; usd: number | null }
  | { type: 'team/send'; message: string }
  | { type: 'team/openDocument'; name: string }
  /** Stops the team instance (agent null) or one agent of it, after the person confirms, as `baton stop` does. */
  | { type: 'team/stop'; agent: string | null };

/** What the webview keeps with `vscode.setState` so the serializer can restore the panel after a reload. */
export interface PanelPersistedState {
  executionId: string;
  selectedStep?: string | null;
}

/** Step names and ids: word characters, dots and dashes. */
export const NAME_PATTERN = /^[\w.-]{1,100}$/;
/** One segment of a pipeline step's name: a name, a loop's pass `[n]` after it allowed; never `.` or `..`. */
const STEP_SEGMENT = /^(?!\.\.?(?:\[|$))[\w.-]{1,100}(?:\[\d{1,6}\])?$/;
/** Longest step name (a pipeline's nesting: `parent/child`, `loop[2]/child`). */
export const MAX_STEP_NAME_CHARS = 300;
/** Longest feedback a person may send with a rejection. */
export const MAX_FEEDBACK_CHARS = 10_000;

// Its own copy of core's isRecord (streamParser.ts): the webview bundle takes nothing from core.
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` is a step name or artifact id the panel may send. */
export function isName(value: unknown): value is string {
  return typeof value === 'string' && NAME_PATTERN.test(value);
}

/** Only the listed keys (besides `type`) may be present. */
function onlyKeys(msg: Record<string, unknown>, keys: string[]): boolean {
  return Object.keys(msg).every((k) => k === 'type' || keys.includes(k));
}

/** Whether `value` is a step name the panel may send (a pipeline's nested names included). */
export function isStepName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_STEP_NAME_CHARS && value.split('/').every((seg) => STEP_SEGMENT.test(seg));
}

/** A raised budget limit: absent (null) or a number ≥ 0 (tokens whole). */
function limitOk(v: unknown, whole: boolean): v is number | null {
  return v === null || (typeof v === 'number' && Number.isFinite(v) && v >= 0 && (!whole || Number.isInteger(v)));
}

/** Longest message a person may post to a team's channel from the panel. */
export const MAX_TEAM_MESSAGE_CHARS = 10_000;

/** A team message from the webview (`team/send`, `team/openDocument`, `team/stop`); null when malformed. */
function parseTeamMessage(raw: Record<string, unknown>): FromWebview | null {
  if (raw.type === 'team/stop') {
    if (!onlyKeys(raw, ['agent'])) return null;
    const agent = raw.agent;
    if (agent === null) return { type: 'team/stop', agent: null };
    return isName(agent) ? { type: 'team/stop', agent } : null;
  }
  if (raw.type === 'team/send') {
    if (!onlyKeys(raw, ['message']) || typeof raw.message !== 'string') return null;
    const message = raw.message.trim();
    return message && raw.message.length <= MAX_TEAM_MESSAGE_CHARS ? { type: 'team/send', message } : null;
  }
  if (!onlyKeys(raw, ['name']) || typeof raw.name !== 'string') return null;
  return raw.name && raw.name.length <= 500 ? { type: 'team/openDocument', name: raw.name } : null;
}

/** Validates a message from the webview; null for anything malformed, unknown or carrying extra fields. */
export function parseFromWebview(raw: unknown): FromWebview | null {
  if (!isRecord(raw) || typeof raw.type !== 'string') return null;
  switch (raw.type) {
    case 'panel/ready':
    case 'panel/refresh':
    case 'panel/moreArtifacts':
      return onlyKeys(raw, []) ? { type: raw.type } : null;
    case 'panel/approve':
    case 'panel/selectStep':
      return onlyKeys(raw, ['stepName']) && isStepName(raw.stepName) ? { type: raw.type, stepName: raw.stepName } : null;
    case 'panel/reject': {
      if (!onlyKeys(raw, ['stepName', 'feedback']) || !isStepName(raw.stepName) || typeof raw.feedback !== 'string') return null;
      const feedback = raw.feedback.trim();
      if (feedback === '' || raw.feedback.length > MAX_FEEDBACK_CHARS) return null;
      return { type: 'panel/reject', stepName: raw.stepName, feedback };
    }
    case 'panel/openArtifact':
      return onlyKeys(raw, ['artifactId']) && isName(raw.artifactId) ? { type: 'panel/openArtifact', artifactId: raw.artifactId } : null;
    case 'team/send':
    case 'team/openDocument':
    case 'team/stop':
      return parseTeamMessage(raw);
    case 'pipeline/resume': {
      // Both null: resumed as it is (a run a person interrupted); otherwise the new limits of a run paused at its budget.
      if (!onlyKeys(raw, ['tokens', 'usd']) || !limitOk(raw.tokens, true) || !limitOk(raw.usd, false)) return null;
      return { type: 'pipeline/resume', tokens: raw.tokens, usd: raw.usd };
    }
    default:
      return null;
  }
}

/** A light shape check of a message from the extension (the webview's side of "validate what crosses"). */
export function parseToWebview(raw: unknown): ToWebview | null {
  if (!isRecord(raw)) return null;
  const stateOk = (s: unknown): s is PanelState =>
    isRecord(s) && typeof s.executionId === 'string' && Array.isArray(s.steps) && Array.isArray(s.timeline);
  switch (raw.type) {
    case 'panel/init':
      return typeof raw.executionId === 'string' && stateOk(raw.state) ? { type: 'panel/init', executionId: raw.executionId, state: raw.state } : null;
    case 'panel/update':
      return stateOk(raw.state) ? { type: 'panel/update', state: raw.state } : null;
    case 'panel/error':
      return typeof raw.message === 'string' ? { type: 'panel/error', message: raw.message } : null;
    default:
      return null;
  }
}
