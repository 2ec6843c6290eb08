// Rule: the live progress of `baton pipeline run` ends on the run as it ended: a step the run stopped under (Ctrl-C,
// its budget, a cancel) is drawn stopped in the last frame, not still running above the "paused" summary; a waiting
// step gets the approve and reject commands with the database the run was given, whole, so they work pasted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProgressView } from '../../src/cli/pipelineProgress.js';
import type { PipelineProgress, System } from '../../src/core/pipelines/types.js';

const SYSTEM = { name: 'slow', description: '', agents: [], workflow: [] } as unknown as System;
const RUN = 'run-1';

/** A view on a terminal 200 columns wide; the last frame it drew, escape codes left out. */
function view(db = '', columns = 200): { view: ProgressView; lastFrame: () => string; frames: string[] } {
  const frames: string[] = [];
  const out = { columns, write: (text: string) => frames.push(text) } as unknown as NodeJS.WriteStream;
  return { view: new ProgressView(out, SYSTEM, RUN, null, db), lastFrame: () => (frames.at(-1) ?? '').replace(/\x1b\[\d*[A-Z]/g, ''), frames };
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

test('a step awaiting approval names approve and reject with the --db the run was given, not cut at the width', () => {
  const db = ' --db /a/long/folder/name/that/does/not/fit/in/forty/columns/baton.db';
  const { view: v, lastFrame, frames } = view(db, 40);
  v.update({ type: 'step_awaiting_approval', runId: RUN, step: 'ok', prompt: 'Ship it?' });
  assert.match(lastFrame(), /… ok {2}person {2}awaiting approval {2}0 t/);
  assert.ok(lastFrame().includes(`  ok: baton approve run-1${db}   or   baton reject run-1${db} --feedback TEXT\n`), lastFrame());
  // The next frame goes up over every row the last one took, its wrapped command line included.
  const rows = lastFrame().split('\n').slice(0, -1).reduce((n, l) => n + Math.max(1, Math.ceil(l.length / 40)), 0);
  v.update({ type: 'step_completed', runId: RUN, step: 'ok', output: 'yes', usage: { input: 0, output: 0, cached: 0, reasoning: 0 }, costUsd: null, replayed: false });
  v.close();
  assert.ok(frames.at(-1)!.startsWith(`\x1b[${rows}A`), JSON.stringify(frames.at(-1)));
  assert.doesNotMatch(lastFrame(), /baton approve/, 'a decided step leaves no command behind');
});

test('with several steps awaiting approval each command names its --step', () => {
  const { view: v, lastFrame } = view(' --db /x/b.db');
  v.update({ type: 'step_awaiting_approval', runId: RUN, step: 'left', prompt: '?' });
  v.update({ type: 'step_awaiting_approval', runId: RUN, step: 'right', prompt: '?' });
  v.close();
  assert.match(lastFrame(), /left: baton approve run-1 --step left --db \/x\/b\.db {3}or {3}baton reject run-1 --step left --db \/x\/b\.db --feedback TEXT/);
  assert.match(lastFrame(), /right: baton approve run-1 --step right --db \/x\/b\.db/);
});
