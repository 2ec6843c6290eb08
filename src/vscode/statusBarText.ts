// What the status bar says about the active execution. No 'vscode' import (unit-tested).
import type { ExecutionSummary } from '../core/api.js';
import type { SpecStatus } from '../core/specTypes.js';
import { phaseNameShown, plural, runName, shownProgress } from '../shared/labels.js';
import { waitsForResume } from './executionFilters.js';

/** The status bar's text, tooltip and the execution a click opens; undefined hides the item. */
export interface StatusBarView {
  text: string;
  tooltip: string;
  executionId: string;
}

const ACTIVE = new Set(['pending', 'running', 'paused', 'timeout', 'escalated', 'awaiting_approval']);

/** Unfinished executions, those moving first (a paused one waits for a person to resume it), most recent first. */
function activeOf(executions: ExecutionSummary[]): ExecutionSummary[] {
  const still = (e: ExecutionSummary) => (waitsForResume(e) ? 1 : 0);
  return executions.filter((e) => ACTIVE.has(e.status)).sort((a, b) => still(a) - still(b) || b.updated_at.localeCompare(a.updated_at));
}

/** The execution the status bar speaks of: one with a gate waiting for a person, else the most recently updated active one. */
export function statusBarExecution(executions: ExecutionSummary[]): ExecutionSummary | undefined {
  const active = activeOf(executions);
  return active.find((e) => e.steps.some((s) => s.status === 'awaiting_approval')) ?? active[0];
}

/** " · 40%": an execution's progress as the item ends with it, waiting at a gate or moving. */
function percent(e: ExecutionSummary): string {
  return ` · ${shownProgress(e.progress, e.status)}%`;
}

/** A spec workflow's item: it names the phase ("Phase 2/5: Name"), waiting for a sign-off or in progress. */
function specView(e: ExecutionSummary, spec: SpecStatus): StatusBarView | undefined {
  const phase = spec.current_phase === null ? undefined : spec.phases.find((p) => p.phase === spec.current_phase);
  if (!phase) return undefined;
  const title = `Phase ${phase.phase}/${spec.total_phases - 1}: ${phaseNameShown(phase.name, phase.source_label)}`;
  const waiting = phase.status === 'awaiting_approval';
  return {
    text: waiting ? `$(bell) Baton: ${title} awaiting approval${percent(e)}` : `$(sync~spin) Baton: ${title}${percent(e)}`,
    tooltip: `Spec workflow on ${spec.source}: ${title}, ${waiting ? "waits for a person's sign-off" : phase.status.replace(/_/g, ' ')}. Click to open the execution.`,
    executionId: e.execution_id,
  };
}

/** How many gates the tooltip names; the rest are counted (a tooltip of a hundred runs fills the screen). */
export const TOOLTIP_GATES = 10;

/** The first TOOLTIP_GATES entries, then how many more. */
function listed(runs: string[]): string {
  const rest = runs.length - TOOLTIP_GATES;
  return rest > 0 ? `${runs.slice(0, TOOLTIP_GATES).join('; ')}; and ${rest} more` : runs.join('; ');
}

/** The steps of `runs` waiting for a person, each with its run, in the runs' order. */
export function waitingGates(runs: ExecutionSummary[]): Array<{ e: ExecutionSummary; step: string }> {
  return runs.flatMap((e) => e.steps.filter((s) => s.status === 'awaiting_approval').map((s) => ({ e, step: s.step_name })));
}

/**
 * A gate waiting for a person wins; otherwise the most recently updated running execution. `spec` is the spec status
 * of the execution statusBarExecution picks, when that one is a spec workflow: the item then names its phase.
 */
export function statusBarView(executions: ExecutionSummary[], spec?: SpecStatus): StatusBarView | undefined {
  const chosen = statusBarExecution(executions);
  if (chosen && spec && spec.execution_id === chosen.execution_id) {
    const view = specView(chosen, spec);
    if (view) return view;
  }
  const active = activeOf(executions);
  const waiting = waitingGates(active);
  const first = waiting[0];
  if (first) {
    // One gate is named; several are counted, so a second gate is never hidden behind the first. The item ends with the
    // run's progress when one run waits; gates of several runs give each its run's progress in the tooltip instead.
    const oneRun = waiting.every((w) => w.e === first.e);
    const runs = waiting.map((w) => {
      const run = `"${w.step}" of ${runName(w.e.workflow ?? w.e.kind, w.e.task_description)}`;
      return oneRun ? run : `${run} (${shownProgress(w.e.progress, w.e.status)}%)`;
    });
    const shown = oneRun ? percent(first.e) : '';
    return {
      text: waiting.length === 1
        ? `$(bell) Baton: ${first.step} awaiting approval${shown}`
        : `$(bell) Baton: ${plural(waiting.length, 'step')} await approval${shown}`,
      tooltip: waiting.length === 1
        ? `${runs[0]} waits for your approval. Click to open the execution.`
        : `Waiting for your approval: ${listed(runs)}. Click to open the first.`,
      executionId: first.e.execution_id,
    };
  }
  const current = active[0];
  if (!current) return undefined;
  const running = current.steps.filter((s) => s.status === 'running').map((s) => s.step_name);
  const ready = current.steps.filter((s) => s.status === 'ready').map((s) => s.step_name);
  const step = current.current_step ?? running[0] ?? current.status;
  // A run waiting to be resumed says so: its step alone, beside a pause icon, read as a step still at work.
  const waits = !waitsForResume(current) ? null : current.orphaned ? 'interrupted' : 'paused';
  const others = `${active.length > 1 ? ` (${active.length} active executions)` : ''}. Click to open the execution.`;
  // Nothing at work, steps ready: the run waits for an agent to take them (a spinner read as agents working).
  if (waits === null && running.length === 0 && ready.length > 0) {
    return {
      text: `$(person) Baton: ${ready.length === 1 ? `${ready[0]} waits` : `${ready.length} steps wait`} for an agent${percent(current)}`,
      tooltip: `${current.workflow ?? current.kind}: ${ready.join(', ')} ${ready.length === 1 ? 'is' : 'are'} ready and no agent has taken ` +
        `${ready.length === 1 ? 'it' : 'them'} yet; Copy Agent Prompt sends one to the run${others}`,
      executionId: current.execution_id,
    };
  }
  return {
    text: waits === null ? `$(sync~spin) Baton: ${step}${percent(current)}`
      : `$(debug-pause) Baton: ${waits}${current.current_step ? ` at ${current.current_step}` : ''}${percent(current)}`,
    tooltip: `${current.workflow ?? current.kind}: ${current.orphaned ? 'interrupted (the Baton process that drove it ended)' : running.length ? `running ${running.join(', ')}` : current.status.replace(/_/g, ' ')}` +
      others,
    executionId: current.execution_id,
  };
}

/**
 * What a screen reader says for the item: its text without the icon (the editor reads `$(bell)` out as "bell") and
 * with its separators as pauses, then the tooltip, which names the run.
 */
export function statusBarLabel(view: StatusBarView): string {
  const text = view.text.replace(/\$\([a-z0-9-]+(~[a-z]+)?\)\s*/g, '').replace(/ \u00b7 /g, ', ').trim();
  return `${text}. ${view.tooltip}`;
}
