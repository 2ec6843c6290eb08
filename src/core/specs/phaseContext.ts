// A spec phase inline in a step result (`context.spec`): its tasks as many as fit the byte budget (each form of the
// result stays within it, issue 9's rule), the gate, and for Phase 0 an outline of the phases that follow.
import { renderResultText } from '../broker/stepText.js';
import type { SpecTask, SpecTaskBrief } from '../specTypes.js';
import type { NextStepResponse, SpecPhaseContext } from '../types.js';
import { utf8Length } from '../utf8.js';
import { phaseNameShown, plural } from '../../shared/labels.js';
import { sourceLabel } from './render.js';
import type { SpecSnapshot } from './specRepo.js';

/** Bytes left for the dependency artifacts after the phase is fitted (a cut artifact and its pointer). */
const ARTIFACT_RESERVE = 360;
/** Inline guardrails and persona of a spec phase: the phase's own instructions need the room (both stay at their URIs). */
const SPEC_GUARDRAILS = 2;
const SPEC_PERSONA_CHARS = 140;

/** How many of the file's warnings Phase 0 lists inline; `baton spec status` lists them all. */
const INLINE_WARNINGS = 3;

/** A task as listed inline: enough to work on it. */
export function taskBrief(t: SpecTask): SpecTaskBrief {
  return {
    task_number: t.number, task_id: t.id, name: t.name,
    ...(t.estimated_time ? { estimated_time: t.estimated_time } : {}),
    ...(t.dependencies.length ? { dependencies: t.dependencies } : {}),
    acceptance_criteria: t.acceptance_criteria,
    ...(t.done_in_source ? { done_in_source: true } : {}),
  };
}

/** The inline view of phase `phase` (0 is the workflow's own) with every task; `fitSpecContext` trims it. */
export function phaseContext(snap: SpecSnapshot, phase: number, gate: string[], total: number): SpecPhaseContext {
  if (phase === 0) {
    return {
      source: snap.source_path, phase: 0, total_phases: total, phase_name: 'Read the spec and confirm scope', tasks: [], task_count: 0,
      validation_gate: gate, outline: snap.parsed.phases.map((p) => `Phase ${p.number}: ${phaseNameShown(p.name, sourceLabel(p))} (${plural(p.tasks.length, 'task')})`),
      ...phaseZeroWarnings(snap),
    };
  }
  const p = snap.parsed.phases[phase - 1]!;
  return {
    source: snap.source_path, phase, total_phases: total, phase_name: p.name, tasks: p.tasks.map(taskBrief), task_count: p.tasks.length,
    validation_gate: gate,
  };
}

/**
 * The file's warnings as Phase 0 lists them, short (the message's first clause: "task id T005 is written on lines 63
 * and 150"): the first few, then how many more and where to read them in full.
 */
function phaseZeroWarnings(snap: SpecSnapshot): { warnings?: string[] } {
  const all = snap.parsed.warnings ?? [];
  if (!all.length) return {};
  const shown = all.slice(0, INLINE_WARNINGS).map((w) => `${snap.source_path} line ${w.line}: ${w.message.split(': ')[0]}`);
  if (all.length > shown.length) shown.push(`... ${all.length - shown.length} more (baton spec status lists them)`);
  return { warnings: shown };
}

/** How to read the tasks that did not fit. */
function moreTasks(shown: number, count: number): string {
  return `Tasks ${shown + 1} to ${count} did not fit here: read each before you start it with workflow_next_step({"request":"get_task","step_token":"<your step_token>","task_number":N}).`;
}

/** Both forms' sizes of `res` as it would be sent. */
function sizes(res: NextStepResponse): number {
  return Math.max(utf8Length(JSON.stringify(res)), utf8Length(renderResultText(res)));
}

/**
 * Trims `res.context.spec` (tasks from the end, long criteria lists, then the outline) and, if need be, the rendered
 * phase, until each form fits `budget` with room left for a dependency artifact.
 */
export function fitSpecContext(res: NextStepResponse, budget: number): void {
  const spec = res.context!.spec!;
  const limit = budget - ARTIFACT_RESERVE;
  if (sizes(res) <= limit) return;
  const x = res.context!;
  // Phases run one after another: the selection has a single candidate and says nothing the phase does not.
  if (res.selection && res.selection.all_candidates.length <= 1) delete res.selection;
  x.guardrails = x.guardrails.slice(0, SPEC_GUARDRAILS);
  if (x.persona_summary.length > SPEC_PERSONA_CHARS) x.persona_summary = `${x.persona_summary.slice(0, SPEC_PERSONA_CHARS).replace(/\s+\S*$/, '')} ...`;
  if (sizes(res) <= limit) return;
  const all = spec.tasks;
  // Criteria beyond the first three go to get_task; then tasks go, from the last.
  spec.tasks = all.map((t) => (t.acceptance_criteria.length > 3 ? { ...t, acceptance_criteria: [...t.acceptance_criteria.slice(0, 3), `... ${t.acceptance_criteria.length - 3} more (get_task)`] } : t));
  let lo = 0;
  let hi = spec.tasks.length;
  const trimmed = spec.tasks;
  const fits = (n: number) => {
    spec.tasks = trimmed.slice(0, n);
    if (n < trimmed.length) spec.more_tasks = moreTasks(n, spec.task_count);
    else delete spec.more_tasks;
    return sizes(res) <= limit;
  };
  if (!fits(hi)) {
    // Binary search for the most tasks that fit.
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(mid)) lo = mid;
      else hi = mid - 1;
    }
    fits(lo);
  }
  while (spec.outline && spec.outline.length > 1 && sizes(res) > limit) {
    const n = spec.outline.length;
    spec.outline = [...spec.outline.slice(0, Math.max(1, Math.floor(n / 2) - 1)), `... ${n - Math.max(1, Math.floor(n / 2) - 1)} more phases`];
    if (n <= 2) break;
  }
  if (spec.warnings && sizes(res) > limit) spec.warnings = [`The warnings about ${spec.source} did not fit: baton spec status lists them`];
  const ctx = res.context!;
  if (sizes(res) > limit && ctx.step_description.length > 200) {
    // A very long phase description: keep its head; the full text is in the tasks.md the phase names.
    const over = sizes(res) - limit;
    ctx.step_description = `${ctx.step_description.slice(0, Math.max(200, ctx.step_description.length - over - 80))} ... (cut; read ${spec.source})`;
  }
}
