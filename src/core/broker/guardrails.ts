// Turns rule markdown into forbidden / required / validation actions, and picks the most critical for a contract.
import { CODE_FENCE as FENCE, GUARDRAIL_LINE as ACTION_LINE } from '../content/markdownFile.js';

/** Actions found in active rules, by kind. */
export interface ParsedGuardrails {
  forbidden_actions: string[];
  required_actions: string[];
  validation_requirements: string[];
  source_rules: string[];
}

type Kind = 'forbidden' | 'required' | 'validation';

const BULLET_LINE = /^\s*[-*+]\s+\S/;

const KIND_OF: Record<string, Kind> = {
  'NEVER': 'forbidden', 'PROTECT': 'forbidden', 'MUST NOT': 'forbidden', 'DO NOT': 'forbidden',
  'ALWAYS': 'required', 'MUST': 'required',
  'VALIDATE': 'validation',
};

/** Spec priority keywords: each contained keyword adds its weight. */
const PRIORITY = {
  high: ['secret', 'credential', 'password', 'token', 'key', 'delete', 'drop', 'truncate', 'destroy', 'eval', 'exec', 'execute'],
  medium: ['push', 'deploy', 'production', 'commit', 'permission'],
} as const;

/** Lines outside fenced code blocks. */
function proseLines(content: string): string[] {
  const out: string[] = [];
  let inFence = false;
  for (const line of content.split(/\r?\n/)) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (!inFence) out.push(line);
  }
  return out;
}

/** "- **NEVER** commit secrets" → "NEVER commit secrets". */
function extractAction(line: string): string {
  return line.replace(/^\s*[-*+]\s+/, '').replace(/\*\*/g, '').replace(/\s+/g, ' ').trim();
}

function pushUnique(list: string[], value: string): void {
  if (value !== '' && !list.includes(value)) list.push(value);
}

/** Extracts NEVER/PROTECT/MUST NOT (forbidden), ALWAYS/MUST (required) and VALIDATE bullets from rules. */
export function parseGuardrails(rules: Array<{ name: string; content: string }>): ParsedGuardrails {
  const lists: Record<Kind, string[]> = { forbidden: [], required: [], validation: [] };
  const sources: string[] = [];
  for (const rule of rules) {
    pushUnique(sources, rule.name);
    for (const line of proseLines(rule.content)) {
      const keyword = ACTION_LINE.exec(line)?.[1];
      if (keyword === undefined) continue;
      const kind = KIND_OF[keyword.toUpperCase().replace(/\s+/g, ' ')];
      if (kind) pushUnique(lists[kind], extractAction(line));
    }
  }
  return {
    forbidden_actions: lists.forbidden,
    required_actions: lists.required,
    validation_requirements: lists.validation,
    source_rules: sources,
  };
}

function criticality(action: string): number {
  const lower = action.toLowerCase();
  let score = 0;
  for (const keyword of PRIORITY.high) if (lower.includes(keyword)) score += 10;
  for (const keyword of PRIORITY.medium) if (lower.includes(keyword)) score += 5;
  return score;
}

/** The `limit` most critical forbidden actions (spec keyword weights: high 10, medium 5), score desc then alphabetical. */
export function getTopForbiddenActions(parsed: ParsedGuardrails, limit = 5): string[] {
  return parsed.forbidden_actions
    .map((action) => ({ action, score: criticality(action) }))
    .sort((a, b) => b.score - a.score || (a.action < b.action ? -1 : a.action > b.action ? 1 : 0))
    .slice(0, Math.max(0, limit))
    .map((s) => s.action);
}

/** The rule's title: its first `# ` heading, else its name. */
function ruleTitle(rule: { name: string; content: string }): string {
  for (const line of proseLines(rule.content)) {
    const m = /^#\s+(.+?)\s*#*\s*$/.exec(line);
    if (m?.[1]) return m[1];
  }
  return rule.name;
}

/** The rule's bullet lines; a rule without bullets keeps its prose (minus headings) so nothing is lost. */
function ruleBody(rule: { content: string }): string {
  const lines = proseLines(rule.content).map((l) => l.trimEnd());
  const bullets = lines.filter((l) => BULLET_LINE.test(l));
  if (bullets.length > 0) return bullets.join('\n');
  return lines.filter((l) => !/^\s*#/.test(l)).join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

/** The `guardrails://active` markdown: "# Active Guardrails" then one "## Rule: <title>" section per rule. */
export function renderGuardrailsMarkdown(rules: Array<{ name: string; content: string }>): string {
  if (rules.length === 0) return '# Active Guardrails\n\nNo active rules.\n';
  const sections = rules.map((rule) => {
    const body = ruleBody(rule);
    return `## Rule: ${ruleTitle(rule)}${body ? `\n\n${body}` : ''}`;
  });
  return `# Active Guardrails\n\n${sections.join('\n\n')}\n`;
}
