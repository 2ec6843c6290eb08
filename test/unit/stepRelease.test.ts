// Rule: a person can take a running step from the agent that holds it (one that went away): the step is ready at once
// for the next agent that asks, the released token stops working and says why, the timeline records who released it
// from whom; a release names the step when several run, and refuses what it cannot release in words that say why.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BatonEvent } from '../../src/core/types.js';
import { BatonError } from '../../src/core/errors.js';
import { makeBaton, okStep, output } from '../helpers/coreHarness.js';

const TWO_AT_ONCE = `name: two-at-once
description: two steps with no dependencies, then a gate
type: parallel
steps:
  - name: left
    agent: implementer
    description: Left half
  - name: right
    agent: implementer
    description: Right half
  - name: check
    agent: reviewer
    description: Check both
    dependencies: [left, right]
    human_gate: true
`;

/** The refusal `fn` throws, as a BatonError. */
async function refusal(fn: () => Promise<unknown>): Promise<BatonError> {
  try {
    await fn();
  } catch (ex) {
    if (BatonError.is(ex)) return ex;
    throw ex;
  }
  assert.fail('expected a refusal');
}

describe('releasing a running step', () => {
  it('hands the step to the next agent that asks at once; the released token says why it no longer works', async () => {
    const { baton, clock } = await makeBaton();
    const first = await baton.nextStep({ template_name: 'bug-fix' }, { client_name: 'gone-agent' });
    const old = okStep(first).token;
    const id = first.execution_id!;
    // Held: another agent is told to come back later, and how a person hands the step on if its agent went away.
    const busy = await baton.nextStep({ task_id: id }, { client_name: 'other' });
    assert.equal(busy.status, 'no_op');
    assert.match(busy.human_message!, new RegExp(`\\. If the agent holding a step went away, a person can hand it on now with \`baton release ${id}\` \\(or Release Step in the editor\\)\\.$`));
    clock.advance(60_000);
    const events: BatonEvent[] = [];
    baton.onEvent((e) => events.push(e));
    const released = await baton.release(id, undefined, 'cli:ada');
    assert.deepEqual(released, {
      execution_id: id, step_name: 'analyze-root-cause', held_by: 'gone-agent', held_since: '2026-01-01T00:00:00.000Z', execution_status: 'running',
    });
    assert.deepEqual(events, [
      { type: 'step', execution_id: id, step_name: 'analyze-root-cause', status: 'ready' },
      { type: 'execution', execution_id: id, task_id: first.task_id, status: 'running' },
    ]);
    assert.equal(baton.workflowStatus(id).steps.find((s) => s.step_name === 'analyze-root-cause')?.status, 'ready');
    const timeline = baton.events(id).filter((e) => e.event_type === 'step_released');
    assert.deepEqual(timeline.map((e) => e.event_data), [{ step_name: 'analyze-root-cause', from: 'gone-agent', by: 'cli:ada' }]);
    // The next caller gets it now, not once the token has expired and the stall threshold passed.
    const taken = okStep(await baton.nextStep({ task_id: id }, { client_name: 'other' }));
    assert.equal(taken.step, 'analyze-root-cause');
    assert.notEqual(taken.token, old);
    // The agent that went away comes back: neither its submission nor a refresh is taken, and it is told why.
    for (const late of [{ step_token: old, model_output_so_far: output('late') }, { step_token: old, request: 'refresh_token' as const }]) {
      const r = await baton.nextStep(late);
      assert.equal(r.error?.code, 'token_out_of_order');
      assert.match(r.error!.message, /^A person released step "analyze-root-cause" \(at 2026-01-01T00:01:00\.000Z\) from this token, so that another agent could take it up: the token no longer works and this call changed nothing; read current-step:\/\//);
    }
    assert.equal(okStep(await baton.nextStep({ step_token: taken.token, model_output_so_far: output('done') })).step, 'implement-fix');
  });

  it('names the step when several run, and releases only that one', async () => {
    const { baton } = await makeBaton({ workflows: { 'two-at-once': TWO_AT_ONCE } });
    const left = await baton.nextStep({ template_name: 'two-at-once' }, { client_name: 'a' });
    const id = left.execution_id!;
    const right = okStep(await baton.nextStep({ task_id: id }, { client_name: 'b' }));
    assert.deepEqual([okStep(left).step, right.step], ['left', 'right']);
    assert.match((await baton.nextStep({ task_id: id })).human_message!, new RegExp(`\`baton release ${id} --step NAME\``));
    const several = await refusal(() => baton.release(id));
    assert.equal(several.reason, 'invalid_input');
    assert.equal(several.message, `Several steps of execution ${id} are running (left, right); name the one to release (baton release --step NAME).`);
    assert.equal((await baton.release(id, 'right')).held_by, 'b');
    const steps = baton.workflowStatus(id).steps;
    assert.deepEqual(steps.map((s) => [s.step_name, s.status]), [['left', 'running'], ['right', 'ready'], ['check', 'pending']]);
    // The left step's agent goes on as if nothing happened.
    assert.equal((await baton.nextStep({ step_token: okStep(left).token, model_output_so_far: output('left') })).status, 'ok');
  });

  it('with no terminal to reach the database (in memory), the busy answer names only the editor', async () => {
    const { baton } = await makeBaton({ approveCommand: null });
    const id = (await baton.nextStep({ template_name: 'bug-fix' })).execution_id!;
    const busy = await baton.nextStep({ task_id: id });
    assert.match(busy.human_message!, /\. If the agent holding a step went away, a person can hand it on now with Release Step in the editor\.$/);
  });

  it('refuses what it cannot release, saying why', async () => {
    const { baton, store } = await makeBaton({ workflows: { 'two-at-once': TWO_AT_ONCE } });
    assert.equal((await refusal(() => baton.release('nope'))).message, 'No execution or task "nope"; list them with `baton status`.');
    const first = await baton.nextStep({ template_name: 'two-at-once' });
    const id = first.execution_id!;
    const unknown = await refusal(() => baton.release(id, 'middle'));
    assert.equal(unknown.reason, 'step_not_found');
    assert.equal(unknown.message, `Execution ${id} has no step "middle"; running: left.`);
    const notRunning = await refusal(() => baton.release(id, 'check'));
    assert.equal(notRunning.message, `Step "check" of execution ${id} is pending; only a running step can be released: left.`);
    // Both halves done: the gate waits for a person, and no step is held.
    const second = okStep(await baton.nextStep({ task_id: id }));
    await baton.nextStep({ step_token: okStep(first).token, model_output_so_far: output('left') });
    const gate = await baton.nextStep({ step_token: second.token, model_output_so_far: output('right') });
    const waiting = okStep(gate);
    assert.equal((await baton.nextStep({ step_token: waiting.token, model_output_so_far: output('check') })).status, 'awaiting_approval');
    const none = await refusal(() => baton.release(id));
    assert.equal(none.reason, 'invalid_state');
    assert.equal(none.message, `No step of execution ${id} is running, so none is held by an agent.`);
    const gated = await refusal(() => baton.release(id, 'check'));
    assert.equal(gated.message, `Step "check" of execution ${id} is awaiting approval (it waits for a person: approve or reject it); only a running step can be released.`);
    await baton.cancel(id, 'cancelled', 'test');
    const cancelled = await refusal(() => baton.release(id));
    assert.equal(cancelled.message, `Execution ${id} is cancelled; only a running execution's steps can be released.`);
    // A pipeline run's steps are held by the agents the run started, not by agents that ask.
    const other = await baton.nextStep({ template_name: 'bug-fix' });
    await store.transaction(() => store.run("UPDATE executions SET kind = 'pipeline' WHERE execution_id = ?", [other.execution_id!]));
    const pipeline = await refusal(() => baton.release(other.execution_id!));
    assert.equal(pipeline.message, `${other.execution_id} is a pipeline run: its steps are held by the agents the run started, so there is no step to release.`);
    assert.equal(baton.workflowStatus(other.execution_id!).steps[0]!.status, 'running', 'nothing changed');
  });
});
