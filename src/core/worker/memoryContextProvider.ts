// The spec's MemoryContextProvider: a team's channel, read cursors and documents in memory (tests, throwaway teams).
// Same rules as the file provider (src/host/worker/fileContextProvider.ts): strictly increasing timestamps from an
// injected clock, size limits, document paths inside the context.
import { BatonError } from '../errors.js';
import type { Clock } from '../ports.js';
import { channelWindow, nextTimestamp } from './channel.js';
import { checkDocumentSize, checkMessage, checkSender, CONTEXT_LIMITS, normalizeDocumentPath } from './contextLimits.js';
import { advanceCursor, deriveInbox, extractMentions, normalizeTimestamp } from './mentions.js';
import type { ChannelEntry, ContextProvider, InboxMessage } from './types.js';

/** Options of a context provider. */
export interface ContextProviderOptions {
  /** The team's agents: only they can be @mentioned. */
  agents: readonly string[];
  /** The entry-point document; `notes.md` unless set. */
  document?: string;
  /** Further documents that exist (empty) from the start (the spec's `documents:` list). */
  documents?: readonly string[];
  /** Time; the system clock unless set. */
  clock?: Clock;
}

/** A context held in memory. */
export class MemoryContextProvider implements ContextProvider {
  private readonly channel: ChannelEntry[] = [];
  private readonly cursors = new Map<string, string>();
  private readonly docs = new Map<string, string>();
  private readonly entry: string;
  private readonly clock: Clock;

  constructor(private readonly options: ContextProviderOptions) {
    this.entry = normalizeDocumentPath(options.document ?? 'notes.md');
    this.clock = options.clock ?? { now: () => Date.now() };
    for (const d of options.documents ?? []) this.docs.set(normalizeDocumentPath(d), '');
  }

  async appendChannel(from: string, message: string): Promise<ChannelEntry> {
    checkSender(from);
    checkMessage(message);
    const timestamp = nextTimestamp(this.clock.now(), this.channel.at(-1)?.timestamp);
    const entry: ChannelEntry = { timestamp, from, message, mentions: extractMentions(message, this.options.agents) };
    this.channel.push(entry);
    return { ...entry, mentions: [...entry.mentions] };
  }

  async readChannel(since?: string, limit?: number): Promise<ChannelEntry[]> {
    return channelWindow(this.channel, since, limit).map((e) => ({ ...e, mentions: [...e.mentions] }));
  }

  async getInbox(agent: string): Promise<InboxMessage[]> {
    return deriveInbox(this.channel, agent, this.cursors.get(agent));
  }

  async ackInbox(agent: string, until: string): Promise<void> {
    const next = advanceCursor(this.cursors.get(agent), normalizeTimestamp(until), this.channel.at(-1)?.timestamp);
    if (next !== undefined) this.cursors.set(agent, next);
  }

  async peekInbox(agent: string): Promise<InboxMessage[]> {
    return deriveInbox(this.channel, agent, this.cursors.get(agent));
  }

  async readDocument(file?: string): Promise<string> {
    const path = this.path(file);
    const content = this.docs.get(path);
    if (content !== undefined) return content;
    if (path === this.entry) return '';
    throw missingDocument(path, [...this.docs.keys()]);
  }

  async writeDocument(content: string, file?: string): Promise<void> {
    const path = this.path(file);
    checkDocumentSize(content, path);
    if (!this.docs.has(path)) this.checkRoom();
    this.docs.set(path, content);
  }

  async appendDocument(content: string, file?: string): Promise<void> {
    const path = this.path(file);
    const next = (this.docs.get(path) ?? '') + content;
    checkDocumentSize(next, path);
    if (!this.docs.has(path)) this.checkRoom();
    this.docs.set(path, next);
  }

  async listDocuments(): Promise<string[]> {
    return [...new Set([this.entry, ...this.docs.keys()])].sort();
  }

  async createDocument(file: string, content: string): Promise<void> {
    const path = this.path(file);
    if (this.docs.has(path)) throw existingDocument(path);
    checkDocumentSize(content, path);
    this.checkRoom();
    this.docs.set(path, content);
  }

  async deleteDocument(file: string): Promise<void> {
    const path = this.path(file);
    if (path === this.entry) throw entryDocument(path);
    if (!this.docs.delete(path)) throw missingDocument(path, [...this.docs.keys()]);
  }

  private path(file: string | undefined): string {
    return file === undefined ? this.entry : normalizeDocumentPath(file);
  }

  private checkRoom(): void {
    if (this.docs.size >= CONTEXT_LIMITS.documents) throw tooManyDocuments();
  }
}

/** The error for a document that does not exist. */
export function missingDocument(path: string, existing: readonly string[]): BatonError {
  return new BatonError('not_found', `no document ${path}; documents: ${existing.length ? [...existing].sort().join(', ') : '(none)'}. Create it with document_create.`);
}

/** The error for creating a document that exists. */
export function existingDocument(path: string): BatonError {
  return new BatonError('invalid_state', `document ${path} already exists; replace it with document_write or add to it with document_append.`);
}

/** The error for deleting the entry-point document. */
export function entryDocument(path: string): BatonError {
  return new BatonError('invalid_input', `${path} is the entry-point document and cannot be deleted; empty it with document_write instead.`);
}

/** The error for one document too many. */
export function tooManyDocuments(): BatonError {
  return new BatonError('invalid_input', `a context holds at most ${CONTEXT_LIMITS.documents} documents; delete some (document_delete) or merge them.`);
}
