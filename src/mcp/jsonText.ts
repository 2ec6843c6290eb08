// The JSON text a message arrived as, kept with it where it is passed on unchanged: a forwarding `baton mcp` writes an
// owner's answer (a step result is about 7 KB) to its client as the owner wrote it, instead of serializing again what
// it parsed. Nothing here may import more than types: the stdio front that writes messages runs before the engine.

/**
 * Texts by the message parsed from them; a message whose text is kept is never changed after. One map for the process:
 * the CLI's bundle (the stdio front) and the proxy's (the owner's transport) each have their own copy of this module.
 */
const TEXTS = Symbol.for('baton.jsonTexts');
const texts = ((globalThis as Record<symbol, unknown>)[TEXTS] ??= new WeakMap<object, string>()) as WeakMap<object, string>;

/**
 * Keeps `text` as what `message` is written as; `message` must be what `JSON.parse(text)` gave, unchanged. A text over
 * more than one line is not kept: a message on stdio is one line.
 */
export function keepJsonText(message: object, text: string): void {
  if (text.indexOf('\n') === -1 && text.indexOf('\r') === -1) texts.set(message, text);
}

/** The JSON text kept for `message`, if any. */
export function jsonTextOf(message: object): string | undefined {
  return texts.get(message);
}
