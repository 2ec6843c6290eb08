// Write-back of a completed phase into its tasks.md: the boxes to tick as minimal edits (one character each) that
// leave every other byte as it was. Pure: the editor applies the same edits through a WorkspaceEdit, the CLI through
// an atomic file write (src/host/specSourceFile.ts).
import type { CheckboxRef, SpecPhase, TextEdit } from '../specTypes.js';
import { splitLines, type SourceLine } from './markdown.js';

/** The edits that tick `refs` in `text`, and the boxes it could not find with why. */
export interface TickPlan {
  edits: TextEdit[];
  /** Boxes already ticked (nothing to do). */
  already: number;
  refused: Array<{ line: number; reason: string }>;
}

const BOX = /^([ \t]*(?:[-*+]|\d+[.)])[ \t]+\[)[ xX\-~/]\]/;

/** The line without its box's mark, to recognise it whatever its mark. */
function unmarked(text: string, column: number): string {
  return `${text.slice(0, column)}\u0000${text.slice(column + 1)}`;
}

/** The checkbox boxes a completed phase ticks: its own box, its task groups', its tasks' and its gate items'. */
export function phaseCheckboxes(phase: SpecPhase): CheckboxRef[] {
  return [phase.checkbox, ...(phase.group_checkboxes ?? []), ...phase.tasks.map((t) => t.checkbox), ...phase.validation_gate.map((g) => g.checkbox)]
    .filter((c): c is CheckboxRef => c !== null);
}

/**
 * Finds each box in `text` (at its line if the line is still the one parsed, else the one line elsewhere with the
 * same text) and returns one edit per box that is not ticked yet: its mark becomes `x`. A box whose line is gone or
 * ambiguous is refused, never guessed.
 */
export function planTicks(text: string, refs: readonly CheckboxRef[]): TickPlan {
  const lines = splitLines(text);
  const plan: TickPlan = { edits: [], already: 0, refused: [] };
  let index: Map<string, SourceLine[]> | undefined;
  const byText = () => {
    if (!index) {
      index = new Map();
      for (const l of lines) {
        const m = BOX.exec(l.text);
        if (!m) continue;
        const key = unmarked(l.text, m[1]!.length);
        index.set(key, [...(index.get(key) ?? []), l]);
      }
    }
    return index;
  };
  const seen = new Set<number>();
  for (const ref of refs) {
    const want = unmarked(ref.line_text, ref.column);
    let line: SourceLine | undefined = lines[ref.line - 1];
    if (!line || line.text.length !== ref.line_text.length || unmarked(line.text, ref.column) !== want) {
      const candidates = byText().get(want) ?? [];
      if (candidates.length !== 1) {
        plan.refused.push({ line: ref.line, reason: candidates.length ? `the line "${ref.line_text.trim()}" now appears ${candidates.length} times` : `the line "${ref.line_text.trim()}" is no longer in the file` });
        continue;
      }
      line = candidates[0]!;
    }
    if (seen.has(line.number)) continue;
    seen.add(line.number);
    const mark = line.text[ref.column];
    if (mark === 'x' || mark === 'X') {
      plan.already++;
      continue;
    }
    plan.edits.push({ offset: line.start + ref.column, length: 1, text: 'x' });
  }
  plan.edits.sort((a, b) => a.offset - b.offset);
  return plan;
}

/** Applies non-overlapping edits (offsets into `text`). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = '';
  let at = 0;
  for (const e of [...edits].sort((a, b) => a.offset - b.offset)) {
    if (e.offset < at) throw new Error(`overlapping edits at ${e.offset}`);
    out += text.slice(at, e.offset) + e.text;
    at = e.offset + e.length;
  }
  return out + text.slice(at);
}
