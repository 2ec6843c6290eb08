// The `context` group (../shared/specs/agent-worker.md, "Context MCP Server"): channel_send, channel_read,
// channel_peek, inbox_check, inbox_ack, inbox_peek, document_read/write/append/list/create/delete, and
// channel_mentions (the spec's old name of inbox_check), thin over the ContextProvider of a team run.
//
// Who calls: ONLY the session's RunScope. Baton's team runner registers each team's provider with
// `teamHost(baton).teams.attach(runId, provider)` (src/core/worker/teamRuns.ts) and issues each agent a bearer token
// for { runId, agent } (owner.issueRunToken); a session opened with that token acts as that agent of that run. No tool
// takes a sender or agent argument: the inputs are strict, so an argument such as `from` or `agent` is rejected
// ("unknown field"), and one agent can neither read another's inbox nor post under its name.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { BatonApi } from '../../core/api.js';
import { BatonError } from '../../core/errors.js';
import type { RunScope } from '../../core/pipelines/runner.js';
import type { Log } from '../../core/ports.js';
import { utf8Length } from '../../core/utf8.js';
import { CONTEXT_LIMITS } from '../../core/worker/contextLimits.js';
import { teamHost } from '../../core/worker/host.js';
import type { TeamRegistration } from '../../core/worker/teamRuns.js';
import type { ChannelEntry, InboxMessage } from '../../core/worker/types.js';
import type { ToolSpec } from '../toolSpec.js';
import { registerToolDefs, tool, type ToolDef } from './lifecycleTools.js';

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const ACK: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const SEND: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const DELETE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

/** Entries a read returns unless asked for more. */
const DEFAULT_LIMIT = 50;

const entry = z.object({ timestamp: z.string(), from: z.string(), message: z.string(), mentions: z.array(z.string()) });
const inboxMessage = z.object({ entry, unread: z.boolean(), priority: z.enum(['normal', 'high']) });
const file = z.string().min(1).max(CONTEXT_LIMITS.pathChars);
const fileOpt = file.optional().describe('Document path relative to the context directory (default: the entry-point document).');
const limit = z.number().int().min(1).max(CONTEXT_LIMITS.readEntries).optional().describe(`Newest entries to return (default ${DEFAULT_LIMIT}).`);

const INPUTS = {
  // A blank message would be an entry of nothing in channel.md that wakes no one: more than spaces is due.
  channel_send: z.strictObject({ message: z.string().regex(/\S/).describe('The message; @name mentions a teammate and wakes it.') }),
  channel_read: z.strictObject({ since: z.string().optional().describe('Only entries after this timestamp.'), limit }),
  channel_peek: z.strictObject({ since: z.string().optional().describe('Only entries after this timestamp.'), limit }),
  inbox: z.strictObject({}),
  inbox_ack: z.strictObject({ until: z.string().optional().describe('Timestamp of the last message handled (default: the newest in your inbox).') }),
  document_read: z.strictObject({ file: fileOpt }),
  document_write: z.strictObject({ content: z.string().describe('The new content (replaces the document).'), file: fileOpt }),
  document_append: z.strictObject({ content: z.string().describe('Text to add at the end.'), file: fileOpt }),
  document_list: z.strictObject({}),
  document_create: z.strictObject({ file: file.describe('Path relative to the context directory, e.g. findings/auth.md.'), content: z.string().describe('Initial content.') }),
  document_delete: z.strictObject({ file: file.describe('Path of the document to delete.') }),
};

const OUTPUTS = {
  entry,
  entries: z.object({ entries: z.array(entry), acknowledged: z.string().nullable().optional() }),
  inbox: z.object({ agent: z.string(), messages: z.array(inboxMessage) }),
  ack: z.object({ agent: z.string(), until: z.string().nullable(), remaining: z.number() }),
  document: z.object({ file: z.string(), content: z.string() }),
  changed: z.object({ file: z.string(), bytes: z.number() }),
  list: z.object({ documents: z.array(z.string()) }),
};

const HINTS: Record<string, string> = {
  message: 'a string that is not empty or only spaces (the message to post)',
  since: 'an ISO timestamp such as 2024-01-15T10:05:00.000Z',
  until: 'an ISO timestamp such as 2024-01-15T10:05:00.000Z',
  limit: `a whole number from 1 to ${CONTEXT_LIMITS.readEntries}`,
  file: `a relative path such as notes.md (at most ${CONTEXT_LIMITS.pathChars} characters)`,
  content: 'a string',
};

/** `[2024-01-15T10:00:05.000Z] reviewer: message` lines. */
function render(entries: readonly ChannelEntry[]): string {
  return entries.map((e) => `[${e.timestamp}] ${e.from}: ${e.message}`).join('\n');
}

function renderInbox(agent: string, messages: readonly InboxMessage[]): string {
  if (messages.length === 0) return `No unread messages for ${agent}.`;
  const lines = messages.map((m) => `[${m.entry.timestamp}]${m.priority === 'high' ? ' (high)' : ''} ${m.entry.from}: ${m.entry.message}`);
  return `${messages.length} unread for ${agent}:\n${lines.join('\n')}\nWhen handled: inbox_ack {"until": "${messages.at(-1)!.entry.timestamp}"}`;
}

/** Registers the context tools; `scope` (the session's run and agent) is the only source of the caller's identity. */
export function registerContextTools(server: McpServer, baton: BatonApi, log: Log, scope?: RunScope): ToolSpec[] {
  /** The caller's team and name; a clear error for sessions that are not an agent of a served team. */
  const who = (): { team: TeamRegistration; agent: string } => {
    if (!scope) {
      throw new BatonError('unauthorized', 'The context tools serve the agents of a team run, and this session has no agent identity (it was not opened with an agent\'s run token). Baton gives each agent of `baton run FILE` / `baton start FILE` its own connection; people read a team with `baton peek @INSTANCE` and post with `baton send MESSAGE --to AGENT@INSTANCE`.');
    }
    const team = teamHost(baton)?.teams.get(scope.runId);
    if (!team) throw new BatonError('not_found', `Run ${scope.runId} is not a team run served by this Baton, or it has ended; there is no channel for agent ${scope.agent} here.`);
    return { team, agent: scope.agent };
  };
  const defs: ToolDef[] = [
    tool({
      name: 'channel_send', title: 'Channel: send', input: INPUTS.channel_send, output: OUTPUTS.entry, annotations: SEND,
      description: 'Post a message to the team channel as yourself. @mention a teammate to hand it work or ask it something; it wakes on the mention.',
      run: async (a) => {
        const { team, agent } = who();
        const e = await team.provider.appendChannel(agent, a.message);
        return { structured: e, text: `Sent at ${e.timestamp}${e.mentions.length ? `; mentioned ${e.mentions.map((m) => `@${m}`).join(', ')}` : '; no one mentioned'}.` };
      },
    }),
    tool({
      name: 'channel_read', title: 'Channel: read', input: INPUTS.channel_read, output: OUTPUTS.entries, annotations: ACK,
      description: `Read the channel (who said what), oldest first; also marks your mentions up to the last entry returned as read. Default: the newest ${DEFAULT_LIMIT}.`,
      run: async (a) => {
        const { team, agent } = who();
        const entries = await team.provider.readChannel(a.since, a.limit ?? DEFAULT_LIMIT);
        const last = entries.at(-1)?.timestamp ?? null;
        if (last) await team.provider.ackInbox(agent, last);
        return { structured: { entries, acknowledged: last }, text: entries.length ? render(entries) : 'The channel has no entries yet.' };
      },
    }),
    tool({
      name: 'channel_peek', title: 'Channel: peek', input: INPUTS.channel_peek, output: OUTPUTS.entries, annotations: READ,
      description: 'Read the channel like channel_read without marking anything as read.',
      run: async (a) => {
        const { team } = who();
        const entries = await team.provider.readChannel(a.since, a.limit ?? DEFAULT_LIMIT);
        return { structured: { entries }, text: entries.length ? render(entries) : 'The channel has no entries yet.' };
      },
    }),
    ...(['inbox_check', 'channel_mentions'] as const).map((name) => tool({
      name, title: name === 'inbox_check' ? 'Inbox: check' : 'Channel: mentions', input: INPUTS.inbox, output: OUTPUTS.inbox, annotations: READ,
      description: name === 'inbox_check'
        ? 'Your unread @mentions, oldest first, with priority (high: several mentions or urgent words; handle first). Mark them read with inbox_ack when handled.'
        : 'Same as inbox_check: your unread @mentions.',
      run: async () => {
        const { team, agent } = who();
        const messages = await team.provider.getInbox(agent);
        return { structured: { agent, messages }, text: renderInbox(agent, messages) };
      },
    })),
    tool({
      name: 'inbox_peek', title: 'Inbox: peek', input: INPUTS.inbox, output: OUTPUTS.inbox, annotations: READ,
      description: 'Your unread @mentions, like inbox_check, without side effects.',
      run: async () => {
        const { team, agent } = who();
        const messages = await team.provider.peekInbox(agent);
        return { structured: { agent, messages }, text: renderInbox(agent, messages) };
      },
    }),
    tool({
      name: 'inbox_ack', title: 'Inbox: acknowledge', input: INPUTS.inbox_ack, output: OUTPUTS.ack, annotations: ACK,
      description: 'Mark your mentions up to a timestamp (default: all in your inbox now) as handled.',
      run: async (a) => {
        const { team, agent } = who();
        const until = a.until ?? (await team.provider.getInbox(agent)).at(-1)?.entry.timestamp ?? null;
        if (until !== null) await team.provider.ackInbox(agent, until);
        const remaining = (await team.provider.getInbox(agent)).length;
        return { structured: { agent, until, remaining }, text: `${until ? `Acknowledged up to ${until}` : 'Nothing to acknowledge'}; ${remaining} unread left.` };
      },
    }),
    tool({
      name: 'document_read', title: 'Document: read', input: INPUTS.document_read, output: OUTPUTS.document, annotations: READ,
      description: 'Read the shared document (goals, todos, findings), or another document file by path.',
      run: async (a) => {
        const { team } = who();
        const content = await team.provider.readDocument(a.file);
        return { structured: { file: a.file ?? '', content }, text: content === '' ? `${a.file ?? 'The entry-point document'} is empty.` : content };
      },
    }),
    tool({
      name: 'document_write', title: 'Document: write', input: INPUTS.document_write, output: OUTPUTS.changed, annotations: ACK,
      description: 'Replace a document\'s content (default: the entry-point document); creates it if missing.',
      run: async (a) => {
        const { team } = who();
        await team.provider.writeDocument(a.content, a.file);
        return { structured: { file: a.file ?? '', bytes: utf8Length(a.content) }, text: `Wrote ${a.file ?? 'the entry-point document'}.` };
      },
    }),
    tool({
      name: 'document_append', title: 'Document: append', input: INPUTS.document_append, output: OUTPUTS.changed, annotations: SEND,
      description: 'Add text at the end of a document (default: the entry-point document).',
      run: async (a) => {
        const { team } = who();
        await team.provider.appendDocument(a.content, a.file);
        return { structured: { file: a.file ?? '', bytes: utf8Length(a.content) }, text: `Appended to ${a.file ?? 'the entry-point document'}.` };
      },
    }),
    tool({
      name: 'document_list', title: 'Document: list', input: INPUTS.document_list, output: OUTPUTS.list, annotations: READ,
      description: 'List the document files of the team\'s context.',
      run: async () => {
        const { team } = who();
        const documents = await team.provider.listDocuments();
        return { structured: { documents }, text: documents.join('\n') };
      },
    }),
    tool({
      name: 'document_create', title: 'Document: create', input: INPUTS.document_create, output: OUTPUTS.changed, annotations: SEND,
      description: 'Create a new document file (fails if it exists; use document_write to replace).',
      run: async (a) => {
        const { team } = who();
        await team.provider.createDocument(a.file, a.content);
        return { structured: { file: a.file, bytes: utf8Length(a.content) }, text: `Created ${a.file}.` };
      },
    }),
    tool({
      name: 'document_delete', title: 'Document: delete', input: INPUTS.document_delete, output: OUTPUTS.changed, annotations: DELETE,
      description: 'Delete a document file (not the entry-point document).',
      run: async (a) => {
        const { team } = who();
        await team.provider.deleteDocument(a.file);
        return { structured: { file: a.file, bytes: 0 }, text: `Deleted ${a.file}.` };
      },
    }),
  ];
  return registerToolDefs(server, log, defs, HINTS);
}

