// @mentions, priority and the inbox of ../shared/specs/agent-worker.md ("@Mention System", "Inbox Design"), pure.
// Beyond the spec's pattern, three things are not mentions: names that are not agents of the team, the part after
// the `@` of an e-mail address (`a@b.com` mentions nobody), and anything inside a code span (`inline` or fenced).
import { BatonError } from '../errors.js';
import type { ChannelEntry, InboxMessage } from './types.js';

/** The spec's mention pattern: `@` and a name of letters, digits, `_` and `-`, starting with a letter. */
export const MENTION_PATTERN = /@([a-zA-Z][a-zA-Z0-9_-]*)/g;

/** The spec's urgent keywords. */
export const URGENT_PATTERN = /\b(urgent|asap|blocked|critical)\b/i;

/** A character that, right before `@`, makes it part of a word or an e-mail address rather than a mention. */
const ADDRESS_CHAR = /[A-Za-z0-9._%+-]/;

/** `message` with code spans (fenced blocks and inline `code`) blanked out, so their contents mention nobody. */
export function withoutCode(message: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  // A fence runs from ``` or ~~~ at a line start to the same fence or the end of the message (CommonMark).
  const unfenced = message.replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[`~]*[ \t]*$|(?![\s\S]))/gm, blank);
  return blankInlineCode(unfenced);
}

/** Blanks inline code spans: a run of backticks up to the next run of the same length (CommonMark), in linear time. */
function blankInlineCode(text: string): string {
  const runs: Array<{ start: number; end: number }> = [];
  for (const m of text.matchAll(/`+/g)) runs.push({ start: m.index, end: m.index + m[0].length });
  // For each run, the index of the next run of the same length (or -1).
  const next = new Array<number>(runs.length).fill(-1);
  const seen = new Map<number, number>();
  for (let i = runs.length - 1; i >= 0; i--) {
    const len = runs[i]!.end - runs[i]!.start;
    next[i] = seen.get(len) ?? -1;
    seen.set(len, i);
  }
  let out = '';
  let at = 0;
  for (let i = 0; i < runs.length; i++) {
    const j = next[i]!;
    if (j < 0) continue; // an unmatched run is literal text
    out += text.slice(at, runs[i]!.start) + text.slice(runs[i]!.start, runs[j]!.end).replace(/[^\n]/g, ' ');
    at = runs[j]!.end;
    i = j;
  }
  return out + text.slice(at);
}

/** Every name `message` @mentions outside code (an e-mail address is none), in order of first mention, without repeats. */
export function mentionedNames(message: string): string[] {
  const text = withoutCode(message);
  const names: string[] = [];
  for (const match of text.matchAll(MENTION_PATTERN)) {
    const before = match.index > 0 ? text[match.index - 1]! : '';
    if (before && ADDRESS_CHAR.test(before)) continue;
    if (!names.includes(match[1]!)) names.push(match[1]!);
  }
  return names;
}

/** The agents of `validAgents` that `message` @mentions, in order of first mention, without repeats. */
export function extractMentions(message: string, validAgents: readonly string[]): string[] {
  return mentionedNames(message).filter((name) => validAgents.includes(name));
}

/** The spec's priority: several mentions (coordination) or an urgent keyword make a message high priority. */
export function calculatePriority(entry: ChannelEntry): 'normal' | 'high' {
  if (entry.mentions.length > 1) return 'high';
  if (URGENT_PATTERN.test(entry.message)) return 'high';
  return 'normal';
}

/**
 * `agent`'s inbox: the entries after its read cursor (an ISO timestamp; none → everything) that mention it, oldest
 * first. An agent's own messages never land in its inbox, so that mentioning itself cannot wake it in a loop.
 */
export function deriveInbox(entries: readonly ChannelEntry[], agent: string, cursor: string | undefined): InboxMessage[] {
  return entries
    .filter((e) => (cursor === undefined || e.timestamp > cursor) && e.from !== agent && e.mentions.includes(agent))
    .map((entry) => ({ entry, unread: true, priority: calculatePriority(entry) }));
}

/** The cursor after acknowledging up to `until`: cursors never move backwards, nor past the newest entry. */
export function advanceCursor(current: string | undefined, until: string, newest: string | undefined): string | undefined {
  const capped = newest !== undefined && until > newest ? newest : until;
  if (newest === undefined) return current;
  return current !== undefined && current >= capped ? current : capped;
}

/** `value` as a canonical ISO timestamp (`…T10:05:00Z` → `…T10:05:00.000Z`), so that timestamps compare as text. */
export function normalizeTimestamp(value: string, field = 'until'): string {
  const ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new BatonError('invalid_input', `${field} must be an ISO timestamp such as 2024-01-15T10:05:00.000Z (a channel entry's timestamp), got ${JSON.stringify(value.slice(0, 40))}`);
  }
  return new Date(ms).toISOString();
}
