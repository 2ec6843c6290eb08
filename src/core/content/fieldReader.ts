// Typed field reads over parsed YAML values that record a precise problem for every bad field.
import { LineCounter, parseDocument } from 'yaml';
import type { ContentProblem } from '../api.js';
import { didYouMean } from '../suggest.js';

/** A location inside a parsed document: keys and list indexes from the root. */
export type FieldPath = ReadonlyArray<string | number>;

/** Names accepted for agents, rules and workflows: they appear in URIs such as `persona://NAME`. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Collects the problems of one file; `fatal` ones mean the file is skipped. */
export class FieldReader {
  readonly problems: ContentProblem[] = [];
  /** How many problems so far make the file unusable. */
  errors = 0;

  constructor(
    private readonly path: string,
    readonly lineOf: (at: FieldPath) => number | null,
  ) {}

  /** Whether any problem so far makes the file unusable. */
  get fatal(): boolean {
    return this.errors > 0;
  }

  /** Records a problem that makes the file unusable. */
  error(at: FieldPath, message: string): void {
    this.errors++;
    this.problems.push({ path: this.path, line: this.lineOf(at), message });
  }

  /** Records a problem the file can be loaded despite. */
  warn(at: FieldPath, message: string): void {
    this.problems.push({ path: this.path, line: this.lineOf(at), message });
  }

  /** Records a problem at a known line that the file can be loaded despite. */
  warnAtLine(line: number | null, message: string): void {
    this.problems.push({ path: this.path, line, message });
  }

  /** A non-empty string field; reports it when required and missing, or of the wrong type. */
  string(obj: Record<string, unknown>, at: FieldPath, key: string, where: string, expected: string, required: boolean): string | undefined {
    const v = obj[key];
    if (v === undefined || v === null) {
      if (required) this.error(at, `${where}: missing required field '${key}' (expected ${expected})`);
      return undefined;
    }
    if (typeof v !== 'string' || v.trim() === '') {
      this.error([...at, key], `${where}: field '${key}' must be ${expected}, got ${describe(v)}`);
      return undefined;
    }
    return v.trim();
  }

  /** A name field (or the fallback), checked against NAME_PATTERN. */
  name(obj: Record<string, unknown>, at: FieldPath, where: string, fallback: string): string | undefined {
    const expected = "a name of letters, digits, '.', '_' or '-'";
    const explicit = this.string(obj, at, 'name', where, expected, false);
    if (explicit === undefined && obj['name'] !== undefined && obj['name'] !== null) return undefined;
    const name = explicit ?? fallback;
    if (NAME_PATTERN.test(name)) return name;
    const slug = name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-._]+|-+$/g, '');
    const suggestion = slug && NAME_PATTERN.test(slug) ? ` (such as '${slug}')` : '';
    if (explicit !== undefined && NAME_PATTERN.test(fallback)) {
      // A display name (Copilot's `name: 'Universal PR Comment Addresser'`): the file still loads, under its file name.
      this.warn([...at, 'name'], `${where}: name '${name}' is not a name Baton can use (${expected}, since names appear in URIs such as persona://NAME), so it goes by its file name '${fallback}'; set name to one${suggestion} to choose another`);
      return fallback;
    }
    const origin = explicit === undefined ? `the file name '${name}' (the name, as there is no 'name' field)` : `name '${name}'`;
    this.error(explicit === undefined ? at : [...at, 'name'], `${where}: ${origin} is not valid; expected ${expected}${suggestion}, since names appear in URIs such as persona://NAME`);
    return undefined;
  }

  /** A list of non-empty strings; missing means `[]`. A lone string is accepted when `splitString` says how to split it. */
  stringList(obj: Record<string, unknown>, at: FieldPath, key: string, where: string, splitString?: RegExp): string[] {
    const v = obj[key];
    if (v === undefined || v === null) return [];
    if (typeof v === 'string' && splitString) return v.split(splitString).map((s) => s.trim()).filter((s) => s !== '');
    if (!Array.isArray(v)) {
      this.error([...at, key], `${where}: field '${key}' must be a list of strings, got ${describe(v)}`);
      return [];
    }
    const out: string[] = [];
    v.forEach((item, i) => {
      if (typeof item === 'string' && item.trim() !== '') out.push(item.trim());
      else this.error([...at, key, i], `${where}: ${key}[${i}] must be a non-empty string, got ${describe(item)}`);
    });
    return out;
  }

  /** A boolean field; missing means `fallback`. */
  boolean(obj: Record<string, unknown>, at: FieldPath, key: string, where: string, fallback: boolean): boolean {
    const v = obj[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'boolean') {
      this.error([...at, key], `${where}: field '${key}' must be true or false, got ${describe(v)}`);
      return fallback;
    }
    return v;
  }

  /** Reports keys outside `known` without rejecting the file (a typo there silently changes behaviour). */
  unknownKeys(obj: Record<string, unknown>, at: FieldPath, where: string, known: readonly string[]): void {
    for (const key of Object.keys(obj)) {
      if (known.includes(key)) continue;
      this.warn([...at, key], `${where}: unknown field '${key}' is ignored${didYouMean(key, known)} (known fields: ${known.join(', ')})`);
    }
  }
}

/** A YAML file read: its value, and the line of a field (null when the file has no such node). */
export interface YamlText {
  root: unknown;
  lineOf(at: FieldPath): number | null;
}

/**
 * Parses YAML text (BOM and CRLF taken) with line tracking. A syntax error, or a document that cannot be turned into
 * values (aliases that expand past the parser's limit, nesting too deep for the stack), is a problem of the file
 * instead of an exception: one bad file never stops the others from loading.
 */
export function parseYaml(raw: string, path: string): YamlText | { problems: ContentProblem[] } {
  const lineCounter = new LineCounter();
  const text = normalizeText(raw);
  let doc: ReturnType<typeof parseDocument>;
  try {
    // `merge`: YAML 1.1's `<<: *base` merge keys, which people use to share fields between agents or steps.
    // `logLevel: 'error'`: the parser's warnings (a mapping used as a key, as `{{ x }}` is) went to the process' stderr
    // as Node warnings; what matters in them comes back as this file's problems.
    doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true, merge: true, logLevel: 'error' });
  } catch (ex) {
    return { problems: [unreadableYaml(path, ex)] };
  }
  if (doc.errors.length > 0) {
    // The parser places an error it meets at the end (a quote or bracket never closed) after a final newline: on a line
    // past the file's last, which an editor cannot go to. It is the last line, and the message says the end.
    const lastLine = Math.max(1, text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
    // Only the first error is reported: the parser goes on after it and reports the rest of the file token by token
    // (one `${{ x }}` in a `{ ... }` gave 70 lines), which buries the one line to fix.
    const e = doc.errors[0]!;
    const line = e.linePos?.[0].line ?? null;
    const atEnd = e.pos[0] >= text.length;
    const more = doc.errors.length - 1;
    const lineText = line === null ? '' : text.split('\n')[line - 1] ?? '';
    const hint = e.code !== 'MULTIPLE_DOCS' && lineText.includes('{{')
      ? '; a value holding {{ }} or ${{ }} is read as YAML braces unless it is quoted: write it in quotes, as "echo ${{ name }}"'
      : '';
    const after = more > 0 ? ` (${more} more YAML error${more > 1 ? 's' : ''} after it, most often caused by this one: fix it first)` : '';
    return {
      problems: [{
        path, line: line === null ? null : Math.min(line, lastLine),
        message: e.code === 'MULTIPLE_DOCS'
          ? 'YAML syntax error: the file holds more than one YAML document (a "---" line starts another); keep one: remove the "---" and what follows it, or move it to a file of its own'
          : `YAML syntax error: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}${atEnd ? ' (at the end of the file)' : ''}${hint}${after}`,
      }],
    };
  }
  let root: unknown;
  try {
    root = doc.toJS();
  } catch (ex) {
    return { problems: [unreadableYaml(path, ex)] };
  }
  const lineOf = (at: FieldPath): number | null => {
    for (let n = at.length; n >= 0; n--) {
      const node: unknown = n === 0 ? doc.contents : doc.getIn(at.slice(0, n), true);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range) return lineCounter.linePos(range[0]).line;
    }
    return null;
  };
  return { root, lineOf };
}

/** The problem of a YAML file the parser gave up on (not a syntax error: too many aliases, too deep). */
function unreadableYaml(path: string, ex: unknown): ContentProblem {
  const message = (ex as Error).message ?? String(ex);
  const why = /alias count/i.test(message)
    ? 'its aliases (*name) expand to more than the YAML parser takes (an alias of an alias of ...); write the values out, or use fewer aliases'
    : ex instanceof RangeError
      ? 'it is nested too deeply to read; flatten it'
      : message;
  return { path, line: null, message: `YAML could not be read: ${why}` };
}

/** Text with a BOM removed and CRLF/CR line ends made LF, so parsers and line numbers agree. */
export function normalizeText(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

/** A short description of a value's type for messages. */
export function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return v.trim() === '' ? 'an empty string' : `the string "${v.length > 40 ? v.slice(0, 40) + '…' : v}"`;
  if (typeof v === 'number') return `the number ${v}`;
  if (typeof v === 'boolean') return `${v}`;
  if (v instanceof Date) return 'a date';
  return 'a mapping';
}

/** Whether `v` is a plain mapping (not a list, scalar or date). */
export function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** The file name without directories or extension, used as the default name. */
export function baseName(relativePath: string): string {
  const file = relativePath.slice(relativePath.lastIndexOf('/') + 1);
  const dot = file.lastIndexOf('.');
  return dot > 0 ? file.slice(0, dot) : file;
}
