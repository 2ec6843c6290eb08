// Turns the engine's resources into the panel's plain-JSON state: bounded, content-free, and the same for owner and
// client mode. Pure (no 'vscode'), so it is unit-tested directly.
import type { StepDefinition } from '../../core/types.js';
import { cancelledText } from '../../core/broker/submittedOutput.js';
import type { ArtifactRecord, CurrentStepResource, SubmittedOutput, TimelineEvent, WorkflowStatusResource } from '../../core/api.js';
import { budgetReasonText, shownProgress, spendText } from '../../shared/labels.js';
import type {
  PanelArtifact, PanelContract, PanelFinding, PanelGuardrail, PanelState, PanelStep, PanelSubmission, PanelTimelineEntry,
} from '../../shared/protocol.js';

/** How many timeline events the panel keeps (the newest). */
export const TIMELINE_LIMIT = 200;
const SUMMARY_CHARS = 600;
const DETAIL_CHARS = 240;
const FINDINGS_LIMIT = 200;
const GUARDRAIL_ITEMS_LIMIT = 100;
/** How many entries of each list of a submission the gate shows (blockers, decisions, references, next steps). */
const SUBMISSION_ITEMS_LIMIT = 100;
const SUBMITTED_SUMMARY_CHARS = 4000;
const TASK_CHARS = 1000;

/** `text` cut to `max` characters, an ellipsis marking the cut (the panel's long texts: tasks, summaries, evidence). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function steps(status: WorkflowStatusResource, definitions: StepDefinition[]): PanelStep[] {
  return status.steps.map((s) => ({
    name: s.step_name,
    status: s.status,
    agent: s.agent_name,
    description: definitions.find((d) => d.name === s.step_name)?.description ?? null,
    dependencies: [...s.dependencies],
    startedAt: s.started_at,
    completedAt: s.completed_at,
    durationMs: s.duration_ms,
    attempt: s.attempt,
    feedback: s.feedback,
    summary: s.outcome_summary === null ? null : clip(s.outcome_summary, SUMMARY_CHARS),
    ...(s.stopped ? { stopped: true as const } : {}),
  }));
}

function contracts(status: WorkflowStatusResource, current: CurrentStepResource | null, definitions: StepDefinition[]): PanelContract[] {
  const active: PanelContract[] = (current?.active_steps ?? []).map((a) => ({
    stepName: a.step_name,
    active: true,
    status: a.status,
    agent: a.agent_name,
    allowed: [...(a.contract?.allowed_actions ?? [])],
    forbidden: [...(a.contract?.forbidden_actions ?? [])],
    outputFormat: a.contract?.required_output_format ?? '',
    gate: a.contract?.human_gate_required ?? false,
    feedback: a.feedback,
  }));
  const defined: PanelContract[] = [];
  for (const s of status.steps) {
    const d = definitions.find((x) => x.name === s.step_name);
    if (!d || active.some((c) => c.stepName === s.step_name)) continue;
    defined.push({
      stepName: s.step_name, active: false, status: s.status, agent: s.agent_name, allowed: [...d.allowed_actions], forbidden: [],
      outputFormat: d.required_output_format, gate: d.human_gate, feedback: s.feedback,
    });
  }
  return [...active, ...defined];
}

/** `guardrails://active` markdown → one entry per "## Rule: …" section with its bullet lines (bold marks removed). */
export function parseGuardrailsMarkdown(markdown: string): PanelGuardrail[] {
  const rules: PanelGuardrail[] = [];
  let current: PanelGuardrail | null = null;
  for (const line of markdown.split(/\r?\n/)) {
    const heading = /^##\s+(?:Rule:\s*)?(.+?)\s*$/.exec(line);
    if (heading?.[1]) {
      current = { rule: heading[1], items: [] };
      rules.push(current);
      continue;
    }
    const text = line.replace(/^\s*[-*+]\s+/, '').replace(/\*\*/g, '').trim();
    if (current && text !== '' && !line.startsWith('#') && current.items.length < GUARDRAIL_ITEMS_LIMIT) {
      current.items.push(clip(text, 500));
    }
  }
  return rules;
}

/** The artifacts as read (the newest, capped by the reading), without content, newest first. */
function artifacts(records: ArtifactRecord[]): PanelArtifact[] {
  const seen = new Set<string>();
  const out: PanelArtifact[] = [];
  for (const a of records) {
    if (seen.has(a.artifact_id)) continue;
    seen.add(a.artifact_id);
    out.push({
      id: a.artifact_id, step: a.step_name, type: a.type, title: a.title ?? a.artifact_id,
      sizeBytes: a.content_size_bytes, isFinal: a.is_final, createdAt: a.created_at,
    });
  }
  return out.sort((x, y) => (x.createdAt < y.createdAt ? 1 : x.createdAt > y.createdAt ? -1 : 0));
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** One finding as the panel shows it; null when it has no description. */
function finding(f: unknown): PanelFinding | null {
  if (typeof f !== 'object' || f === null) return null;
  const r = f as Record<string, unknown>;
  const description = str(r.description);
  if (description === null) return null;
  return {
    severity: str(r.severity) ?? 'low', category: str(r.category) ?? '', description: clip(description, SUMMARY_CHARS),
    location: str(r.location), recommendation: clip(str(r.recommendation) ?? '', SUMMARY_CHARS),
  };
}

/**
 * Findings of steps waiting for approval (submitted, not yet in any artifact), then those in artifact metadata (the
 * synthesis carries every step's findings), without repeats.
 */
function findings(submitted: unknown[], records: ArtifactRecord[]): PanelFinding[] {
  const out: PanelFinding[] = [];
  const seen = new Set<string>();
  const lists = [submitted, ...records.map((a) => a.metadata?.findings)];
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const f of list as unknown[]) {
      const one = finding(f);
      if (one === null) continue;
      const key = JSON.stringify(one);
      if (!seen.has(key) && out.length < FINDINGS_LIMIT) {
        seen.add(key);
        out.push(one);
      }
    }
  }
  return out;
}

function items(list: string[], max = SUMMARY_CHARS): string[] {
  return list.slice(0, SUBMISSION_ITEMS_LIMIT).map((x) => clip(x, max));
}

/** What the agent handed in for a step waiting for approval, bounded for the panel. */
function submission(stepName: string, out: SubmittedOutput): PanelSubmission {
  return {
    stepName,
    summary: clip(out.summary, SUBMITTED_SUMMARY_CHARS),
    confidence: out.confidence,
    findings: out.findings.map(finding).filter((f): f is PanelFinding => f !== null).slice(0, FINDINGS_LIMIT),
    blockers: items(out.blockers),
    decisions: out.decisions.slice(0, SUBMISSION_ITEMS_LIMIT).map((d) => ({
      decision: clip(String(d.decision ?? ''), SUMMARY_CHARS), rationale: clip(str(d.rationale) ?? '', SUMMARY_CHARS),
      alternativesRejected: items(Array.isArray(d.alternatives_rejected) ? d.alternatives_rejected.filter((x): x is string => typeof x === 'string') : []),
      tradeOffs: clip(str(d.trade_offs) ?? '', SUMMARY_CHARS),
    })),
    artifacts: out.artifacts.slice(0, SUBMISSION_ITEMS_LIMIT).map((a) => ({ type: a.type, title: clip(a.title, DETAIL_CHARS) })),
    references: items(out.references, DETAIL_CHARS),
    nextSteps: items(out.next_steps),
  };
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/**
 * Spend in an event as the panel says it elsewhere ("1,234 tokens · $0.0100", empty for none): a step's token counts
 * (`input` + `output`) with its `cost_usd`, a run's total (`tokens`, `costUsd`), a budget (`tokens`, `usd`); null when
 * `v` is none of these.
 */
function spendOf(v: unknown, costUsd: unknown = null): string | null {
  if (typeof v !== 'object' || v === null) return null;
  const r = v as Record<string, unknown>;
  const counted = num(r.input) !== null || num(r.output) !== null;
  const tokens = num(r.tokens) ?? (counted ? (num(r.input) ?? 0) + (num(r.output) ?? 0) : null);
  const usd = num(r.costUsd) ?? num(r.usd) ?? num(costUsd);
  return tokens === null && usd === null ? null : spendText(tokens ?? 0, usd);
}

/**
 * A one-line rendering of an event's data: its scalar fields as `key: value`, step name left out (shown apart), usage
 * and budgets as spend (a step's cost said with its usage; no usage at all left out). A stopped step's (`type`
 * step_interrupted) `error` is why it was stopped: said as the `reason`, as a budget pause's is. A retry's `wait_ms`
 * reads "tried again in: 30 ms".
 */
export function eventDetail(data: unknown, type = ''): string {
  if (data === null || data === undefined) return '';
  if (typeof data !== 'object') return clip(String(data), DETAIL_CHARS);
  const fields = data as Record<string, unknown>;
  const usage = spendOf(fields.usage, fields.cost_usd);
  const parts: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'step_name' || v === null || v === undefined || (k === 'cost_usd' && usage !== null)) continue;
    const spend = k === 'usage' ? usage : k === 'budget' ? spendOf(v) : null;
    if (spend === '') continue;
    const key = k === 'error' && type === 'step_interrupted' ? 'reason' : k === 'wait_ms' ? 'tried again in' : k;
    // A budget pause's stored reason reads as the panel's pause box says it; a retry's wait in ms.
    const text = key === 'reason' && typeof v === 'string' ? budgetReasonText(v) : k === 'wait_ms' ? `${String(v)} ms`
      : typeof v === 'object' ? JSON.stringify(v) : String(v);
    parts.push(`${key}: ${spend ?? text}`);
  }
  return clip(parts.join(', '), DETAIL_CHARS);
}

function timeline(events: TimelineEvent[]): PanelTimelineEntry[] {
  return events.slice(-TIMELINE_LIMIT).map((e) => {
    const data = e.event_data;
    const step = typeof data === 'object' && data !== null ? str((data as Record<string, unknown>).step_name) : null;
    return { type: e.event_type, at: e.created_at, step, detail: eventDetail(data, e.event_type) };
  });
}

/** Whether an event ended a run: a cancel, a failure, a lifecycle move to failed, a team run that failed. */
function endsRun(e: TimelineEvent): boolean {
  const data = typeof e.event_data === 'object' && e.event_data !== null ? e.event_data as Record<string, unknown> : {};
  return e.event_type === 'workflow_cancelled' || e.event_type === 'workflow_failed'
    || (e.event_type === 'state_changed' && data.to === 'failed') || (e.event_type === 'team_finished' && data.status === 'failed');
}

/**
 * Why a failed run ended, from its last end event: a cancelled one's who and why as the CLI says them ("by the
 * editor"), a failed one's `reason` (or `error`, as `transition_workflow_state` and a team run record it); null when
 * it has not failed or no event says.
 */
function endReason(status: WorkflowStatusResource, events: TimelineEvent[]): string | null {
  if (status.status !== 'failed') return null;
  const end = [...events].reverse().find(endsRun);
  if (end?.event_type === 'workflow_cancelled') return clip(cancelledText(end.event_data), DETAIL_CHARS) || null;
  const data = typeof end?.event_data === 'object' && end.event_data !== null ? end.event_data as Record<string, unknown> : {};
  const why = str(data.reason) ?? str(data.error);
  return why === null ? null : clip(budgetReasonText(why), DETAIL_CHARS);
}

/**
 * Builds the panel state from the execution's status, active steps, timeline, artifacts and guardrails markdown;
 * the template's step definitions (optional) describe the steps that are not active.
 */
export function buildPanelState(
  status: WorkflowStatusResource,
  current: CurrentStepResource | null,
  events: TimelineEvent[],
  artifactRecords: ArtifactRecord[],
  guardrailsMarkdown: string,
  selectedStep: string | null = null,
  definitions: StepDefinition[] = [],
): PanelState {
  const panelSteps = steps(status, definitions);
  // The list is the artifacts read for it (capped); findings come from every artifact the status carries too.
  const records = [...artifactRecords, ...status.steps.flatMap((s) => s.artifacts)];
  const listed = artifacts(artifactRecords);
  const awaiting = panelSteps.filter((s) => s.status === 'awaiting_approval').map((s) => s.name);
  const submitted = (current?.active_steps ?? []).filter((a) => awaiting.includes(a.step_name) && a.submitted);
  const description = status.task_description ?? null;
  return {
    executionId: status.execution_id,
    taskId: status.task_id,
    taskDescription: description === null ? null : clip(description, TASK_CHARS),
    workflow: status.workflow,
    status: status.status,
    // An owner that predates the cancelled mark: its timeline still says so.
    cancelled: status.cancelled ?? (status.status === 'failed' && events.some((e) => e.event_type === 'workflow_cancelled')),
    endReason: endReason(status, events),
    progress: shownProgress(status.progress, status.status),
    currentStep: status.current_step,
    startedAt: status.started_at,
    completedAt: status.completed_at,
    steps: panelSteps,
    contracts: contracts(status, current, definitions),
    guardrails: parseGuardrailsMarkdown(guardrailsMarkdown),
    artifacts: listed,
    artifactsTotal: listed.length,
    findings: findings(submitted.flatMap((a) => a.submitted!.findings), records),
    timeline: timeline(events),
    awaiting,
    submissions: submitted.map((a) => submission(a.step_name, a.submitted!)),
    selectedStep: selectedStep !== null && panelSteps.some((s) => s.name === selectedStep) ? selectedStep : null,
  };
}
