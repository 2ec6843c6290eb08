// Parses agent personas and rules: markdown files with YAML frontmatter.
import frontMatter from 'front-matter';
import { parse as parseYaml } from 'yaml';
import type { ContentProblem } from '../api.js';
import { errorMessage } from '../errors.js';
import type { AgentDefinition, RuleDefinition } from '../types.js';
import { FieldReader, describe, isMapping, normalizeText, type FieldPath } from './fieldReader.js';

/**
 * The lines the guardrail parser (broker/guardrails) keys on: `- **KEYWORD** …` (or `*`/`+` bullets, any indentation),
 * the keyword matched case-insensitively. One pattern for both, so the loader's warnings and the contracts agree.
 */
export const GUARDRAIL_LINE = /^\s*[-*+]\s+\*\*(NEVER|PROTECT|MUST NOT|DO NOT|ALWAYS|MUST|VALIDATE)\*\*/i;
/** A line that opens or closes a code block, as the guardrail parser and the loader's check of its lines skip them. */
export const CODE_FENCE = /^\s*(```|~~~)/;
const GUARDRAIL_NEAR_MISS = /^\s*[-*+]\s*\*{0,2}(never|protect|always|must|validate|do not)\b/i;
/** Copilot's `*.instructions.md` say where they apply with `applyTo` (comma-separated globs), Cursor's with `globs`. */
const RULE_FIELDS = ['name', 'description', 'tags', 'always_apply', 'alwaysApply', 'globs', 'applyTo'] as const;
/** A top-level `key:` line of frontmatter. */
const TOP_KEY = /^([A-Za-z_][\w-]*):(?:[ \t]+(.*))?$/;

/** A parsed content file: the item when valid, and every problem found. */
export interface ParsedItem<T> {
  item: T | undefined;
  problems: ContentProblem[];
}

interface Split {
  attributes: Record<string, unknown>;
  body: string;
  /** 1-based line of the body's first line. */
  bodyLine: number;
  reader: FieldReader;
}

/**
 * Frontmatter that is not valid YAML read as the other tools read it, line by line: each top-level `key:` takes the
 * lines up to the next one; a value that is valid YAML on its own is read as YAML (a quoted string, a list, a nested
 * mapping), any other as its text. Claude Code writes `description: Use this agent when: … Examples: <example>…`
 * and Cursor `globs: **\/*.ts, **\/*.tsx`, neither of them YAML (a ': ' inside, a '*' that YAML reads as an alias).
 * Undefined when a line before the first key is not blank, or a key comes twice: then it is the YAML error as it is.
 */
function lenientFrontMatter(lines: readonly string[]): Record<string, unknown> | undefined {
  const blocks: Array<{ key: string; first: string; more: string[] }> = [];
  for (const line of lines) {
    const m = TOP_KEY.exec(line);
    if (m) {
      if (blocks.some((b) => b.key === m[1])) return undefined;
      blocks.push({ key: m[1]!, first: (m[2] ?? '').trim(), more: [] });
    } else if (blocks.length > 0) {
      blocks.at(-1)!.more.push(line);
    } else if (line.trim() !== '' && !line.trim().startsWith('#')) {
      return undefined;
    }
  }
  if (blocks.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const b of blocks) {
    const raw = [b.first, ...b.more].join('\n').trim();
    try {
      out[b.key] = parseYaml(`${b.key}:${b.first === '' ? '' : ' '}${[b.first, ...b.more].join('\n')}`)?.[b.key];
    } catch {
      out[b.key] = raw.split('\n').map((l) => l.trim()).join('\n');
    }
  }
  return out;
}

/** Splits frontmatter from body; reports bad frontmatter with its file line. */
function split(raw: string, path: string): Split | ContentProblem {
  const text = normalizeText(raw);
  const lines = text.split('\n');
  // Frontmatter keys are located by their line so field problems point at them.
  const fmEnd = lines[0]?.trim() === '---' ? lines.findIndex((l, i) => i > 0 && (l.trim() === '---' || l.trim() === '...')) : -1;
  const lineOf = (at: FieldPath): number | null => {
    if (fmEnd < 0) return null;
    const key = at[0];
    const i = typeof key === 'string' ? lines.findIndex((l, n) => n > 0 && n < fmEnd && l.startsWith(`${key}:`)) : -1;
    return i < 0 ? 1 : i + 1;
  };
  if (lines[0]?.trim() === '---' && fmEnd < 0) {
    return { path, line: 1, message: "frontmatter opened with '---' on line 1 is never closed; add a line with '---' after the last field" };
  }
  let parsed: { attributes: unknown; body: string };
  let lenient: ContentProblem | undefined;
  try {
    parsed = frontMatter<unknown>(text);
  } catch (ex) {
    const e = ex as { mark?: { line?: number }; reason?: string; message?: string };
    // js-yaml counts from 0 within the frontmatter, which front-matter trims of leading blank lines.
    const firstField = lines.findIndex((l, i) => i > 0 && l.trim() !== '');
    const line = e.mark?.line !== undefined ? Math.min(e.mark.line + firstField + 1, fmEnd) : null;
    const reason = e.reason ?? errorMessage(ex).split('\n')[0];
    const attributes = lenientFrontMatter(lines.slice(1, fmEnd));
    if (!attributes) return { path, line, message: `frontmatter YAML error: ${reason}` };
    parsed = { attributes, body: lines.slice(fmEnd + 1).join('\n') };
    lenient = {
      path, line,
      message: `frontmatter is not valid YAML (${reason}), so it was read line by line as 'key: value' (as Claude Code and Cursor read it); to make it YAML, quote a value that holds ': ' or starts with '*', such as description: "…"`,
    };
  }
  const reader = new FieldReader(path, lineOf);
  if (lenient) reader.warnAtLine(lenient.line, lenient.message);
  const attributes = parsed.attributes ?? {};
  if (!isMapping(attributes)) {
    return { path, line: 2, message: `frontmatter must be a mapping of fields (name, description, …), got ${describe(attributes)}` };
  }
  const body = parsed.body.trim();
  const bodyLine = body === '' ? 1 : text.slice(0, text.indexOf(body)).split('\n').length;
  return { attributes, body, bodyLine, reader };
}

/** Parses an agent persona (`agents/NAME.md`). */
export function parseAgentFile(text: string, path: string, fallbackName: string): ParsedItem<AgentDefinition> {
  const s = split(text, path);
  if (!('reader' in s)) return { item: undefined, problems: [s] };
  const { attributes: a, body, reader: r } = s;
  const name = r.name(a, [], 'agent', fallbackName);
  let description = r.string(a, [], 'description', 'agent', 'a one-line summary of the role', false);
  if (body === '') r.error([], 'agent: the persona has no body; write it below the frontmatter (# Name Agent, **Role**:, ## Capabilities, ## Guidelines)');
  if (description === undefined && !r.fatal) {
    description = /^\*\*Role\*\*:\s*(.+)$/m.exec(body)?.[1]?.trim();
    if (description === undefined) r.warn([], "agent: no 'description' in the frontmatter and no '**Role**:' line to take one from; agents see an empty summary");
  }
  if (r.fatal || name === undefined) return { item: undefined, problems: r.problems };
  return { item: { name, description: description ?? '', content: body }, problems: r.problems };
}

/** Parses a rule (`rules/NAME.md`); Cursor-style `alwaysApply` and comma-separated `globs` are accepted. */
export function parseRuleFile(text: string, path: string, fallbackName: string): ParsedItem<RuleDefinition> {
  const s = split(text, path);
  if (!('reader' in s)) return { item: undefined, problems: [s] };
  const { attributes: a, body, reader: r } = s;
  r.unknownKeys(a, [], 'rule', RULE_FIELDS);
  const name = r.name(a, [], 'rule', fallbackName);
  const description = r.string(a, [], 'description', 'rule', 'a one-line summary of the rule', false) ?? '';
  const tags = r.stringList(a, [], 'tags', 'rule');
  const alwaysKey = a['always_apply'] === undefined && a['alwaysApply'] !== undefined ? 'alwaysApply' : 'always_apply';
  const alwaysApply = r.boolean(a, [], alwaysKey, 'rule', false);
  const globs = r.stringList(a, [], a['globs'] === undefined && a['applyTo'] !== undefined ? 'applyTo' : 'globs', 'rule', /,/);
  if (body === '') r.error([], 'rule: the rule has no body; write guardrail lines below the frontmatter, such as "- **NEVER** commit secrets"');
  checkGuardrailLines(r, body, s.bodyLine - 1);
  if (r.fatal || name === undefined) return { item: undefined, problems: r.problems };
  return { item: { name, description, tags, always_apply: alwaysApply, globs, content: body }, problems: r.problems };
}

/** Warns about lines that look like guardrails but that the guardrail parser will not recognise (code blocks aside). */
function checkGuardrailLines(r: FieldReader, body: string, bodyOffset: number): void {
  const lines = body.split('\n');
  let recognised = 0;
  let fenced = false;
  lines.forEach((line, i) => {
    if (CODE_FENCE.test(line)) fenced = !fenced;
    if (fenced) return;
    if (GUARDRAIL_LINE.test(line)) {
      recognised++;
    } else if (GUARDRAIL_NEAR_MISS.test(line)) {
      r.warnAtLine(
        bodyOffset + i + 1,
        'rule: this line looks like a guardrail but is not recognised; write it as "- **NEVER** …", the keyword in bold right after the bullet (also PROTECT, MUST NOT, DO NOT, ALWAYS, MUST, VALIDATE)',
      );
    }
  });
  if (recognised === 0 && body !== '') {
    r.warn([], 'rule: no guardrail lines ("- **NEVER** …", "- **ALWAYS** …"); the rule is shown in guardrails://active but adds nothing to step contracts');
  }
}
