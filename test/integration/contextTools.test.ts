// Rule: the `context` tools act only as the agent their session's run token names: over the owner's real HTTP
// endpoint, agent A cannot read B's inbox or post as B (arguments such as `from` or `agent` are rejected as unknown
// fields), a token of another team sees nothing of this one, and a session without an agent identity gets a clear
// error; every result carries its values in text as well as structuredContent; channel entries reach the database;
// a blank message is refused.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { silentLog } from '../../src/core/ports.js';
import { teamHost } from '../../src/core/worker/host.js';
import { MemoryContextProvider } from '../../src/core/worker/memoryContextProvider.js';
import type { TeamRuns } from '../../src/core/worker/teamRuns.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer, type OwnerServer } from '../../src/host/ownerServer.js';
import { FileContextProvider } from '../../src/host/worker/fileContextProvider.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { assertToolGroups } from '../../src/mcp/toolGroups.js';

const CONTEXT_TOOLS = ['channel_send', 'channel_read', 'channel_peek', 'inbox_check', 'channel_mentions', 'inbox_peek', 'inbox_ack',
  'document_read', 'document_write', 'document_append', 'document_list', 'document_create', 'document_delete'];

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'context-tools-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}
const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('context tools over the owner endpoint', () => {
  let workspace: string;
  let opened: OpenedBaton;
  let owner: OwnerServer;
  let teams: TeamRuns;
  let runId: string;
  let otherRun: string;
  const clients: Client[] = [];
  let coder: Client;
  let reviewer: Client;
  let outsider: Client;

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'baton-ctxtools-'));
    opened = await openBaton({ dbPath: null, workspace, rateLimits: false, log: silentLog } as Parameters<typeof openBaton>[0]);
    owner = await startOwnerServer({
      baton: opened.baton,
      createServer: (scope) => createMcpServer(opened.baton, { toolGroups: scope?.toolGroups ? assertToolGroups(scope.toolGroups) : ['context'], version: 't', log: silentLog, scope }),
      log: silentLog,
    });
    teams = teamHost(opened.baton)!.teams;
    const agents = [{ name: 'reviewer', backend: 'claude' }, { name: 'coder', backend: 'codex' }];
    runId = await teams.start({ workflow: 'review', instance: 'pr-1', agents });
    teams.attach(runId, await FileContextProvider.open({ dir: join(workspace, '.workflow', 'pr-1'), agents: ['reviewer', 'coder'] }));
    otherRun = await teams.start({ workflow: 'review', instance: 'pr-2', agents });
    teams.attach(otherRun, new MemoryContextProvider({ agents: ['reviewer', 'coder'] }));
    const token = (run: string, agent: string) => owner.issueRunToken({ runId: run, agent, toolGroups: ['context'] }).token;
    coder = await connect(owner.url, token(runId, 'coder'));
    reviewer = await connect(owner.url, token(runId, 'reviewer'));
    outsider = await connect(owner.url, token(otherRun, 'coder'));
    clients.push(coder, reviewer, outsider);
  });
  after(async () => {
    for (const c of clients) await c.close();
    await owner.close();
    await opened.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('lists the group\'s tools with short descriptions', async () => {
    const tools = (await coder.listTools()).tools;
    assert.deepEqual(tools.map((t) => t.name).sort(), [...CONTEXT_TOOLS].sort());
    for (const t of tools) assert.ok((t.description ?? '').length <= 200, `${t.name}: ${t.description}`);
  });

  it('posts as the session\'s agent, wakes the mentioned one, and records the entry', async () => {
    const sent = await call(reviewer, 'channel_send', { message: '@coder please fix the auth issue in line 42' });
    assert.equal(sent.isError, undefined, text(sent));
    const e = sent.structuredContent as { from: string; timestamp: string; mentions: string[] };
    assert.equal(e.from, 'reviewer');
    assert.deepEqual(e.mentions, ['coder']);
    assert.match(text(sent), new RegExp(`Sent at ${e.timestamp}; mentioned @coder`));
    const inbox = await call(coder, 'inbox_check');
    assert.equal((inbox.structuredContent as { messages: unknown[] }).messages.length, 1);
    assert.match(text(inbox), /1 unread for coder:\n\[.*\] reviewer: @coder please fix the auth issue in line 42\nWhen handled: inbox_ack/);
    assert.deepEqual((await call(coder, 'channel_mentions')).structuredContent, inbox.structuredContent);
    assert.deepEqual((await call(reviewer, 'inbox_check')).structuredContent, { agent: 'reviewer', messages: [] }, 'the reviewer sees its own inbox only');
    assert.deepEqual(teams.channel(runId).map((x) => [x.from, x.message]), [['reviewer', '@coder please fix the auth issue in line 42']]);
    assert.match(readFileSync(join(workspace, '.workflow', 'pr-1', 'channel.md'), 'utf8'), /\[reviewer\] <!-- .* -->\n@coder please fix/);
  });

  it('refuses a blank channel message, naming the field, and posts nothing', async () => {
    const before = teams.channel(runId).length;
    for (const message of ['', ' \n\t ']) {
      const blank = await call(coder, 'channel_send', { message });
      assert.equal(blank.isError, true, JSON.stringify(message));
      assert.match(text(blank), /^Invalid arguments for channel_send: message must be a string that is not empty or only spaces \(the message to post\) \(got "/);
    }
    assert.equal(teams.channel(runId).length, before, 'nothing was posted');
  });

  it('rejects identity arguments instead of trusting them', async () => {
    const spoof = await call(coder, 'channel_send', { message: '@reviewer looks good', from: 'reviewer' });
    assert.equal(spoof.isError, true);
    assert.match(text(spoof), /unknown field "from"; valid fields: message/);
    const peek = await call(coder, 'inbox_check', { agent: 'reviewer' });
    assert.equal(peek.isError, true);
    assert.match(text(peek), /unknown field "agent"/);
    const ack = await call(reviewer, 'inbox_ack', { until: '2099-01-01T00:00:00Z', agent: 'coder' });
    assert.equal(ack.isError, true);
    assert.ok(teams.channel(runId).every((x) => x.message !== '@reviewer looks good'), 'nothing was posted');
    assert.equal(((await call(coder, 'inbox_peek')).structuredContent as { messages: unknown[] }).messages.length, 1, 'the coder\'s inbox is untouched');
  });

  it('acknowledges only the caller\'s inbox; peek and channel_peek have no side effects; channel_read acks', async () => {
    await call(reviewer, 'inbox_ack', {});
    assert.equal(((await call(coder, 'inbox_peek')).structuredContent as { messages: unknown[] }).messages.length, 1);
    const peeked = await call(coder, 'channel_peek', { limit: 10 });
    assert.match(text(peeked), /reviewer: @coder please fix/);
    assert.equal(((await call(coder, 'inbox_check')).structuredContent as { messages: unknown[] }).messages.length, 1);
    const read = await call(coder, 'channel_read', {});
    assert.ok((read.structuredContent as { acknowledged: string | null }).acknowledged);
    assert.match(text(await call(coder, 'inbox_check')), /No unread messages for coder/);
    await call(reviewer, 'channel_send', { message: '@coder urgent: and the N+1 query' });
    const ack = await call(coder, 'inbox_ack', {});
    assert.match(text(ack), /Acknowledged up to .*; 0 unread left/);
    assert.equal(teams.agents(runId).find((a) => a.agent === 'coder')?.readCursor, (ack.structuredContent as { until: string }).until);
  });

  it('reads and writes documents, refusing paths out of the context', async () => {
    assert.equal((await call(coder, 'document_write', { content: '# Review Notes\n' })).isError, undefined);
    await call(reviewer, 'document_append', { content: '1. Auth validation missing\n' });
    assert.equal(text(await call(coder, 'document_read', {})), '# Review Notes\n1. Auth validation missing\n');
    await call(coder, 'document_create', { file: 'findings/auth.md', content: '# Auth' });
    assert.match(text(await call(coder, 'document_list')), /findings\/auth\.md\nnotes\.md/);
    const escape = await call(coder, 'document_read', { file: '../../etc/passwd' });
    assert.equal(escape.isError, true);
    assert.match(text(escape), /leaves the context directory/);
    const dup = await call(coder, 'document_create', { file: 'findings/auth.md', content: 'x' });
    assert.match(text(dup), /already exists; replace it with document_write/);
    assert.equal((await call(coder, 'document_delete', { file: 'findings/auth.md' })).isError, undefined);
    assert.match(text(await call(coder, 'document_read', { file: 'findings/auth.md' })), /no document findings\/auth\.md/);
  });

  it('shows a token of another team nothing of this one', async () => {
    assert.match(text(await call(outsider, 'channel_peek', {})), /no entries yet/);
    assert.match(text(await call(outsider, 'inbox_check')), /No unread messages for coder/);
    assert.equal(text(await call(outsider, 'document_read', {})), 'The entry-point document is empty.');
    await call(outsider, 'channel_send', { message: 'hello from pr-2' });
    assert.ok(teams.channel(runId).every((x) => x.message !== 'hello from pr-2'));
  });

  it('refuses sessions without an agent identity, and runs that are not served teams', async () => {
    const plain = await connect(owner.url, owner.token);
    clients.push(plain);
    const r = await call(plain, 'inbox_check');
    assert.equal(r.isError, true);
    assert.match(text(r), /no agent identity.*baton send MESSAGE --to AGENT@INSTANCE/);
    const stranger = await connect(owner.url, owner.issueRunToken({ runId: 'not-a-team', agent: 'coder', toolGroups: ['context'] }).token);
    clients.push(stranger);
    assert.match(text(await call(stranger, 'channel_send', { message: 'hi' })), /Run not-a-team is not a team run served by this Baton/);
    await teams.finish(otherRun, 'completed');
    assert.match(text(await call(outsider, 'channel_peek', {})), /not a team run served by this Baton, or it has ended/);
  });
});
