// A channel message split into plain text and the @mentions to highlight (those the entry records: an address or a
// name in backticks is not a mention). Shared by the panel's webview and its tests; pure.

/** A run of a message: plain text, or an @mention of an agent. */
export interface MessageSegment {
  text: string;
  mention: boolean;
}

/** Splits `message` at each `@name` whose name is in `mentions` (not inside `code`, not part of an address). */
export function mentionSegments(message: string, mentions: readonly string[]): MessageSegment[] {
  const out: MessageSegment[] = [];
  const push = (text: string, mention: boolean) => {
    if (!text) return;
    const last = out[out.length - 1];
    if (last && !last.mention && !mention) last.text += text;
    else out.push({ text, mention });
  };
  if (!mentions.length) return message ? [{ text: message, mention: false }] : [];
  const names = new Set(mentions);
  // Code spans are kept whole so that a name inside them is never highlighted.
  const pattern = /(`+)[\s\S]*?\1|@([A-Za-z0-9_-]+)/g;
  let at = 0;
  for (const m of message.matchAll(pattern)) {
    const i = m.index ?? 0;
    const name = m[2];
    const before = i > 0 ? message[i - 1]! : '';
    if (name === undefined || !names.has(name) || /[A-Za-z0-9._%+-]/.test(before)) continue;
    push(message.slice(at, i), false);
    push(m[0], true);
    at = i + m[0].length;
  }
  push(message.slice(at), false);
  return out;
}
