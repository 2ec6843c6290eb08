// Rule: one transition table governs every execution: each of the 64 state pairs is allowed or refused exactly as
// the table says, a refusal names the allowed moves, and the broker's own moves (gate, close, cancel) are legal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { EXECUTION_STATES, EXECUTION_TRANSITIONS, assertTransition, canTransition } from '../../src/core/stateMachine.js';
import type { ExecutionStatus } from '../../src/core/types.js';

/** The spec's list plus the broker's paused and awaiting_approval, written out independently of the code. */
const EXPECTED: Record<ExecutionStatus, ExecutionStatus[]> = {
  pending: ['running', 'failed'],
  running: ['completed', 'failed', 'timeout', 'escalated', 'paused', 'awaiting_approval'],
  paused: ['running', 'failed'],
  awaiting_approval: ['running', 'completed', 'failed'],
  timeout: ['running', 'failed'],
  escalated: ['running', 'completed', 'failed'],
  completed: [],
  failed: [],
};

describe('execution state machine', () => {
  it('knows the eight states', () => {
    assert.deepEqual([...EXECUTION_STATES].sort(), Object.keys(EXPECTED).sort());
  });

  for (const from of EXECUTION_STATES) {
    it(`from ${from}: allows exactly ${EXPECTED[from].join(', ') || 'nothing (terminal)'}`, () => {
      for (const to of EXECUTION_STATES) {
        const legal = from === to || EXPECTED[from].includes(to);
        assert.equal(canTransition(from, to), legal, `${from} → ${to}`);
        if (legal) {
          assert.doesNotThrow(() => assertTransition('e1', from, to));
          continue;
        }
        assert.throws(() => assertTransition('e1', from, to), (ex: unknown) => {
          assert.ok(BatonError.is(ex, 'invalid_state'));
          assert.match(ex.message, new RegExp(`^Execution e1 cannot go from ${from} to ${to}\\. `));
          const tail = EXPECTED[from].length ? `From ${from} it can go to: ${EXPECTED[from].join(', ')}.` : `${from} is a terminal state; start a new execution instead.`;
          assert.ok(ex.message.endsWith(tail), ex.message);
          assert.deepEqual(ex.details.allowed, EXECUTION_TRANSITIONS[from]);
          return true;
        });
      }
    });
  }

  it("allows the broker's moves: gate and approval, closing after the last gate, failing or cancelling from any open state", () => {
    for (const [from, to] of [['running', 'awaiting_approval'], ['awaiting_approval', 'running'], ['awaiting_approval', 'completed'], ['running', 'completed']] as const) {
      assert.ok(canTransition(from, to), `${from} → ${to}`);
    }
    for (const from of EXECUTION_STATES.filter((s) => s !== 'completed' && s !== 'failed')) assert.ok(canTransition(from, 'failed'), `${from} → failed`);
  });
});
