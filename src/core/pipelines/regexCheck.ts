// Regular expressions that pipeline files give Baton to run (a transform's `pattern`, a `matches` condition) are
// checked when the file is read: one that does not compile, or that repeats a group which itself repeats (`(a+)+`,
// `(\w+\s*)*`), is refused. The second kind can take exponential time on a text that almost matches, and a match
// runs on the event loop of the process that owns the database: every agent would wait, and Ctrl-C would not stop it.

/** Why `pattern` is refused, or null when it may run. */
export function regexProblem(pattern: string): string | null {
  try {
    new RegExp(pattern);
  } catch (ex) {
    return `not a valid regular expression (${(ex as Error).message})`;
  }
  const nested = nestedRepeat(pattern);
  return nested
    ? `the group ${JSON.stringify(nested)} repeats and has a repeat inside it, which can take exponential time on a text that almost matches; write it without the nesting (e.g. "(a+)+" as "a+")`
    : null;
}

/** The first group that repeats without bound and holds a repeat without bound itself, or null. */
function nestedRepeat(pattern: string): string | null {
  // For each open group: where it starts and whether it holds an unbounded repeat (+, *, {n,}).
  const open: Array<{ start: number; repeats: boolean }> = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') open.push({ start: i, repeats: false });
    else if (c === ')') {
      const group = open.pop();
      if (!group) continue;
      const after = unboundedAt(pattern, i + 1);
      if (after && group.repeats) return pattern.slice(group.start, i + 1 + after);
      if (open.length && (group.repeats || after)) open[open.length - 1]!.repeats = true;
    } else if (open.length && unboundedAt(pattern, i)) {
      open[open.length - 1]!.repeats = true;
    }
  }
  return null;
}

/** The length of an unbounded repeat (`+`, `*`, `{n,}`, with a lazy `?`) at `i`, or 0. */
function unboundedAt(pattern: string, i: number): number {
  const m = /^(?:[+*]|\{\d+,\})\??/.exec(pattern.slice(i, i + 12));
  return m ? m[0].length : 0;
}
