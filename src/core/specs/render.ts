// Renders a spec's phases and tasks through phase-template.md and task-template.md (the spec's `[PLACEHOLDER]`
// tables), and caches what it rendered per execution until the workflow ends (the spec's DynamicWorkflowContent).
import { phaseNameShown, plural } from '../../shared/labels.js';
import type { SpecPhase, SpecTask } from '../specTypes.js';

/** What a phase or task is rendered with besides its parsed data. */
export interface RenderContext {
  /** The tasks.md, relative to the workspace. */
  source: string;
  /** Phases including Phase 0. */
  totalPhases: number;
}

const SIGNOFF = /\b(sign(?:ed|s)?[- ]?off|approv(?:al|ed|es)?\s+by|human (?:review|approval)|manual approval|product owner approves)\b/i;

/**
 * How the file numbers a phase read from a heading (`Phase 3.1`, `Stage 2b`), when that is not its place in the
 * workflow (Phase 1); null when it is, or when the phase came from a list item.
 */
export function sourceLabel(phase: Pick<SpecPhase, 'number' | 'label'>): string | null {
  return /^[A-Za-z]+ \S*\d/.test(phase.label) && phase.label !== `Phase ${phase.number}` ? phase.label : null;
}

/** Whether a gate says a person must sign the phase off (then the phase waits in `awaiting_approval`). */
export function needsSignoff(gate: readonly string[]): boolean {
  return gate.some((g) => SIGNOFF.test(g));
}

/** A template without its leading `<!-- … -->` note for authors. */
function body(template: string): string {
  return template.replace(/^\uFEFF?\s*<!--[\s\S]*?-->\s*/, '');
}

/** Replaces every `[NAME]` whose name `values` has; other brackets (markdown links, `[P]`) stay. */
export function fill(template: string, values: Record<string, string>): string {
  return body(template).replace(/\[([A-Z][A-Z_]*)\]/g, (m, name: string) => values[name] ?? m).replace(/\n{3,}/g, '\n\n').trim();
}

/** What a phase without a description of its own is for: its tasks (none: only its gate). */
function deliver(tasks: number): string {
  if (tasks === 0) return 'It lists no tasks: meet its validation gate.';
  return tasks === 1 ? 'Deliver the task below.' : `Deliver the ${tasks} tasks below.`;
}

/** A numbered list, one line each. */
function numbered(items: readonly string[]): string {
  return items.map((t, i) => `${i + 1}. ${t}`).join('\n');
}

/**
 * A phase rendered through the phase template. `gateElsewhere` (a step result, which lists the gate in
 * `context.spec` and its text form) puts a pointer where the gate's items would be, so they are not sent twice.
 */
export function renderPhase(template: string, phase: SpecPhase, ctx: RenderContext, gateElsewhere = false): string {
  const gate = phase.validation_gate.map((g) => g.text);
  const signoff = needsSignoff(gate);
  return fill(template, {
    PHASE_NUMBER: String(phase.number),
    PHASE_NAME: phaseNameShown(phase.name, sourceLabel(phase)),
    PHASE_DESCRIPTION: phase.description || deliver(phase.tasks.length),
    ESTIMATED_DURATION: phase.estimated_duration ?? 'not given',
    TASK_COUNT: String(phase.tasks.length),
    TASKS: plural(phase.tasks.length, 'task'),
    VALIDATION_GATE: gateElsewhere ? `(${gate.length} item${gate.length > 1 ? 's' : ''}: see "Validation gate" below / context.spec.validation_gate)` : numbered(gate),
    NEXT_PHASE_NUMBER: String(phase.number + 1),
    NEXT_LOCKED: phase.number >= ctx.totalPhases - 1
      ? 'it is the last; the workflow closes once it passes its gate'
      : `Phase ${phase.number + 1} stays locked until this one passes its gate`,
    ESTIMATE: phase.estimated_duration ? `, estimated ${phase.estimated_duration}` : '',
    PHASE_COUNT: String(ctx.totalPhases - 1),
    SOURCE_PATH: ctx.source,
    SOURCE_LINE: String(phase.line),
    SIGNOFF: signoff ? '\n4. 🛑 A person signs this phase off after you submit: wait for the decision before you go on.' : '',
  });
}

/** A task rendered through the task template. */
export function renderTask(template: string, phase: SpecPhase, task: SpecTask, ctx: RenderContext): string {
  const last = task.number === phase.tasks.length;
  return fill(template, {
    TASK_ID: task.id,
    TASK_NAME: task.name,
    PHASE_NUMBER: String(phase.number),
    PHASE_NAME: phaseNameShown(phase.name, sourceLabel(phase)),
    TASK_DESCRIPTION: task.description || '(The source gives no description beyond the name and the criteria.)',
    ESTIMATED_TIME: task.estimated_time ?? 'not given',
    ESTIMATE: task.estimated_time ? ` Estimated ${task.estimated_time}.` : '',
    DEPENDENCIES: task.dependencies.length ? task.dependencies.join(', ') : 'none',
    ACCEPTANCE_CRITERIA: task.acceptance_criteria.length
      ? task.acceptance_criteria.map((c) => `- [ ] ${c}`).join('\n')
      : '- [ ] The task does what its name says, and the tests that cover it pass',
    NEXT_TASK_NUMBER: String(task.number + 1),
    TASK_NUMBER: String(task.number),
    TASK_COUNT: String(phase.tasks.length),
    REQUIREMENTS: task.requirements.length ? task.requirements.join(', ') : 'none named',
    SOURCE_PATH: ctx.source,
    SOURCE_LINE: String(task.line),
    NEXT_STEP: last
      ? `this is the last task of Phase ${phase.number}: submit the phase with evidence for every gate item.`
      : `task ${task.number + 1} of Phase ${phase.number}.`,
  });
}

/** Rendered phases and tasks of the running spec workflows; each execution's entry is dropped when it ends. */
export class SpecContentCache {
  private readonly byExecution = new Map<string, { phases: Map<number, string>; tasks: Map<number, string> }>();

  /** The cached rendering of `key` in `executionId`, or renders it with `render` and caches it. */
  phase(executionId: string, phase: number, render: () => string): string {
    const entry = this.entry(executionId);
    let text = entry.phases.get(phase);
    if (text === undefined) entry.phases.set(phase, (text = render()));
    return text;
  }

  /** The cached rendering of a task (phase × 100000 + task number), or renders and caches it. */
  task(executionId: string, phase: number, taskNumber: number, render: () => string): string {
    const entry = this.entry(executionId);
    const key = phase * 100_000 + taskNumber;
    let text = entry.tasks.get(key);
    if (text === undefined) entry.tasks.set(key, (text = render()));
    return text;
  }

  /** Drops an execution's renderings (the workflow ended); the database keeps everything to render them again. */
  drop(executionId: string): void {
    this.byExecution.delete(executionId);
  }

  /** Whether an execution has anything cached. */
  has(executionId: string): boolean {
    return this.byExecution.has(executionId);
  }

  /** Executions with cached renderings. */
  size(): number {
    return this.byExecution.size;
  }

  private entry(executionId: string) {
    let e = this.byExecution.get(executionId);
    if (!e) this.byExecution.set(executionId, (e = { phases: new Map(), tasks: new Map() }));
    return e;
  }
}
