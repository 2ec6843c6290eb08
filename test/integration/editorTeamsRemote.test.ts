// Rule: an editor that is a client of a terminal owner starts an agent team through the owner's /control
// (`team_start`, as `baton start` does; the owner runs it and answers with the run id), lists it (`team_runs`), and its
// panel shows the team from the owner (`team_view`: channel, agents, documents as real files) and live through the
// owner's events; a message posted from the panel goes to the owner's channel as 'user' and the @mentioned agent's
// reply arrives; Stop in the panel (confirmed) stops the instance in the owner through /control `team_stop`; the owner's
// refusals (an unknown run, a team that ended) reach the person.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLog } from '../../src/core/ports.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer, type OwnerServer } from '../../src/host/ownerServer.js';
import { attachTeams, type Teams } from '../../src/host/worker/teams.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { assertToolGroups } from '../../src/mcp/toolGroups.js';
import type { PanelState, ToWebview } from '../../src/shared/protocol.js';
import { PanelController } from '../../src/vscode/panels/panelController.js';
import { RemoteSource } from '../../src/vscode/remoteSource.js';
import { RemoteTeams } from '../../src/vscode/teams/teamSource.js';
import { until } from '../helpers/until.js';

const AGENT = join(__dirname, '..', 'fixtures', 'teams', 'teamAgent.mjs');

describe('agent teams from an editor that is a client of the owner', () => {
  let opened: OpenedBaton;
  let owner: OwnerServer;
  let teams: Teams;
  let remote: RemoteSource;
  let client: RemoteTeams;
  let workspace = '';

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'baton-remote-team-'));
    writeFileSync(join(workspace, 'crew.yaml'), `name: crew
agents:
  reviewer: { backend: command, command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}], system_prompt: You review. }
  coder: { backend: command, command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}], system_prompt: You fix. }
kickoff: "@reviewer please review add()"
`);
    opened = await openBaton({ dbPath: null, workspace, rateLimits: false, log: silentLog, approvalWaitMs: 0 });
    owner = await startOwnerServer({
      baton: opened.baton, log: silentLog,
      createServer: (scope) => createMcpServer(opened.baton, { toolGroups: scope?.toolGroups ? assertToolGroups(scope.toolGroups) : ['broker'], version: 't', log: silentLog, scope }),
    });
    teams = attachTeams(opened.baton, { baton: opened.baton, endpoint: owner, dataDir: workspace, log: silentLog });
    const info = { url: owner.url, token: owner.token, pid: process.pid };
    remote = new RemoteSource(info);
    client = new RemoteTeams(remote);
  });
  after(async () => {
    await teams.closeAll();
    remote.dispose();
    await owner.close();
    await opened.close();
  });

  it('starts the team in the owner, follows it in the panel, posts as user and sees the reply', async () => {
    const runId = await client.start({ file: join(workspace, 'crew.yaml'), instance: 'pr-9', cwd: workspace });
    assert.equal(teams.get('pr-9').runId, runId, 'the owner runs it');
    assert.deepEqual((await client.runs()).map((r) => [r.runId, r.instance, r.status]), [[runId, 'pr-9', 'running']]);
    const posted: ToWebview[] = [];
    const controller = new PanelController(remote, runId, {
      post: (m) => posted.push(m), openArtifact: async () => undefined, log: { warn: () => undefined, error: () => undefined },
      teams: { source: async () => client, openDocument: async () => undefined, confirmStop: async (instance, agent) => instance === 'pr-9' && agent === null },
    }, null, 10);
    await controller.receive({ type: 'panel/ready' });
    const last = (): PanelState | undefined => {
      const m = [...posted].reverse().find((x) => x.type === 'panel/init' || x.type === 'panel/update');
      return m && 'state' in m ? m.state : undefined;
    };
    // No polling here: the owner's events refresh the panel.
    const approved = await until('the review round in the panel', () => last()?.team?.channel.some((m) => m.message.startsWith('LGTM')) && last()!.team!);
    assert.deepEqual(approved.channel.slice(0, 3).map((m) => m.from), ['system', 'reviewer', 'coder']);
    assert.equal(approved.canSend, true);
    assert.deepEqual(approved.documents.map((d) => [d.name, d.path]), [['notes.md', join(workspace, '.workflow', 'pr-9', 'notes.md')]]);
    await controller.receive({ type: 'team/send', message: '@coder add a test too' });
    const reply = await until('the coder\'s reply in the panel', () => {
      const ch = last()?.team?.channel ?? [];
      const at = ch.findIndex((m) => m.from === 'user' && m.message === '@coder add a test too');
      return at >= 0 && ch.slice(at + 1).find((m) => m.from === 'coder');
    });
    assert.equal(reply.message, '@reviewer fixed the off-by-one, please re-check');
    assert.deepEqual(posted.filter((m) => m.type === 'panel/error'), []);

    await controller.receive({ type: 'team/stop', agent: null });
    await until('the owner stopped the instance', () => teams.get('pr-9').end);
    await until('the team ended in the panel, cancelled', () => last()?.team?.status === 'cancelled');
    await controller.receive({ type: 'team/send', message: '@coder still there?' });
    const errors = posted.flatMap((m) => (m.type === 'panel/error' ? [m.message] : []));
    assert.match(errors.join('\n'), /Could not post to the channel: team @pr-9 is cancelled/);
    controller.dispose();
  });

  it('reports the owner\'s refusals', async () => {
    await assert.rejects(client.view('no-such-run'), /no team run no-such-run/);
    await assert.rejects(client.start({ file: join(workspace, 'missing.yaml'), instance: 'x', cwd: workspace }), /workflow file .*missing\.yaml not found/);
    await assert.rejects(client.readDocument(), /held in memory by Baton process/);
  });
});
