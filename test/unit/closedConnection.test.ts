// Rule: once the client connection a running step was handed out on closes (its agent went away), the step goes to
// the next agent that asks, at once, not once its token has expired and the stall threshold passed; until one does,
// the token goes on working (an agent that reconnects goes on). A connection that closes holding nothing frees nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeBaton, okStep, output } from '../helpers/coreHarness.js';

describe('a step whose connection closed', () => {
  it('goes to the next agent that asks at once, recorded as reclaimed because its connection closed', async () => {
    const { baton } = await makeBaton();
    const first = await baton.nextStep({ template_name: 'bug-fix' }, { client_name: 'gone', session_id: 'a' });
    const id = first.execution_id!;
    assert.equal((await baton.nextStep({ task_id: id }, { client_name: 'other', session_id: 'b' })).status, 'no_op');
    baton.connectionClosed('z'); // another connection, that held nothing
    assert.equal((await baton.nextStep({ task_id: id }, { client_name: 'other', session_id: 'b' })).status, 'no_op');
    baton.connectionClosed('a');
    const taken = okStep(await baton.nextStep({ task_id: id }, { client_name: 'other', session_id: 'b' }));
    assert.equal(taken.step, 'analyze-root-cause');
    const reclaimed = baton.events(id).filter((e) => e.event_type === 'step_reclaimed').map((e) => e.event_data);
    assert.deepEqual(reclaimed, [{ step_name: 'analyze-root-cause', from: 'gone', claimed_by: 'other', reason: 'connection_closed' }]);
    // The agent that went away comes back with its token: the step moved on without it.
    const late = await baton.nextStep({ step_token: okStep(first).token, model_output_so_far: output('late') }, { session_id: 'a2' });
    assert.equal(late.error?.code, 'token_out_of_order');
  });

  it('handed out on the stdio of a process that is gone, goes to the next agent; of one that runs, stays', async () => {
    const dead = 4242;
    const { baton } = await makeBaton({ processAlive: (pid) => pid !== dead });
    const live = await baton.nextStep({ template_name: 'bug-fix' }, { client_name: 'here', session_id: 'a', holder_pid: 7 });
    assert.equal((await baton.nextStep({ task_id: live.execution_id! }, { client_name: 'other', session_id: 'b' })).status, 'no_op');
    const gone = await baton.nextStep({ template_name: 'bug-fix' }, { client_name: 'gone', session_id: 'c', holder_pid: dead });
    const taken = okStep(await baton.nextStep({ task_id: gone.execution_id! }, { client_name: 'other', session_id: 'b' }));
    assert.equal(taken.step, 'analyze-root-cause');
    const reclaimed = baton.events(gone.execution_id!).find((e) => e.event_type === 'step_reclaimed')?.event_data as { reason: string };
    assert.equal(reclaimed.reason, 'connection_closed');
  });

  it('keeps working for its agent, reconnected, as long as nobody else took the step', async () => {
    const { baton } = await makeBaton();
    const first = await baton.nextStep({ template_name: 'bug-fix' }, { client_name: 'flaky', session_id: 'a' });
    baton.connectionClosed('a');
    const next = await baton.nextStep({ step_token: okStep(first).token, model_output_so_far: output('done') }, { client_name: 'flaky', session_id: 'a2' });
    assert.equal(okStep(next).step, 'implement-fix');
  });
});
