// A pipeline run in the panel: the system's step graph as a nested outline (parallel, conditional and loop structure
// kept), each step's type, status, spend and streamed output with its tool calls; spend per agent and for the run,
// the budget with how much is used, and — for a run paused at its budget — raising it and resuming (what the person
// typed kept across updates and a refused resume; a limit not above the spend refused before it is sent).
import { money, spendText, tokenCount } from '../src/shared/labels.js';
import type { PanelPipeline, PanelPipelineNode } from '../src/shared/protocol.js';
import { h } from './dom.js';
import { statusLabel } from './graphView.js';

/** What a person typed in the box of a run paused at its budget: kept across re-renders while that pause lasts. */
export interface BudgetDraft {
  /** The pause it was typed in (its reason): a later pause starts from its own prefill. */
  pause: string;
  tokens: string;
  usd: string;
  /** Why the panel did not send it (a limit not above what the run spent), said next to the box. */
  problem: string | null;
}

/** What the section needs from the page. */
export interface PipelineHandlers {
  resume(tokens: number | null, usd: number | null): void;
  pending: boolean;
  /** The budget box as typed; null: as prefilled. A resume the run refused keeps it, for the person to correct. */
  draft: BudgetDraft | null;
}

const TYPE_ICONS: Record<string, string> = {
  agent: 'hubot', sequential: 'list-ordered', parallel: 'split-horizontal', conditional: 'git-compare', branch: 'arrow-right',
  loop: 'sync', iteration: 'debug-restart', human_review: 'person', transform: 'symbol-operator',
};

function renderNode(n: PanelPipelineNode): HTMLElement {
  const head = h('div', { class: 'pnode-head' },
    h('span', { class: `codicon codicon-${TYPE_ICONS[n.type] ?? 'circle'}`, 'aria-hidden': 'true' }),
    h('strong', {}, ` ${n.label}`),
    h('span', { class: 'ptype' }, ` ${statusLabel(n.type)}`),
    n.agent ? h('span', { class: 'dim' }, ` · ${n.agent}`) : null,
    h('span', { class: `pstatus status-${n.status}`, 'data-testid': 'pstatus' }, ` ${statusLabel(n.status)}`),
    n.attempt > 1 ? h('span', { class: 'dim' }, ` · attempt ${n.attempt}`) : null,
    n.tokens || n.costUsd ? h('span', { class: 'dim', 'data-testid': 'pspend' }, ` · ${spendText(n.tokens, n.costUsd)}`) : null);
  return h('li', { class: `pnode pnode-${n.type}`, 'data-testid': `pstep-${n.name}`, 'data-status': n.status, 'data-type': n.type },
    head,
    n.detail ? h('div', { class: 'dim pdetail' }, n.detail) : null,
    n.toolCalls.length ? h('div', { class: 'ptools', 'data-testid': 'ptools' }, `Tools: ${n.toolCalls.join(', ')}`) : null,
    // A stopped attempt's output is what it wrote before it was stopped: marked so, not taken for a finished answer.
    n.stopped ? h('div', { class: 'pstopped', 'data-testid': 'pstopped' },
      h('span', { class: 'codicon codicon-debug-pause', 'aria-hidden': 'true' }), ` Stopped: ${n.stopped}`) : null,
    n.output ? h('pre', { class: n.stopped ? 'poutput stopped' : 'poutput', 'data-testid': 'poutput' }, n.output) : null,
    n.children.length ? h('ul', { class: 'ptree' }, ...n.children.map(renderNode)) : null);
}

/**
 * Why the run would refuse to resume with these limits, said before asking it: a limit (typed, or the one it has when
 * left empty) not above what the run spent, or tokens not whole. Null when they can be sent.
 */
function raiseProblem(p: Pick<PanelPipeline, 'budget' | 'total'>, tokens: number | null, usd: number | null): string | null {
  if (tokens !== null && !Number.isInteger(tokens)) return 'Type a whole number of tokens.';
  const spentTokens = tokenCount(p.total.tokens);
  const tokenLimit = tokens ?? p.budget?.tokens ?? null;
  if (tokenLimit !== null && tokenLimit <= p.total.tokens) {
    const given = tokens === null ? `Left empty, the token budget stays ${tokenCount(tokenLimit)} tokens,` : `${tokenCount(tokens)} tokens is`;
    return `${given} not above the ${spentTokens} the run has spent: type a token budget above ${spentTokens}.`;
  }
  const usdLimit = usd ?? p.budget?.usd ?? null;
  if (usdLimit !== null && usdLimit <= p.total.costUsd) {
    const given = usd === null ? `Left empty, the budget stays ${money(usdLimit)},` : `${money(usd)} is`;
    return `${given} not above the ${money(p.total.costUsd)} the run has spent: type a budget above ${money(p.total.costUsd)}.`;
  }
  return null;
}

/** The box of a run paused at its budget: new limits (as typed, else prefilled), checked before they are sent. */
function renderRaise(p: PanelPipeline, pause: string, handlers: PipelineHandlers): HTMLElement {
  if (handlers.draft?.pause !== pause) handlers.draft = null;
  const draft = handlers.draft;
  const prefill = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n));
  const described = 'raise-hint raise-problem';
  const tokens = h('input', { type: 'number', min: 0, step: 1, 'data-testid': 'budget-tokens', 'aria-label': 'New token budget', 'aria-describedby': described, value: draft ? draft.tokens : prefill(p.raise?.tokens) });
  const usd = h('input', { type: 'number', min: 0, step: 0.01, 'data-testid': 'budget-usd', 'aria-label': 'New budget in US dollars', 'aria-describedby': described, value: draft ? draft.usd : prefill(p.raise?.usd) });
  const problem = h('p', { class: 'problem', id: 'raise-problem', 'data-testid': 'raise-problem', role: 'alert', hidden: !draft?.problem }, draft?.problem ?? '');
  const say = (text: string | null) => {
    handlers.draft = { pause, tokens: tokens.value, usd: usd.value, problem: text };
    problem.textContent = text ?? '';
    problem.hidden = text === null;
    for (const box of [tokens, usd]) box.setAttribute('aria-invalid', String(text !== null));
  };
  if (draft?.problem) for (const box of [tokens, usd]) box.setAttribute('aria-invalid', 'true');
  for (const box of [tokens, usd]) box.addEventListener('input', () => say(null));
  const go = h('vscode-button', { 'data-testid': 'raise-budget', icon: 'debug-continue' }, 'Raise budget and resume');
  if (handlers.pending) go.setAttribute('disabled', '');
  go.addEventListener('click', () => {
    if (go.hasAttribute('disabled')) return;
    const num = (el: HTMLInputElement) => (el.value.trim() === '' ? null : Number(el.value));
    const refused = raiseProblem(p, num(tokens), num(usd));
    say(refused);
    if (refused === null) handlers.resume(num(tokens), num(usd));
  });
  return h('div', { class: 'approval', 'data-testid': 'budget-paused' },
    h('h3', {}, h('span', { class: 'codicon codicon-debug-pause', 'aria-hidden': 'true' }), ' Paused: budget exceeded'),
    h('p', {}, pause),
    h('label', {}, 'Tokens ', tokens), ' ', h('label', {}, 'US dollars ', usd),
    problem,
    p.raise ? h('p', { class: 'dim', id: 'raise-hint', 'data-testid': 'raise-hint' }, p.raise.hint) : null,
    h('div', { class: 'buttons' }, go));
}

function renderBudget(p: PanelPipeline, handlers: PipelineHandlers): HTMLElement[] {
  const out: HTMLElement[] = [];
  const used = p.budget
    ? `Budget: ${p.budgetUsedPercent ?? 0}% used — ${[
      p.budget.tokens !== null ? `${tokenCount(p.total.tokens)} of ${tokenCount(p.budget.tokens)} tokens` : '',
      p.budget.usd !== null ? `${money(p.total.costUsd)} of ${money(p.budget.usd)}` : '',
    ].filter(Boolean).join(' · ')}`
    : 'No budget set.';
  out.push(h('p', { 'data-testid': 'budget', class: (p.budgetUsedPercent ?? 0) >= 100 ? 'over' : '' }, used));
  if (p.pausedForBudget !== null) out.push(renderRaise(p, p.pausedForBudget, handlers));
  else handlers.draft = null;
  if (p.pausedInterrupted !== null) {
    const go = h('vscode-button', { 'data-testid': 'resume-interrupted', icon: 'debug-continue' }, 'Resume');
    if (handlers.pending) go.setAttribute('disabled', '');
    go.addEventListener('click', () => {
      if (!go.hasAttribute('disabled')) handlers.resume(null, null);
    });
    out.push(h('div', { class: 'approval', 'data-testid': 'interrupted-paused' },
      h('h3', {}, h('span', { class: 'codicon codicon-debug-pause', 'aria-hidden': 'true' }), ' Paused: interrupted'),
      h('p', {}, `${p.pausedInterrupted}; the step it was on runs again, finished steps do not.`),
      h('div', { class: 'buttons' }, go)));
  }
  return out;
}

/** The pipeline section. */
export function renderPipeline(p: PanelPipeline, handlers: PipelineHandlers): HTMLElement {
  const agents = p.byAgent.length
    ? h('table', { 'data-testid': 'agent-usage', class: 'usage' },
      h('tr', {}, h('th', {}, 'Agent'), h('th', {}, 'Steps'), h('th', {}, 'Tokens'), h('th', {}, 'Cost')),
      ...p.byAgent.map((a) => h('tr', { 'data-agent': a.agent }, h('td', {}, a.agent), h('td', {}, String(a.steps)), h('td', {}, tokenCount(a.tokens)), h('td', {}, money(a.costUsd)))))
    : h('p', { class: 'empty', 'data-testid': 'agent-usage' }, 'No agent has finished a step yet.');
  return h('section', { class: 'pipeline', 'data-testid': 'pipeline', 'aria-labelledby': 'pipeline-heading' },
    h('h2', { id: 'pipeline-heading' }, `Pipeline ${p.system}`),
    h('p', { 'data-testid': 'pipeline-usage' }, `Run: ${tokenCount(p.total.tokens)} tokens · ${money(p.total.costUsd)}`),
    ...renderBudget(p, handlers),
    // Only while it moves: a paused run has no driver, and what a stopped step wrote shows here too.
    p.drivenElsewhere ? h('p', { class: 'dim', 'data-testid': 'driven-elsewhere' },
      'Another Baton process drives this run: statuses follow it here; what its agents stream as they run shows only there.') : null,
    h('ul', { class: 'ptree ptree-root', 'data-testid': 'pipeline-steps' }, ...p.nodes.map(renderNode)),
    h('h3', {}, 'Spend per agent'),
    agents);
}
