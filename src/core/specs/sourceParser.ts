// The spec's SourceParser interface, the parse error with what an agent or person needs to fix the file, and the
// choice of a parser by content.
import { BatonError, echo } from '../errors.js';
import type { ParsedSpec, SpecGateItem, SpecPhase, SpecTask, SpecWarning } from '../specTypes.js';

/** Reads one format of tasks.md into phases and tasks. */
export interface SourceParser {
  /** The id `dynamic_config.parser` names. */
  readonly id: string;
  /** How sure the parser is that `text` is its format: 0 (not at all) to 1. */
  detect(text: string): number;
  /** Parses `text` (the file at `path`, relative to the workspace); throws `source_parse_failed`. */
  parse(text: string, path: string): ParsedSpec;
}

/**
 * A `source_parse_failed` error: the file, the line, what was expected there and an example line. `unrecognised`: the
 * parser found nothing of its format in the file (not a mistake inside it), so another parser may read it.
 */
export function parseError(path: string, line: number, problem: string, expected: string, example: string, unrecognised = false): BatonError {
  return new BatonError(
    'source_parse_failed',
    `Could not parse ${path}, line ${line}: ${problem}. Expected ${expected}, for example:\n${example}`,
    { file: path, line, problem, expected, example, ...(unrecognised ? { unrecognised: true } : {}) },
  );
}

/**
 * One warning for each task id the file writes on two or more task lines (`T001` twice), naming every line. Baton
 * hands tasks out by their position, so each of them runs; but "depends on T001" and a person looking for T001 find
 * two. Only ids written in the file: a task numbered by its position is none.
 */
export function repeatedIdWarnings(tasks: ReadonlyArray<Pick<SpecTask, 'id' | 'line'>>): SpecWarning[] {
  const lines = new Map<string, number[]>();
  for (const t of tasks) lines.set(t.id, [...(lines.get(t.id) ?? []), t.line]);
  return [...lines].filter(([, at]) => at.length > 1).map(([id, at]) => {
    const and = (n: number[]) => (n.length === 1 ? String(n[0]) : `${n.slice(0, -1).join(', ')} and ${n.at(-1)}`);
    const later = at.length === 2 ? `the task on line ${at[1]} an id of its own` : `the tasks on lines ${and(at.slice(1))} ids of their own`;
    return {
      line: at[1]!,
      message: `task id ${id} is written on lines ${and(at)}: each is used, as a task of its own in file order (Baton hands tasks ` +
        `out by position), but a dependency on ${id} cannot say which it means. Give ${later}.`,
    };
  });
}

/** The gate a phase gets when its source gives none. */
export function defaultGate(phase: Pick<SpecPhase, 'number'>, requirements: string[]): SpecGateItem[] {
  const items = [
    `Every task of Phase ${phase.number} is done: the files or commits that show each`,
    "Each task's acceptance criteria hold: how you checked",
    "The phase's tests pass: the command and its result",
  ];
  if (requirements.length) items.push(`Requirements ${requirements.join(', ')} are met: where each is implemented`);
  return items.map((text) => ({ text, checkbox: null }));
}

/** The example lines a parse error shows for each format. */
export const EXAMPLES = {
  spec: '### Phase 1: Core Infrastructure\n**Goal:** Build the base.\n- [ ] **Task 1.1**: Create the schema\n  - **Acceptance Criteria**:\n    - [ ] Migrations run\n**Validation Gate:**\n- [ ] All tests pass',
  checkbox: '- [ ] 1. Set up the project\n  - [ ] 1.1 Create the folders\n  - _Requirements: 1.1_',
};

/**
 * Parses `text` with the parser named, or (for `auto`) with the surest one: when that one finds nothing of its format
 * in the file (a stray "Task 28" line can make a checkbox list look like the spec's format), the next one that
 * recognises the file reads it. A mistake inside a file of the surest parser's format stays its error.
 */
export function parseSource(parsers: readonly SourceParser[], name: string, text: string, path: string): ParsedSpec {
  const first = chooseParser(parsers, name, text, path);
  if (name !== 'auto') return first.parse(text, path);
  try {
    return first.parse(text, path);
  } catch (err) {
    if (!BatonError.is(err) || err.details.unrecognised !== true) throw err;
    const others = parsers.filter((p) => p !== first && p.detect(text) > 0).sort((a, b) => b.detect(text) - a.detect(text));
    for (const other of others) {
      try {
        return other.parse(text, path);
      } catch {
        // the first parser's refusal is the one to report
      }
    }
    throw err;
  }
}

/** Picks the parser for `text`: the one named, or (for `auto`) the surest one; refuses text no parser recognises. */
export function chooseParser(parsers: readonly SourceParser[], name: string, text: string, path: string): SourceParser {
  if (name !== 'auto') {
    const named = parsers.find((p) => p.id === name);
    if (!named) throw new BatonError('invalid_input', `No tasks.md parser ${echo(name)}; parsers: auto, ${parsers.map((p) => p.id).join(', ')}.`);
    return named;
  }
  let best: { parser: SourceParser; score: number } | undefined;
  for (const parser of parsers) {
    const score = parser.detect(text);
    if (score > 0 && (!best || score > best.score)) best = { parser, score };
  }
  if (best) return best.parser;
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/).findIndex((l) => l.trim() !== '') + 1;
  throw parseError(
    path, Math.max(1, firstLine), text.trim() === '' ? 'the file is empty' : 'found no phases and no checkbox tasks',
    'phase headings with bold task lines (the spec format) or a checkbox list (Kiro, spec-kit, spec-workflow-mcp, Task Master)',
    `${EXAMPLES.spec}\n\nor\n\n${EXAMPLES.checkbox}`,
  );
}
