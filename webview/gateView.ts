// Approve / Reject-with-feedback for a step waiting in awaiting_approval. Reject stays disabled until feedback is
// typed; both are disabled while a decision is on its way.
import { MAX_FEEDBACK_CHARS } from '../src/shared/protocol.js';
import { h } from './dom.js';

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

/** The approval box for `step` (one of `awaiting`, listed so a person sees every step that waits). */
export function renderGate(step: string, awaiting: string[], handlers: GateHandlers): HTMLElement {
  const feedback = h('textarea', {
    'data-testid': 'feedback', id: 'feedback', rows: 4, maxlength: MAX_FEEDBACK_CHARS,
    placeholder: 'What must change? (needed to reject)', 'aria-describedby': 'feedback-help',
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
    h('label', { for: 'feedback' }, 'Feedback'),
    feedback,
    h('p', { id: 'feedback-help', class: 'dim' }, 'Rejecting sends the step back to the agent with your feedback.'),
    h('div', { class: 'buttons' }, approve, reject),
    others.length ? h('p', { class: 'dim' }, `Also waiting: ${others.join(', ')} (select it in the graph).`) : null);
}
