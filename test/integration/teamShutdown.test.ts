// Rule: an owner's shutdown (Teams.closeAll, before the database closes) settles only once every team's end is
// recorded: a team it stops, and a team that ended just before (its `end` is set before its outcome is written), which
// `baton start` sees as no team left running and so shuts down at once. Neither is left "running" in the database for
// the next process to find as a team whose owner died.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { silentLog } from '../../src/core/ports.js';
import { teamHost } from '../../src/core/worker/host.js';
import type { TeamRuns } from '../../src/core/worker/teamRuns.js';
import { attachTeams, type Teams } from '../../src/host/worker/teams.js';
import { closeOwnerEndpoint, openOwnerEndpoint, type OwnerEndpoint } from '../helpers/ownerEndpoint.js';
import { until } from '../helpers/until.js';

const AGENT = join(__dirname, '..', 'fixtures', 'teams', 'teamAgent.mjs');

describe("an owner's shutdown waits for the teams' ends to be recorded", () => {
  let endpoint: OwnerEndpoint;
  let workspace = '';
  let teams: Teams;
  let runs: TeamRuns;

  beforeEach(async () => {
    endpoint = await openOwnerEndpoint('baton-team-shutdown-');
    ({ workspace } = endpoint);
    // A silent agent takes its turn and exits: the team (started, not run) stays running until it is stopped.
    writeFileSync(join(workspace, 'crew.yaml'), `name: crew
agents:
  quiet: { backend: command, command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}], system_prompt: x }
kickoff: "@quiet look"
`);
    process.env.ROLE_quiet = 'silent';
    const { baton } = endpoint.opened;
    teams = attachTeams(baton, { baton, endpoint: endpoint.owner, dataDir: workspace, log: silentLog });
    runs = teamHost(baton)!.teams;
  });
  afterEach(async () => {
    delete process.env.ROLE_quiet;
    await closeOwnerEndpoint(endpoint);
  });

  /** A run's status and cancelled mark (a cancelled run is failed with the mark). */
  const outcome = (runId: string) => [runs.summary(runId)?.status, runs.summary(runId)?.cancelled];

  const started = async (instance: string) => {
    const team = await teams.start({ file: 'crew.yaml', instance, mode: 'start', cwd: workspace });
    await until('the agent to take its turn', () => team.runner.invocationCount === 1 && team.runner.states().quiet === 'idle');
    return team;
  };

  it('a team the shutdown stops is recorded cancelled once closeAll settles', async () => {
    const team = await started('one');
    await teams.closeAll();
    assert.deepEqual(outcome(team.runId), ['failed', true], 'recorded as cancelled');
  });

  it('a team that ended just before (stopped, its outcome not yet written) is recorded once closeAll settles', async () => {
    const team = await started('two');
    teams.stop('@two');
    await team.runner.done; // its end is set, and the write of its outcome under way
    assert.ok(team.end, 'the team has ended');
    assert.deepEqual(teams.running(), [], 'no team is left running: baton start shuts down now');
    await teams.closeAll();
    assert.deepEqual(outcome(team.runId), ['failed', true], 'recorded as cancelled');
  });
});
