// An agent step's streamed text and tool calls as a person reads them, one rule for everyone who keeps them: the
// editor's live feed and the run's record of an attempt that was stopped, so the owner's window and a follower's show
// the same.

/** Characters of a stopped attempt's streamed text the run keeps: its tail, more than the panel shows (it cuts it). */
export const STOPPED_TEXT_CHARS = 8_000;

/**
 * `text` with the next streamed `piece`, cut to its last `max` characters: whole messages and lines go one per line,
 * the pieces of a message still being written (`delta`) run on.
 */
export function appendStreamed(text: string, piece: string, delta: boolean, max: number): string {
  return (text && !delta && !text.endsWith('\n') ? `${text}\n${piece}` : text + piece).slice(-max);
}

/** Tool calls of a stopped attempt the run keeps (the last ones). */
export const STOPPED_TOOL_CALLS = 100;

/** Adds a tool call to `calls` as listed ("server/tool", or the CLI's own tool alone), keeping the last `max`. */
export function pushToolCall(calls: string[], name: string, server: string | null, max: number): void {
  calls.push(server ? `${server}/${name}` : name);
  if (calls.length > max) calls.shift();
}
