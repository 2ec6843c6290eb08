// Rule: the live progress of `baton pipeline run` ends on the run as it ended: a step the run stopped under (Ctrl-C,
// its budget, a cancel) is drawn stopped in the last frame, not still running above the "paused" summary.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProgressView } from '../../src/cli/pipelineProgress.js';
import type { PipelineProgress, System } from '../../src/core/pipelines/types.js';

const SYSTEM = { name: 'slow', description: '', agents: [], workflow: [] } as unknown as System;
const RUN = 'run-1';

/** A view on a terminal 200 columns wide; the last frame it drew, escape codes left out. */
function view(): { view: ProgressView; lastFrame: () => string } {
  const frames: string[] = [];
  const out = { columns: 200, write: (text: string) => frames.push(text) } as unknown as NodeJS.WriteStream;
  return { view: new ProgressView(out, SYSTEM, RUN, null), lastFrame: () => (frames.at(-1) ?? '').replace(/\x1b\[\d*[A-Z]/g, '') };
}

const started: PipelineProgress = { type: 'step_started', runId: RUN, step: 'nap', stepType: 'agent', agent: 'sleeper', attempt: 1 };

test('a step the run paused under (Ctrl-C) is drawn stopped in the last frame, to run again on resume', () => {
  const { view: v, lastFrame } = view();
  v.update(started);
  assert.match(lastFrame(), /… nap {2}sleeper {2}running {2}/);
  v.update({ type: 'run_finished', runId: RUN, status: 'paused', error: 'interrupted (Ctrl-C)' });
  v.close();
  assert.match(lastFrame(), /■ nap {2}sleeper {2}stopped \(runs again on resume\) {2}/);
  assert.doesNotMatch(lastFrame(), /running/);
});

test('a run that ends failed (cancelled) leaves its running step stopped; finished steps keep their marks', () => {
  const { view: v, lastFrame } = view();
  v.update({ type: 'step_started', runId: RUN, step: 'first', stepType: 'agent', agent: 'scout', attempt: 1 });
  v.update({ type: 'step_completed', runId: RUN, step: 'first', output: 'x', usage: { input: 1, output: 0, cached: 0, reasoning: 0 }, costUsd: null, replayed: false });
  v.update(started);
  v.update({ type: 'run_finished', runId: RUN, status: 'failed', error: 'aborted' });
  v.close();
  assert.match(lastFrame(), /✓ first {2}scout {2}done {2}1 tok/);
  assert.match(lastFrame(), /■ nap {2}sleeper {2}stopped {2}0 tok/);
  assert.match(lastFrame(), /^slow {2}run run-1 {2}\S+ {2}1 token {2}\$0\.0000$/m, 'one token, not "1 tokens"');
});
