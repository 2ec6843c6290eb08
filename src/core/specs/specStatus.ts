// A spec execution as the editor's tree and panel and `baton spec status` show it: phases → tasks with their states,
// each gate item with the evidence handed in, the last refusal, write-backs and drift. Built from the database alone.
import type { ExecutionRow, StepRow } from '../broker/executionRepo.js';
import type { SourceDrift, SpecPhaseView, SpecStatus, SpecTaskView, WriteBackRecord } from '../specTypes.js';
import { sourceLabel } from './render.js';
import type { SpecSnapshot } from './specRepo.js';

const TASK_STATE: Record<string, SpecTaskView['state']> = {
  pending: 'pending', ready: 'pending', running: 'active', awaiting_approval: 'active', failed: 'active', completed: 'completed', skipped: 'completed',
};

/** The status of one spec execution from its row, snapshot, steps, events (write-backs and refusals) and drift. */
export function specStatus(
  exec: ExecutionRow, snap: SpecSnapshot, steps: StepRow[], events: Array<{ event_type: string; event_data: string; created_at: string }>, drift: SourceDrift,
): SpecStatus {
  const writeBacks: WriteBackRecord[] = [];
  const refusals = new Map<string, { at: string; missing: string[] }>();
  for (const e of events) {
    const data = JSON.parse(e.event_data) as Record<string, unknown>;
    if (e.event_type === 'spec_write_back') writeBacks.push(data as unknown as WriteBackRecord);
    else refusals.set(String(data.step_name), { at: e.created_at, missing: (data.missing as string[]) ?? [] });
  }
  const phases: SpecPhaseView[] = steps.map((s) => {
    const n = Number(/^phase-(\d+)$/.exec(s.step_name)?.[1] ?? -1);
    const def = s.metadata.definition;
    const gate = def?.validation_gate ?? [];
    const evidence = Array.isArray(s.metadata.evidence) ? (s.metadata.evidence as string[]) : [];
    const parsed = n > 0 ? snap.parsed.phases[n - 1] : undefined;
    const refusal = refusals.get(s.step_name);
    const open = s.status !== 'completed' && s.status !== 'skipped' && s.status !== 'awaiting_approval';
    return {
      phase: n, name: parsed?.name ?? (n === 0 ? 'Read the spec and confirm scope' : s.step_name),
      // A snapshot taken before phases kept their label has none to show.
      source_label: parsed?.label ? sourceLabel(parsed) : null, step_name: s.step_name, status: s.status,
      human_signoff: def?.human_gate ?? false, line: parsed?.line ?? null,
      tasks: (parsed?.tasks ?? []).map((t) => ({ number: t.number, id: t.id, name: t.name, state: TASK_STATE[s.status] ?? 'pending', done_in_source: t.done_in_source, line: t.line })),
      gate: gate.map((text, i) => ({ text, evidence: evidence[i] || null })),
      last_refusal: open && refusal ? refusal : null,
    };
  });
  const current = phases.find((p) => p.status !== 'completed' && p.status !== 'skipped');
  return {
    execution_id: exec.execution_id, task_id: exec.task_id, workflow: exec.template_name ?? 'spec_execution_v1', status: exec.status, progress: exec.progress,
    source: snap.source_path, parser: snap.parser, title: snap.parsed.title,
    current_phase: current && exec.status !== 'completed' && exec.status !== 'failed' ? current.phase : null,
    total_phases: phases.length, phases, drift, write_backs: writeBacks,
    ...(snap.parsed.warnings?.length ? { warnings: snap.parsed.warnings } : {}),
  };
}
