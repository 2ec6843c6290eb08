// Whether a tasks.md still says what its workflow's snapshot says. Ticked boxes (the write-back's own edits, or the
// person's) and line endings are not drift; any other change is, reported at its first differing line.
import type { SourceDrift } from '../specTypes.js';
import { splitLines } from './markdown.js';

const MARK = /^([ \t]*(?:[-*+]|\d+[.)])[ \t]+\[)[ xX\-~/](\])/;

/** A line with its checkbox mark blanked and trailing blanks dropped. */
function comparable(text: string): string {
  return text.replace(MARK, '$1 $2').trimEnd();
}

/** Compares the snapshot with the file's current text (undefined: the file is gone). */
export function compareSource(source: string, snapshot: string, current: string | undefined): SourceDrift {
  if (current === undefined) return { state: 'missing', source };
  if (current === snapshot) return { state: 'in_sync', source };
  const a = splitLines(snapshot);
  const b = splitLines(current);
  const trim = (ls: typeof a) => {
    let n = ls.length;
    while (n > 0 && ls[n - 1]!.text.trim() === '') n--;
    return ls.slice(0, n);
  };
  const x = trim(a);
  const y = trim(b);
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const s = x[i]?.text;
    const c = y[i]?.text;
    if (s === undefined || c === undefined || comparable(s) !== comparable(c)) {
      return { state: 'drifted', source, first_difference: { line: i + 1, snapshot: s ?? '', current: c ?? '' } };
    }
  }
  return { state: 'in_sync', source };
}
