// Turns zod issues into messages that name the field and say what it must be, so an agent can fix its call.
import type * as z from 'zod';

/** Renders one value briefly for "(got …)". */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}

/** `a.b[2].c` for humans and `a.b[].c` for the hint table. */
function paths(path: readonly PropertyKey[]): { shown: string; key: string } {
  let shown = '';
  let key = '';
  for (const p of path) {
    if (typeof p === 'number') {
      shown += `[${p}]`;
      key += '[]';
    } else {
      shown += shown ? `.${String(p)}` : String(p);
      key += key ? `.${String(p)}` : String(p);
    }
  }
  return { shown, key };
}

/** Finds the value at `path` inside `input` (zod does not always report it). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/** One issue as a sentence. */
function formatIssue(issue: z.core.$ZodIssue, input: unknown, hints: Record<string, string>, validFields: readonly string[]): string {
  if (issue.code === 'unrecognized_keys') {
    const where = paths(issue.path).shown;
    const fields = issue.keys.map((k) => `"${k}"`).join(', ');
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${fields}${where ? ` in ${where}` : ''}; valid fields: ${validFields.join(', ')}`;
  }
  const { shown, key } = paths(issue.path);
  const value = valueAt(input, issue.path);
  const hint = hints[key];
  const name = shown || 'arguments';
  if (issue.code === 'invalid_type' && value === undefined) {
    return `${name} is required: pass ${hint ?? issue.expected}`;
  }
  if (hint) return `${name} must be ${hint} (got ${describeValue(value)})`;
  return `${name}: ${issue.message} (got ${describeValue(value)})`;
}

/** Formats the issues of a failed parse into one message; says how many more when there are many. */
export function formatInputIssues(
  toolName: string,
  error: z.ZodError,
  input: unknown,
  hints: Record<string, string>,
  validFields: readonly string[],
): string {
  const lines = [...new Set(error.issues.map((i) => formatIssue(i, input, hints, validFields)))];
  const shown = lines.slice(0, 5);
  const more = lines.length > shown.length ? `\n(and ${lines.length - shown.length} more problems)` : '';
  return `Invalid arguments for ${toolName}: ${shown.join('; ')}${more}. Fix the field${lines.length > 1 ? 's' : ''} and call again.`;
}
