// Turns the engine's resources into the panel's plain-JSON state: bounded, content-free, and the same for owner and
// client mode. Pure (no 'vscode'), so it is unit-tested directly.
import type { StepDefinition } from '../../core/types.js';
import type { ArtifactRecord, CurrentStepResource, TimelineEvent, WorkflowStatusResource } from '../../core/api.js';
import type {
  PanelArtifact, PanelContract, PanelFinding, PanelGuardrail, PanelState, PanelStep, PanelTimelineEntry,
} from '../../shared/protocol.js';

/** How many timeline events the panel keeps (the newest). */
export const TIMELINE_LIMIT = 200;
const SUMMARY_CHARS = 600;
const DETAIL_CHARS = 240;
const FINDINGS_LIMIT = 200;
const GUARDRAIL_ITEMS_LIMIT = 100;

function clip(text: string, max: number): string {
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
  return out.sort((x, y) => (x.createdAt < y.createdAt ? -1 : x.createdAt > y.createdAt ? 1 : 0));
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** Findings travel in artifact metadata (the synthesis carries every step's findings). */
function findings(records: ArtifactRecord[]): PanelFinding[] {
  const out: PanelFinding[] = [];
  const seen = new Set<string>();
  for (const a of records) {
    const list = a.metadata?.findings;
    if (!Array.isArray(list)) continue;
    for (const f of list as unknown[]) {
      if (typeof f !== 'object' || f === null) continue;
      const r = f as Record<string, unknown>;
      const description = str(r.description);
      if (description === null) continue;
      const finding: PanelFinding = {
        severity: str(r.severity) ?? 'low', category: str(r.category) ?? '', description: clip(description, SUMMARY_CHARS),
        location: str(r.location), recommendation: clip(str(r.recommendation) ?? '', SUMMARY_CHARS),
      };
      const key = JSON.stringify(finding);
      if (!seen.has(key) && out.length < FINDINGS_LIMIT) {
        seen.add(key);
        out.push(finding);
      }
    }
  }
  return out;
}

/** A one-line rendering of an event's data: its scalar fields as `key: value`, step name left out (shown apart). */
export function eventDetail(data: unknown): string {
  if (data === null || data === undefined) return '';
  if (typeof data !== 'object') return clip(String(data), DETAIL_CHARS);
  const parts: string[] = [];
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    if (k === 'step_name' || v === null || v === undefined) continue;
    const text = typeof v === 'object' ? JSON.stringify(v) : String(v);
    parts.push(`${k}: ${text}`);
  }
  return clip(parts.join(', '), DETAIL_CHARS);
}

function timeline(events: TimelineEvent[]): PanelTimelineEntry[] {
  return events.slice(-TIMELINE_LIMIT).map((e) => {
    const data = e.event_data;
    const step = typeof data === 'object' && data !== null ? str((data as Record<string, unknown>).step_name) : null;
    return { type: e.event_type, at: e.created_at, step, detail: eventDetail(data) };
  });
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
  const records = [...artifactRecords, ...status.steps.flatMap((s) => s.artifacts)];
  return {
    executionId: status.execution_id,
    taskId: status.task_id,
    workflow: status.workflow,
    status: status.status,
    progress: Math.max(0, Math.min(100, Math.round(status.progress))),
    currentStep: status.current_step,
    startedAt: status.started_at,
    completedAt: status.completed_at,
    steps: panelSteps,
    contracts: contracts(status, current, definitions),
    guardrails: parseGuardrailsMarkdown(guardrailsMarkdown),
    artifacts: artifacts(records),
    findings: findings(records),
    timeline: timeline(events),
    awaiting: panelSteps.filter((s) => s.status === 'awaiting_approval').map((s) => s.name),
    selectedStep: selectedStep !== null && panelSteps.some((s) => s.name === selectedStep) ? selectedStep : null,
  };
}
