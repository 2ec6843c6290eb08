// A pipeline run as the panel shows it: the system's workflow walked the way the engine names step instances
// (`seq/child`, `cond/then/child`, `loop[2]/child`), each leaf with its recorded status and spend and its streamed
// output, containers with the status of what they hold; spend per agent and for the run, and the budget. Pure.
import { describeCondition } from '../../core/pipelines/engine/conditions.js';
import { interpolate, type Variables } from '../../core/pipelines/engine/interpolate.js';
import { interruptedReason, isBudgetPause, isInterruption, type PipelineRunView } from '../../core/pipelines/pipelineRuns.js';
import type { SystemWorkflowStep } from '../../core/pipelines/types.js';
import { budgetReasonText, money, tokenCount } from '../../shared/labels.js';
import type { StepStatus } from '../../core/types.js';
import {
  findPipelineNode, type PanelArtifact, type PanelNodeStatus, type PanelPipeline, type PanelPipelineNode, type PanelSubmission,
} from '../../shared/protocol.js';
import { isMoving } from '../../core/stateMachine.js';
import type { PipelineFeed } from '../pipelines/pipelineFeed.js';

const OUTPUT_CHARS = 4_000;

/** A recorded step instance, as much as the graph needs. */
export interface PipelineStepRow {
  step_name: string;
  status: StepStatus;
  attempt: number;
  outcome_summary: string | null;
}

interface Ctx {
  rows: Map<string, PipelineStepRow>;
  view: PipelineRunView;
  feed: PipelineFeed | undefined;
  /** The run's variables as far as the panel knows them (a finished step's output by its outputVariable), in order. */
  vars: Variables;
  /** The step that writes each outputVariable, as it is labelled. */
  writers: Map<string, string>;
}

/** How long a review's prompt may be in the panel (an output filled into it can be long). */
const PROMPT_CHARS = 2_000;

/**
 * A human_review step's prompt as the run puts it: the one it recorded when it reached the step; before that, its
 * template filled with what the steps it names produced so far (their recorded summaries) and, for a value not known
 * yet, the name of the step that will produce it in brackets, never a raw `{{…}}`.
 */
function reviewPrompt(s: SystemWorkflowStep, name: string, ctx: Ctx): string | null {
  const asked = ctx.view.prompts?.[name] ?? (s.inputTemplate === undefined ? null
    : interpolate(s.inputTemplate, ctx.vars, (path) => `[${ctx.writers.get(path.split('.')[0]!) ?? path}]`));
  return asked === null || asked.length <= PROMPT_CHARS ? asked : `${asked.slice(0, PROMPT_CHARS - 1)}…`;
}

/** Each outputVariable of `steps` (nested ones too) with the label of the step that writes it. */
function writersOf(steps: readonly SystemWorkflowStep[], into = new Map<string, string>()): Map<string, string> {
  for (const s of steps) {
    if (s.outputVariable) into.set(s.outputVariable, s.name ?? s.id);
    for (const inner of [s.children, s.trueBranch, s.falseBranch]) if (inner) writersOf(inner, into);
  }
  return into;
}

function tail(text: string): string {
  return text.length <= OUTPUT_CHARS ? text : `…${text.slice(-(OUTPUT_CHARS - 1))}`;
}

/** A container's status from its children's: waiting, running (or interrupted) win, then failure; done when all are. */
export function aggregateStatus(children: PanelNodeStatus[]): PanelNodeStatus {
  const has = (s: PanelNodeStatus) => children.includes(s);
  if (has('awaiting_approval')) return 'awaiting_approval';
  if (has('running')) return 'running';
  if (has('interrupted')) return 'interrupted';
  if (has('failed')) return 'failed';
  const done = children.filter((s) => s === 'completed' || s === 'skipped').length;
  if (children.length > 0 && done === children.length) return children.every((s) => s === 'skipped') ? 'skipped' : 'completed';
  return children.some((s) => s === 'completed') ? 'running' : 'pending';
}

/** What the children cost in all; null when none of them has a known cost. */
function sumCost(children: PanelPipelineNode[]): number | null {
  return children.some((c) => c.costUsd !== null) ? children.reduce((a, c) => a + (c.costUsd ?? 0), 0) : null;
}

function container(name: string, label: string, type: string, detail: string | null, children: PanelPipelineNode[]): PanelPipelineNode {
  return {
    name, label, type, status: aggregateStatus(children.map((c) => c.status)), agent: null, detail, attempt: 0,
    tokens: children.reduce((a, c) => a + c.tokens, 0), costUsd: sumCost(children), output: null, toolCalls: [], children,
  };
}

function leaf(s: SystemWorkflowStep, name: string, ctx: Ctx): PanelPipelineNode {
  const row = ctx.rows.get(name);
  const spent = ctx.view.usage.bySteps[name];
  const live = ctx.feed?.step(ctx.view.runId, name);
  const running = row?.status === 'running';
  // Put back when the run paused or stopped under it: the run kept what that attempt streamed and called, which every
  // window shows (the owner's feed has it too, a follower's has none; the summary only says why: "aborted").
  const stopped = row?.status === 'pending' ? ctx.view.stopped?.[name] : undefined;
  const detail = s.type === 'human_review' ? reviewPrompt(s, name, ctx) : s.type === 'transform' ? s.operation ?? 'none' : null;
  if (s.outputVariable && row?.status === 'completed' && row.outcome_summary !== null) ctx.vars[s.outputVariable] = row.outcome_summary;
  return {
    name, label: s.name ?? s.id, type: s.type, status: row?.status ?? 'pending', agent: s.agentId ?? null, detail,
    attempt: row?.attempt ?? 0,
    tokens: running && live ? Math.max(live.tokens, spent?.tokens ?? 0) : spent?.tokens ?? 0,
    costUsd: spent?.costUsd ?? null,
    // A step started again (a resumed run, a retry) keeps its earlier attempt's summary ("aborted") until it ends: not
    // this attempt's output, in a follower window (no stream) as in the owner's before its first streamed line.
    output: stopped ? (stopped.text ? tail(stopped.text) : null)
      : live?.text ? tail(live.text) : running || row?.status === 'awaiting_approval' ? null : row?.outcome_summary ?? null,
    ...(stopped ? { stopped: budgetReasonText(stopped.reason) } : {}),
    toolCalls: stopped ? stopped.toolCalls.slice() : live?.toolCalls.slice() ?? [],
    children: [],
    // As the run recorded it when it reached the review, else as its definition says (the engine defaults to fail).
    ...(s.type === 'human_review' ? { onReject: ctx.view.onReject?.[name] ?? s.onReject ?? 'fail' } : {}),
  };
}

function branchTaken(prefix: string, rows: Map<string, PipelineStepRow>): boolean {
  for (const k of rows.keys()) if (k.startsWith(prefix)) return true;
  return false;
}

function node(s: SystemWorkflowStep, prefix: string, ctx: Ctx): PanelPipelineNode {
  const name = `${prefix}${s.id}`;
  const label = s.name ?? s.id;
  switch (s.type) {
    case 'sequential':
      return container(name, label, s.type, null, walk(s.children ?? [], `${name}/`, ctx));
    case 'parallel':
      return container(name, label, s.type, s.failurePolicy ?? 'fail_fast', walk(s.children ?? [], `${name}/`, ctx));
    case 'conditional': {
      const arms = (['then', 'else'] as const).map((arm) => {
        const children = walk((arm === 'then' ? s.trueBranch : s.falseBranch) ?? [], `${name}/${arm}/`, ctx);
        return container(`${name}/${arm}`, arm === 'then' ? 'if true' : 'if false', 'branch', null, children);
      });
      const taken = arms.map((a) => branchTaken(`${a.name}/`, ctx.rows));
      if (taken.some(Boolean)) arms.forEach((a, i) => { if (!taken[i]) a.status = 'skipped'; });
      return container(name, label, s.type, describeCondition(s.condition!), arms);
    }
    case 'loop': {
      let seen = 0;
      while (branchTaken(`${name}[${seen + 1}]/`, ctx.rows)) seen++;
      const passes = Array.from({ length: Math.max(1, seen) }, (_, i) =>
        container(`${name}[${i + 1}]`, `iteration ${i + 1}`, 'iteration', null, walk(s.children ?? [], `${name}[${i + 1}]/`, ctx)));
      const until = s.breakCondition ? `, until ${describeCondition(s.breakCondition)}` : '';
      return container(name, label, s.type, `at most ${s.maxIterations} iterations${until}`, passes);
    }
    default:
      return leaf(s, name, ctx);
  }
}

function walk(steps: readonly SystemWorkflowStep[], prefix: string, ctx: Ctx): PanelPipelineNode[] {
  return steps.map((s) => node(s, prefix, ctx));
}

/** In a run no process drives (its owner ended) nothing runs: what is recorded running (a step, its holders) waits. */
function interrupt(nodes: PanelPipelineNode[]): PanelPipelineNode[] {
  for (const n of nodes) {
    if (n.status === 'running') n.status = 'interrupted';
    interrupt(n.children);
  }
  return nodes;
}

/**
 * In a run that is not moving (paused, failed, cancelled) a container is running only if something in it is: one with
 * some children done and the rest pending (a loop between passes) reads as pending, not as running.
 */
function still(nodes: PanelPipelineNode[]): PanelPipelineNode[] {
  for (const n of nodes) {
    if (n.children.length === 0) continue;
    still(n.children);
    if (n.status === 'running' && !n.children.some((c) => c.status === 'running')) n.status = 'pending';
  }
  return nodes;
}

/**
 * `value` rounded up to a step a tenth of `scale`'s power of ten (a budget of 2,000 → hundreds, $5 → dimes), no finer
 * than 10^minExp (whole tokens, cents as the box steps): the raised budget reads round and never gives less.
 */
function roundUp(value: number, scale: number, minExp: number): number {
  const exp = scale > 0 ? Math.max(minExp, Math.floor(Math.log10(scale)) - 1) : minExp;
  // Steps counted whole (toFixed drops float noise such as 51.99999), so dollars read 0.052, not 0.052000000000000005.
  const steps = Math.ceil(Number((value / 10 ** exp).toFixed(6)));
  return exp < 0 ? steps / 10 ** -exp : steps * 10 ** exp;
}

/**
 * What the pause box of a run paused at its budget prefills, and its hint: per limit, what the run has spent plus its
 * old budget again, rounded up. Doubling the budget gave a run far past it little or nothing (2,468 of 2,000 tokens
 * spent → 4,000: 1,532 left, less than the step that runs again may take); this gives as much again as it had.
 */
export function raisedBudget(budget: NonNullable<PanelPipeline['budget']>, total: PanelPipeline['total']): NonNullable<PanelPipeline['raise']> {
  const tokens = budget.tokens === null ? null : roundUp(total.tokens + budget.tokens, budget.tokens, 0);
  const usd = budget.usd === null ? null : roundUp(total.costUsd + budget.usd, budget.usd, -2);
  const sums = [
    tokens === null ? '' : `${tokenCount(total.tokens)} + ${tokenCount(budget.tokens!)} tokens → ${tokenCount(tokens)}`,
    usd === null ? '' : `${money(total.costUsd)} + ${money(budget.usd)} → ${money(usd)}`,
  ].filter(Boolean);
  const hint = sums.length
    ? `Prefilled: what the run has spent plus its budget again, rounded up (${sums.join('; ')}), so it gets as much again before it pauses.`
    : 'Set a limit to resume with; leave both empty to resume with none.';
  return { tokens, usd, hint };
}

/** The panel's view of a pipeline run from its view (system, usage, budget), its step rows and the streamed feed. */
export function buildPanelPipeline(view: PipelineRunView, steps: PipelineStepRow[], feed: PipelineFeed | undefined, live: boolean): PanelPipeline {
  const vars: Variables = { system: { input: view.input, name: view.system.name, runId: view.runId } };
  const ctx: Ctx = { rows: new Map(steps.map((s) => [s.step_name, s])), view, feed, vars, writers: writersOf(view.system.workflow) };
  const total = { tokens: view.usage.total.tokens, costUsd: view.usage.total.costUsd };
  const budget = view.budget ? { tokens: view.budget.tokens ?? null, usd: view.budget.usd ?? null } : null;
  const shares = budget ? [budget.tokens ? total.tokens / budget.tokens : null, budget.usd ? total.costUsd / budget.usd : null].filter((x): x is number => x !== null) : [];
  const nodes = walk(view.system.workflow, '', ctx);
  return {
    system: view.system.name,
    input: view.input,
    nodes: view.orphaned ? interrupt(nodes) : isMoving(view.status) ? nodes : still(nodes),
    total,
    byAgent: Object.entries(view.usage.byAgent).map(([agent, u]) => ({ agent, tokens: u.tokens, costUsd: u.costUsd, steps: u.steps })),
    budget,
    budgetUsedPercent: shares.length ? Math.round(Math.max(...shares) * 100) : null,
    pausedForBudget: isBudgetPause(view)
      ? view.pauseReason === null ? 'the run reached its budget' : budgetReasonText(view.pauseReason) : null,
    raise: isBudgetPause(view) ? raisedBudget(budget ?? { tokens: null, usd: null }, total) : null,
    pausedInterrupted: view.status === 'paused' && isInterruption(view.pauseReason) ? view.pauseReason
      : view.orphaned ? interruptedReason('the Baton process running it ended') : null,
    live,
    drivenElsewhere: !live && isMoving(view.status) && view.orphaned !== true,
  };
}

/**
 * What a pipeline's waiting human_review steps put before the person (no agent submits them): the prompt as the run
 * asks it and the run's artifacts so far; none for a review whose prompt is not known.
 */
export function reviewSubmissions(p: PanelPipeline, awaiting: string[], artifacts: PanelArtifact[]): PanelSubmission[] {
  return awaiting.flatMap((stepName) => {
    const n = findPipelineNode(p.nodes, stepName);
    if (n?.type !== 'human_review' || n.detail === null) return [];
    return [{
      stepName, kind: 'review' as const, summary: n.detail, confidence: null, findings: [], blockers: [], decisions: [],
      artifacts: artifacts.map((a) => ({ type: a.type, title: a.title })), references: [], nextSteps: [],
    }];
  });
}
