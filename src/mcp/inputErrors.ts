// Turns zod issues into messages that name the field and say what it must be, so an agent can fix its call.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import { closestName, didYouMean } from '../core/suggest.js';
import { isWellFormed } from '../core/utf8.js';

/** A string as JSON, cut to `max` characters with an ellipsis: an echo of a client's input in an error stays short. */
export function quoted(value: string, max = 80): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
}

const SPEC_SCHEMES = ['current_step', 'workflow_status', 'project_context', 'available_workflows', 'workflow_artifacts'];

/**
 * For a URI written with the broker spec's scheme (`current_step://…`, which no URI can hold: a scheme has no '_'),
 * the sentence naming Baton's spelling of it; '' for any other URI.
 */
export function specSchemeHint(uri: string): string {
  const scheme = SPEC_SCHEMES.find((s) => uri.toLowerCase().startsWith(`${s}://`));
  if (!scheme) return '';
  const baton = `${scheme.replace(/_/g, '-')}${uri.slice(scheme.length)}`;
  return ` The spec's ${scheme}:// is spelled ${scheme.replace(/_/g, '-')}:// here (a URI scheme cannot hold '_'): use ${quoted(baton)}.`;
}

/** Renders one value briefly for "(got …)". */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return quoted(value, 40);
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
    const fields = issue.keys.map((k) => `${quoted(k)}${where ? '' : didYouMean(k, validFields, quoted)}`).join(', ');
    const valid = where ? '' : validFields.length ? `; valid fields: ${validFields.join(', ')}` : '; this tool takes no arguments';
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${fields}${where ? ` in ${where}` : ''}${valid}`;
  }
  const { shown, key } = paths(issue.path);
  const value = valueAt(input, issue.path);
  const hint = hints[key];
  const name = shown || 'arguments';
  // A field left out, whatever zod calls it (a missing enum is an invalid_value, not an invalid_type).
  if (value === undefined && issue.path.length > 0) {
    return `${name} is required: pass ${hint ?? (issue.code === 'invalid_type' ? issue.expected : 'a value')}`;
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
  return invalidArguments(toolName, [...new Set(error.issues.map((i) => formatIssue(i, input, hints, validFields)))]);
}

/** "Invalid arguments for TOOL: problem; problem. Fix the fields and call again.", five problems at most. */
export function invalidArguments(toolName: string, lines: readonly string[]): string {
  const shown = lines.slice(0, 5);
  const hidden = lines.length - shown.length;
  const more = hidden > 0 ? `\n(and ${hidden} more problem${hidden > 1 ? 's' : ''})` : '';
  return `Invalid arguments for ${toolName}: ${shown.join('; ')}${more}. Fix the field${lines.length > 1 ? 's' : ''} and call again.`;
}

/**
 * `input` without the null object fields a parse refused, or undefined when it refused none. Models often fill the
 * fields they mean to leave out with null (strict function calling makes every optional field nullable), so a null
 * where the schema takes no null reads as the field left out; a schema that takes null keeps it. Nulls inside arrays
 * stay: an array's item is not a field one leaves out.
 */
export function withoutRefusedNulls(input: Record<string, unknown>, issues: readonly z.core.$ZodIssue[]): Record<string, unknown> | undefined {
  const nulls = issues.filter((i) => typeof i.path.at(-1) === 'string' && valueAt(input, i.path) === null);
  if (nulls.length === 0) return undefined;
  const copy = structuredClone(input);
  for (const { path } of nulls) delete (valueAt(copy, path.slice(0, -1)) as Record<PropertyKey, unknown>)[path.at(-1)!];
  return copy;
}

/** Whether zod refused a value for not being an object or a list (or, in a union, a branch wanted one). */
function wantsStructure(issue: z.core.$ZodIssue): boolean {
  if (issue.code === 'invalid_type') return issue.expected === 'object' || issue.expected === 'record' || issue.expected === 'array';
  if (issue.code === 'invalid_union') return issue.errors.some((branch) => branch.some((i) => i.path.length === 0 && wantsStructure(i)));
  return false;
}

/**
 * `input` with each JSON text that a parse refused where an object or a list is due read as what it holds, or
 * undefined when there is none. Command-line clients send a field whose schema names no single type as the text
 * typed (the MCP Inspector 0.15's --tool-arg, which npx picks on Node 20, for `evidence`: an object or a list), and
 * models send nested objects as JSON text; both mean the object. A text that is no JSON object or list stays, and
 * is refused as sent.
 */
export function withParsedJsonText(input: Record<string, unknown>, issues: readonly z.core.$ZodIssue[]): Record<string, unknown> | undefined {
  const found: Array<[path: PropertyKey[], value: object]> = [];
  for (const issue of issues) {
    const text = valueAt(input, issue.path);
    if (issue.path.length === 0 || typeof text !== 'string' || !wantsStructure(issue) || !/^\s*[[{]/.test(text)) continue;
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === 'object' && value !== null) found.push([issue.path as PropertyKey[], value]);
    } catch {
      // Not JSON: refused as it came.
    }
  }
  if (found.length === 0) return undefined;
  const copy = structuredClone(input);
  for (const [path, value] of found) (valueAt(copy, path.slice(0, -1)) as Record<PropertyKey, unknown>)[path.at(-1)!] = value;
  return copy;
}

/**
 * A tool's answer when walking its arguments overflowed the stack (a value nested thousands of levels deep, which
 * the schema let through as free-form metadata), else undefined: the caller's mistake, not an internal error.
 */
export function tooDeepResult(tool: string, ex: unknown): CallToolResult | undefined {
  if (!(ex instanceof RangeError) || !/call stack/i.test(ex.message)) return undefined;
  return {
    isError: true,
    content: [{ type: 'text', text: `Invalid arguments for ${tool}: a value is nested too deep to read (objects or arrays inside each other); send it with at most ${MAX_NESTING} levels.` }],
    _meta: { errorCode: 'invalid_input' },
  };
}

/**
 * The keys of `value` (an object the caller sent at `path`) that are none of `known` but misspell one of them, each
 * as "path.key (did you mean 'known'?)". Keys that are nothing like a known one are not reported.
 */
export function misspeltKeys(value: unknown, path: string, known: readonly string[]): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  const out: string[] = [];
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const close = closestName(key, known);
    if (close !== undefined) out.push(`unknown field ${path}.${key} (did you mean '${close}'?)`);
  }
  return out;
}

/** A value met in a walk, linked to its parent: only the reported field's path is built (copies grow as depth²). */
type At = { value: unknown; key?: PropertyKey; parent?: At; depth: number };

/**
 * How deep objects and arrays may sit inside each other in a call's arguments. Deeper values were taken or refused
 * by where the stack ran out (about 4,000 levels for a call over stdio, fewer on a longer path such as a forwarding
 * `baton mcp` or the editor's panel), so a value stored by one call could fail every later read of it.
 */
export const MAX_NESTING = 100;

/**
 * What in `input` (a call's arguments) cannot be stored as sent, as one problem line naming the field, or undefined:
 * a text or key holding a lone UTF-16 surrogate (a JSON `\ud83d` without its pair; stored it would turn into U+FFFD,
 * so the caller would read back other text than it wrote), or an object key `__proto__` (JavaScript objects cannot
 * keep it as data; it was dropped without a word). Walks without recursion: a value may be nested thousands deep.
 */
export function unstorableInput(input: unknown): string | undefined {
  const stack: At[] = [{ value: input, depth: 0 }];
  while (stack.length) {
    const at = stack.pop()!;
    const { value } = at;
    if (at.depth > MAX_NESTING) return tooDeepText(at);
    if (typeof value === 'string') {
      if (!isWellFormed(value)) return `${fieldName(at)} holds a lone UTF-16 surrogate (half of a character such as an emoji, e.g. a JSON "\\ud83d" without its pair), which cannot be stored as text; send the whole character or leave it out`;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: at, depth: at.depth + 1 });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        if (key === '__proto__') return `${fieldName(at)} has a key "__proto__", which cannot be kept as data; rename the key`;
        if (!isWellFormed(key)) return `${fieldName(at)} has a key holding a lone UTF-16 surrogate (${quoted(key, 40)}), which cannot be stored as text; send the whole character or leave it out`;
        stack.push({ value: (value as Record<string, unknown>)[key], key, parent: at, depth: at.depth + 1 });
      }
    }
  }
  return undefined;
}

/** The refusal of a value nested past MAX_NESTING, naming the argument it is in (its full path would be as long). */
function tooDeepText(at: At): string {
  let top = at;
  while (top.parent?.parent) top = top.parent;
  return `${fieldName(top)} is nested more than ${MAX_NESTING} levels deep (objects or arrays inside each other); ` +
    `send it with at most ${MAX_NESTING} levels, for example with the deep part as a JSON text in a string`;
}

/** The field `at` names, as `a.b[2].c` ("arguments" for the whole). */
function fieldName(at: At): string {
  const path: PropertyKey[] = [];
  for (let a: At | undefined = at; a?.parent; a = a.parent) path.unshift(a.key!);
  return paths(path).shown || 'arguments';
}
