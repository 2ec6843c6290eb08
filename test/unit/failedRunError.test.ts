// Rule: a failed run's listing (baton status, the views) carries why it failed, whichever way it failed: a team run
// that ended failing, a workflow left with no step that can run; a cancelled run has its reason instead, no error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { teamHost } from '../../src/core/worker/host.js';
import { makeBaton, okStep, SPEC_EXAMPLE_YAML } from '../helpers/coreHarness.js';

test('a team run that finished failed lists its reason as error; a stopped one lists its cancel reason', async () => {
  const { baton, store } = await makeBaton();
  try {
    const teams = teamHost(baton)!.teams;
    const failed = await teams.start({ workflow: 'review', instance: 'pr-1', agents: [] });
    await teams.finish(failed, 'failed', 'the kickoff could not be posted: disk full');
    const stopped = await teams.start({ workflow: 'review', instance: 'pr-2', agents: [] });
    await teams.finish(stopped, 'cancelled', 'stopped by baton stop @pr-2');
    const listed = new Map(baton.listExecutions().map((e) => [e.execution_id, e]));
    assert.equal(listed.get(failed)?.error, 'the kickoff could not be posted: disk full');
    assert.equal(listed.get(stopped)?.error, undefined);
    assert.equal(listed.get(stopped)?.cancel_reason, 'stopped by baton stop @pr-2');
  } finally {
    await store.close();
  }
});

test('a workflow whose remaining steps can no longer run lists the broker\'s reason as error', async () => {
  const { baton, store } = await makeBaton({ workflows: { 'spec-example': SPEC_EXAMPLE_YAML } });
  try {
    const first = await baton.nextStep({ template_name: 'spec-example', task_description: 'x' });
    okStep(first);
    // A step failed under the run (the broker never hands out a failed step again): nothing else can run.
    await store.transaction(() => store.run("UPDATE steps SET status = 'failed', token_nonce = NULL WHERE execution_id = ? AND step_name = 'analyze-root-cause'", [first.execution_id!]));
    const answer = await baton.nextStep({ task_id: first.execution_id! });
    assert.equal(answer.status, 'error');
    const listed = baton.listExecutions().find((e) => e.execution_id === first.execution_id)!;
    assert.equal(listed.status, 'failed');
    assert.equal(listed.error, answer.error!.message);
    assert.match(listed.error!, /^No step can run any more: analyze-root-cause \(failed\), implement-fix \(pending\), .* cannot complete/);
  } finally {
    await store.close();
  }
});
