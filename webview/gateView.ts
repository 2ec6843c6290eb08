// Approve / Reject-with-feedback for a step waiting in awaiting_approval, above everything the agent submitted for it
// (summary, confidence, blockers, findings, decisions, artifacts, references), which is what the person decides on.
// Reject stays disabled until feedback is typed; both are disabled while a decision is on its way. What the box says
// rejecting does follows the gate: a workflow step goes back to its agent; a pipeline's review ends the run or not.
import { MAX_FEEDBACK_CHARS } from '../src/shared/protocol.js';
import type { PanelSubmission } from '../src/shared/protocol.js';
import { rejectWords, type RejectOutcome } from '../src/shared/rejectWords.js';
import { h } from './dom.js';
import { renderFinding } from './sections.js';

/** What the gate needs from the page. */
export interface GateHandlers {
  /** The draft feedback per step survives re-renders. */
  drafts: Map<string, string>;
  /** A decision was sent and no update has arrived since. */
  pending: boolean;
  approve(step: string): void;
  reject(step: string, feedback: string): void;
}

function setDisabled(button: HTMLElement, disabled: boolean): void {
  if (disabled) button.setAttribute('disabled', '');
  else button.removeAttribute('disabled');
  button.setAttribute('aria-disabled', String(disabled));
}

function part(testid: string, heading: string, body: HTMLElement | null): HTMLElement | null {
  return body && h('div', { class: 'submission-part', 'data-testid': testid }, h('h4', {}, heading), body);
}

function lines(items: string[]): HTMLElement | null {
  return items.length ? h('ul', {}, ...items.map((i) => h('li', { class: 'agent-text' }, i))) : null;
}

/** What a pipeline's review asks and what its agents produced so far (the artifacts below). */
function renderReview(sub: PanelSubmission): HTMLElement {
  return h('div', { 'data-testid': 'submission', class: 'submission', 'data-kind': 'review' },
    h('h3', {}, 'What the run asks'),
    h('blockquote', { 'data-testid': 'submission-summary', class: 'summary agent-text' }, sub.summary),
    part('submission-artifacts', `What its agents produced (${sub.artifacts.length}, open them below)`,
      lines(sub.artifacts.map((a) => `${a.title || '(untitled)'} · ${a.type}`))));
}

/** What the agent handed in for the step; "not known" when the source did not say (an older terminal owner). */
export function renderSubmission(sub: PanelSubmission | undefined): HTMLElement {
  if (!sub) return h('p', { 'data-testid': 'submission', class: 'empty' }, 'What the agent submitted is not known here: open its artifacts below.');
  if (sub.kind === 'review') return renderReview(sub);
  const confidence = sub.confidence === null ? 'not given' : `${Math.round(Math.max(0, Math.min(1, sub.confidence)) * 100)}%`;
  return h('div', { 'data-testid': 'submission', class: 'submission' },
    h('h3', {}, 'What the agent submitted'),
    h('blockquote', { 'data-testid': 'submission-summary', class: 'summary agent-text' }, sub.summary || '(no summary)'),
    h('p', { 'data-testid': 'submission-confidence' }, `Confidence: ${confidence}`),
    part('submission-blockers', `Blockers (${sub.blockers.length})`, lines(sub.blockers)),
    part('submission-findings', `Findings (${sub.findings.length})`, sub.findings.length ? h('ul', {}, ...sub.findings.map(renderFinding)) : null),
    part('submission-decisions', `Decisions (${sub.decisions.length})`, sub.decisions.length ? h('ul', {}, ...sub.decisions.map((d) =>
      h('li', { class: 'agent-text' }, h('strong', {}, d.decision),
        d.rationale ? h('div', {}, `Why: ${d.rationale}`) : null,
        d.alternativesRejected.length ? h('div', { class: 'dim' }, `Rejected: ${d.alternativesRejected.join('; ')}`) : null,
        d.tradeOffs ? h('div', { class: 'dim' }, `Trade-offs: ${d.tradeOffs}`) : null))) : null),
    part('submission-artifacts', `Artifacts (${sub.artifacts.length})`, lines(sub.artifacts.map((a) => `${a.title || '(untitled)'} · ${a.type}`))),
    part('submission-references', `References (${sub.references.length})`, lines(sub.references)),
    part('submission-next-steps', `Next steps (${sub.nextSteps.length})`, lines(sub.nextSteps)));
}

/**
 * The approval box for `step` (one of `awaiting`, listed so a person sees every step that waits), with its submission;
 * `outcome` is what rejecting it does.
 */
export function renderGate(step: string, awaiting: string[], handlers: GateHandlers, outcome: RejectOutcome, submission?: PanelSubmission): HTMLElement {
  const words = rejectWords(outcome);
  const feedback = h('textarea', {
    'data-testid': 'feedback', id: 'feedback', rows: 4, maxlength: MAX_FEEDBACK_CHARS,
    placeholder: words.placeholder, 'aria-describedby': 'feedback-help',
  });
  feedback.value = handlers.drafts.get(step) ?? '';
  const approve = h('vscode-button', { 'data-testid': 'approve', icon: 'check' }, 'Approve');
  const reject = h('vscode-button', { 'data-testid': 'reject', icon: 'close', secondary: true }, 'Reject');
  const sync = (): void => {
    setDisabled(approve, handlers.pending);
    setDisabled(reject, handlers.pending || feedback.value.trim() === '');
  };
  feedback.addEventListener('input', () => {
    handlers.drafts.set(step, feedback.value);
    sync();
  });
  approve.addEventListener('click', () => {
    if (approve.hasAttribute('disabled')) return;
    handlers.approve(step);
  });
  reject.addEventListener('click', () => {
    const text = feedback.value.trim();
    if (reject.hasAttribute('disabled') || text === '') return;
    handlers.reject(step, text);
  });
  sync();
  const others = awaiting.filter((a) => a !== step);
  return h('section', { class: 'approval', 'data-testid': 'approval', 'data-step': step, 'aria-labelledby': 'approval-heading' },
    h('h2', { id: 'approval-heading' }, h('span', { class: 'codicon codicon-person', 'aria-hidden': 'true' }), ` ${step} waits for your decision`),
    renderSubmission(submission),
    h('label', { for: 'feedback' }, words.label),
    feedback,
    h('p', { id: 'feedback-help', class: 'dim', 'data-testid': 'feedback-help' }, words.help),
    h('div', { class: 'buttons' }, approve, reject),
    others.length ? h('p', { class: 'dim' }, `Also waiting: ${others.join(', ')} (select it in the graph).`) : null);
}
