// Rule: before a team runs, a kickoff that wakes no agent (agents wake only when @mentioned) or names an @agent the
// workflow does not have is pointed out, as is no kickoff for `baton run` (which ends at once); a kickoff that mentions
// an agent is fine, and so is none for `baton start` (the team waits for `baton send`), which says the team waits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kickoffWarnings } from '../../src/core/worker/kickoffWarnings.js';
import type { WorkflowFile } from '../../src/core/worker/types.js';

const team = (kickoff?: string): WorkflowFile => ({
  name: 't', agents: { reviewer: { model: 'claude-sonnet' }, writer: { model: 'gpt-5' } } as unknown as WorkflowFile['agents'], ...(kickoff === undefined ? {} : { kickoff }),
});

test('a kickoff that wakes nobody, or names an agent the team does not have, is warned about', () => {
  assert.deepEqual(kickoffWarnings(team('Please review the PR'), 'run'), ['the kickoff mentions none of the agents, so none wakes up and the team ends at once; address one, as in "@reviewer …"']);
  assert.deepEqual(kickoffWarnings(team('Please review the PR')), ['the kickoff mentions none of the agents, so none wakes up and the team waits until a message @mentions one; address one, as in "@reviewer …"'], 'baton start keeps the team');
  assert.deepEqual(kickoffWarnings(team('@ghost and @reviewer, go')), ['the kickoff mentions @ghost, which is not an agent of this workflow (agents: reviewer, writer)']);
  assert.deepEqual(kickoffWarnings(team('@writer draft it; mail me at a@b.com; `@reviewer` in code')), []);
  assert.deepEqual(kickoffWarnings(team()), [], 'no kickoff for baton start: the team waits for baton send');
  assert.deepEqual(kickoffWarnings(team(), 'run'), ['the workflow has no kickoff, so no agent wakes up and the team ends at once; add one, as in kickoff: "@reviewer …" (or use baton start, then baton send)']);
});
