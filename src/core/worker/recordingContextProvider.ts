// A ContextProvider that records what passes through it in Baton's database (TeamRuns): every channel entry, every
// read-cursor move, every document change. The wrapped provider stays the team's own record: a failed recording is
// logged and caught up later (TeamRuns.sync), never turned into a failed channel write.
import type { Log } from '../ports.js';
import { utf8Length } from '../utf8.js';
import type { TeamRuns } from './teamRuns.js';
import type { ChannelEntry, ContextProvider, InboxMessage } from './types.js';

/** The recording wrapper TeamRuns.attach returns. */
export class RecordingContextProvider implements ContextProvider {
  constructor(
    /** The wrapped provider. */
    readonly inner: ContextProvider,
    private readonly teams: TeamRuns,
    private readonly runId: string,
    private readonly log: Log,
  ) {}

  private async note(what: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (ex) {
      this.log.error(`recording ${what} of team run ${this.runId} failed`, ex);
    }
  }

  async appendChannel(from: string, message: string): Promise<ChannelEntry> {
    const entry = await this.inner.appendChannel(from, message);
    await this.note('a channel entry', () => this.teams.record(this.runId, [entry]));
    return entry;
  }

  readChannel(since?: string, limit?: number): Promise<ChannelEntry[]> {
    return this.inner.readChannel(since, limit);
  }

  getInbox(agent: string): Promise<InboxMessage[]> {
    return this.inner.getInbox(agent);
  }

  async ackInbox(agent: string, until: string): Promise<void> {
    await this.inner.ackInbox(agent, until);
    await this.note('a read cursor', () => this.teams.recordAck(this.runId, agent, until));
  }

  peekInbox(agent: string): Promise<InboxMessage[]> {
    return this.inner.peekInbox(agent);
  }

  readDocument(file?: string): Promise<string> {
    return this.inner.readDocument(file);
  }

  async writeDocument(content: string, file?: string): Promise<void> {
    await this.inner.writeDocument(content, file);
    await this.note('a document change', () => this.teams.recordDocument(this.runId, 'write', file ?? '(entry point)', utf8Length(content)));
  }

  async appendDocument(content: string, file?: string): Promise<void> {
    await this.inner.appendDocument(content, file);
    await this.note('a document change', () => this.teams.recordDocument(this.runId, 'append', file ?? '(entry point)', utf8Length(content)));
  }

  listDocuments(): Promise<string[]> {
    return this.inner.listDocuments();
  }

  async createDocument(file: string, content: string): Promise<void> {
    await this.inner.createDocument(file, content);
    await this.note('a document change', () => this.teams.recordDocument(this.runId, 'create', file, utf8Length(content)));
  }

  async deleteDocument(file: string): Promise<void> {
    await this.inner.deleteDocument(file);
    await this.note('a document change', () => this.teams.recordDocument(this.runId, 'delete', file, 0));
  }
}
