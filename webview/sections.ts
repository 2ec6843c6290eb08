// The panel's sections, each a pure function of the state to DOM (text only, no HTML strings), with the stable
// data-testids the end-to-end tests use.
import { plural, statusText, timelineEventName } from '../src/shared/labels.js';
import type { PanelContract, PanelFinding, PanelState, PanelStep } from '../src/shared/protocol.js';
import { h } from './dom.js';
import { leftByRun, shownStatus, statusLabel } from './graphView.js';

function time(iso: string | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString();
}

function duration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${ms} ms`;
  const sec = Math.round(ms / 1000);
  return sec < 60 ? `${sec} s` : `${Math.floor(sec / 60)} min ${sec % 60} s`;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function list(testid: string, items: string[], empty: string): HTMLElement {
  if (items.length === 0) return h('p', { 'data-testid': testid, class: 'empty' }, empty);
  return h('ul', { 'data-testid': testid }, ...items.map((i) => h('li', {}, i)));
}

/** Workflow name, the task it runs on, status badge and progress. */
export function renderHeader(state: PanelState): HTMLElement {
  // A pipeline run its driving process left reads "running" in the database: it waits, as a paused one does.
  const left = state.status === 'running' && state.pipeline?.pausedInterrupted != null;
  const status = left ? 'interrupted' : statusText(state.status, state.cancelled);
  const key = state.cancelled ? 'cancelled' : left ? 'paused' : state.status;
  return h('header', { class: 'header' },
    h('h1', {}, state.workflow ?? 'Workflow'),
    // A badge has no role, and a name given to an element without one is not read: the words are read in its place.
    h('span', { class: 'visually-hidden', 'data-testid': 'status-name' }, `Status: ${status}`),
    h('vscode-badge', {
      'data-testid': 'status', 'data-status': left ? 'interrupted' : key,
      class: `status status-${key}`, title: `Execution ${status}`, 'aria-hidden': 'true',
    }, status),
    h('div', { class: 'progress' },
      h('vscode-progress-bar', { value: state.progress, max: 100, 'aria-label': 'Workflow progress' }),
      h('span', { 'data-testid': 'progress', class: 'percent' }, `${state.progress}%`)),
    state.taskDescription ? h('p', { 'data-testid': 'task', class: 'task agent-text' }, state.taskDescription) : null,
    h('p', { class: 'meta' },
      `Execution ${state.executionId}${state.taskId ? ` · task ${state.taskId}` : ''} · started ${time(state.startedAt)}`,
      state.completedAt ? ` · finished ${time(state.completedAt)}` : ''));
}

function contractBody(step: PanelStep, contract: PanelContract | undefined, left: boolean): HTMLElement {
  const note = contract === undefined
    ? 'No contract is known for this step.'
    : contract.active ? 'Contract issued to the agent working on this step.'
    : left ? 'As the workflow defines it; the run ended, so no agent takes this step.'
    : 'As the workflow defines it; guardrail actions are added when the step starts.';
  return h('section', { 'data-testid': 'contract', class: 'contract', 'aria-labelledby': 'contract-heading' },
    h('h3', { id: 'contract-heading' }, 'Contract'),
    h('p', { class: 'note' }, note),
    h('h4', {}, 'Allowed'),
    list('allowed', contract?.allowed ?? [], 'Nothing listed.'),
    h('h4', {}, 'Forbidden'),
    list('forbidden', contract?.forbidden ?? [], 'Nothing listed.'),
    h('h4', {}, 'Output format'),
    h('pre', { 'data-testid': 'output-format', class: 'output-format' }, contract?.outputFormat || '—'),
    h('h4', {}, 'Gate'),
    h('p', { 'data-testid': 'gate', 'data-gate': contract === undefined ? 'unknown' : String(contract.gate) },
      contract === undefined ? '—' : contract.gate ? 'A person approves this step before the workflow goes on.' : 'No approval needed.'),
    step.feedback ? h('div', { class: 'feedback-note' }, h('h4', {}, 'Feedback from the last review'), h('p', {}, step.feedback)) : null);
}

/**
 * In place of a step, for a run that failed or was cancelled with none selected: how it ended and why, and what it
 * left unfinished (no step of it is current any more).
 */
function renderEnded(state: PanelState): HTMLElement {
  const ended = statusText(state.status, state.cancelled);
  const left = state.steps.filter((x) => leftByRun(x.status, state, x.stopped)).length;
  return h('section', { class: 'step', 'data-testid': 'run-ended', 'aria-labelledby': 'selected-step' },
    h('h2', { id: 'selected-step', 'data-testid': 'selected-step', tabindex: -1 }, `Run ${ended}`),
    h('p', { 'data-testid': 'end-reason' }, !state.endReason ? `The run ${state.cancelled ? 'was cancelled' : 'failed'}.`
      : state.cancelled ? `Cancelled (${state.endReason}).` : `Failed: ${state.endReason}.`),
    h('p', { class: 'note' }, `No step runs any more${left ? `: ${plural(left, 'step')} ${left === 1 ? 'was' : 'were'} left unfinished` : ''}. ` +
      'Select a step in the graph for its details.'));
}

/** The shown step's details and contract (none shown in a run that ended early: how it ended). */
export function renderStep(state: PanelState, stepName: string | null): HTMLElement {
  const step = state.steps.find((x) => x.name === stepName);
  if (!step && state.status === 'failed') return renderEnded(state);
  if (!step) return h('section', { class: 'step' }, h('h2', { 'data-testid': 'selected-step', tabindex: -1 }, 'No step'));
  const contract = state.contracts.find((c) => c.stepName === step.name);
  const status = shownStatus(step.status, state, step.stopped);
  return h('section', { class: 'step', 'aria-labelledby': 'selected-step' },
    h('h2', { id: 'selected-step', 'data-testid': 'selected-step', tabindex: -1 }, step.name),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Status'), h('dd', { 'data-testid': 'selected-status' }, status),
      h('dt', {}, 'Agent'), h('dd', {}, step.agent),
      h('dt', {}, 'Depends on'), h('dd', {}, step.dependencies.join(', ') || '—'),
      h('dt', {}, 'Attempt'), h('dd', {}, String(step.attempt)),
      h('dt', {}, 'Started'), h('dd', {}, time(step.startedAt)),
      h('dt', {}, 'Took'), h('dd', {}, duration(step.durationMs))),
    step.description ? h('p', { class: 'description' }, step.description) : null,
    step.summary ? h('blockquote', { class: 'summary agent-text' }, step.summary) : null,
    contractBody(step, contract, status !== statusLabel(step.status)));
}

/** The active guardrails, one group per rule. */
export function renderGuardrails(state: PanelState): HTMLElement {
  return h('section', { 'data-testid': 'guardrails', class: 'guardrails', 'aria-labelledby': 'guardrails-heading' },
    h('h2', { id: 'guardrails-heading' }, 'Guardrails'),
    state.guardrails.length === 0 ? h('p', { class: 'empty' }, 'No active rules.') : null,
    ...state.guardrails.map((g) => h('div', { class: 'rule' }, h('h3', {}, g.rule), h('ul', {}, ...g.items.map((i) => h('li', {}, i))))));
}

/** Artifacts, newest first; each opens in an editor tab. A capped list ends with a button that lists more. */
export function renderArtifacts(state: PanelState, open: (id: string) => void, more: () => void): HTMLElement {
  // The icon stands beside the entry (not inside the title, where a long title pushed it onto a line of its own).
  const items = state.artifacts.map((a) => {
    const button = h('button', {
      type: 'button', class: 'link agent-text', 'data-testid': `artifact-${a.id}`, 'data-type': a.type,
      title: `Open ${a.title} in an editor tab`,
    }, a.title);
    button.addEventListener('click', () => open(a.id));
    return h('li', {},
      h('span', { class: 'codicon codicon-file', 'aria-hidden': 'true' }),
      h('div', { class: 'artifact-entry' }, button,
        h('span', { class: 'dim' }, ` ${a.type} · ${a.step ?? 'workflow'} · ${size(a.sizeBytes)}${a.isFinal ? ' · final' : ''}`)));
  });
  const total = Math.max(state.artifactsTotal ?? 0, state.artifacts.length);
  const unlisted = total - state.artifacts.length;
  let moreButton: HTMLElement | null = null;
  if (unlisted > 0) {
    moreButton = h('vscode-button', { secondary: true, 'data-testid': 'artifacts-more', title: 'List older artifacts of this run' },
      `Show more (${unlisted} older not listed)`);
    moreButton.addEventListener('click', more);
  }
  return h('section', { class: 'artifacts', 'aria-labelledby': 'artifacts-heading' },
    h('h2', { id: 'artifacts-heading' }, `Artifacts (${total})`),
    items.length ? h('ul', { 'data-testid': 'artifacts', class: 'artifact-list' }, ...items) : h('p', { 'data-testid': 'artifacts', class: 'empty' }, 'No artifacts yet.'),
    moreButton);
}

/** One finding: severity, category, what, where, and the recommendation. */
export function renderFinding(f: PanelFinding): HTMLElement {
  return h('li', { 'data-severity': f.severity, class: 'agent-text' },
    h('span', { class: `severity severity-${f.severity}` }, f.severity), ` [${f.category}] ${f.description}`,
    f.location ? h('span', { class: 'dim' }, ` (${f.location})`) : null,
    f.recommendation ? h('div', { class: 'dim' }, `→ ${f.recommendation}`) : null);
}

/** Findings reported by the steps (those of a step waiting for approval included). */
export function renderFindings(state: PanelState): HTMLElement {
  const items = state.findings.map(renderFinding);
  return h('section', { class: 'findings', 'aria-labelledby': 'findings-heading' },
    h('h2', { id: 'findings-heading' }, `Findings (${state.findings.length})`),
    items.length ? h('ul', { 'data-testid': 'findings' }, ...items) : h('p', { 'data-testid': 'findings', class: 'empty' }, 'No findings yet.'));
}

/** The audit timeline, newest first (a pipeline run's events named as a pipeline's). */
export function renderTimeline(state: PanelState): HTMLElement {
  const items = [...state.timeline].reverse().map((e) =>
    h('li', { 'data-event': e.type },
      h('time', { datetime: e.at }, time(e.at)), ' ', h('strong', {}, timelineEventName(e.type, !!state.pipeline)),
      e.step ? ` · ${e.step}` : '', e.detail ? h('span', { class: 'dim' }, ` — ${e.detail}`) : null));
  return h('section', { class: 'timeline', 'aria-labelledby': 'timeline-heading' },
    h('h2', { id: 'timeline-heading' }, 'Timeline'),
    h('ol', { 'data-testid': 'timeline', reversed: true }, ...items));
}
