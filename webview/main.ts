// The execution panel's browser code (built to dist/webview/main.js): waits for nothing but the page, says
// `panel/ready`, then renders every `panel/init` / `panel/update` the extension sends.
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-progress-bar/index.js';
import { parseToWebview } from '../src/shared/protocol.js';
import type { FromWebview, PanelPersistedState, PanelState, PanelTeamMessage, ToWebview } from '../src/shared/protocol.js';
import { panelRejection } from '../src/shared/rejectWords.js';
import { announcement, newTeamMessages, teamAnnouncement } from './announce.js';
import { h } from './dom.js';
import { renderGate } from './gateView.js';
import type { GateHandlers } from './gateView.js';
import { renderGraph } from './graphView.js';
import css from './panel.css';
import { renderPipeline, type PipelineHandlers } from './pipelineView.js';
import { renderSpec } from './specView.js';
import { renderTeamChannel, renderTeamSide, type TeamHandlers } from './teamView.js';
import { renderArtifacts, renderFindings, renderGuardrails, renderHeader, renderStep, renderTimeline } from './sections.js';

const vscode = acquireVsCodeApi();
const root = document.getElementById('root') ?? document.body;
// The one live region, outside the root the renders replace (a region made anew with its text is not read out).
const announcer = document.getElementById('announcer');

/** How long a team's new channel messages gather before they are said, as one: a busy channel says one count. */
const TEAM_NEWS_MS = 3000;

let state: PanelState | null = null;
/** Channel messages for people not said yet, of one execution, and the timer that says them. */
let teamNews: { executionId: string; messages: PanelTeamMessage[]; timer: number } | null = null;
let selected: string | null = readSaved()?.selectedStep ?? null;
let error: string | null = null;

const gate: GateHandlers = {
  drafts: new Map(),
  pending: false,
  approve: (stepName) => decide({ type: 'panel/approve', stepName }),
  reject: (stepName, feedback) => decide({ type: 'panel/reject', stepName, feedback }),
};

const pipeline: PipelineHandlers = {
  pending: false,
  draft: null,
  resume: (tokens, usd) => {
    pipeline.pending = true;
    error = null;
    post({ type: 'pipeline/resume', tokens, usd });
    render();
  },
};

const team: TeamHandlers = {
  draft: '',
  pending: false,
  send: (message) => {
    team.pending = true;
    team.draft = '';
    error = null;
    post({ type: 'team/send', message });
    render();
  },
  openDocument: (name) => post({ type: 'team/openDocument', name }),
  stop: (agent) => post({ type: 'team/stop', agent }),
};

function post(message: FromWebview): void {
  vscode.postMessage(message);
}

function readSaved(): PanelPersistedState | null {
  const saved = vscode.getState() as Partial<PanelPersistedState> | undefined;
  return saved && typeof saved.executionId === 'string' ? { executionId: saved.executionId, selectedStep: saved.selectedStep ?? null } : null;
}

function save(): void {
  if (state) vscode.setState({ executionId: state.executionId, selectedStep: selected } satisfies PanelPersistedState);
}

function decide(message: FromWebview): void {
  gate.pending = true;
  error = null;
  if (message.type === 'panel/reject') gate.drafts.delete(message.stepName);
  post(message);
  render();
}

/**
 * The step whose details are shown: the person's choice, else the one that needs attention most; none in a run that
 * failed or was cancelled (no step of it is current: the panel says how it ended instead).
 */
function shownStep(s: PanelState): string | null {
  const has = (n: string | null | undefined): n is string => !!n && s.steps.some((x) => x.name === n);
  if (has(selected)) return selected;
  if (has(s.selectedStep)) return s.selectedStep;
  if (s.status === 'failed') return null;
  const candidates = [s.awaiting[0], s.contracts.find((c) => c.active)?.stepName, s.currentStep,
    s.steps.find((x) => x.status === 'running' || x.status === 'ready')?.name, s.steps.find((x) => x.status !== 'completed')?.name,
    s.steps[s.steps.length - 1]?.name];
  return candidates.find(has) ?? null;
}

function select(name: string): void {
  selected = name;
  error = null;
  save();
  post({ type: 'panel/selectStep', stepName: name });
  render();
}

function openArtifact(artifactId: string): void {
  post({ type: 'panel/openArtifact', artifactId });
}

function renderError(): HTMLElement | null {
  if (!error) return null;
  const dismiss = h('vscode-button', { secondary: true, 'data-testid': 'dismiss-error' }, 'Dismiss');
  dismiss.addEventListener('click', () => {
    error = null;
    render();
  });
  // Not an alert itself: each update makes the box anew, and a new alert is read out again. The announcer said it.
  return h('div', { class: 'error', 'data-testid': 'error' },
    h('span', { class: 'codicon codicon-error', 'aria-hidden': 'true' }), ` ${error} `, dismiss);
}

/** The panel's own scrolling boxes (a long graph, the timeline, a team's channel...): kept where they were on update. */
const SCROLLERS = '.graph-scroll, .timeline ol, .tchannel, .submission-part ul, .spec-tasks, .poutput';

/** Each scrolling box's position, keyed by its selector match order (the same boxes come back in the same order). */
function scrollPositions(): Array<{ top: number; left: number }> {
  return [...root.querySelectorAll<HTMLElement>(SCROLLERS)].map((el) => ({ top: el.scrollTop, left: el.scrollLeft }));
}

function restoreScroll(positions: Array<{ top: number; left: number }>): void {
  root.querySelectorAll<HTMLElement>(SCROLLERS).forEach((el, i) => {
    const at = positions[i];
    if (at && (at.top || at.left)) el.scrollTo({ top: at.top, left: at.left, behavior: 'instant' });
  });
}

function render(): void {
  if (!state) {
    root.replaceChildren(h('p', { class: 'loading' }, 'Loading…'), ...[renderError()].filter((x): x is HTMLElement => x !== null));
    return;
  }
  // Re-rendering replaces the nodes: keep focus (and the caret in the feedback box) where the person left it.
  const active = document.activeElement as HTMLElement | null;
  const focusId = active?.getAttribute('data-testid') ?? null;
  const caret = active instanceof HTMLTextAreaElement ? [active.selectionStart, active.selectionEnd] as const : null;
  const scrolled = scrollPositions();
  const s = state;
  const shown = shownStep(s);
  const gateStep = shown !== null && s.awaiting.includes(shown) ? shown : s.awaiting[0] ?? null;
  root.setAttribute('aria-busy', 'false');
  const refresh = h('vscode-button', { 'data-testid': 'refresh', icon: 'refresh', secondary: true, title: 'Read the execution again' }, 'Refresh');
  refresh.addEventListener('click', () => post({ type: 'panel/refresh' }));
  const header = renderHeader(s);
  header.append(h('div', { class: 'toolbar' }, refresh));
  // A team run shows its channel, agents and documents instead of steps.
  const teamColumns = s.team
    ? h('div', { class: 'columns' },
      h('div', { class: 'column' }, renderTeamChannel(s.team, team)),
      h('div', { class: 'column' }, renderTeamSide(s.team, team), renderTimeline(s)))
    : null;
  root.replaceChildren(
    header,
    ...[renderError()].filter((x): x is HTMLElement => x !== null),
    teamColumns ?? h('div', { class: 'columns' },
      h('div', { class: 'column' },
        s.spec ? renderSpec(s.spec, shown, s) : null,
        // A pipeline run shows its system's structure (nested steps) rather than a dependency graph and contracts.
        gateStep ? renderGate(gateStep, s.awaiting, gate, panelRejection(s.pipeline, gateStep), s.submissions.find((x) => x.stepName === gateStep)) : null,
        s.pipeline ? renderPipeline(s.pipeline, pipeline) : h('section', { class: 'graph-section', 'aria-labelledby': 'graph-heading' },
          h('h2', { id: 'graph-heading' }, 'Steps'),
          h('div', { class: 'graph-scroll' }, renderGraph(s.steps, shown, select, s))),
        s.pipeline ? null : renderStep(s, shown)),
      h('div', { class: 'column' }, renderArtifacts(s, openArtifact, () => post({ type: 'panel/moreArtifacts' })), renderFindings(s), s.pipeline ? null : renderGuardrails(s), renderTimeline(s))),
  );
  restoreScroll(scrolled);
  if (focusId) {
    const again = root.querySelector<HTMLElement>(`[data-testid="${CSS.escape(focusId)}"]`);
    again?.focus({ preventScroll: true });
    if (caret && again instanceof HTMLTextAreaElement) again.setSelectionRange(caret[0], caret[1]);
  }
}

function say(text: string): void {
  if (announcer) announcer.textContent = text;
}

/** Gathers `messages` (new for people, of `executionId`) and says them all when the first has waited TEAM_NEWS_MS. */
function queueTeamNews(executionId: string, messages: PanelTeamMessage[]): void {
  if (teamNews && teamNews.executionId !== executionId) {
    clearTimeout(teamNews.timer);
    teamNews = null;
  }
  if (!messages.length) return;
  if (teamNews) {
    teamNews.messages.push(...messages);
    return;
  }
  const timer = window.setTimeout(() => {
    const said = teamAnnouncement(teamNews?.messages ?? []);
    teamNews = null;
    if (said) say(said);
  }, TEAM_NEWS_MS);
  teamNews = { executionId, messages: [...messages], timer };
}

/**
 * A press of a pointer in the panel holds back the re-rendering an update brings until the press ends (and its click
 * has gone out), for at most HOLD_MS: a render replaces the nodes, and a click whose press and release land on
 * different nodes is lost. An update arriving mid-click had eaten a click on an artifact.
 */
const HOLD_MS = 1000;
let pressed = false;
let held: ReturnType<typeof setTimeout> | null = null;

function renderSoon(): void {
  if (!pressed) {
    render();
    return;
  }
  // A press that never ends here (released outside the panel) holds the update back no longer than this.
  held ??= setTimeout(renderHeld, HOLD_MS);
}

function renderHeld(): void {
  if (held) clearTimeout(held);
  held = null;
  render();
}

function pressEnded(): void {
  pressed = false;
  if (!held) return;
  clearTimeout(held);
  held = setTimeout(renderHeld, 0); // after the click this release makes, which the browser dispatches next
}

document.addEventListener('pointerdown', () => (pressed = true), true);
document.addEventListener('pointerup', pressEnded, true);
document.addEventListener('pointercancel', pressEnded, true);
window.addEventListener('blur', pressEnded);

function receive(message: ToWebview): void {
  switch (message.type) {
    case 'panel/init':
    case 'panel/update': {
      const said = announcement(state, message.state);
      if (said) say(said);
      queueTeamNews(message.state.executionId, newTeamMessages(state, message.state));
      state = message.state;
      gate.pending = false;
      pipeline.pending = false;
      team.pending = false;
      save();
      renderSoon();
      return;
    }
    case 'panel/error':
      error = message.message;
      say(message.message);
      gate.pending = false;
      pipeline.pending = false;
      team.pending = false;
      renderSoon();
      return;
    default: {
      const never: never = message;
      console.warn('unhandled message', never);
    }
  }
}

function applyStyles(): void {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

applyStyles();
window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = parseToWebview(event.data);
  if (message) receive(message);
  else console.warn('ignored a malformed message from the extension');
});
render();
post({ type: 'panel/ready' });
