// Parses agent personas and rules: markdown files with YAML frontmatter.
import frontMatter from 'front-matter';
import type { ContentProblem } from '../api.js';
import type { AgentDefinition, RuleDefinition } from '../types.js';
import { FieldReader, describe, isMapping, normalizeText, type FieldPath } from './fieldReader.js';

/** The lines the guardrail parser keys on: `- **KEYWORD** …`. */
export const GUARDRAIL_LINE = /- \*\*(NEVER|PROTECT|ALWAYS|MUST|VALIDATE)\*\*/;
const GUARDRAIL_NEAR_MISS = /^\s*[-*+]\s*\*{0,2}(never|protect|always|must|validate)\b/i;
const RULE_FIELDS = ['name', 'description', 'tags', 'always_apply', 'alwaysApply', 'globs'] as const;

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
  try {
    parsed = frontMatter<unknown>(text);
  } catch (ex) {
    const e = ex as { mark?: { line?: number }; reason?: string; message?: string };
    // js-yaml counts from 0 within the frontmatter, which front-matter trims of leading blank lines.
    const firstField = lines.findIndex((l, i) => i > 0 && l.trim() !== '');
    const line = e.mark?.line !== undefined ? Math.min(e.mark.line + firstField + 1, fmEnd) : null;
    const reason = e.reason ?? String(e.message ?? ex).split('\n')[0];
    return { path, line, message: `frontmatter YAML error: ${reason}` };
  }
  const reader = new FieldReader(path, lineOf);
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
  const globs = r.stringList(a, [], 'globs', 'rule', /,/);
  if (body === '') r.error([], 'rule: the rule has no body; write guardrail lines below the frontmatter, such as "- **NEVER** commit secrets"');
  checkGuardrailLines(r, body, s.bodyLine - 1);
  if (r.fatal || name === undefined) return { item: undefined, problems: r.problems };
  return { item: { name, description, tags, always_apply: alwaysApply, globs, content: body }, problems: r.problems };
}

/** Warns about lines that look like guardrails but that the guardrail parser will not recognise. */
function checkGuardrailLines(r: FieldReader, body: string, bodyOffset: number): void {
  const lines = body.split('\n');
  let recognised = 0;
  lines.forEach((line, i) => {
    if (GUARDRAIL_LINE.test(line)) {
      recognised++;
    } else if (GUARDRAIL_NEAR_MISS.test(line)) {
      r.warnAtLine(
        bodyOffset + i + 1,
        'rule: this line looks like a guardrail but is not recognised; write it exactly as "- **NEVER** …" (also PROTECT, ALWAYS, MUST, VALIDATE, in capitals and bold)',
      );
    }
  });
  if (recognised === 0 && body !== '') {
    r.warn([], 'rule: no guardrail lines ("- **NEVER** …", "- **ALWAYS** …"); the rule is shown in guardrails://active but adds nothing to step contracts');
  }
}
