// Which steps may run now (all dependencies completed) and which of several ready steps to hand out.
import { minimatch } from 'minimatch';

/** The parts of a step that selection looks at. */
export interface SelectableStep {
  name: string;
  dependencies: string[];
  agent_name: string;
  path_patterns: string[];
  tags: string[];
}

/** What the calling agent asked for. */
export interface SteeringHints {
  requested_step_name?: string;
  referenced_paths?: string[];
  intent_tags?: string[];
}

/** What the broker knows about the caller and the execution. */
export interface SelectionContext {
  focus_paths?: string[];
  current_agent?: string;
  last_user_choice?: string;
}

/** Scoring weights of the broker spec. */
const WEIGHTS = { requested: 999, path: 2, tag: 1, focus: 1, affinity: 1, user_choice: 3 } as const;

/** Deterministic (locale-independent) string order. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Steps not completed or running whose dependencies are all completed, in their given order. */
export function computeReadySet<T extends SelectableStep>(steps: T[], completed: Set<string>, running: Set<string> = new Set()): T[] {
  return steps.filter(
    (step) => !completed.has(step.name) && !running.has(step.name) && step.dependencies.every((dep) => completed.has(dep)),
  );
}

function countPatternMatches(patterns: string[], paths: string[] | undefined): number {
  if (!paths || paths.length === 0) return 0;
  return patterns.filter((pattern) => paths.some((path) => minimatch(path, pattern, { dot: true }))).length;
}

/** The score of one step and the factors that made it, as readable phrases. */
function scoreStep(step: SelectableStep, hints: SteeringHints, context: SelectionContext): { score: number; factors: string[] } {
  const factors: string[] = [];
  let score = 0;
  const add = (points: number, phrase: string) => {
    if (points <= 0) return;
    score += points;
    factors.push(`${phrase} (+${points})`);
  };
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 'es'}`;
  add(hints.requested_step_name === step.name ? WEIGHTS.requested : 0, 'explicitly requested');
  const paths = countPatternMatches(step.path_patterns, hints.referenced_paths);
  add(paths * WEIGHTS.path, `${plural(paths, 'referenced-path match')}`);
  const tags = hints.intent_tags ? step.tags.filter((tag) => hints.intent_tags?.includes(tag)).length : 0;
  add(tags * WEIGHTS.tag, `${plural(tags, 'intent-tag match')}`);
  const focus = countPatternMatches(step.path_patterns, context.focus_paths);
  add(focus * WEIGHTS.focus, `${plural(focus, 'focus-path match')}`);
  add(context.current_agent !== undefined && step.agent_name === context.current_agent ? WEIGHTS.affinity : 0,
    `same agent as the caller (${step.agent_name})`);
  add(context.last_user_choice === step.name ? WEIGHTS.user_choice : 0, 'last chosen by the user');
  return { score, factors };
}

/**
 * Scores ready steps by the spec's weights (999 request, 2 per path, 1 per tag, 1 per focus path,
 * 1 agent affinity, 3 last user choice) and picks the best; ties go to the alphabetically first name.
 * `all_candidates` and `parallel_opportunities` both list every ready step in rank order, as the spec does.
 */
export function scoreParallelCandidates<T extends SelectableStep>(
  candidates: T[],
  hints: SteeringHints = {},
  context: SelectionContext = {},
): { chosen: T; scores: Record<string, number>; reason: string; all_candidates: string[]; parallel_opportunities: string[]; tie_broken_by: 'alphabetical' | 'none' } {
  if (candidates.length === 0) throw new Error('scoreParallelCandidates called with no candidates');
  const scores: Record<string, number> = {};
  const factors = new Map<string, string[]>();
  for (const step of candidates) {
    const scored = scoreStep(step, hints, context);
    scores[step.name] = scored.score;
    factors.set(step.name, scored.factors);
  }
  const scoreOf = (step: T) => scores[step.name] ?? 0;
  const sorted = [...candidates].sort((a, b) => scoreOf(b) - scoreOf(a) || compareNames(a.name, b.name));
  const chosen = sorted[0] as T;
  const runnerUp = sorted[1];
  const tied = runnerUp !== undefined && scoreOf(runnerUp) === scoreOf(chosen);
  return {
    chosen,
    scores,
    reason: explain(chosen, scoreOf(chosen), factors.get(chosen.name) ?? [], sorted.length,
      tied ? sorted.slice(1).filter((s) => scoreOf(s) === scoreOf(chosen)).map((s) => s.name) : []),
    all_candidates: sorted.map((s) => s.name),
    // As in the spec (whose sort reorders `candidates` in place): every ready step, in rank order.
    parallel_opportunities: sorted.map((s) => s.name),
    tie_broken_by: tied ? 'alphabetical' : 'none',
  };
}

function explain(chosen: SelectableStep, score: number, factors: string[], count: number, tiedWith: string[]): string {
  if (count === 1) return `Chose '${chosen.name}': it is the only ready step.`;
  const why = factors.length > 0 ? `: ${factors.join(', ')}` : ': no steering hint favoured it';
  const base = `Chose '${chosen.name}' (score ${score}) from ${count} ready steps${why}`;
  if (tiedWith.length === 0) return `${base}.`;
  return `${base}; tied with ${tiedWith.map((n) => `'${n}'`).join(', ')}, so the alphabetically first name won.`;
}
