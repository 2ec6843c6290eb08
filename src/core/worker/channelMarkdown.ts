// The channel file's encoding (the file provider's channel.md), readable as the spec shows it and parsed back exactly.
//
//   ### 10:00:05 [reviewer] <!-- 2024-01-15T10:00:05.123Z -->
//   @coder found auth validation issue in line 42
//
// Each entry is a blank line, a header line and the message. The header starts as the spec's `### HH:MM:SS [from]`
// (UTC) and ends with the full ISO timestamp in an HTML comment, which markdown viewers hide. The message follows
// verbatim, except that a message line that could be taken for a header (`### dd:dd:dd [`, after any backslashes)
// gets one more leading backslash, removed again on reading; so messages may hold any markdown, headings included.
// Mentions are not stored: they are derived from the message and the team's agents when the file is read.
import { extractMentions } from './mentions.js';
import type { ChannelEntry } from './types.js';

const HEADER = /^### (\d\d:\d\d:\d\d) \[([^\]\n]+)\] <!-- (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) -->$/;
const HEADER_LIKE = /^(\\*)(### \d\d:\d\d:\d\d \[)/;

/** One entry as appended to the channel file (a single write, so that concurrent appends never interleave). */
export function formatChannelEntry(entry: Pick<ChannelEntry, 'timestamp' | 'from' | 'message'>): string {
  const body = entry.message.split('\n').map((line) => line.replace(HEADER_LIKE, '\\$1$2')).join('\n');
  return `\n### ${entry.timestamp.slice(11, 19)} [${entry.from}] <!-- ${entry.timestamp} -->\n${body}\n`;
}

/** The entries of a channel file, in file order; text before the first header (a title, say) is ignored. */
export function parseChannelMarkdown(text: string, validAgents: readonly string[]): ChannelEntry[] {
  const lines = text.split('\n');
  const out: ChannelEntry[] = [];
  let current: { timestamp: string; from: string; body: string[] } | undefined;
  const flush = () => {
    if (!current) return;
    // The entry's closing newline (followed by the next entry's opening one, or the end of the file) leaves exactly
    // one empty line after the message.
    const body = current.body.at(-1) === '' ? current.body.slice(0, -1) : current.body;
    const message = body.map((line) => line.replace(/^\\(\\*### \d\d:\d\d:\d\d \[)/, '$1')).join('\n');
    out.push({ timestamp: current.timestamp, from: current.from, message, mentions: extractMentions(message, validAgents) });
  };
  for (const line of lines) {
    const m = HEADER.exec(line);
    if (m && m[1] === m[3]!.slice(11, 19)) {
      flush();
      current = { timestamp: m[3]!, from: m[2]!, body: [] };
    } else if (current) current.body.push(line);
  }
  flush();
  return out;
}

/** The timestamp of the last entry header in `text` (the tail of a channel file), if any. */
export function lastChannelTimestamp(text: string): string | undefined {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = HEADER.exec(lines[i]!);
    if (m && m[1] === m[3]!.slice(11, 19)) return m[3];
  }
  return undefined;
}
