// The spec's tasks.md format: `### Phase N: Name` headings, a **Goal**, bold task lines with estimated time,
// dependencies and acceptance criteria, and a **Validation Gate** checklist per phase.
import type { CheckboxRef, ParsedSpec, SpecGateItem, SpecPhase, SpecTask } from '../specTypes.js';
import {
  codeLineNumbers, field, hasUnmarkedPhase, heading, Fences, inlineDoneWhen, listItem, partOfPhase, PHASE_NUMBER, phaseName, plain, splitLines, splitList,
  TASK_LINE, unmarkedHeadings, type SourceLine,
} from './markdown.js';
import { defaultGate, EXAMPLES, parseError, repeatedIdWarnings, type SourceParser } from './sourceParser.js';

const PHASE_HEADING = new RegExp(String.raw`^(?:[^\p{L}\p{N}]*\s*)?Phase\s+(${PHASE_NUMBER})(.*)$`, 'iu');
/** What follows `Phase N` in a heading that links two phases (`Phase 1 → Phase 2`, `Phase 1 to Phase 2`). */
const DEPENDENCY_NOTE = /^\s*(?:\u2192|->|=>|\u21d2|to\s+phase\b)/iu;
const GATE_LABELS = /^(validation gate|gate|exit criteria|phase gate|definition of done|checkpoint|done when)$/;
/** Gate labels that end a task read from a heading or a bold line (`Done when` there is the task's own criteria). */
const PHASE_GATE_LABELS = /^(validation gate|phase gate|gate|exit criteria)$/;
/** A bold line that starts a task (`**Task 1.1**: Name`), not in a list. */
const BOLD_TASK = /^(?:\*\*|__)Task\s+[\w.-]*\d/i;
const DESCRIPTION_LABELS = /^(goal|objective|purpose|description|summary|overview)$/;
const DURATION_LABELS = /^(estimated duration|duration|estimated time|estimate|effort|time estimate)$/;

/** A task being read, with the indent of its line (-1 for a heading) and of its criteria list. */
type OpenTask = SpecTask & { indent: number; criteriaIndent: number | null };

/** A phase being read, with the heading level that ends it. */
interface OpenPhase {
  phase: SpecPhase;
  level: number;
  mode: 'none' | 'tasks' | 'gate';
  task: OpenTask | null;
  /** The `### Task N: Name` heading the lines are under, whose `- [ ] N.1 …` items are its sub-tasks. */
  heading?: OpenTask | null;
  /** Opened by a bold or plain line (`**Phase 1: Setup**`), whose `#### Task 1.1: …` headings are still its own. */
  unmarked?: boolean;
}

/**
 * A phase heading met again after that phase, deeper than the heading that opened it (`### Phase 1 Validation Gate`
 * under "## Validation Gates", `### Phase 1 Testing` under "## Testing Strategy"): a section about that phase.
 */
interface Revisit {
  phase: SpecPhase;
  /** Whether it lists criteria: it, or a heading it sits under, says gate, criteria or checklist. */
  gate: boolean;
  /** The indent of its list's items (null before the first). */
  indent: number | null;
}
const CRITERIA_SECTION = /\b(gates?|criteria|checklist|definition of done|done when)\b/i;

/** A numbered sub-task's line (`1.1 Create the folders`): its id and name. */
const SUB_TASK = /^(\d+(?:\.\d+)+)\.?\s+(.*)$/;

/** Parses the spec's tasks.md format. */
export class SpecTasksParser implements SourceParser {
  readonly id = 'spec_tasks_parser';

  /** Sure when it sees a phase heading and a `Task N.M` line (an item or a heading); never for a file without both. */
  detect(text: string): number {
    const tasks = /^(?:[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX\-~/]\][ \t]+)?| {0,3}#{2,6}[ \t]+| {0,3}(?=\*\*|__))(?:\*\*|__)?Task\s+[\w.-]*\d/im.test(text);
    if (!tasks) return 0;
    // A phase written as a setext heading or a bold line (`**Phase 1: Setup**`) too, as the checkbox parser reads them.
    const phases = /^ {0,3}#{1,6}[ \t]+[^\n]*?Phase\s+\d/im.test(text) || hasUnmarkedPhase(text, PHASE_HEADING);
    return phases ? 0.9 : 0;
  }

  /** @inheritdoc */
  parse(text: string, path: string): ParsedSpec {
    const lines = splitLines(text);
    const phases: SpecPhase[] = [];
    let title: string | null = null;
    let open: OpenPhase | null = null;
    const orphans = new Map<string, number>(); // task lines under no phase heading: id → line
    const named = new Map<string, { phase: SpecPhase; level: number }>(); // phase label → the phase, its heading level
    const under: Array<{ level: number; text: string }> = []; // the headings the current line is under
    let revisit: Revisit | null = null;
    const close = () => {
      if (open) phases.push(open.phase);
      open = null;
    };
    const fences = new Fences(lines);
    const unmarked = unmarkedHeadings(lines, PHASE_HEADING);
    for (const line of lines) {
      if (fences.code(line) || unmarked.underlines.has(line.number)) continue;
      const h = heading(line) ?? unmarked.headings.get(line.number);
      if (h) {
        if (h.level === 1 && title === null) title = plain(h.text);
        while (under.length && under.at(-1)!.level >= h.level) under.pop();
        under.push({ level: h.level, text: plain(h.text) });
        revisit = null;
        const m = PHASE_HEADING.exec(plain(h.text));
        // `### Phase 1 → Phase 2` (under Dependencies) says how phases follow each other: it is no phase.
        if (m && DEPENDENCY_NOTE.test(m[2]!)) {
          if (open && h.level <= (open as OpenPhase).level) close();
          continue;
        }
        if (m && open && h.level > (open as OpenPhase).level && `Phase ${m[1]}` === (open as OpenPhase).phase.label) {
          // `### Phase 1 Tasks` under `## Phase 1: Name`: a section of the phase that is open, not a new one.
          sectionHeading(open, plain(m[2]!).trim() || 'tasks');
          continue;
        }
        const earlier = m ? named.get(`Phase ${m[1]}`) : undefined;
        if (earlier && h.level > earlier.level) {
          // A section about a phase read before: its gate, when it lists criteria; else nothing to run.
          if (open && h.level <= (open as OpenPhase).level) close();
          revisit = { phase: earlier.phase, gate: under.some((u) => CRITERIA_SECTION.test(u.text)), indent: null };
          continue;
        }
        if (m) {
          close();
          open = { phase: newPhase(phases.length + 1, m[1]!, m[2], line), level: h.level, mode: 'none', task: null, unmarked: h.level === 6 && !heading(line) };
          if (!named.has(`Phase ${m[1]}`)) named.set(`Phase ${m[1]}`, { phase: (open as OpenPhase).phase, level: h.level });
        } else if (open && h.level <= (open as OpenPhase).level && !((open as OpenPhase).unmarked && partOfPhase(plain(h.text)))) {
          close();
        } else if (open) {
          const task = TASK_LINE.exec(plain(h.text));
          if (task) headingTask(open, task[1]!, task[2]!, line);
          else sectionHeading(open, plain(h.text));
        }
        continue;
      }
      if (revisit) revisitLine(revisit, line);
      else if (open) readLine(open, line);
      else outside(line, orphans);
    }
    close();
    if (phases.length === 0) {
      throw parseError(path, 1, 'found no phase heading', 'a heading such as "### Phase 1: Name" with task lines under it', EXAMPLES.spec, true);
    }
    if (phases.every((p) => p.tasks.length === 0)) {
      throw parseError(path, phases[0]!.line, 'found phase headings but no "Task N.M" line under any of them', 'task lines under each phase heading', EXAMPLES.spec, true);
    }
    // A phase with boxes and no `Task N` line is a checkbox list's (spec-kit's `- [ ] T001 …`): the `Task T003:` lines
    // of a parallel example elsewhere made the file look like this format. Another parser reads it.
    const code = codeLineNumbers(lines);
    const boxed = phases.find((p, i) => p.tasks.length === 0 && hasIdBoxes(lines, code, p.line, phases[i + 1]?.line ?? Infinity));
    if (boxed) {
      throw parseError(path, boxed.line, `${boxed.label} "${boxed.name}" has checkbox items but no "Task N.M" line`, 'task lines under each phase heading', EXAMPLES.spec, true);
    }
    const ids = new Set(phases.flatMap((p) => p.tasks.map((t) => t.id)));
    const orphan = [...orphans].find(([id]) => !ids.has(id)); // an overview that repeats the tasks is no loss
    if (orphan) {
      throw parseError(path, orphan[1], `Task ${orphan[0]} is under no phase heading`, 'every task line under a phase heading', EXAMPLES.spec);
    }
    const warnings = repeatedIdWarnings(phases.flatMap((p) => p.tasks));
    return { parser: this.id, title, phases: phases.map((p) => finish(p, path)), ...(warnings.length ? { warnings } : {}) };
  }
}

/** A checkbox list's task: `T001 …`, `TASK-001 …`, `1.2 …` (a gate's `- [ ] All tests pass` is none). */
const ID_BOX = /^(?:T\d+[a-z]?\b|(?:TASK|TSK|T)-\d+|\d+(?:\.\d+)*\.?\s)/i;

/** Whether a checkbox item with a task id (outside code) sits between two lines. */
function hasIdBoxes(lines: SourceLine[], code: Set<number>, from: number, to: number): boolean {
  return lines.some((l) => {
    if (l.number <= from || l.number >= to || code.has(l.number)) return false;
    const item = listItem(l);
    return item?.checkbox !== null && item !== undefined && ID_BOX.test(plain(item.content));
  });
}

/** A line under a revisited phase heading: in a criteria section, an item of its list joins that phase's gate. */
function revisitLine(r: Revisit, line: SourceLine): void {
  const item = r.gate ? listItem(line) : undefined;
  if (!item) return;
  r.indent ??= item.indent;
  if (item.indent > r.indent) return;
  r.phase.validation_gate.push({ text: plain(item.content), checkbox: item.checkbox });
  r.phase.gate_from_source = true;
}

/** Notes a checkbox task line above the first phase heading, which no phase would otherwise take. */
function outside(line: SourceLine, orphans: Map<string, number>): void {
  const item = listItem(line);
  const task = item?.checkbox ? TASK_LINE.exec(plain(item.content)) : null;
  const id = task?.[1]!.replace(/\.$/, '');
  if (id && !orphans.has(id)) orphans.set(id, line.number);
}

function newPhase(number: number, label: string, name: string | undefined, line: SourceLine): SpecPhase {
  const clean = phaseName(plain(name ?? '').replace(/[*_]+$/, ''));
  return {
    number, label: `Phase ${label}`, name: clean || `Phase ${label}`, description: '', estimated_duration: null,
    validation_gate: [], gate_from_source: false, line: line.number, checkbox: null, tasks: [],
  };
}

/** A sub-heading inside a phase (`#### Tasks`, `#### Validation Gate`) switches what the following items are. */
function sectionHeading(open: OpenPhase, text: string): void {
  const label = text.replace(/:$/, '').toLowerCase();
  if (GATE_LABELS.test(label)) open.mode = 'gate';
  else if (label === 'tasks') open.mode = 'tasks';
  open.task = null;
  open.heading = null;
}

/**
 * A `#### Task 1.1: Name` heading inside a phase: a task whose fields, criteria and description are the lines under it,
 * up to the next heading. It has no indent of its own (-1), so the lists under it, at any indent, are its details.
 */
function headingTask(open: OpenPhase, id: string, rest: string, line: SourceLine): void {
  open.mode = 'tasks';
  const t = newTask(open.phase.tasks.length + 1, id, rest, line, null, -1);
  open.phase.tasks.push(t);
  open.task = t;
  open.heading = t;
}

/**
 * A checkbox item under a `### Task 2: Name` heading whose id extends the heading's (`- [ ] 2.1 …`, as Kiro writes
 * them): a task of its own, with its box. The heading then only groups its sub-tasks and is no task itself, unless
 * something was written under it before them (a description, criteria, requirements). Undefined for any other item.
 */
function subTask(open: OpenPhase, item: { checkbox: CheckboxRef | null; indent: number }, content: string, line: SourceLine): OpenTask | undefined {
  const heading = open.heading;
  if (!heading || !item.checkbox || open.mode !== 'tasks') return undefined;
  if (open.task && open.task !== heading && item.indent > open.task.indent) return undefined; // nested under a sub-task
  const m = SUB_TASK.exec(content);
  if (!m || !m[1]!.startsWith(`${heading.id}.`)) return undefined;
  const said = heading.description || heading.acceptance_criteria.length || heading.requirements.length || heading.dependencies.length || heading.estimated_time;
  if (!said && open.phase.tasks.at(-1) === heading) open.phase.tasks.pop();
  const t = newTask(open.phase.tasks.length + 1, m[1]!, m[2]!, line, item.checkbox, item.indent);
  open.phase.tasks.push(t);
  return t;
}

function readLine(open: OpenPhase, line: SourceLine): void {
  if (line.text.trim() === '') return;
  const item = listItem(line);
  if (!item && BOLD_TASK.test(line.text.trim())) {
    // `**Task 1.1**: Name` on a line of its own: a task as a heading makes one, whose details are the lines under it.
    const task = TASK_LINE.exec(plain(line.text));
    if (task) {
      headingTask(open, task[1]!, task[2]!, line);
      open.heading = null; // no `- [ ] 1.1.1` sub-tasks: those are its details
      return;
    }
  }
  const gate = item ? null : field(line.text);
  if (gate && PHASE_GATE_LABELS.test(gate.label)) {
    // `**Validation Gate:**` after tasks read from headings or bold lines ends the last one: it is the phase's.
    phaseField(open, gate.label, gate.value);
    return;
  }
  if (!item && open.task?.indent === -1 && open.mode === 'tasks') {
    // Under a task heading, a label line that is not a list item owns the list that follows at its own indent.
    taskDetail(open.task, line.text.trim(), line.indent - 1);
    return;
  }
  if (!item) {
    const f = field(line.text);
    if (f) phaseField(open, f.label, f.value);
    else if (open.phase.tasks.length === 0 && open.mode === 'none') appendText(open.phase, 'description', plain(line.text));
    return;
  }
  const content = plain(item.content);
  const task = TASK_LINE.exec(content);
  if (task && open.mode !== 'gate') {
    open.mode = 'tasks';
    const t = newTask(open.phase.tasks.length + 1, task[1]!, task[2]!, line, item.checkbox, item.indent);
    open.phase.tasks.push(t);
    open.task = t;
    return;
  }
  const sub = subTask(open, item, content, line);
  if (sub) {
    open.task = sub;
    return;
  }
  if (open.mode === 'gate' && (!open.task || item.indent <= open.task.indent)) {
    open.phase.validation_gate.push({ text: content, checkbox: item.checkbox });
    open.phase.gate_from_source = true;
    return;
  }
  // Under a task heading's sub-task, an item at its indent that is no sub-task is still about it (nothing is dropped).
  if (open.task && (item.indent > open.task.indent || (open.heading && open.task !== open.heading))) {
    taskDetail(open.task, item.content, item.indent);
    return;
  }
  const f = field(item.content);
  if (f) phaseField(open, f.label, f.value);
}

function phaseField(open: OpenPhase, label: string, value: string): void {
  if (DESCRIPTION_LABELS.test(label)) {
    appendText(open.phase, 'description', plain(value));
    open.mode = 'none';
  } else if (DURATION_LABELS.test(label)) {
    open.phase.estimated_duration = plain(value) || null;
  } else if (label === 'tasks') {
    open.mode = 'tasks';
    open.task = null;
    open.heading = null;
  } else if (GATE_LABELS.test(label)) {
    open.mode = 'gate';
    open.task = null;
    open.heading = null;
    if (value) {
      open.phase.validation_gate.push({ text: plain(value), checkbox: null });
      open.phase.gate_from_source = true;
    }
  }
}

function newTask(number: number, id: string, rest: string, line: SourceLine, checkbox: CheckboxRef | null, indent: number) {
  const { name, criterion } = inlineDoneWhen(rest.replace(/^[*_:\s]+|[*_\s]+$/g, '').trim());
  return {
    number, id: id.replace(/\.$/, ''), name: name || `Task ${id}`, description: '',
    estimated_time: null, dependencies: [], acceptance_criteria: criterion ? [criterion] : [], requirements: [], parallel: false, tags: [], line: line.number,
    checkbox, done_in_source: checkbox ? /[xX]/.test(checkbox.mark) : false, indent, criteriaIndent: null as number | null,
  };
}

/** A line nested under a task: one of its fields, an acceptance criterion, or description. */
function taskDetail(task: SpecTask & { criteriaIndent: number | null }, content: string, indent: number): void {
  if (task.criteriaIndent !== null && indent > task.criteriaIndent) {
    task.acceptance_criteria.push(plain(content));
    return;
  }
  task.criteriaIndent = null;
  const f = field(content);
  if (!f) {
    appendText(task, 'description', plain(content));
    return;
  }
  if (/^(estimated time|estimate|time|effort|duration)$/.test(f.label)) task.estimated_time = plain(f.value) || null;
  else if (/^(dependencies|depends on|dependency)$/.test(f.label)) task.dependencies = splitList(f.value).map((d) => d.replace(/^Task\s+/i, ''));
  else if (/^(acceptance criteria|acceptance|done when|success criteria)$/.test(f.label)) {
    task.criteriaIndent = indent;
    if (f.value) task.acceptance_criteria.push(plain(f.value));
  } else if (/^requirements?$/.test(f.label)) task.requirements = splitList(f.value);
  else appendText(task, 'description', `${f.label[0]!.toUpperCase()}${f.label.slice(1)}: ${plain(f.value)}`);
}

function appendText(target: { description: string }, key: 'description', text: string): void {
  if (text) target[key] = target[key] ? `${target[key]}\n${text}` : text;
}

/** Checks a phase (it must have tasks) and gives it the default gate when its source has none. */
function finish(phase: SpecPhase, path: string): SpecPhase {
  if (phase.tasks.length === 0) {
    throw parseError(
      path, phase.line, `${phase.label} "${phase.name}" has no tasks`,
      `task lines under the phase heading (or remove the empty phase)`, `- [ ] **Task ${phase.label.replace(/^Phase /, '')}.1**: Name`,
    );
  }
  const tasks = phase.tasks.map(({ indent: _i, criteriaIndent: _c, ...t }: SpecTask & { indent?: number; criteriaIndent?: number | null }) => t);
  const gate: SpecGateItem[] = phase.validation_gate.length ? phase.validation_gate : defaultGate(phase, [...new Set(tasks.flatMap((t) => t.requirements))]);
  return { ...phase, tasks, validation_gate: gate };
}
