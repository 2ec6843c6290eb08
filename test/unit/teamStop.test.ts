// Rule: a team is stopped from the editor only while it runs and only after the person confirms; the panel shows Stop
// (and a stop per working agent) only while the team runs; the stop reaches the right instance (`@instance`, or
// `agent@instance`) through the owner's Teams.stop when the editor owns the database and through /control `team_stop`
// when it is a client; a declined confirmation stops nothing; bad `team/stop` messages are dropped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { TeamRuns, TeamRunSummary } from '../../src/core/worker/teamRuns.js';
import { callControl } from '../../src/host/controlClient.js';
import type { Teams } from '../../src/host/worker/teams.js';
import { parseFromWebview, type PanelTeam, type PanelTeamAgent } from '../../src/shared/protocol.js';
import { teamStopQuestion, teamStopTargets } from '../../src/shared/teamStop.js';
import { PanelTeamPart } from '../../src/vscode/panels/panelTeam.js';
import { stopTeamRun } from '../../src/vscode/teams/stopTeamRun.js';
import { LocalTeams, RemoteTeams, type TeamSource } from '../../src/vscode/teams/teamSource.js';
import { teamRunNodes } from '../../src/vscode/views/teamTreeModel.js';

function agent(name: string, state: string): PanelTeamAgent {
  return { name, backend: 'command', model: '', state, unread: 0 };
}

function view(instance: string, status: string, agents: PanelTeamAgent[], canSend = status === 'running'): PanelTeam {
  return { instance, workflow: 'review', status, source: null, contextDir: null, agents, working: agents.filter((a) => a.state === 'running').map((a) => a.name), channel: [], documents: [], canSend };
}

function summary(runId: string, instance: string, status: string): TeamRunSummary {
  return { runId, instance, workflow: 'review', status, agents: [], messages: 0, startedAt: '2026-01-01T00:00:00Z' } as unknown as TeamRunSummary;
}

/** A TeamSource over fixed runs and views that records the stops asked of it. */
function fakeSource(runs: TeamRunSummary[], views: Record<string, PanelTeam>) {
  const stopped: string[] = [];
  const source: TeamSource = {
    local: true,
    runs: async () => runs,
    view: async (id) => views[id]!,
    start: async () => 'x',
    send: async () => { throw new Error('not here'); },
    stop: async (target) => { stopped.push(target); return [target]; },
    readDocument: async () => '',
  };
  return { source, stopped };
}

describe('the panel shows Stop only while the team runs', () => {
  it('a running team: Stop, and a stop for each working agent', () => {
    assert.deepEqual(teamStopTargets(view('pr-1', 'running', [agent('reviewer', 'idle'), agent('coder', 'running')])), { team: true, agents: ['coder'] });
  });
  it('an ended team, or one no process runs any more: nothing to stop', () => {
    assert.deepEqual(teamStopTargets(view('pr-1', 'completed', [agent('coder', 'stopped')])), { team: false, agents: [] });
    assert.deepEqual(teamStopTargets(view('pr-1', 'failed', [agent('coder', 'failed')])), { team: false, agents: [] });
    assert.deepEqual(teamStopTargets(view('pr-1', 'running', [agent('coder', 'running')], false)), { team: false, agents: [] });
  });
  it('asks "Stop team @x? Agents that are working are killed."', () => {
    const q = teamStopQuestion('pr-1', null);
    assert.equal(q.message, 'Stop team @pr-1?');
    assert.match(q.detail, /^Agents that are working are killed\./);
    assert.equal(teamStopQuestion('pr-1', 'coder').message, 'Stop coder@pr-1?');
  });
});

describe('team/stop from the webview', () => {
  it('accepts the whole team (agent null) or an agent name, nothing else', () => {
    assert.deepEqual(parseFromWebview({ type: 'team/stop', agent: null }), { type: 'team/stop', agent: null });
    assert.deepEqual(parseFromWebview({ type: 'team/stop', agent: 'coder' }), { type: 'team/stop', agent: 'coder' });
    for (const bad of [
      { type: 'team/stop' }, { type: 'team/stop', agent: '' }, { type: 'team/stop', agent: 3 }, { type: 'team/stop', agent: 'a b' },
      { type: 'team/stop', agent: '@pr-1' }, { type: 'team/stop', agent: null, instance: 'other' }, { type: 'team/stop', agent: 'x'.repeat(101) },
    ]) assert.equal(parseFromWebview(bad), null, JSON.stringify(bad).slice(0, 80));
  });
});

describe('the panel stops its own team', () => {
  function part(team: PanelTeam, answer: boolean) {
    const f = fakeSource([], { run1: team });
    const asked: Array<[string, string | null]> = [];
    const p = new PanelTeamPart({ source: async () => f.source, openDocument: async () => undefined, confirmStop: async (i, a) => { asked.push([i, a]); return answer; } });
    return { p, asked, stopped: f.stopped };
  }
  it('stops @instance, or agent@instance, once confirmed', async () => {
    const t = part(view('pr-1', 'running', [agent('coder', 'running')]), true);
    assert.equal(await t.p.stop('run1', null), true);
    assert.equal(await t.p.stop('run1', 'coder'), true);
    assert.deepEqual(t.asked, [['pr-1', null], ['pr-1', 'coder']]);
    assert.deepEqual(t.stopped, ['@pr-1', 'coder@pr-1']);
  });
  it('stops nothing when the person declines', async () => {
    const t = part(view('pr-1', 'running', [agent('coder', 'running')]), false);
    assert.equal(await t.p.stop('run1', null), false);
    assert.deepEqual(t.stopped, []);
  });
  it('refuses an ended team and an agent the team does not have, without asking', async () => {
    const ended = part(view('pr-1', 'completed', [agent('coder', 'stopped')]), true);
    await assert.rejects(ended.p.stop('run1', null), /team @pr-1 is completed: there is nothing to stop/);
    const t = part(view('pr-1', 'running', [agent('coder', 'running')]), true);
    await assert.rejects(t.p.stop('run1', 'ghost'), /no agent ghost in @pr-1; its agents: coder/);
    assert.deepEqual([ended.asked, t.asked, ended.stopped, t.stopped], [[], [], [], []]);
  });
});

describe('Stop Team on a team run in the tree', () => {
  const runs = [summary('r1', 'pr-1', 'completed'), summary('r2', 'pr-2', 'running'), summary('r3', 'pr-3', 'running')];
  it('stops the instance of the run chosen, after asking', async () => {
    const f = fakeSource(runs, {});
    const asked: string[] = [];
    assert.deepEqual(await stopTeamRun(f.source, 'r3', async (i) => { asked.push(i); return true; }), ['@pr-3']);
    assert.deepEqual([asked, f.stopped], [['pr-3'], ['@pr-3']]);
  });
  it('is offered on a running team run in the tree, not on an ended one', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { contributes: { menus: Record<string, Array<{ command: string; when: string; group: string }>> } };
    const items = pkg.contributes.menus['view/item/context']!.filter((m) => m.command === 'baton.stopTeam');
    assert.deepEqual(items.map((m) => m.group).sort(), ['9_danger@1', 'inline']);
    const contexts = teamRunNodes([summary('r1', 'a', 'running'), summary('r2', 'b', 'completed'), summary('r3', 'c', 'failed')]).map((n) => n.contextValue);
    for (const m of items) {
      const wanted = /viewItem == (\S+)$/.exec(m.when)![1];
      assert.deepEqual(contexts.map((c) => c === wanted), [true, false, false], m.when);
    }
  });
  it('declined: nothing stops; ended or unknown runs are refused', async () => {
    const f = fakeSource(runs, {});
    assert.equal(await stopTeamRun(f.source, 'r2', async () => false), undefined);
    await assert.rejects(stopTeamRun(f.source, 'r1', async () => true), /team @pr-1 is completed: there is nothing to stop/);
    await assert.rejects(stopTeamRun(f.source, 'r9', async () => true), /no team run r9/);
    assert.deepEqual(f.stopped, []);
  });
});

describe('the stop takes the path baton stop takes', () => {
  it('locally: the owner\'s Teams.stop with the target', async () => {
    const targets: string[] = [];
    const teams = { stop: (t: string) => { targets.push(t); return [t]; } } as unknown as Teams;
    const local = new LocalTeams({} as TeamRuns, teams);
    assert.deepEqual(await local.stop('@pr-2'), ['@pr-2']);
    assert.deepEqual(targets, ['@pr-2']);
  });
  it('as a client: /control team_stop with the target; the owner\'s refusal reaches the person', async () => {
    const bodies: unknown[] = [];
    const server = createServer((req, res) => {
      let data = '';
      req.on('data', (c: Buffer) => (data += c.toString()));
      req.on('end', () => {
        const body = JSON.parse(data) as { target: string };
        bodies.push({ auth: req.headers.authorization, url: req.url, body });
        const ended = body.target === '@old';
        res.writeHead(ended ? 409 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(ended ? { error: { reason: 'invalid_state', message: 'team instance @old has already ended (stopped)' } } : { result: [body.target] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const owner = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, token: 'tok', pid: 42 };
      const remote = new RemoteTeams({ pid: owner.pid, control: (request, ms) => callControl(owner, request, ms) });
      assert.deepEqual(await remote.stop('coder@pr-2'), ['coder@pr-2']);
      await assert.rejects(remote.stop('@old'), /team instance @old has already ended/);
      assert.deepEqual(bodies[0], { auth: 'Bearer tok', url: '/control', body: { op: 'team_stop', target: 'coder@pr-2' } });
    } finally {
      server.close();
    }
  });
});
