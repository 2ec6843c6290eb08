// Bounds and path rules every context provider applies, so that the memory and file providers refuse the same
// input with the same messages: message and document sizes, sender names, and document paths that stay inside the
// context (relative, no `..`, no absolute or drive paths, not the channel or the provider's own state files).
import { BatonError } from '../errors.js';
import { utf8Length } from '../utf8.js';

/** Size limits of a team's context. */
export const CONTEXT_LIMITS = {
  /** One channel message. */
  messageBytes: 64 * 1024,
  /** One document. */
  documentBytes: 1024 * 1024,
  /** Documents in one context. */
  documents: 500,
  /** A document path. */
  pathChars: 200,
  /** Entries one read returns at most. */
  readEntries: 1000,
} as const;

/** Who may write to a channel: an agent name, 'system', or a person's name (no spaces, brackets or line breaks). */
export const SENDER_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** Throws unless `from` is a valid sender name. */
export function checkSender(from: string): void {
  if (!SENDER_PATTERN.test(from)) {
    throw new BatonError('invalid_input', `sender ${JSON.stringify(from.slice(0, 70))} is not a valid name: use a letter, then letters, digits, '_', '.' or '-' (at most 64)`);
  }
}

/** Throws unless `message` fits in a channel entry. */
export function checkMessage(message: string): void {
  const bytes = utf8Length(message);
  if (bytes > CONTEXT_LIMITS.messageBytes) {
    throw new BatonError('invalid_input', `message is ${bytes} bytes; a channel message holds at most ${CONTEXT_LIMITS.messageBytes / 1024} KB. Put long content in a document (document_write or document_create) and mention it in a short message.`);
  }
}

/** Throws unless `content` (text, or its size in bytes) fits in a document. */
export function checkDocumentSize(content: string | number, file: string): void {
  const bytes = typeof content === 'number' ? content : utf8Length(content);
  if (bytes > CONTEXT_LIMITS.documentBytes) {
    throw new BatonError('invalid_input', `document ${file} would be ${bytes} bytes; a document holds at most ${CONTEXT_LIMITS.documentBytes / 1024 / 1024} MB. Split it into several documents (document_create).`);
  }
}

/**
 * `file` as a clean relative path (`/`-separated) inside the context, or a BatonError naming the fix. `reserved`
 * are the paths that are not documents (the channel file, the provider's state files).
 */
export function normalizeDocumentPath(file: string, reserved: readonly string[] = []): string {
  const refuse = (why: string) => {
    throw new BatonError('invalid_input', `document path ${JSON.stringify(file.slice(0, 80))} ${why}. Use a path relative to the context directory, such as notes.md or findings/auth.md.`);
  };
  if (file.trim() === '') refuse('is empty');
  if (file.length > CONTEXT_LIMITS.pathChars) refuse(`is longer than ${CONTEXT_LIMITS.pathChars} characters`);
  if (/[\0-\x1f]/.test(file)) refuse('holds control characters');
  if (file.startsWith('/') || file.startsWith('\\') || /^[A-Za-z]:/.test(file)) refuse('is absolute; documents stay inside the context directory');
  const parts = file.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) refuse("leaves the context directory ('..'); documents stay inside it");
  if (parts.length === 0) refuse('names no file');
  const clean = parts.join('/');
  if (reserved.includes(clean) || parts.some((p) => p.startsWith('.baton-'))) refuse('is the channel or the provider\'s own state, not a document; use channel_send / channel_read for the channel');
  return clean;
}
