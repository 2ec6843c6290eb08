// Rule: "Baton: Stop Team" from the palette with no team running says so and names the command that starts one,
// rather than leaving the person with nothing to do; it asks nothing and stops nothing.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { TeamRunSummary } from '../../src/core/worker/teamRuns.js';
import type { Services } from '../../src/vscode/services.js';
import { stopTeam } from '../../src/vscode/teams/teamStop.js';
import { fakeWindow } from '../helpers/fakeVscode.js';

describe('Stop Team from the palette', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.picks = [];
  });

  it('with no team running, names Run Agent Team (YAML)... and stops nothing', async () => {
    const stops: string[] = [];
    const finished = { runId: 'r1', instance: 'default', workflow: 'review', status: 'completed' } as unknown as TeamRunSummary;
    const teams = { runs: async () => [finished], stop: async (t: string) => { stops.push(t); return [t]; } };
    const s = { connection: { teams: async () => teams } } as unknown as Services;
    assert.equal(await stopTeam(s), undefined);
    assert.deepEqual(fakeWindow.shown.map((m) => m.message), ['Baton: no agent team is running. Start one with "Baton: Run Agent Team (YAML)...".']);
    assert.equal(fakeWindow.picks.length, 0, 'no picker of nothing');
    assert.deepEqual(stops, []);
  });
});
