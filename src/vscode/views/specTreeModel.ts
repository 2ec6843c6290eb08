// A spec workflow in the Baton tree: its phases (the execution's steps, Phase 0 first) and under each its tasks with
// their state — done, current, locked — and whether the box was already ticked in tasks.md. Plain data like
// treeModel.ts (no 'vscode' import), so labels, states and menus are unit-tested.
import type { SpecPhaseView, SpecStatus, SpecTaskView } from '../../core/specTypes.js';
import { phaseNameShown } from '../../shared/labels.js';
import { ICON_COLORS, statusIcon, statusText, type NodeIcon, type TreeNode } from './treeModel.js';

/** How a task reads in the tree: done (its phase passed), current (its phase is handed out), locked (a later phase). */
export function taskState(t: SpecTaskView): 'done' | 'current' | 'locked' {
  return t.state === 'completed' ? 'done' : t.state === 'active' ? 'current' : 'locked';
}

const TASK_ICONS: Record<ReturnType<typeof taskState>, NodeIcon> = {
  done: { id: 'pass', color: ICON_COLORS.passed },
  current: { id: 'arrow-right', color: ICON_COLORS.running },
  locked: { id: 'lock', color: ICON_COLORS.muted },
};

/**
 * "Phase 2/5: Name" — N counts the phases of tasks.md (Phase 0, reading the spec, comes before them); with how the file
 * numbers the phase when that differs ("Phase 1/5: Setup (Phase 3.1 in the file)").
 */
export function phaseTitle(spec: Pick<SpecStatus, 'total_phases'>, phase: Pick<SpecPhaseView, 'phase' | 'name' | 'source_label'>): string {
  return `Phase ${phase.phase}/${spec.total_phases - 1}: ${phaseNameShown(phase.name, phase.source_label)}`;
}

/** The phase in progress, or undefined once every phase is done. */
export function currentPhase(spec: SpecStatus): SpecPhaseView | undefined {
  return spec.current_phase === null ? undefined : spec.phases.find((p) => p.phase === spec.current_phase);
}

function phaseDescription(spec: SpecStatus, p: SpecPhaseView): string {
  const state = p.status === 'pending' ? 'locked' : statusText(p.status);
  const done = p.tasks.filter((t) => t.state === 'completed').length;
  const parts = [p.phase === spec.current_phase ? `current · ${state}` : state];
  if (p.tasks.length) parts.push(`${done}/${p.tasks.length} tasks`);
  if (p.human_signoff) parts.push('sign-off');
  return parts.join(' · ');
}

function phaseTooltip(spec: SpecStatus, p: SpecPhaseView): string {
  const lines = [`${phaseTitle(spec, p)} (${p.step_name})${p.line ? ` — ${spec.source} line ${p.line}` : ''}`];
  if (p.gate.length) lines.push('Validation gate:', ...p.gate.map((g) => `• ${g.text}${g.evidence ? ` — ${g.evidence}` : ''}`));
  if (p.human_signoff) lines.push('A person signs this phase off (Approve / Reject).');
  if (p.last_refusal) lines.push(`Last submission lacked evidence for: ${p.last_refusal.missing.join('; ')}`);
  return lines.join('\n');
}

/**
 * The phases of a spec execution as step nodes (so step menus such as Approve/Reject apply), in order; a phase with
 * tasks opens onto them, the current one unfolded.
 */
export function phaseNodes(spec: SpecStatus): TreeNode[] {
  return spec.phases.map((p) => ({
    id: `step:${spec.execution_id}:${p.step_name}`,
    label: phaseTitle(spec, p),
    description: phaseDescription(spec, p),
    tooltip: phaseTooltip(spec, p),
    icon: p.status === 'pending' ? { id: 'lock', color: ICON_COLORS.muted } : statusIcon(p.status),
    contextValue: `step:${p.status}`,
    collapsible: p.tasks.length === 0 ? 'none' : p.phase === spec.current_phase ? 'expanded' : 'collapsed',
    ref: { kind: 'step', execution_id: spec.execution_id, step_name: p.step_name, status: p.status, phase: p.phase },
  }));
}

/** The tasks of one phase: "<id> <name>", with the state and whether tasks.md had the box ticked already. */
export function specTaskNodes(spec: SpecStatus, phase: number): TreeNode[] {
  const p = spec.phases.find((x) => x.phase === phase);
  if (!p) return [];
  return p.tasks.map((t) => {
    const state = taskState(t);
    const ticked = t.done_in_source ? ' · ticked in source' : '';
    return {
      id: `specTask:${spec.execution_id}:${phase}:${t.number}`,
      label: `${t.id} ${t.name}`,
      description: state + ticked,
      tooltip: `Task ${t.id} of ${phaseTitle(spec, p)}: ${state}${t.done_in_source ? '; its box was already ticked in tasks.md when the workflow started' : ''}\n${spec.source} line ${t.line}`,
      icon: TASK_ICONS[state],
      contextValue: 'specTask',
      collapsible: 'none',
      ref: { kind: 'specTask', execution_id: spec.execution_id, phase, task: t.number },
    };
  });
}
