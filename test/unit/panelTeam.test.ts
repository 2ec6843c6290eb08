// Rule: an agent team run's panel shows its channel as a timeline (from, time, message, @mentions highlighted and
// nothing else), each agent's state and unread @mentions, who works now, and its documents (files of a file context,
// or in-memory ones); a person's message from the panel is posted to the channel as 'user' and @mentions wake the
// agent (its unread count grows); bad messages from the webview are dropped; an ended team refuses posts with a
// message that says why; documents open by name only (a name the team does not have is refused).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ChannelEntry } from '../../src/core/worker/types.js';
import { MemoryContextProvider } from '../../src/core/worker/memoryContextProvider.js';
import { teamHost } from '../../src/core/worker/host.js';
import { buildTeamView, documentsOnDisk } from '../../src/host/teamView.js';
import { mentionSegments } from '../../src/shared/mentionText.js';
import { parseFromWebview, type PanelState, type PanelTeamDocument, type ToWebview } from '../../src/shared/protocol.js';
import { LocalSource } from '../../src/vscode/batonSource.js';
import { PanelController } from '../../src/vscode/panels/panelController.js';
import type { TeamSource } from '../../src/vscode/teams/teamSource.js';
import { makeBaton } from '../helpers/coreHarness.js';

async function teamRun() {
  const made = await makeBaton();
  const runs = teamHost(made.baton)!.teams;
  const runId = await runs.start({ workflow: 'review', instance: 'pr-1', agents: [{ name: 'reviewer', backend: 'command', model: 'scripted' }, { name: 'coder', backend: 'claude' }], source: '/w/review.yaml' });
  const provider = runs.attach(runId, new MemoryContextProvider({ agents: ['reviewer', 'coder'], clock: made.clock }));
  const sent: Array<{ message: string; instance: string }> = [];
  // The editor's TeamSource as LocalTeams is, minus the team loop: views from the real core, posts through the provider.
  const source: TeamSource = {
    local: true,
    runs: async () => runs.list(),
    view: (id) => buildTeamView(runs, id),
    start: async () => runId,
    send: async (message, instance): Promise<ChannelEntry> => {
      sent.push({ message, instance });
      return provider.appendChannel('user', message);
    },
    readDocument: (_id, name) => provider.readDocument(name),
    stop: async () => { throw new Error('teamStop.test.ts covers stopping'); },
  };
  return { ...made, runs, runId, provider, source, sent };
}

function panel(t: Awaited<ReturnType<typeof teamRun>>, opened: Array<{ doc: PanelTeamDocument; text: string }> = []) {
  const posted: ToWebview[] = [];
  const c = new PanelController(new LocalSource(t.baton, { url: '', token: '' }), t.runId, {
    post: (m) => posted.push(m), openArtifact: async () => undefined, log: { warn: () => undefined, error: () => undefined },
    teams: { source: async () => t.source, openDocument: async (doc, read) => void opened.push({ doc, text: await read() }), confirmStop: async () => false },
  }, null, 0);
  const last = (): PanelState => {
    const m = [...posted].reverse().find((x) => x.type === 'panel/init' || x.type === 'panel/update');
    assert.ok(m && 'state' in m, `a state was posted: ${JSON.stringify(posted)}`);
    return m.state;
  };
  const errors = () => posted.flatMap((m) => (m.type === 'panel/error' ? [m.message] : []));
  return { c, posted, last, errors };
}

describe('the team panel', () => {
  it('shows the channel, agents with state and unread mentions, who works, and the documents', async () => {
    const t = await teamRun();
    await t.provider.appendChannel('system', 'Review this diff.\n@reviewer please start');
    t.clock.advance(1000);
    await t.provider.appendChannel('reviewer', '@coder fix `@reviewer` in add() and mail a@coder.dev');
    await t.provider.createDocument('findings.md', '# Findings\n');
    await t.runs.setAgentState(t.runId, 'coder', 'running');
    const inbox = await t.provider.getInbox('reviewer');
    await t.provider.ackInbox('reviewer', inbox.at(-1)!.entry.timestamp);
    const p = panel(t);
    await p.c.receive({ type: 'panel/ready' });
    const team = p.last().team!;
    assert.equal(p.last().pipeline ?? null, null);
    assert.deepEqual([team.instance, team.workflow, team.status, team.source, team.canSend], ['pr-1', 'review', 'running', '/w/review.yaml', true]);
    assert.deepEqual(team.channel.map((m) => [m.from, m.mentions]), [['system', ['reviewer']], ['reviewer', ['coder']]]);
    assert.match(team.channel[1]!.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    assert.deepEqual(team.agents.map((a) => [a.name, a.state, a.unread, a.backend]), [['reviewer', 'idle', 0, 'command'], ['coder', 'running', 1, 'claude']]);
    assert.deepEqual(team.working, ['coder']);
    assert.deepEqual(team.documents, [{ name: 'findings.md', path: null }, { name: 'notes.md', path: null }]);
    // Only the recorded mention is highlighted: not the one in code, not the address.
    const segs = mentionSegments(team.channel[1]!.message, team.channel[1]!.mentions);
    assert.deepEqual(segs.filter((x) => x.mention).map((x) => x.text), ['@coder']);
    assert.equal(segs.map((x) => x.text).join(''), team.channel[1]!.message);
    p.c.dispose();
  });

  it('opens a team run however many newer runs there are (it is read by its id, not found in a listing)', async () => {
    const t = await teamRun();
    // 10,000 newer team runs: copies of this one's rows under other ids, started later.
    const cols = (table: string) => t.store.all<{ name: string }>(`PRAGMA table_info(${table})`).map((c) => c.name);
    const copy = (table: string, set: Record<string, string>) => {
      const names = cols(table);
      const values = names.map((n) => set[n] ?? n).join(', ');
      t.store.run(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
        INSERT INTO ${table} (${names.join(', ')}) SELECT ${values} FROM ${table}, n WHERE execution_id = ?`, [t.runId]);
    };
    await t.store.transaction(() => {
      copy('executions', { execution_id: "printf('newer-%05d', i)", started_at: "printf('2099-01-01T00:00:%02dZ', i % 60)", task_id: 'NULL' });
      copy('team_runs', { execution_id: "printf('newer-%05d', i)", instance: "printf('newer-%05d', i)" });
    });
    assert.equal(t.runs.list({ limit: 10_001 }).at(-1)!.runId, t.runId, 'the run is the oldest of 10,001');
    const view = await buildTeamView(t.runs, t.runId);
    assert.deepEqual([view.instance, view.agents.map((a) => a.name)], ['pr-1', ['reviewer', 'coder']]);
    await assert.rejects(buildTeamView(t.runs, 'no-such-run'), /no team run no-such-run/);
  });

  it('posts a person\'s message as user; the @mentioned agent gets it as unread', async () => {
    const t = await teamRun();
    const p = panel(t);
    await p.c.receive({ type: 'panel/ready' });
    await p.c.receive({ type: 'team/send', message: '  @reviewer please look again  ' });
    assert.deepEqual(t.sent, [{ message: '@reviewer please look again', instance: 'pr-1' }]);
    assert.deepEqual(p.errors(), []);
    const team = p.last().team!;
    assert.deepEqual(team.channel.map((m) => [m.from, m.message, m.mentions]), [['user', '@reviewer please look again', ['reviewer']]]);
    assert.equal(team.agents.find((a) => a.name === 'reviewer')!.unread, 1);
    assert.equal((await t.provider.getInbox('reviewer'))[0]!.entry.from, 'user');
    p.c.dispose();
  });

  it('refuses to post to an ended team, saying why; the panel shows it read-only', async () => {
    const t = await teamRun();
    const p = panel(t);
    await p.c.receive({ type: 'panel/ready' });
    await t.runs.finish(t.runId, 'completed');
    await p.c.receive({ type: 'panel/refresh' });
    assert.equal(p.last().team!.canSend, false);
    assert.deepEqual(p.last().team!.agents.map((a) => a.state), ['stopped', 'stopped']);
    await p.c.receive({ type: 'team/send', message: '@coder still there?' });
    assert.deepEqual(t.sent, []);
    assert.match(p.errors().join('\n'), /Could not post to the channel: team @pr-1 is completed: start it again/);
    p.c.dispose();
  });

  it('opens documents by name; an unknown name is refused with the team\'s documents', async () => {
    const t = await teamRun();
    await t.provider.writeDocument('# Notes\nhello\n');
    const opened: Array<{ doc: PanelTeamDocument; text: string }> = [];
    const p = panel(t, opened);
    await p.c.receive({ type: 'panel/ready' });
    await p.c.receive({ type: 'team/openDocument', name: 'notes.md' });
    assert.deepEqual(opened, [{ doc: { name: 'notes.md', path: null }, text: '# Notes\nhello\n' }]);
    await p.c.receive({ type: 'team/openDocument', name: '../../etc/passwd' });
    assert.equal(opened.length, 1);
    assert.match(p.errors().join('\n'), /has no document \.\.\/\.\.\/etc\/passwd; its documents: notes\.md/);
    p.c.dispose();
  });

  it('refreshes on the team\'s events: a message another process posts appears', async () => {
    const t = await teamRun();
    const p = panel(t);
    await p.c.receive({ type: 'panel/ready' });
    await t.provider.appendChannel('coder', '@reviewer done');
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(p.last().team!.channel.map((m) => m.message), ['@reviewer done']);
    p.c.dispose();
  });

  it('a non-team execution has no team section', async () => {
    const t = await teamRun();
    const other = await t.baton.startWorkflow('bug-fix', 'Login fails');
    const p = panel({ ...t, runId: other.execution_id });
    await p.c.receive({ type: 'panel/ready' });
    assert.equal(p.last().team ?? null, null);
    p.c.dispose();
  });
});

describe('team webview messages', () => {
  it('accepts team/send and team/openDocument and nothing malformed', () => {
    assert.deepEqual(parseFromWebview({ type: 'team/send', message: ' hi @coder ' }), { type: 'team/send', message: 'hi @coder' });
    assert.deepEqual(parseFromWebview({ type: 'team/openDocument', name: 'notes.md' }), { type: 'team/openDocument', name: 'notes.md' });
    for (const bad of [
      { type: 'team/send', message: '   ' }, { type: 'team/send', message: 3 }, { type: 'team/send', message: 'x', from: 'coder' },
      { type: 'team/send', message: 'x'.repeat(10_001) }, { type: 'team/openDocument', name: '' }, { type: 'team/openDocument', name: 'a', path: '/etc' },
    ]) assert.equal(parseFromWebview(bad), null, JSON.stringify(bad).slice(0, 80));
  });
});

describe('mention highlighting', () => {
  it('highlights recorded mentions only', () => {
    assert.deepEqual(mentionSegments('@a hi @b and @c', ['a', 'c']), [
      { text: '@a', mention: true }, { text: ' hi @b and ', mention: false }, { text: '@c', mention: true },
    ]);
    assert.deepEqual(mentionSegments('no mentions', []), [{ text: 'no mentions', mention: false }]);
    assert.deepEqual(mentionSegments('x@a.dev ``@a`` @ab', ['a']), [{ text: 'x@a.dev ``@a`` @ab', mention: false }]);
  });
});

describe('documents of an ended file-context team', () => {
  it('lists the files under the context directory, without the channel and Baton\'s own files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-team-docs-'));
    mkdirSync(join(dir, 'specs'));
    for (const f of ['channel.md', 'notes.md', '.baton-inbox.json', '.baton-lock', 'specs/api.md']) writeFileSync(join(dir, f), 'x');
    assert.deepEqual(documentsOnDisk(dir), ['notes.md', 'specs/api.md']);
    assert.deepEqual(documentsOnDisk(join(dir, 'missing')), []);
  });
});
