// A spec workflow in the panel: the phase shown (the current one, or the one selected in the graph), its tasks with
// their state, its validation gate with the evidence handed in, what the last refused submission lacked, a notice
// when tasks.md has drifted from the workflow's snapshot, and what its parse warned about. Text only, stable
// data-testids for the end-to-end tests.
import { plural, statusText } from '../src/shared/labels.js';
import type { PanelSpec, PanelSpecPhase } from '../src/shared/protocol.js';
import { h } from './dom.js';
import { shownStatus, type GraphRun } from './graphView.js';

const TASK_STATE_TEXT = { done: 'done', current: 'current', locked: 'locked' } as const;

/** The drift notice, or null when tasks.md still says what the snapshot says. */
function renderDrift(spec: PanelSpec): HTMLElement | null {
  const d = spec.drift;
  if (d.state === 'in_sync') return null;
  const what = d.state === 'missing'
    ? `${spec.source} is gone (deleted, renamed, or its buffer closed unsaved).`
    : `${spec.source} has changed since this workflow started${d.line ? ` (first at line ${d.line}: "${d.current ?? ''}", was "${d.snapshot ?? ''}")` : ''}.`;
  return h('div', { class: 'spec-drift', 'data-testid': 'spec-drift', 'data-state': d.state },
    h('span', { class: 'codicon codicon-warning', 'aria-hidden': 'true' }),
    ` ${what} The workflow keeps following its snapshot; start a new one to work from the file as it is now.`);
}

/** Whether the person opened the warnings: each update makes the section anew, which would fold them again. */
let warningsOpen = false;

/** What the parse of tasks.md warned about when the workflow started (it runs as parsed), or null when nothing. */
function renderWarnings(spec: PanelSpec): HTMLElement | null {
  if (!spec.warningCount) return null;
  const more = spec.warningCount - spec.warnings.length;
  const section = h('details', { class: 'spec-warnings', 'data-testid': 'spec-warnings', open: warningsOpen },
    h('summary', { 'data-testid': 'spec-warnings-toggle' },
      h('span', { class: 'codicon codicon-warning', 'aria-hidden': 'true' }),
      ` ${plural(spec.warningCount, 'warning')} about ${spec.source}: the workflow runs it as parsed`),
    h('ul', {}, ...spec.warnings.map((w) => h('li', {}, `line ${w.line}: ${w.message}`))),
    more > 0 ? h('p', { class: 'dim' }, `${more} more: baton spec status lists them all.`) : null);
  section.addEventListener('toggle', () => (warningsOpen = section.open));
  return section;
}

function renderTasks(phase: PanelSpecPhase): HTMLElement {
  if (!phase.tasks.length) return h('p', { class: 'empty', 'data-testid': 'spec-tasks' }, phase.phase === 0 ? 'Phase 0 has no tasks: the agent reads the spec, confirms the scope and names the risks.' : 'No tasks.');
  return h('ul', { class: 'spec-tasks', 'data-testid': 'spec-tasks' }, ...phase.tasks.map((t) =>
    h('li', { 'data-state': t.state, 'data-task': t.id },
      h('span', { class: `codicon codicon-${t.state === 'done' ? 'pass' : t.state === 'current' ? 'arrow-right' : 'lock'}`, 'aria-hidden': 'true' }),
      ` ${t.id} ${t.name} `,
      h('span', { class: 'dim' }, `— ${TASK_STATE_TEXT[t.state]}${t.doneInSource ? ', ticked in source' : ''} · line ${t.line}`))));
}

function renderGateItems(phase: PanelSpecPhase): HTMLElement {
  if (!phase.gate.length) return h('p', { class: 'empty', 'data-testid': 'spec-gate' }, 'No gate items.');
  return h('ol', { class: 'spec-gate', 'data-testid': 'spec-gate' }, ...phase.gate.map((g) =>
    h('li', { 'data-evidence': g.evidence === null ? 'none' : 'given' },
      h('span', {}, g.text),
      g.evidence === null
        ? h('div', { class: 'dim' }, phase.missing.includes(g.text) ? 'Missing from the last submission.' : 'No evidence yet.')
        : h('blockquote', { class: 'evidence' }, g.evidence))));
}

/** With no phase current: all of them done, or (a run cancelled or failed) how far it got. */
function endHeading(spec: PanelSpec, run: GraphRun): string {
  if (run.status !== 'failed') return spec.phaseCount === 1 ? 'Its one phase done' : `All ${spec.phaseCount} phases done`;
  const done = spec.phases.filter((p) => p.phase > 0 && p.status === 'completed').length;
  return `Spec workflow ${statusText(run.status, run.cancelled)}: ${done} of ${plural(spec.phaseCount, 'phase')} done`;
}

/**
 * The spec section for the phase `shownStep` names when it is a phase, else the current phase (or the last one); `run`
 * says whether the run ended early (no phase is then current, and those it left unfinished say so).
 */
export function renderSpec(spec: PanelSpec, shownStep: string | null, run: GraphRun): HTMLElement {
  const phase = spec.phases.find((p) => p.stepName === shownStep)
    ?? spec.phases.find((p) => p.phase === spec.currentPhase)
    ?? spec.phases[spec.phases.length - 1];
  const heading = spec.currentPhase === null ? endHeading(spec, run) : spec.phases.find((p) => p.phase === spec.currentPhase)?.title ?? '';
  return h('section', { class: 'spec', 'data-testid': 'spec', 'aria-labelledby': 'spec-heading' },
    h('h2', { id: 'spec-heading', 'data-testid': 'spec-current' }, heading),
    h('p', { class: 'dim' }, `Spec workflow on ${spec.source} · ${spec.ticked} box${spec.ticked === 1 ? '' : 'es'} ticked in it so far`),
    renderDrift(spec),
    renderWarnings(spec),
    spec.writeBackProblem ? h('p', { class: 'spec-problem', 'data-testid': 'spec-write-back' }, `Write-back: ${spec.writeBackProblem}`) : null,
    phase ? h('div', { class: 'spec-phase', 'data-testid': 'spec-phase', 'data-phase': phase.phase, 'data-status': phase.status },
      h('h3', {}, `${phase.title} · ${shownStatus(phase.status, run)}`),
      phase.signoff ? h('p', { class: 'note' }, 'A person signs this phase off: Approve or Reject it when the agent submits it.') : null,
      h('h4', {}, `Tasks (${phase.tasks.length})`),
      renderTasks(phase),
      h('h4', {}, 'Validation gate'),
      renderGateItems(phase),
      phase.missing.length ? h('p', { class: 'spec-problem', 'data-testid': 'spec-missing' }, `The last submission lacked evidence for: ${phase.missing.join('; ')}`) : null) : null);
}
