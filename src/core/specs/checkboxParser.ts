// The checkbox lists spec-driven tools write (Kiro, spec-kit, spec-workflow-mcp, Task Master exports): `- [ ] 1. Title`
// with nested `- [ ] 1.1 …`, `_Requirements: 1.2_`, `_Leverage: …_`, `[P]` markers and `T001` ids. Top-level items
// become phases and nested ones their tasks; items grouped under several headings (spec-kit) become one phase per
// heading; a flat list becomes one phase of tasks.
import type { CheckboxRef, ParsedSpec, SpecGateItem, SpecPhase, SpecTask } from '../specTypes.js';
import { field, heading, isFence, listItem, plain, splitLines, splitList, type SourceLine } from './markdown.js';
import { defaultGate, parseError, type SourceParser } from './sourceParser.js';

/** A heading the items sit under. */
interface Group {
  text: string;
  line: number;
  /** 1–6 for `#`…`######`; 0 for the lines before the first heading. */
  level: number;
  /** The nearest earlier heading of a lower level: the section this one is part of. */
  parent: Group | null;
  description: string;
  gate: SpecGateItem[];
  items: Item[];
}

/** A checkbox item (or, in a plan without boxes, a plain list item) with the lines nested under it. */
interface Item {
  indent: number;
  line: number;
  content: string;
  checkbox: CheckboxRef | null;
  /** Marked optional (`- [ ]* …`). */
  optional: boolean;
  details: string[];
  id: string | null;
  children: Item[];
  parent: Item | null;
}

const ID_FORMS = [
  /^(\d+(?:\.\d+)*)\.?\s+(.*)$/, // 1. Title, 1.1 Title
  /^(T\d+)\b[:.]?\s*(.*)$/i, // T001 Title (spec-kit)
  /^Task\s+(\d+(?:\.\d+)*)\s*[:.\-\u2013\u2014]?\s*(.*)$/i, // Task 3: Title
  /^#(\d+)\s*[:.\-\u2013\u2014]?\s*(.*)$/, // #12 Title
];
// `Phase N` is how spec-kit's template names its last phase, and files made from it often keep it.
const PHASE_LIKE = /^(?:[^\p{L}\p{N}]*\s*)?(?:Phase|Stage|Milestone|Part)\s+(\d+(?:\.\d+)*|N\b)\s*(?:[:.)\-\u2013\u2014]\s*(.*))?$/iu;

/** Parses checkbox task lists. */
export class CheckboxTasksParser implements SourceParser {
  readonly id = 'checkbox_tasks_parser';

  /** Fairly sure with two or more checkbox items, less with one, least with phase headings and no box at all. */
  detect(text: string): number {
    const count = (text.match(/^[ \t]*(?:[-*+]|\d+[.)])[ \t]+\[[ xX\-~/]\]/gm) ?? []).length;
    if (count > 0) return count >= 2 ? 0.6 : 0.3;
    return /^ {0,3}#{1,6}[ \t]+(?:[^\p{L}\p{N}\n]*\s*)?(?:Phase|Stage|Milestone|Part)\s+(?:\d|N\b)/imu.test(text) ? 0.2 : 0;
  }

  /** @inheritdoc */
  parse(text: string, path: string): ParsedSpec {
    const lines = splitLines(text);
    let { title, groups } = collect(lines, false);
    const boxes = groups.some((g) => g.items.length > 0);
    // A plan without a single box: its phase headings, with the plain list items under each as the tasks.
    if (!boxes) ({ title, groups } = collect(lines, true));
    for (const g of groups) nest(g.items);
    intoPhases(groups);
    if (!boxes) return plainPlan(groups, title, path);
    const withItems = groups.filter((g) => g.items.length > 0);
    let phases: SpecPhase[];
    if (withItems.length >= 2) {
      const empty = groups.find((g) => g.items.length === 0 && PHASE_LIKE.test(plain(g.text)) && g.line > withItems[0]!.line && g.line < withItems.at(-1)!.line);
      if (empty) {
        throw parseError(path, empty.line, `the heading "${plain(empty.text)}" has no tasks`, 'checkbox items under each phase heading (or remove the empty heading)', '- [ ] T001 Create the project structure');
      }
      phases = withItems.map((g, i) => groupPhase(g, i + 1));
    } else {
      const group = withItems[0]!;
      const roots = group.items.filter((it) => !it.parent);
      phases = roots.some((r) => r.children.length > 0)
        ? roots.map((r, i) => itemPhase(r, i + 1))
        : [groupPhase(group, 1, title)];
    }
    return { parser: this.id, title, phases: phases.map(withGate) };
  }
}

/** A plan of phase headings with plain lists (no boxes) under them: each phase heading's items are its tasks. */
function plainPlan(groups: Group[], title: string | null, path: string): ParsedSpec {
  const phaseGroups = groups.filter((g) => PHASE_LIKE.test(plain(g.text)));
  if (phaseGroups.length === 0) {
    throw parseError(path, 1, 'found no checkbox items', 'a list of "- [ ] …" items', '- [ ] 1. Set up the project\n  - [ ] 1.1 Create the folders');
  }
  const empty = phaseGroups.find((g) => g.items.length === 0);
  if (empty) {
    throw parseError(path, empty.line, `the heading "${plain(empty.text)}" has no tasks`, 'a list of its tasks under each phase heading', '- [ ] T001 Create the project structure');
  }
  return { parser: 'checkbox_tasks_parser', title, phases: phaseGroups.map((g, i) => withGate(groupPhase(g, i + 1))) };
}

/**
 * Walks the lines: headings, checkbox items, and the lines nested under each item. With `plainItems`, a list item
 * without a box that is not a labelled field (`- **Goal**: …`) is an item too.
 */
function collect(lines: SourceLine[], plainItems: boolean): { title: string | null; groups: Group[] } {
  let title: string | null = null;
  const groups: Group[] = [{ text: '', line: 0, level: 0, parent: null, description: '', gate: [], items: [] }];
  const open: Group[] = []; // the headings the current line is under, outermost first
  let last: Item | null = null;
  let fenced = false;
  for (const line of lines) {
    if (isFence(line)) fenced = !fenced;
    if (fenced || line.text.trim() === '') continue;
    const h = heading(line);
    if (h) {
      if (h.level === 1 && title === null) title = plain(h.text);
      while (open.length && open.at(-1)!.level >= h.level) open.pop();
      const group: Group = { text: h.text, line: line.number, level: h.level, parent: open.at(-1) ?? null, description: '', gate: [], items: [] };
      groups.push(group);
      open.push(group);
      last = null;
      continue;
    }
    const group = groups.at(-1)!;
    const item = listItem(line);
    if (item?.checkbox) {
      last = { indent: item.indent, line: line.number, content: item.content, checkbox: item.checkbox, optional: item.optional, details: [], id: null, children: [], parent: null };
      group.items.push(last);
      continue;
    }
    if (last && line.indent > last.indent) {
      last.details.push(item ? item.content : line.text.trim());
      continue;
    }
    last = null;
    const f = field(item ? item.content : line.text);
    if (plainItems && item && !f) {
      last = { indent: item.indent, line: line.number, content: item.content, checkbox: null, optional: false, details: [], id: null, children: [], parent: null };
      group.items.push(last);
      continue;
    }
    if (f && /^(checkpoint|validation gate|gate|exit criteria|done when|independent test)$/.test(f.label) && f.value) group.gate.push({ text: plain(f.value), checkbox: null });
    else if (f && /^(purpose|goal|objective|description|story|user story)$/.test(f.label)) group.description ||= plain(f.value);
  }
  return { title, groups };
}

/**
 * Moves the items of a sub-heading into the phase heading it sits under (`## Phase 3: …` with `### Tests for User
 * Story 1` and `### Implementation for User Story 1`, as spec-kit writes them), with its checkpoint; a sub-heading under
 * no phase heading stays a group of its own.
 */
function intoPhases(groups: Group[]): void {
  for (const g of groups) {
    if (g.items.length === 0 || PHASE_LIKE.test(plain(g.text))) continue;
    let phase = g.parent;
    while (phase && !PHASE_LIKE.test(plain(phase.text))) phase = phase.parent;
    if (!phase) continue;
    phase.items.push(...g.items);
    phase.gate.push(...g.gate);
    phase.description ||= g.description;
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
      if (byPrefix && (!parent || byPrefix.indent >= parent.indent) && byPrefix !== it) parent = byPrefix;
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
  c = c.replace(/\[([A-Za-z][\w-]*)\]\s*/g, (_m, label: string) => {
    if (label === 'P') parallel = true;
    else tags.push(label);
    return '';
  });
  c = c.replace(/\s*\((priority|prio)\s*:\s*(\w+)\)/i, (_m, _k, v: string) => {
    tags.push(`priority:${v.toLowerCase()}`);
    return '';
  });
  return { name: c.trim(), parallel, tags };
}

/** One item as a task: its nested lines are its fields, criteria and description; nested items are criteria too. */
function itemTask(it: Item, number: number): SpecTask {
  const { name, parallel, tags } = titleOf(it.content);
  const task: SpecTask = {
    number, id: it.id ?? String(number), name: name || `Task ${number}`, description: '', estimated_time: null, dependencies: [],
    acceptance_criteria: [], requirements: [], parallel, tags: it.optional ? [...tags, 'optional'] : tags, line: it.line, checkbox: it.checkbox, done_in_source: /[xX]/.test(it.checkbox?.mark ?? ''),
  };
  const steps: string[] = [];
  for (const d of it.details) {
    const f = field(d) ?? field(plain(d)); // the second for a line bold as a whole: **Validates: Requirements 1.2**
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
  task.description = steps.join('\n');
  if (task.acceptance_criteria.length === 0) task.acceptance_criteria = steps.filter((s) => !/^leverage:|^file:|^purpose:/i.test(s));
  return task;
}

/** A heading group as a phase; its top-level items are the tasks. */
function groupPhase(g: Group, number: number, title?: string | null): SpecPhase {
  const text = plain(g.text);
  const m = PHASE_LIKE.exec(text);
  const name = (m ? m[2] : text) || title || 'Tasks';
  return {
    number, label: m ? `Phase ${m[1]}` : String(number), name: name.trim(), description: g.description, estimated_duration: null,
    validation_gate: g.gate, gate_from_source: g.gate.length > 0, line: g.line || g.items[0]!.line, checkbox: null,
    tasks: g.items.filter((it) => !it.parent || !g.items.includes(it.parent)).map((it, i) => itemTask(it, i + 1)),
  };
}

/** A top-level item as a phase: its children are the tasks (an item without children is its own single task). */
function itemPhase(root: Item, number: number): SpecPhase {
  const { name } = titleOf(root.content);
  const tasks = root.children.length ? root.children.map((c, i) => itemTask(c, i + 1)) : [itemTask(root, 1)];
  const description = root.children.length ? root.details.map(plain).filter((d) => !field(d)).join('\n') : '';
  return {
    number, label: root.id ?? String(number), name: name || `Phase ${number}`, description, estimated_duration: null,
    validation_gate: [], gate_from_source: false, line: root.line, checkbox: root.checkbox, tasks,
  };
}

function withGate(phase: SpecPhase): SpecPhase {
  if (phase.validation_gate.length) return phase;
  return { ...phase, validation_gate: defaultGate(phase, [...new Set(phase.tasks.flatMap((t) => t.requirements))]) };
}
