// The checkbox lists spec-driven tools write (Kiro, spec-kit, spec-workflow-mcp, Agent OS, Task Master exports):
// `- [ ] 1. Title` with nested `- [ ] 1.1 …`, `_Requirements: 1.2_`, `_Leverage: …_`, `[P]` markers and `T001` ids.
// Top-level items become phases and nested ones their tasks; items grouped under several headings (spec-kit, Agent
// OS task groups) become one phase per heading, a phase heading's sub-headings included; a flat list becomes one
// phase of tasks. Criteria sections after the tasks are gates, not tasks. A plan with phase headings and no box at
// all takes the plain list items under each phase heading as its tasks.
import type { CheckboxRef, ParsedSpec, SpecGateItem, SpecPhase, SpecTask } from '../specTypes.js';
import {
  field, hasUnmarkedPhase, heading, Fences, inlineDoneWhen, listItem, partOfPhase, PHASE_NUMBER, phaseName, plain, splitLines, splitList, unmarkedHeadings,
  type ListItem, type SourceLine,
} from './markdown.js';
import { defaultGate, parseError, repeatedIdWarnings, type SourceParser } from './sourceParser.js';

/** A heading the items sit under. */
interface Group {
  text: string;
  line: number;
  /** 1–6 for `#`…`######`; 0 for the lines before the first heading. */
  level: number;
  /** The heading read as a phase heading (`Phase 2: Name`): its number and what follows it; null when it is not one. */
  phase: RegExpExecArray | null;
  /** The nearest earlier heading of a lower level: the section this one is part of. */
  parent: Group | null;
  /** Whether it (or a sub-heading of a phase heading) has lines other than items: "No setup tasks needed." */
  said: boolean;
  description: string;
  gate: SpecGateItem[];
  items: Item[];
  /** Its list items without a box, under no item (in a plan with boxes, what it says rather than what to do). */
  bullets: Array<{ indent: number; text: string }>;
}

/** A checkbox item (or, in a plan without boxes, a plain list item) with the lines nested under it. */
interface Item {
  indent: number;
  line: number;
  content: string;
  checkbox: CheckboxRef | null;
  /** Marked optional (`- [ ]* …`). */
  optional: boolean;
  /** Its number in an ordered list (`9. [ ] …`), null for a bullet. */
  ordinal: string | null;
  details: string[];
  id: string | null;
  children: Item[];
  parent: Item | null;
}

const ID_FORMS = [
  // 1. Title, 1.1 Title; 10a. and 10a.1 for ones inserted later (a letter only before a dot: `3d model` is no id)
  /^(\d+(?:[a-z](?=\.))?(?:\.\d+(?:[a-z](?=\.))?)*)\.?\s+(.*)$/,
  // T001 Title (spec-kit), T004a for one inserted later, T005-TEST for the test of T005 (a range `T001-T020` is no id)
  /^([Tt]\d+[a-zA-Z]?(?:-(?![Tt]\d)[A-Z][A-Z0-9]*)?)\b[:.]?\s*(.*)$/,
  /^((?:TASK|TSK|T)-\d+[a-z]?)\b[:.]?\s*(.*)$/i, // TASK-001 Title, T-001
  /^Task\s+(\d+(?:\.\d+)*)\s*[:.\-\u2013\u2014]?\s*(.*)$/i, // Task 3: Title
  /^#(\d+)\s*[:.\-\u2013\u2014]?\s*(.*)$/, // #12 Title
];
const GATE_LABELS = /^(checkpoint|validation gate|gate|exit criteria|done when|independent test)$/;
const CRITERIA_LABELS = /^(acceptance criteria|success criteria|definition of done|validation|verification)$/;
/**
 * A section after the tasks that lists what must hold, not what to do ("Validation Checklist", "Quality Gates" and
 * its "### Code Quality", "Success Validation", "Success Metrics (KPIs)"): it joins the last phase's gate.
 */
const CRITERIA_HEADING = /\b(checklist|criteria|definition of done|gates?|success)\b/i;
/**
 * A section after the tasks with a plain list and no box (it cannot be a task group) is criteria under these words:
 * "## Validation", "Acceptance Criteria"; not "Success Metrics (KPIs)", which a plain list only describes.
 */
const PLAIN_CRITERIA_HEADING = /\b(checklist|criteria|definition of done|gates?|validation|verification|acceptance)\b/i;
// `Phase N` is how spec-kit's template names its last phase, and files made from it often keep it.
const PHASE_LIKE = new RegExp(String.raw`^(?:[^\p{L}\p{N}]*\s*)?(?:Phase|Stage|Milestone|Part)\s+(${PHASE_NUMBER}|N(?![\p{L}\p{N}]))(.*)$`, 'iu');

/** Parses checkbox task lists. */
export class CheckboxTasksParser implements SourceParser {
  readonly id = 'checkbox_tasks_parser';

  /** Fairly sure with two or more checkbox items, less with one, least with phase headings and no box at all. */
  detect(text: string): number {
    const count = (text.match(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+\[[ xX\-~/]\]/gm) ?? []).length;
    if (count > 0) return count >= 2 ? 0.6 : 0.3;
    const phases = /^ {0,3}#{1,6}[ \t]+(?:[^\p{L}\p{N}\n]*\s*)?(?:Phase|Stage|Milestone|Part)\s+(?:\d|N\b)/imu.test(text) || hasUnmarkedPhase(text, PHASE_LIKE);
    return phases ? 0.2 : 0;
  }

  /** @inheritdoc */
  parse(text: string, path: string): ParsedSpec {
    const lines = splitLines(text);
    let { title, groups } = collect(lines, false);
    const boxes = groups.some((g) => g.items.length > 0);
    // A plan without a single box: its phase headings, with the plain list items under each as the tasks.
    if (!boxes) ({ title, groups } = collect(lines, true));
    // An empty box (`- [ ]` and nothing after it, left while editing) is no task: said where, not named "Task 3".
    const blank = boxes ? groups.flatMap((g) => g.items).find((it) => plain(it.content) === '' && it.details.length === 0) : undefined;
    if (blank) {
      throw parseError(path, blank.line, 'a checkbox with nothing after it', 'the task written after the box (or the line removed)', '- [ ] T001 Create the project structure');
    }
    for (const g of groups) nest(g.items);
    // The lines of the items whose id the file writes (`T001`, `1.2`): a task numbered by its position has none.
    const named = new Set(groups.flatMap((g) => g.items).filter((it) => it.id !== null).map((it) => it.line));
    intoPhases(groups);
    if (!boxes) return withWarnings(plainPlan(groups, title, path, lines), named);
    const finalGate = criteriaAfterTasks(groups);
    const withItems = groups.filter((g) => g.items.length > 0);
    // A phase heading with nothing at all under it is a slip, first, last or between (leaving it out would drop a
    // phase the author wrote without a word); one that says why it has no tasks is left out.
    const empty = groups.find((g) => g.items.length === 0 && !g.said && g.phase);
    if (empty) {
      throw parseError(path, empty.line, `the heading "${plain(empty.text)}" has no tasks`, 'checkbox items under each phase heading (or remove the empty heading)', '- [ ] T001 Create the project structure');
    }
    let phases: SpecPhase[];
    if (withItems.length >= 2) {
      phases = withItems.map((g, i) => groupPhase(g, i + 1));
    } else {
      const group = withItems[0]!;
      const roots = group.items.filter((it) => !it.parent);
      if (roots.some((r) => r.children.length > 0)) {
        phases = roots.map((r, i) => itemPhase(r, i + 1));
        // The heading's own criteria (its Acceptance Criteria list, its Checkpoint) follow its items: the last gate.
        finalGate.unshift(...group.gate);
      } else {
        phases = [groupPhase(group, 1, title)];
      }
    }
    if (finalGate.length) phases[phases.length - 1] = { ...phases.at(-1)!, validation_gate: [...phases.at(-1)!.validation_gate, ...finalGate], gate_from_source: true };
    return withWarnings({ parser: this.id, title, phases: phases.map(withGate) }, named);
  }
}

/** The parsed file with a warning for each task id it writes twice (only ids on the `named` lines count). */
function withWarnings(spec: ParsedSpec, named: Set<number>): ParsedSpec {
  const warnings = repeatedIdWarnings(spec.phases.flatMap((p) => p.tasks).filter((t) => named.has(t.line)));
  return warnings.length ? { ...spec, warnings } : spec;
}

/**
 * Takes the items of the sections after the last tasks whose heading says they are criteria ("Validation Checklist",
 * "Success Criteria") out of the groups: they are what must hold once the work is done, the last phase's gate; so are
 * the plain lists of the sections there that PLAIN_CRITERIA_HEADING names.
 */
function criteriaAfterTasks(groups: Group[]): SpecGateItem[] {
  const firstTasks = groups.findIndex((g) => g.items.length > 0);
  const gate: SpecGateItem[] = [];
  // The heading that says so must itself come after the first tasks: `## Checklist` over `### Alpha` and `### Beta`
  // is the section the tasks are in, and Beta's tasks are tasks.
  const after = groups[firstTasks]?.line ?? 0;
  const says = (g: Group | null, words: RegExp): boolean => g !== null && !g.phase && ((g.line > after && words.test(plain(g.text))) || says(g.parent, words));
  const criteria = (g: Group | null): boolean => says(g, CRITERIA_HEADING);
  // Only the sections after the last tasks: one with tasks after it is a phase of its own, whatever its heading says
  // ("## 4. #1202 — archive incomplete-task gate" between OpenSpec's task groups; Kiro's "## 任务 2：Gate 校验").
  const trailing: Group[] = [];
  for (let i = groups.length - 1; i > firstTasks; i--) {
    const g = groups[i]!;
    if (g.items.length === 0) {
      if (g.bullets.length && says(g, PLAIN_CRITERIA_HEADING)) trailing.unshift(g);
      continue;
    }
    if (!criteria(g)) break;
    trailing.unshift(g);
  }
  for (const g of trailing) {
    const top = Math.min(...g.bullets.map((b) => b.indent));
    const bullets = g.items.length ? [] : g.bullets.filter((b) => b.indent === top).map((b) => ({ text: b.text, checkbox: null }));
    gate.push(...g.gate, ...bullets, ...g.items.filter((it) => !it.parent).map((it) => ({ text: plain(it.content), checkbox: it.checkbox })));
    g.items = [];
    g.gate = [];
  }
  return gate;
}

/** A plan of phase headings with plain lists (no boxes) under them: each phase heading's items are its tasks. */
function plainPlan(groups: Group[], title: string | null, path: string, lines: SourceLine[]): ParsedSpec {
  const phaseGroups = groups.filter((g) => g.phase);
  if (phaseGroups.length === 0) {
    const example = '- [ ] 1. Set up the project\n  - [ ] 1.1 Create the folders';
    // No box was read, so every box in the text is in a code block, an HTML comment or the front matter: say so, or
    // "found no checkbox items" contradicts the boxes the person sees in the file.
    const hidden = lines.filter((l) => listItem(l)?.checkbox).map((l) => l.number);
    if (hidden.length) {
      const one = hidden.length === 1;
      const at = `line${one ? '' : 's'} ${hidden.slice(0, 5).join(', ')}${hidden.length > 5 ? ', …' : ''}`;
      throw parseError(
        path, hidden[0]!, `found no checkbox items outside code blocks, HTML comments and front matter (the ${one ? 'one on' : `${hidden.length} on`} ${at} ${one ? 'is' : 'are'} inside one, which Baton reads as an example, not a task)`,
        'the tasks as a "- [ ] …" list in the text itself, not inside a ``` block or <!-- -->', example, true,
      );
    }
    throw parseError(path, 1, 'found no checkbox items', 'a list of "- [ ] …" items', example, true);
  }
  const empty = phaseGroups.find((g) => g.items.length === 0 && !g.said) ?? (phaseGroups.every((g) => g.items.length === 0) ? phaseGroups[0] : undefined);
  if (empty) {
    throw parseError(path, empty.line, `the heading "${plain(empty.text)}" has no tasks`, 'a list of its tasks under each phase heading', '- [ ] T001 Create the project structure');
  }
  return { parser: 'checkbox_tasks_parser', title, phases: phaseGroups.filter((g) => g.items.length > 0).map((g, i) => withGate(groupPhase(g, i + 1))) };
}

/**
 * Walks the lines: headings, checkbox items, and the lines nested under each item. With `plainItems`, a list item
 * without a box that is not a labelled field (`- **Goal**: …`) is an item too.
 */
function collect(lines: SourceLine[], plainItems: boolean): { title: string | null; groups: Group[] } {
  let title: string | null = null;
  const groups: Group[] = [{ text: '', line: 0, level: 0, phase: null, parent: null, said: false, description: '', gate: [], items: [], bullets: [] }];
  const open: Group[] = []; // the headings the current line is under, outermost first
  let last: Item | null = null;
  let lastLine = 0; // the line `last`'s title or its last detail ended on
  let gateList: number | null = null; // in a gate's list: the indent of its items (-1 before the first)
  let gateSteps = false; // that list follows a gate's "… verify:" and is of steps, so a box there is a task again
  let wrapped: { line: number; add: (text: string) => void } | null = null; // the field whose paragraph may go on
  const named = new Map<string, number>(); // each phase label → the level of the heading that first named it
  const fences = new Fences(lines);
  const unmarked = unmarkedHeadings(lines, PHASE_LIKE);
  for (const line of lines) {
    if (fences.code(line) || line.text.trim() === '' || unmarked.underlines.has(line.number)) continue;
    const h = heading(line) ?? unmarked.headings.get(line.number);
    if (h) {
      if (h.level === 1 && title === null) title = plain(h.text);
      // A bold or plain phase line (`**Phase 2: Core**`) reads as the deepest heading, but its `#### Task 2.1 …` and
      // gate headings are still its own, as the spec format reads them.
      const own = (g: Group) => g.phase !== null && g.level === 6 && unmarked.headings.has(g.line) && partOfPhase(plain(h.text));
      while (open.length && open.at(-1)!.level >= h.level && !own(open.at(-1)!)) open.pop();
      let phase = PHASE_LIKE.exec(plain(h.text));
      // A heading deeper than the one that first named its phase is about that phase, not a phase of its own:
      // `### Phase 1 Tasks` under `## Phase 1: Setup`, `#### Phase 4 Testing` in a testing section, `### Phase 3.1 - 22
      // tasks` in a completion checklist. As deep or shallower, it is a phase again (`# Phase 2` after `### Phase 2`).
      const first = phase ? named.get(phase[1]!) : undefined;
      if (phase && first === undefined) named.set(phase[1]!, h.level);
      else if (first !== undefined && h.level > first) phase = null;
      const group: Group = {
        text: h.text, line: line.number, level: h.level, phase, parent: open.at(-1) ?? null, said: false,
        description: '', gate: [], items: [], bullets: [],
      };
      groups.push(group);
      open.push(group);
      last = null;
      gateList = null;
      continue;
    }
    const group = groups.at(-1)!;
    const item = listItem(line);
    if (!item && wrapped?.line === line.number - 1 && !field(line.text)) {
      // `**Checkpoint**: …` or `**Goal**: …` wrapped onto the next line: one paragraph, as Markdown shows it.
      wrapped.add(plain(line.text));
      wrapped.line = line.number;
      continue;
    }
    if (item?.checkbox && (idOf(item.content) !== null || gateSteps)) gateList = null; // `- [ ] T012 …`: tasks again
    if (gateList !== null && item && (gateList < 0 || item.indent <= gateList)) {
      // An item of the list after "**Acceptance Criteria:**" (below a phase's tasks): a gate item, not a task.
      gateList = item.indent;
      group.gate.push({ text: plain(item.content), checkbox: item.checkbox });
      continue;
    }
    if (gateList !== null && item) continue; // nested under a gate item
    gateList = null;
    if (item?.checkbox) {
      last = newItem(item, line);
      lastLine = line.number;
      group.items.push(last);
      continue;
    }
    if (last && line.indent > last.indent) {
      const text = item ? item.content : line.text.trim();
      const before = last.details.length ? last.details.at(-1)! : last.content;
      if (!item && line.number === lastLine + 1 && continues(before, text)) {
        // The title (or a detail) wrapped onto the next line: one paragraph, as Markdown shows it.
        if (last.details.length) last.details[last.details.length - 1] = `${before} ${text}`;
        else last.content = `${before} ${text}`;
      } else {
        last.details.push(text);
      }
      lastLine = line.number;
      continue;
    }
    last = null;
    const f = field(item ? item.content : line.text);
    if (!item) group.said = true;
    else if (!item.checkbox) group.bullets.push({ indent: item.indent, text: plain(item.content) });
    if (plainItems && item && !f) {
      last = newItem(item, line); // no box: its checkbox is null
      lastLine = line.number;
      group.items.push(last);
      continue;
    }
    if (f && GATE_LABELS.test(f.label) && f.value) {
      const gate = { text: plain(f.value), checkbox: null };
      group.gate.push(gate);
      // "**Independent Test**: … verify:" (Spec Kit) with the steps listed under it: they are the gate's too.
      const steps = () => {
        if (gate.text.endsWith(':')) [gateList, gateSteps] = [-1, true];
      };
      steps();
      if (!item) wrapped = { line: line.number, add: (text) => void ((gate.text = `${gate.text} ${text}`), steps()) };
    } else if (f && (GATE_LABELS.test(f.label) || CRITERIA_LABELS.test(f.label)) && !f.value && group.items.length > 0) [gateList, gateSteps] = [-1, false];
    else if (f && /^(purpose|goal|objective|description|story|user story)$/.test(f.label) && !group.description) {
      group.description = plain(f.value);
      if (!item && group.description) wrapped = { line: line.number, add: (text) => void (group.description = `${group.description} ${text}`) };
    }
  }
  return { title, groups };
}

/**
 * Whether `text`, on the line right after `before`, goes on with it (a title or a detail wrapped in the editor): it
 * starts in lower case, with a closing mark, code, a parenthesis, a dash or an operator, or `before` ends in a comma, a
 * dash, an operator or a word such as "the", "and" or "via", or left bold, code or a parenthesis open. A line that
 * starts a sentence of its own ("Create the folders") is a detail, and a field (`_Requirements: 1.2_`) never goes on.
 */
function continues(before: string, text: string): boolean {
  if (field(text)) return false;
  // Lower case, a closing mark, code, a parenthesis, a dash or an operator: no sentence of its own starts so.
  if (/^(?:[\p{Ll})\]/,.;:`(+&\u2013\u2014\u2192]|->)/u.test(text)) return true;
  if (/(?:^|\s)(?:the|a|an|and|or|of|to|for|with|in|on|by|from|as|at|into|per|via|using|against|between|than|that|which|when|if|its|their|this|each|both|over|through|without|within)$|[,/+&=\u2013\u2014\u2192-]$/i.test(before)) return true;
  const count = (re: RegExp) => (before.match(re) ?? []).length;
  return count(/\*\*/g) % 2 === 1 || count(/`/g) % 2 === 1 || count(/\(/g) > count(/\)/g);
}

/** An item as `collect` starts it, from its list line. */
function newItem(item: ListItem, line: SourceLine): Item {
  return {
    indent: item.indent, line: line.number, content: item.content, checkbox: item.checkbox, optional: item.optional, ordinal: item.ordinal,
    details: [], id: null, children: [], parent: null,
  };
}

/** A detail line's field, also when the line is bold as a whole: `**Validates: Requirements 1.2**`. */
function detailField(d: string): ReturnType<typeof field> {
  return field(d) ?? field(plain(d));
}

/**
 * Moves the items of a sub-heading into the phase heading it sits under (`## Phase 3: …` with `### Tests for User
 * Story 1` and `### Implementation for User Story 1`, as spec-kit writes them), with its checkpoint; a sub-heading under
 * no phase heading stays a group of its own.
 */
function intoPhases(groups: Group[]): void {
  for (const g of groups) {
    if (g.phase) continue;
    let owner = g.parent;
    while (owner && !owner.phase) owner = owner.parent;
    if (!owner) continue;
    owner.said ||= g.said;
    owner.items.push(...g.items);
    owner.gate.push(...g.gate);
    owner.description ||= g.description;
    g.items = [];
    g.gate = [];
  }
}

/** Links each item to its parent: the nearest earlier item indented less, or (same indent) the one whose id is its prefix. */
function nest(items: Item[]): void {
  const stack: Item[] = [];
  const byId = new Map<string, Item>();
  for (const it of items) {
    it.id = idOf(it.content);
    while (stack.length && stack.at(-1)!.indent >= it.indent) stack.pop();
    let parent: Item | null = stack.at(-1) ?? null;
    const dot = it.id?.lastIndexOf('.') ?? -1;
    if (it.id && dot > 0) {
      const byPrefix = byId.get(it.id.slice(0, dot));
      // `2.1` under `2.` (Kiro writes both at one indent); an id inserted later, `6.5` after `6.`, is a task of its own.
      const first = byPrefix && (byPrefix.children.length > 0 || /\.0*1$/.test(it.id));
      if (byPrefix && first && (!parent || byPrefix.indent >= parent.indent) && byPrefix !== it) parent = byPrefix;
    }
    it.parent = parent;
    parent?.children.push(it);
    if (it.id) byId.set(it.id, it);
    stack.push(it);
  }
}

function idOf(content: string): string | null {
  const c = plain(content);
  for (const form of ID_FORMS) {
    const m = form.exec(c);
    if (m) return m[1]!;
  }
  return null;
}

/** Name, markers and tags of an item's text. */
function titleOf(content: string): { name: string; parallel: boolean; tags: string[] } {
  let c = plain(content);
  for (const form of ID_FORMS) {
    const m = form.exec(c);
    if (m) {
      c = m[2]!;
      break;
    }
  }
  const tags: string[] = [];
  let parallel = false;
  // Markers lead the title (`T012 [P] [US1] Create …`); a bracket further on is text: `src/app/posts/[slug]/page.tsx`.
  for (let m = /^\[([A-Za-z][\w-]*)\]\s*/.exec(c); m; m = /^\[([A-Za-z][\w-]*)\]\s*/.exec(c)) {
    if (m[1] === 'P') parallel = true;
    else tags.push(m[1]!);
    c = c.slice(m[0].length);
  }
  c = c.replace(/\s*\((priority|prio)\s*:\s*(\w+)\)/i, (_m, _k, v: string) => {
    tags.push(`priority:${v.toLowerCase()}`);
    return '';
  });
  return { name: c.trim(), parallel, tags };
}

/** One item as a task: its nested lines are its fields, criteria and description; nested items are criteria too. */
function itemTask(it: Item, number: number, ordinals = false): SpecTask {
  const title = titleOf(it.content);
  const { parallel, tags } = title;
  const { name, criterion } = inlineDoneWhen(title.name);
  const task: SpecTask = {
    number, id: it.id ?? (ordinals ? it.ordinal : null) ?? String(number), name: name || `Task ${number}`, description: '', estimated_time: null, dependencies: [],
    acceptance_criteria: [], requirements: [], parallel, tags: it.optional ? [...tags, 'optional'] : tags, line: it.line, checkbox: it.checkbox, done_in_source: /[xX]/.test(it.checkbox?.mark ?? ''),
  };
  if (criterion) task.acceptance_criteria.push(criterion);
  const steps: string[] = [];
  for (const d of it.details) {
    const f = detailField(d);
    if (f && /^requirements?$/.test(f.label)) task.requirements.push(...splitList(f.value));
    else if (f?.label === 'validates' && /^requirements?\b/i.test(plain(f.value))) task.requirements.push(...splitList(plain(f.value).replace(/^requirements?\s*/i, '')));
    else if (f && /^(dependencies|depends on|dependency)$/.test(f.label)) task.dependencies = splitList(f.value);
    else if (f && /^(estimate|estimated time|time|effort)$/.test(f.label)) task.estimated_time = plain(f.value) || null;
    else if (f && /^(acceptance|acceptance criteria|done when|success criteria|test strategy)$/.test(f.label)) task.acceptance_criteria.push(plain(f.value));
    else if (f?.label === 'prompt') {
      const success = /Success:\s*([^|]+)/i.exec(f.value);
      if (success) task.acceptance_criteria.push(plain(success[1]!));
    } else steps.push(f ? `${f.label[0]!.toUpperCase()}${f.label.slice(1)}: ${plain(f.value)}` : plain(d));
  }
  for (const child of it.children) task.acceptance_criteria.push(titleOf(child.content).name);
  if (task.dependencies.length === 0) task.dependencies = inlineDependencies(task.name);
  task.description = steps.join('\n');
  if (task.acceptance_criteria.length === 0) task.acceptance_criteria = steps.filter((s) => !/^leverage:|^file:|^purpose:/i.test(s));
  return task;
}

/** A note in a task's title that names the tasks it waits for: `(depends on T012, T013)`, `(after T004–T006)`. */
const DEPENDS_NOTE = /\((?:depends (?:on|upon)|requires|blocked by|after)\s+([^)]*)\)/gi;

/**
 * The ids a task's title says it depends on, as spec-kit writes them at the end of the title ("… in src/x.py (depends
 * on T012, T013)"); a range `T004-T006` (or with an en dash) is each id in it. Words around the ids are left out
 * ("(depends on T048: auth fix)" is T048).
 */
function inlineDependencies(title: string): string[] {
  const ids: string[] = [];
  for (const note of title.matchAll(DEPENDS_NOTE)) {
    for (const m of note[1]!.matchAll(/\b(T)(\d+)([a-z]?)(?:\s*[-\u2013]\s*T(\d+)\b)?/g)) {
      const [, t, from, letter, to] = m;
      if (to === undefined || letter || Number(to) <= Number(from) || Number(to) - Number(from) > 100) ids.push(`${t}${from}${letter}`);
      else for (let n = Number(from); n <= Number(to); n++) ids.push(`${t}${String(n).padStart(from!.length, '0')}`);
    }
  }
  return [...new Set(ids)];
}

/**
 * Whether the tasks without an id of their own take their number in an ordered list as one: when each is in such a list
 * and no two share a number (a roadmap numbered across its phases: `9. [ ] …` under Phase 2); "1. 1. 1." does not.
 */
function byOrdinal(items: readonly Item[]): boolean {
  const numbers = items.filter((it) => it.id === null).map((it) => it.ordinal);
  return numbers.length > 0 && numbers.every((n) => n !== null) && new Set(numbers).size === numbers.length;
}

/**
 * Whether a numbered item's numbered sub-items are tasks of their own rather than its criteria: every one has an id
 * (`- [ ] 1. Schema` over `- [ ] 1.1 Add columns`, `- [ ] 1.2 …`, as Kiro and Agent OS write them).
 */
const groupsTasks = (it: Item): boolean => it.id !== null && it.children.length > 0 && it.children.every((c) => c.id !== null);

/** Whether an item has work of its own written under it (not only fields): then it is a task before its sub-items. */
const hasOwnWork = (it: Item): boolean => it.details.some((d) => !detailField(d));

/** A heading group as a phase; its top-level items are the tasks. */
function groupPhase(g: Group, number: number, title?: string | null): SpecPhase {
  const m = g.phase;
  // A bare `## Phase 2` is named so, as the spec format names it (not after the document, nor "Tasks" for each).
  const name = (m ? phaseName(m[2]!) || `Phase ${m[1]}` : plain(g.text)) || title || 'Tasks';
  const roots = g.items.filter((it) => !it.parent || !g.items.includes(it.parent));
  // Agent OS: one `- [ ] 1.0 Complete the database layer` per heading, its numbered sub-items the tasks; Kiro under a
  // phase heading: several such items, each over its sub-tasks. An item that groups tasks is a task itself only when
  // it has work of its own written under it (as itemPhase reads it); else its box is ticked with the phase.
  const groups = roots.filter(groupsTasks);
  const umbrella = roots.length === 1 && groups.length === 1;
  const items = umbrella ? roots[0]!.children : roots.flatMap((it) => (groupsTasks(it) ? (hasOwnWork(it) ? [it, ...it.children] : it.children) : [it]));
  const grouping = groups.filter((it) => !umbrella && !hasOwnWork(it)).map((it) => it.checkbox).filter((c): c is CheckboxRef => c !== null);
  const ordinals = byOrdinal(items);
  return {
    // The heading's own word: `Stage 3.1` is no "Phase 3.1" to a person who looks for it in the file.
    number, label: m ? `${/(Phase|Stage|Milestone|Part)/i.exec(m[0])?.[1] ?? 'Phase'} ${m[1]}` : String(number), name: name.trim(), description: g.description, estimated_duration: null,
    validation_gate: g.gate, gate_from_source: g.gate.length > 0, line: g.line || g.items[0]!.line, checkbox: umbrella ? roots[0]!.checkbox : null,
    ...(grouping.length ? { group_checkboxes: grouping } : {}),
    tasks: items.map((it, i) => itemTask(it, i + 1, ordinals)),
  };
}

/** A top-level item as a phase: its children are the tasks (an item without children is its own single task). */
function itemPhase(root: Item, number: number): SpecPhase {
  const { name } = titleOf(root.content);
  // An item with work of its own written under it (not only fields) is the phase's first task, before its sub-items.
  const ownWork = root.children.length > 0 && hasOwnWork(root);
  const items = root.children.length === 0 || ownWork ? [root, ...root.children] : root.children;
  const ordinals = byOrdinal(items);
  return {
    number, label: root.id ?? String(number), name: name || `Phase ${number}`, description: '', estimated_duration: null,
    validation_gate: [], gate_from_source: false, line: root.line, checkbox: items[0] === root ? null : root.checkbox,
    tasks: items.map((it, i) => itemTask(it, i + 1, ordinals)),
  };
}

function withGate(phase: SpecPhase): SpecPhase {
  if (phase.validation_gate.length) return phase;
  return { ...phase, validation_gate: defaultGate(phase, [...new Set(phase.tasks.flatMap((t) => t.requirements))]) };
}
