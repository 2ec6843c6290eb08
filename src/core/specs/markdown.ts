// Markdown lines as the tasks.md parsers read them: offsets into the original text (BOM and CRLF kept), indentation
// with tabs expanded, checkboxes with the position of their mark, bold labels such as `**Goal:**`.
import type { CheckboxRef } from '../specTypes.js';

/** One line of a source text. */
export interface SourceLine {
  /** 1-based. */
  number: number;
  /** UTF-16 offset of the line's first character in the text (after a BOM on line 1). */
  start: number;
  /** The line without its ending (and without a BOM). */
  text: string;
  /** Leading whitespace in columns, a tab advancing to the next multiple of 4. */
  indent: number;
}

/** A list item: `- text`, `* text`, `1. text`, with its checkbox when it has one. */
export interface ListItem {
  indent: number;
  /** The text after the bullet and the checkbox. */
  content: string;
  checkbox: CheckboxRef | null;
  /** Kiro's `- [ ]* 2.3 …`: a task the file marks optional. */
  optional: boolean;
  /** The number of an ordered list's item (`9. [ ] …` → "9"); null for a bullet. */
  ordinal: string | null;
}

/** Columns of leading whitespace (tabs to the next multiple of 4). */
export function indentOf(text: string): number {
  let col = 0;
  for (const ch of text) {
    if (ch === ' ') col++;
    else if (ch === '\t') col += 4 - (col % 4);
    else break;
  }
  return col;
}

/** Splits a text into lines, keeping each line's offset; `\r\n`, `\n` and `\r` all end a line; a BOM is skipped. */
export function splitLines(text: string): SourceLine[] {
  const lines: SourceLine[] = [];
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let number = 1;
  for (let i = start; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : -1;
    if (c !== 0x0a && c !== 0x0d && c !== -1) continue;
    const line = text.slice(start, i);
    if (c !== -1 || line.length > 0 || lines.length === 0) lines.push({ number: number++, start, text: line, indent: indentOf(line) });
    if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) i++;
    start = i + 1;
  }
  return lines;
}

const CHECKBOX = /^([ \t]*)(?:[-*+]|(\d+)[.)])[ \t]+\[([ xX\-~/])\](\\?\*)?(?:[ \t]+|$)(.*)$/; // `]*`, `]\*`: optional
const BULLET = /^([ \t]*)(?:[-*+]|(\d+)[.)])[ \t]+(.*)$/;

/** The line as a list item, or undefined when it is not one. */
export function listItem(line: SourceLine): ListItem | undefined {
  const cb = CHECKBOX.exec(line.text);
  if (cb) {
    const column = line.text.indexOf('[', cb[1]!.length) + 1;
    const checkbox = { line: line.number, column, mark: cb[3]!, line_text: line.text };
    return { indent: line.indent, content: cb[5]!.trim(), checkbox, optional: cb[4] !== undefined, ordinal: cb[2] ?? null };
  }
  const b = BULLET.exec(line.text);
  return b ? { indent: line.indent, content: b[3]!.trim(), checkbox: null, optional: false, ordinal: b[2] ?? null } : undefined;
}

/**
 * A `#` heading: its level and text, without its closing hashes, which CommonMark takes only after a space: `## Ship
 * ##` is "Ship", `## Learn C#` is "Learn C#".
 */
export function heading(line: SourceLine): { level: number; text: string } | undefined {
  const m = /^ {0,3}(#{1,6})[ \t]+(.*)$/.exec(line.text);
  return m ? { level: m[1]!.length, text: m[2]!.trimEnd().replace(/(?:^|[ \t]+)#+$/, '').trim() } : undefined;
}

/**
 * Headings written without `#`: a setext heading (a line of text over `===`, level 1, or `---`, level 2, with no blank
 * line between); a line that is bold as a whole and starts with one of `words` followed by a number
 * (`**Phase 2: Core**`), which hand-written plans use as headings; and a plain line `Phase 2: Core` at the left margin
 * after a blank line, a heading or a list item (a task's own "… Phase 2: …" is in its list item; a paragraph's line
 * is no heading). Those two are given level 6, so a `#` heading that named the same phase before stays the phase.
 * Keyed by line number; `underlines` are the `===` / `---` lines.
 */
export function unmarkedHeadings(lines: readonly SourceLine[], words: RegExp): { headings: Map<number, { level: number; text: string }>; underlines: Set<number> } {
  const headings = new Map<number, { level: number; text: string }>();
  const underlines = new Set<number>();
  const code = codeLineNumbers(lines);
  lines.forEach((line, i) => {
    if (code.has(line.number) || line.text.trim() === '' || heading(line) || listItem(line) || line.indent >= 4) return;
    const next = lines[i + 1];
    const before = lines[i - 1];
    const alone = !before || before.text.trim() === '' || heading(before) !== undefined;
    const under = next && !code.has(next.number) ? /^ {0,3}(=+|-+)[ \t]*$/.exec(next.text) : null;
    if (under && alone) {
      headings.set(line.number, { level: under[1]![0] === '=' ? 1 : 2, text: line.text.trim() });
      underlines.add(next!.number);
      return;
    }
    const bold = /^(?:\*\*|__)(.+?)(?:\*\*|__)[ \t]*:?[ \t]*$/.exec(line.text.trim());
    if (bold && !/\*\*|__/.test(bold[1]!) && words.test(plain(bold[1]!))) headings.set(line.number, { level: 6, text: bold[1]!.trim() });
    else if ((alone || listItem(before!) !== undefined) && line.indent === 0 && PLAIN_PHASE.test(line.text.trim()) && words.test(line.text.trim())) headings.set(line.number, { level: 6, text: line.text.trim() });
  });
  return { headings, underlines };
}

/** Whether `text` has a heading without `#` (setext, bold, plain) that `words` reads as a phase: for a detect. */
export function hasUnmarkedPhase(text: string, words: RegExp): boolean {
  const { headings } = unmarkedHeadings(splitLines(text), words);
  return [...headings.values()].some((h) => words.test(plain(h.text)));
}

/** The numbers of the lines that are code, comment or front matter (Fences reads lines in order, so once). */
export function codeLineNumbers(lines: readonly SourceLine[]): Set<number> {
  const fences = new Fences(lines);
  return new Set(lines.filter((l) => fences.code(l)).map((l) => l.number));
}

/**
 * A phase heading's number as people write it, for a RegExp source: `3`, `3.1`, `2a` / `2b` (one split in two), and
 * a range of them (`1-2`, `3.1 – 3.2`, `1 & 2`, `4 and 5`); followed by no letter or digit, so `Phase 2nd` is none.
 */
export const PHASE_NUMBER = String.raw`\d+(?:\.\d+)*[a-z]?(?:(?:-|\s*[\u2013\u2014/&]\s*|\s+(?:and|to)\s+)\d+(?:\.\d+)*[a-z]?)?(?![\p{L}\p{N}])`;

/**
 * A plain line that is a phase heading as a whole: `Phase 2: Core`, `Phase 2 - Core`, `Phase 3.1: Setup`. A name after
 * the number is required; a line that ends as a sentence does ("Phase 2: waits for the review."), has no separator
 * ("Phase 2 starts once 1 is merged") or links phases ("Phase 1: Setup → Phase 2: Core") stays text.
 */
const PLAIN_PHASE = new RegExp(String.raw`^Phase\s+${PHASE_NUMBER}\s*(?:[:.\-\u2013\u2014]|\(.*?\)\s*[:.\-\u2013\u2014]?)(?!.*(?:\bPhase\s+\d|\u2192|->|=>))\s*\S.*(?<![.!?])$`, 'iu');

/** A task named as such (`Task 1.1: Name`, `Task 3 - Name`): its id and its name. */
export const TASK_LINE = /^Task\s+([\w.-]*\d[\w.-]*?)\s*(?:[:.)\-\u2013\u2014]\s*|\s+)(.*)$/i;

/** Labels of a heading that is a phase's gate section (`#### Validation Gate`, `### Checkpoint`). */
const GATE_HEADINGS = /^(validation gate|gate|exit criteria|phase gate|definition of done|checkpoint|done when|independent test)$/;

/**
 * A heading (its plain text) that is part of the phase above it whatever its level: a task (`Task 1.1: Name`), its
 * tasks or its gate section. Under a bold or plain phase line (`**Phase 2: Core**`, read as the deepest heading), a
 * `#### Task 2.1 …` is still that phase's, where any other heading ends it.
 */
export function partOfPhase(text: string): boolean {
  const label = text.replace(/:$/, '').toLowerCase();
  return TASK_LINE.test(text) || GATE_HEADINGS.test(label) || label === 'tasks';
}

/** A task line's criterion after its name: `… | done when: tests pass`, `… — done when: …`, `… -- done when …`. */
const INLINE_DONE_WHEN = /\s+(?:\||[\u2013\u2014]|--?)\s*done when\s*:?\s+(\S.*)$/i;

/** A task's name without the criterion written after it on its line (INLINE_DONE_WHEN), and that criterion. */
export function inlineDoneWhen(name: string): { name: string; criterion: string | null } {
  const m = INLINE_DONE_WHEN.exec(name);
  return m ? { name: name.slice(0, m.index).trim(), criterion: m[1]!.trim() } : { name, criterion: null };
}

/**
 * The name in what follows a phase heading's number: `: Name`, ` – Name`, `. Name`, and a note in parentheses
 * before it (`Phase 1 (Week 1): Name`) goes after the name; empty when there is none.
 */
export function phaseName(rest: string): string {
  let r = rest.trim();
  const note = /^\(([^)]*)\)\s*/.exec(r);
  if (note) r = r.slice(note[0].length);
  r = r.replace(/^[:.)\-\u2013\u2014\uff1a\u3001]+\s*/, '').trim(); // `：` and `、` as Chinese headings write them
  return note ? (r ? `${r} (${note[1]!.trim()})` : note[1]!.trim()) : r;
}

/**
 * Fenced code blocks as CommonMark reads them: a block opens with three or more backticks or tildes (a backtick
 * fence's info string has no backtick) and closes only with a fence of the same character, at least as long, with
 * nothing after it; so a ```` block can show a ```bash block, whose `# Phase 2 …` comment stays code.
 *
 * HTML comments too: a line that starts with `<!--` (indented or not, so one inside a list item counts) opens one,
 * and it ends with the line that holds `-->`, all of whose lines are skipped as CommonMark's HTML block does. A task
 * commented out (`<!-- - [ ] T009 … -->`) is no task, and spec-kit's template comments are not read as text. Unlike
 * CommonMark, a `<!--` that nothing closes hides nothing: a forgotten `-->` must not drop the rest of the plan.
 *
 * And YAML front matter, as GitHub shows it: a first line `---` up to the next `---` (or `...`), when the lines between
 * hold a `key:`; so its `# comment` is not the plan's title, nor its `- id: 0` a task.
 */
export class Fences {
  private open: { char: string; length: number } | null = null;
  private comment = false;
  /** The number of the last line that holds `-->` (0 for none): a comment opened after it never closes. */
  private readonly lastClose: number;
  /** The number of the line that closes the front matter (0 for none). */
  private readonly frontMatter: number;

  /** `lines`: the whole text's lines, which `code` is then asked about in order. */
  constructor(lines: readonly SourceLine[]) {
    let last = 0;
    for (let i = lines.length - 1; i >= 0 && last === 0; i--) if (lines[i]!.text.includes('-->')) last = lines[i]!.number;
    this.lastClose = last;
    this.frontMatter = frontMatterEnd(lines);
  }

  /**
   * Whether the line is code or comment: a fence that opens a block, or a line inside one; a line of an HTML
   * comment or of the front matter. A closing fence is not code: it is read as a line of text (a section with only a
   * code block in it says something).
   */
  code(line: SourceLine): boolean {
    if (line.number <= this.frontMatter) return true;
    if (this.comment || (!this.open && line.number <= this.lastClose && /^\s*<!--/.test(line.text))) {
      // CommonMark's end condition: the line contains `-->` (the opening line too: `<!-- note -->`, `<!-->`).
      this.comment = !line.text.includes('-->');
      return true;
    }
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line.text);
    if (this.open) {
      if (m && m[1]![0] === this.open.char && m[1]!.length >= this.open.length && m[2]!.trim() === '') this.open = null;
      return this.open !== null;
    }
    if (!m || (m[1]![0] === '`' && m[2]!.includes('`'))) return false;
    this.open = { char: m[1]![0]!, length: m[1]!.length };
    return true;
  }
}

/** The line that closes the YAML front matter opening the text (0 for none): `---` on line 1, a `key:` in it. */
function frontMatterEnd(lines: readonly SourceLine[]): number {
  if (lines[0]?.text.trimEnd() !== '---') return 0;
  const close = lines.findIndex((l, i) => i > 0 && /^(?:---|\.\.\.)\s*$/.test(l.text));
  if (close < 0) return 0;
  return lines.slice(1, close).some((l) => /^[A-Za-z_][\w-]*:(?:\s|$)/.test(l.text)) ? close + 1 : 0;
}

/**
 * Text without markdown emphasis markers around words (`**x**`, `__x__`, `*x*`, `_x_`), inline code ticks and inline
 * HTML comments. A code span keeps what is in it as written: `__tests__/x.ts`, `__init__` and `**kwargs` are paths and
 * names, not emphasis.
 */
export function plain(text: string): string {
  if (!text.includes('`')) return unemphasised(text).trim();
  // Each code span is set aside (a placeholder of no space, `*` or `_`, so emphasis around it still reads), the rest is
  // read, and the spans come back as written, without their ticks.
  const spans: string[] = [];
  let rest = '';
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('`', i);
    if (open < 0) break;
    let run = open;
    while (text[run] === '`') run++;
    const ticks = text.slice(open, run);
    // A code span ends at the next run of exactly as many backticks (CommonMark); without one the ticks are text.
    const close = new RegExp(`(?<!\`)${ticks}(?!\`)`, 'g');
    close.lastIndex = run;
    const end = close.exec(text);
    if (!end) {
      rest += text.slice(i, run);
      i = run;
      continue;
    }
    rest += `${text.slice(i, open)}\ue000${spans.length}\ue001`;
    spans.push(text.slice(run, end.index));
    i = end.index + ticks.length;
  }
  rest += text.slice(i);
  return unemphasised(rest).replace(/`/g, '').replace(/\ue000(\d+)\ue001/g, (m: string, n: string) => spans[Number(n)] ?? m).trim();
}

function unemphasised(text: string): string {
  // An inline HTML comment (`T001 Create X <!-- owner: bob -->`) shows as nothing, as CommonMark renders it.
  if (text.includes('<!--')) text = text.replace(/\s*<!--[\s\S]*?-->/g, '');
  return text.replace(/\*\*|__/g, '').replace(/(^|\s)[*_](\S(?:.*?\S)?)[*_](?=\s|$|[.,;:])/g, '$1$2');
}

/**
 * A labelled field: `**Goal:** text`, `**Goal**: text`, `Goal: text`, `_Requirements: 1.1_`. The label comes back in
 * lower case without its colon; undefined when the text is not one (a label is at most 40 characters).
 */
export function field(text: string): { label: string; value: string } | undefined {
  const t = text.trim();
  const bold = /^(?:\*\*|__)([^*_]{1,40}?)[ \t]*(?::[ \t]*(?:\*\*|__)|(?:\*\*|__)[ \t]*:)[ \t]*(.*)$/.exec(t);
  if (bold) return { label: bold[1]!.trim().toLowerCase(), value: bold[2]!.trim() };
  const under = /^_([A-Za-z][\w ]{0,39}):[ \t]*(.*?)_?$/.exec(t);
  if (under) return { label: under[1]!.trim().toLowerCase(), value: under[2]!.trim() };
  const simple = /^([A-Z][A-Za-z ]{0,39}):[ \t]+(.*)$/.exec(t);
  if (simple) return { label: simple[1]!.trim().toLowerCase(), value: simple[2]!.trim() };
  return undefined;
}

/** Splits a list written in one line (`1.1, 2.3; 4`), dropping `None`, `N/A` and dashes. */
export function splitList(value: string): string[] {
  const v = plain(value);
  if (/^(none|n\/a|-|\u2014|\u2013|nothing)\.?$/i.test(v) || v === '') return [];
  return v.split(/[,;]|\band\b/).map((s) => s.trim().replace(/\.$/, '')).filter(Boolean);
}
