// Rule: what `baton approve` / `baton reject` print is true of the run: a workflow's step and execution statuses; for a
// pipeline run, that it goes on (the process driving it was woken), ends failed (a review rejected with onReject:
// fail), goes on with the review not approved (onReject: continue), is already over, or waits for `baton pipeline
// resume` because no process drives it, or because it is paused (Ctrl-C, its budget), which no process drives either.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GateDecisionResult } from '../../src/core/api.js';
import { decidedText } from '../../src/cli/decideCommand.js';

const decided = (over: Partial<GateDecisionResult>): GateDecisionResult => ({
  execution_id: 'r1', step_name: 'check', decision: 'approve', step_status: 'completed', execution_status: 'running', ...over,
});

test('a decision says what becomes of its run', () => {
  const cases: Array<[Partial<GateDecisionResult>, Parameters<typeof decidedText>[1], string]> = [
    [{ step_status: 'running', decision: 'reject' }, null, 'Rejected check of r1: step running, execution running'],
    [{}, null, 'Approved check of r1: step completed, execution running'],
    [{}, { status: 'running', orphaned: false }, 'Approved check of r1: step completed; the run goes on'],
    [{}, { status: 'completed', orphaned: false }, 'Approved check of r1: step completed; the run completed'],
    [{ decision: 'reject', step_status: 'failed' }, { status: 'running', orphaned: false }, 'Rejected check of r1: step failed; the run ends: it fails with your reason'],
    [{ decision: 'reject', step_status: 'failed' }, { status: 'failed', orphaned: false }, 'Rejected check of r1: step failed; the run failed'],
    [{ decision: 'reject' }, { status: 'running', orphaned: false }, 'Rejected check of r1: step completed; the run goes on with this review not approved'],
    [{}, { status: 'running', orphaned: true }, 'Approved check of r1: step completed; no Baton process drives the run: go on with baton pipeline resume r1'],
    [{}, { status: 'paused', orphaned: false }, 'Approved check of r1: step completed; the run is paused: go on with baton pipeline resume r1'],
    [{ decision: 'reject', step_status: 'failed' }, { status: 'paused', orphaned: false }, 'Rejected check of r1: step failed; the run is paused: go on with baton pipeline resume r1'],
  ];
  for (const [over, run, text] of cases) assert.equal(decidedText(decided(over), run), text);
});

test('the way on after a decision names the database the decision was made in, as the command was given it', () => {
  assert.equal(
    decidedText(decided({}), { status: 'running', orphaned: true }, " --db '/tmp/my dbs/b.db'"),
    "Approved check of r1: step completed; no Baton process drives the run: go on with baton pipeline resume r1 --db '/tmp/my dbs/b.db'",
  );
});
