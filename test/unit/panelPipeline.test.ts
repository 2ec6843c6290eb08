// Rule: a pipeline run's panel shows the system's structure (parallel, conditional arms, loop passes) named as the
// engine names step instances, each step's status, streamed output and tool calls as they arrive (runs driven in this
// process, whoever started them), spend per step / agent / run against the budget; a human_review's prompt as the run
// says it (placeholders filled or named, never raw) and in the gate box as what the person decides on, no earlier
// attempt's output shown as a step's own once it starts again (follower and owner alike), the review approved from
// the panel, and a run paused at its budget is raised and resumed from it. The gate box says what rejecting a review
// does (the run fails, or goes on with it not approved) as the run recorded it, not that an agent redoes it. In a run
// whose owner died (orphaned) nothing recorded running shows running: it is interrupted until the run is resumed.
// A budget pause's reason reads as the rest of the panel's spend ("2,468 tokens"), never the stored raw form, and its
// box prefills what the run spent plus its old budget again (rounded up), not twice the budget, which a run far past it
// could pass at once. A step stopped by a pause shows what its attempt streamed, marked stopped with why, the same in
// the owner's window (which heard the stream) and a follower's (which did not), until it starts again. A follower
// says another process drives the run only while it moves (running, awaiting approval), not while it is paused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RunEventQueue } from '../../src/core/pipelines/runEvents.js';
import type { PipelineRunView } from '../../src/core/pipelines/pipelineRuns.js';
import { ZERO_USAGE, type AgentRun, type AgentRunRequest, type AgentRunner } from '../../src/core/pipelines/runner.js';
import type { System } from '../../src/core/pipelines/types.js';
import { findPipelineNode, parseFromWebview, type PanelPipelineNode, type PanelState, type ToWebview } from '../../src/shared/protocol.js';
import { panelRejection } from '../../src/shared/rejectWords.js';
import { LocalSource } from '../../src/vscode/batonSource.js';
import { aggregateStatus, buildPanelPipeline, raisedBudget } from '../../src/vscode/panels/panelPipeline.js';
import { PanelController } from '../../src/vscode/panels/panelController.js';
import { FEED_RUNS, FEED_TEXT_CHARS, FEED_TOOL_CALLS, PipelineFeed } from '../../src/vscode/pipelines/pipelineFeed.js';
import { LocalPipelines, type PipelineSource } from '../../src/vscode/pipelines/pipelineSource.js';
import { makeBaton } from '../helpers/coreHarness.js';
import { until } from '../helpers/until.js';

const SHAPED: System = {
  name: 'shaped', description: '', agents: [{ id: 'a', role: 'custom', runner: 'command', command: ['x'] }],
  workflow: [
    { id: 'first', type: 'agent', agentId: 'a' },
    { id: 'fan', type: 'parallel', failurePolicy: 'wait_for_all', children: [{ id: 'x', type: 'agent', agentId: 'a' }, { id: 'y', type: 'transform', operation: 'upper' }] },
    { id: 'pick', type: 'conditional', condition: { field: 'first', operator: 'contains', value: 'ok' }, trueBranch: [{ id: 'yes', type: 'agent', agentId: 'a' }], falseBranch: [{ id: 'no', type: 'agent', agentId: 'a' }] },
    { id: 'again', type: 'loop', maxIterations: 3, children: [{ id: 'try', type: 'agent', agentId: 'a' }] },
    { id: 'gate', type: 'human_review', inputTemplate: 'Ship it?' },
  ],
};

function row(step_name: string, status: 'completed' | 'running' | 'awaiting_approval' | 'failed' | 'pending', outcome_summary: string | null = null) {
  return { step_name, status, attempt: 1, outcome_summary };
}

const find = findPipelineNode;

function view(over: Partial<PipelineRunView> = {}): PipelineRunView {
  return {
    runId: 'r1', system: SHAPED, input: 'do it', status: 'running', budget: { tokens: 200, usd: 1 }, pauseReason: null,
    usage: {
      total: { usage: ZERO_USAGE, tokens: 150, costUsd: 0.25 },
      byAgent: { a: { usage: ZERO_USAGE, tokens: 150, costUsd: 0.25, steps: 3 } },
      bySteps: { first: { agent: 'a', usage: ZERO_USAGE, tokens: 100, costUsd: 0.2 } },
    },
    ...over,
  };
}

test('a container shows what its children spent: tokens and dollars (none known: no dollars)', () => {
  const rows = [row('first', 'completed'), row('fan/x', 'completed'), row('fan/y', 'completed')];
  const costed = view({
    usage: {
      total: { usage: ZERO_USAGE, tokens: 30, costUsd: 0.003 },
      byAgent: { a: { usage: ZERO_USAGE, tokens: 30, costUsd: 0.003, steps: 2 } },
      bySteps: { 'fan/x': { agent: 'a', usage: ZERO_USAGE, tokens: 20, costUsd: 0.002 }, 'fan/y': { agent: 'a', usage: ZERO_USAGE, tokens: 10, costUsd: 0.001 } },
    },
  });
  const fan = find(buildPanelPipeline(costed, rows, undefined, true).nodes, 'fan')!;
  assert.equal(fan.tokens, 30);
  assert.ok(Math.abs(fan.costUsd! - 0.003) < 1e-12, String(fan.costUsd));
  const unpriced = find(buildPanelPipeline(view(), rows, undefined, true).nodes, 'fan')!;
  assert.equal(unpriced.costUsd, null, 'no child has a known cost');
});

test('a follower says another process drives the run only while it moves: not paused, not left by its owner', () => {
  const rows = [row('first', 'completed', 'it is ok'), row('fan/x', 'running')];
  assert.equal(buildPanelPipeline(view(), rows, undefined, false).drivenElsewhere, true, 'running, driven by the owner');
  assert.equal(buildPanelPipeline(view({ status: 'awaiting_approval' }), rows, undefined, false).drivenElsewhere, true);
  const paused = view({ status: 'paused', pauseReason: 'budget_exceeded: 220 tokens used, budget 200' });
  assert.equal(buildPanelPipeline(paused, rows, undefined, false).drivenElsewhere, false, 'paused: nothing drives it');
  assert.equal(buildPanelPipeline(view({ orphaned: true }), rows, undefined, false).drivenElsewhere, false, 'its owner ended');
  assert.equal(buildPanelPipeline(view({ status: 'completed' }), rows, undefined, false).drivenElsewhere, false);
  assert.equal(buildPanelPipeline(view(), rows, undefined, true).drivenElsewhere, false, 'this editor drives it');
});

test('in a paused run a loop between passes reads as pending, not running; in a moving run as running', () => {
  // The second pass's step was stopped when the run passed its budget: its row went back to pending.
  const rows = [row('first', 'completed', 'it is ok'), row('again[1]/try', 'completed'), row('again[2]/try', 'pending')];
  const moving = buildPanelPipeline(view(), rows, undefined, true);
  assert.equal(find(moving.nodes, 'again')!.status, 'running', 'between passes of a run that goes on');
  const paused = buildPanelPipeline(view({ status: 'paused', pauseReason: 'budget_exceeded: 220 tokens used, budget 150' }), rows, undefined, true);
  assert.equal(find(paused.nodes, 'again')!.status, 'pending', 'nothing in it runs while the run is paused');
  assert.equal(find(paused.nodes, 'again[1]')!.status, 'completed', 'what is done stays done');
  const runningLeaf = buildPanelPipeline(view({ status: 'paused' }), [...rows.slice(0, 2), row('again[2]/try', 'running')], undefined, true);
  assert.equal(find(runningLeaf.nodes, 'again')!.status, 'running', 'a step recorded running still shows in its container');
});

test('the graph keeps the structure and names instances as the engine does; containers take their children\'s status', () => {
  const rows = [row('first', 'completed', 'it is ok'), row('fan/x', 'completed'), row('fan/y', 'completed'), row('pick/then/yes', 'completed'),
    row('again[1]/try', 'completed'), row('again[2]/try', 'running')];
  const p = buildPanelPipeline(view(), rows, undefined, true);
  assert.deepEqual(p.nodes.map((n) => [n.name, n.type, n.status]), [
    ['first', 'agent', 'completed'], ['fan', 'parallel', 'completed'], ['pick', 'conditional', 'completed'], ['again', 'loop', 'running'], ['gate', 'human_review', 'pending'],
  ]);
  assert.equal(find(p.nodes, 'first')!.output, 'it is ok');
  assert.equal(find(p.nodes, 'first')!.tokens, 100);
  assert.equal(find(p.nodes, 'fan')!.detail, 'wait_for_all');
  assert.equal(find(p.nodes, 'pick/then')!.status, 'completed');
  assert.equal(find(p.nodes, 'pick/else')!.status, 'skipped', 'the arm not taken');
  assert.match(find(p.nodes, 'pick')!.detail!, /first contains "ok"/);
  assert.deepEqual(find(p.nodes, 'again')!.children.map((c) => [c.label, c.status]), [['iteration 1', 'completed'], ['iteration 2', 'running']]);
  assert.equal(find(p.nodes, 'gate')!.detail, 'Ship it?');
  assert.equal(p.budgetUsedPercent, 75, '150 of 200 tokens (25% of the dollars): the larger share');
  assert.deepEqual(p.byAgent, [{ agent: 'a', tokens: 150, costUsd: 0.25, steps: 3 }]);
  assert.equal(p.pausedForBudget, null);
  // Before anything ran: one pending pass of the loop, both arms pending.
  const fresh = buildPanelPipeline(view({ budget: null }), [], undefined, false);
  assert.equal(find(fresh.nodes, 'again[1]/try')!.status, 'pending');
  assert.equal(find(fresh.nodes, 'pick/else')!.status, 'pending');
  assert.equal(fresh.budgetUsedPercent, null);
  const paused = buildPanelPipeline(view({ status: 'paused', pauseReason: 'budget of 200 tokens reached' }), rows, undefined, true);
  assert.equal(paused.pausedForBudget, 'budget of 200 tokens reached');
  assert.equal(paused.pausedInterrupted, null);
  // The stored reason reads as the panel shows spend; the run keeps it as it is.
  const over = buildPanelPipeline(view({ status: 'paused', pauseReason: 'budget_exceeded: 2468 tokens used, budget 2000' }), rows, undefined, true);
  assert.equal(over.pausedForBudget, '2,468 tokens used, budget 2,000 tokens');
  const overUsd = buildPanelPipeline(view({ status: 'paused', pauseReason: 'budget_exceeded: $1.2345 spent, budget $1' }), rows, undefined, true);
  assert.equal(overUsd.pausedForBudget, '$1.2345 spent, budget $1.0000');
  // Left running by a Baton process that ended (no process drives it): offered to resume as it is.
  const left = buildPanelPipeline(view({ status: 'running', orphaned: true }), rows, undefined, true);
  assert.deepEqual([left.pausedInterrupted, left.pausedForBudget], ['interrupted (the Baton process running it ended)', null]);
  assert.equal(buildPanelPipeline(view({ status: 'running', orphaned: false }), rows, undefined, true).pausedInterrupted, null);
});

test('a budget pause prefills spent plus the old budget again, rounded up, per limit, and says so in its hint', () => {
  // The probe's run: budget 2,000 tokens, 2,468 spent. Twice the budget (4,000) left 1,532 tokens; this leaves 2,032.
  const probe = raisedBudget({ tokens: 2000, usd: null }, { tokens: 2468, costUsd: 0 });
  assert.deepEqual([probe.tokens, probe.usd], [4500, null]);
  assert.equal(probe.hint, 'Prefilled: what the run has spent plus its budget again, rounded up (2,468 + 2,000 tokens → 4,500), so it gets as much again before it pauses.');
  assert.deepEqual(
    [[220, 150], [100, 60], [4000, 2000], [1_234_567, 1_000_000], [7, 5]].map(([spent, old]) => raisedBudget({ tokens: old!, usd: null }, { tokens: spent!, costUsd: 0 }).tokens),
    [370, 160, 6000, 2_300_000, 12],
  );
  // Dollars to a tenth of the budget's power of ten (a $1 budget: dimes), cents at least (the box steps by cents),
  // exact as typed: no 0.060000000000000005.
  const usd = raisedBudget({ tokens: null, usd: 1 }, { tokens: 900, costUsd: 1.2345 });
  assert.deepEqual([usd.tokens, usd.usd], [null, 2.3]);
  assert.match(usd.hint, /\(\$1\.2345 \+ \$1\.0000 → \$2\.3000\)/);
  assert.equal(raisedBudget({ tokens: null, usd: 0.02 }, { tokens: 0, costUsd: 0.0312 }).usd, 0.06);
  assert.equal(raisedBudget({ tokens: null, usd: 20 }, { tokens: 0, costUsd: 23.4 }).usd, 44);
  assert.equal(raisedBudget({ tokens: null, usd: 0.3 }, { tokens: 0, costUsd: 0.29 }).usd, 0.59);
  const both = raisedBudget({ tokens: 2000, usd: 0.5 }, { tokens: 2468, costUsd: 0.61 });
  assert.deepEqual([both.tokens, both.usd], [4500, 1.11]);
  assert.match(both.hint, /2,468 \+ 2,000 tokens → 4,500; \$0\.6100 \+ \$0\.5000 → \$1\.1100/);
  for (const [spent, old] of [[2468, 2000], [99, 100], [12_345, 987]]) {
    const raised = raisedBudget({ tokens: old!, usd: null }, { tokens: spent!, costUsd: 0 }).tokens!;
    assert.ok(raised - spent! >= old! && raised - spent! <= old! * 1.1, `${spent} + ${old} → ${raised}: as much again, give or take a tenth`);
  }
  // In the panel: set while paused at the budget, from the run's spend and limits; not otherwise.
  const rows = [row('first', 'completed')];
  const paused = buildPanelPipeline(view({ status: 'paused', pauseReason: 'budget_exceeded: 150 tokens used, budget 100', budget: { tokens: 100, usd: 0.2 } }), rows, undefined, true);
  assert.deepEqual([paused.raise?.tokens, paused.raise?.usd], [250, 0.45]);
  assert.equal(buildPanelPipeline(view(), rows, undefined, true).raise, null);
  assert.equal(buildPanelPipeline(view({ status: 'paused', pauseReason: 'interrupted (Ctrl-C)' }), rows, undefined, true).raise, null);
});

test('a review\'s prompt reads as the run says it: recorded once reached, else filled with what is known, never {{…}}', () => {
  const system: System = {
    name: 'asks', description: '', agents: [{ id: 'a', role: 'custom', runner: 'command', command: ['x'] }],
    workflow: [
      { id: 'draft', name: 'Draft', type: 'agent', agentId: 'a', outputVariable: 'draft' },
      { id: 'gate', type: 'human_review', inputTemplate: 'Ship {{ draft }} for {{system.input}} (score {{later.score}}, {{nowhere}})?' },
      { id: 'later', type: 'agent', agentId: 'a', outputVariable: 'later' },
    ],
  };
  const detail = (rows: ReturnType<typeof row>[], prompts?: Record<string, string>) =>
    find(buildPanelPipeline(view({ system, ...(prompts ? { prompts } : {}) }), rows, undefined, true).nodes, 'gate')!.detail;
  assert.equal(detail([]), 'Ship [Draft] for do it (score [later], [nowhere])?');
  assert.equal(detail([row('draft', 'completed', 'v1 of the notes')]), 'Ship v1 of the notes for do it (score [later], [nowhere])?');
  assert.equal(detail([row('draft', 'completed', 'v1'), row('gate', 'awaiting_approval')], { gate: 'Ship the whole v1 text?' }), 'Ship the whole v1 text?');
  assert.equal(detail([row('draft', 'completed', 'x'.repeat(5000))])!.length, 2000, 'a long output is cut');
});

test('a review\'s rejection is what the run recorded, else what its definition says (fail by default); other steps are redone', () => {
  const system: System = {
    ...SHAPED,
    workflow: [...SHAPED.workflow, { id: 'soft', type: 'human_review', inputTemplate: 'Nice?', onReject: 'continue' }],
  };
  const before = buildPanelPipeline(view({ system }), [], undefined, false);
  assert.equal(find(before.nodes, 'gate')!.onReject, 'fail');
  assert.equal(find(before.nodes, 'soft')!.onReject, 'continue');
  assert.equal(find(before.nodes, 'first')!.onReject, undefined, 'an agent step has none');
  const reached = buildPanelPipeline(view({ system, onReject: { gate: 'continue' } }), [row('gate', 'awaiting_approval')], undefined, false);
  assert.equal(panelRejection(reached, 'gate'), 'continue', 'as recorded when the run reached it');
  assert.equal(panelRejection(before, 'gate'), 'fail');
  assert.equal(panelRejection(before, 'first'), 'redo');
  assert.equal(panelRejection(null, 'gate'), 'redo', 'a workflow run: the agent redoes the step');
});

test('in an orphaned run a step recorded running, and what holds it, show interrupted; resumed, they run again', () => {
  const rows = [row('first', 'completed', 'ok'), row('fan/x', 'completed'), row('fan/y', 'completed'), row('pick/then/yes', 'completed'), row('again[1]/try', 'running')];
  const orphaned = buildPanelPipeline(view({ orphaned: true }), rows, undefined, false);
  assert.equal(find(orphaned.nodes, 'again[1]/try')!.status, 'interrupted');
  assert.equal(find(orphaned.nodes, 'again[1]')!.status, 'interrupted');
  assert.equal(find(orphaned.nodes, 'again')!.status, 'interrupted');
  assert.equal(find(orphaned.nodes, 'first')!.status, 'completed', 'a finished step keeps its state');
  assert.equal(find(orphaned.nodes, 'gate')!.status, 'pending');
  const resumed = buildPanelPipeline(view({ orphaned: false }), rows, undefined, false);
  assert.equal(find(resumed.nodes, 'again[1]/try')!.status, 'running');
  assert.equal(find(resumed.nodes, 'again')!.status, 'running');
});

test('a step started again shows no earlier attempt\'s output as its own, in a follower window as in the owner\'s', () => {
  const again = { step_name: 'first', status: 'running' as const, attempt: 2, outcome_summary: 'aborted' };
  const follower = buildPanelPipeline(view(), [again], undefined, false);
  assert.equal(find(follower.nodes, 'first')!.output, null, 'no stream here: the recorded summary is the earlier attempt\'s');
  const feed = new PipelineFeed();
  feed.add({ type: 'step_started', runId: 'r1', step: 'first', stepType: 'agent', agent: 'a', attempt: 2 });
  assert.equal(find(buildPanelPipeline(view(), [again], feed, true).nodes, 'first')!.output, null, 'the owner before its first line');
  feed.add({ type: 'step_output', runId: 'r1', step: 'first', text: 'second try' });
  assert.equal(find(buildPanelPipeline(view(), [again], feed, true).nodes, 'first')!.output, 'second try');
  const waiting = buildPanelPipeline(view(), [{ step_name: 'gate', status: 'awaiting_approval', attempt: 1, outcome_summary: 'interrupted (Ctrl-C)' }], undefined, false);
  assert.equal(find(waiting.nodes, 'gate')!.output, null, 'a review waiting again');
  const stopped = buildPanelPipeline(view(), [{ ...again, status: 'pending' }, row('fan/x', 'completed', 'done')], undefined, false);
  assert.equal(find(stopped.nodes, 'first')!.output, 'aborted', 'put back (not started again): why it stopped still shows');
  assert.equal(find(stopped.nodes, 'fan/x')!.output, 'done');
});

test('container statuses: waiting and running win, then failure; all done (or skipped) is done', () => {
  const cases: Array<[Parameters<typeof aggregateStatus>[0], string]> = [
    [['completed', 'awaiting_approval', 'running'], 'awaiting_approval'],
    [['completed', 'running'], 'running'],
    [['failed', 'completed'], 'failed'],
    [['completed', 'skipped'], 'completed'],
    [['skipped', 'skipped'], 'skipped'],
    [['completed', 'pending'], 'running'],
    [['pending', 'pending'], 'pending'],
    [[], 'pending'],
  ];
  for (const [children, want] of cases) assert.equal(aggregateStatus(children), want, JSON.stringify(children));
});

test('the feed puts whole messages and lines one per line, and runs the pieces of a message being written on', () => {
  const feed = new PipelineFeed();
  feed.add({ type: 'step_started', runId: 'r', step: 's', stepType: 'agent', agent: 'a', attempt: 1 });
  feed.add({ type: 'step_output', runId: 'r', step: 's', text: 'writer: working on Fix the login bug' });
  feed.add({ type: 'step_output', runId: 'r', step: 's', text: 'writer: finished' });
  assert.equal(feed.step('r', 's')!.text, 'writer: working on Fix the login bug\nwriter: finished');
  feed.add({ type: 'step_started', runId: 'g', step: 's', stepType: 'agent', agent: 'a', attempt: 1 });
  for (const piece of ['DONE', '-ANS', 'WER']) feed.add({ type: 'step_output', runId: 'g', step: 's', text: piece, delta: true });
  assert.equal(feed.step('g', 's')!.text, 'DONE-ANSWER');
});

test('the feed keeps the tail of the text, the last tool calls and the most recent runs', () => {
  const feed = new PipelineFeed();
  const heard: string[] = [];
  feed.onChange((id) => heard.push(id));
  feed.add({ type: 'step_started', runId: 'r', step: 's', stepType: 'agent', agent: 'a', attempt: 1 });
  for (let i = 0; i < 50; i++) feed.add({ type: 'step_output', runId: 'r', step: 's', text: `${i}`.padEnd(1000, '.') });
  for (let i = 0; i < FEED_TOOL_CALLS + 5; i++) feed.add({ type: 'step_tool_call', runId: 'r', step: 's', name: `t${i}`, server: i % 2 ? 'baton' : null });
  feed.add({ type: 'step_usage', runId: 'r', step: 's', usage: { input: 7, output: 5, cached: 0, reasoning: 0 }, costUsd: null });
  const s = feed.step('r', 's')!;
  assert.equal(s.text.length, FEED_TEXT_CHARS);
  assert.ok(s.text.endsWith('.'.repeat(10)) && s.text.includes('49'), 'the newest text is kept');
  assert.equal(s.toolCalls.length, FEED_TOOL_CALLS);
  assert.deepEqual(s.toolCalls.slice(-2), ['baton/t103', 't104']);
  assert.equal(s.tokens, 12);
  assert.equal(heard.length, 1 + 50 + FEED_TOOL_CALLS + 5 + 1);
  for (let i = 0; i < FEED_RUNS; i++) feed.add({ type: 'step_output', runId: `other${i}`, step: 's', text: 'x' });
  assert.equal(feed.step('r', 's'), undefined, 'the least recently active run is dropped');
  // A retry starts the step's feed again.
  feed.add({ type: 'step_started', runId: 'other0', step: 's', stepType: 'agent', agent: 'a', attempt: 2 });
  assert.equal(feed.step('other0', 's')!.text, '');
});

test('the panel protocol: resume takes new limits or none (an interrupted run); nested step names are accepted for gates, odd ones are not', () => {
  assert.deepEqual(parseFromWebview({ type: 'pipeline/resume', tokens: 5000, usd: null }), { type: 'pipeline/resume', tokens: 5000, usd: null });
  assert.deepEqual(parseFromWebview({ type: 'pipeline/resume', tokens: null, usd: 2.5 }), { type: 'pipeline/resume', tokens: null, usd: 2.5 });
  assert.deepEqual(parseFromWebview({ type: 'pipeline/resume', tokens: null, usd: null }), { type: 'pipeline/resume', tokens: null, usd: null });
  for (const bad of [{ tokens: 1.5, usd: null }, { tokens: -1, usd: null }, { tokens: 5 }, { tokens: 5, usd: null, extra: 1 }, { tokens: '5', usd: null }]) {
    assert.equal(parseFromWebview({ type: 'pipeline/resume', ...bad }), null, JSON.stringify(bad));
  }
  assert.deepEqual(parseFromWebview({ type: 'panel/approve', stepName: 'again[2]/review' }), { type: 'panel/approve', stepName: 'again[2]/review' });
  for (const name of ['a b', 'x<y', '', 'a'.repeat(201)]) assert.equal(parseFromWebview({ type: 'panel/approve', stepName: name }), null, name);
});

/** An agent whose run streams text and a tool call, then waits to be released. */
class HeldRunner implements AgentRunner {
  readonly kind = 'command' as const;
  readonly releases: Array<() => void> = [];
  constructor(private readonly tokens = 7) {}
  run(req: AgentRunRequest): AgentRun {
    const q = new RunEventQueue();
    q.push({ type: 'text', text: `${req.agent} reading ${req.prompt}` });
    q.push({ type: 'tool_call', id: '1', name: 'memory_store', server: 'baton', input: {} });
    q.push({ type: 'usage', usage: { ...ZERO_USAGE, input: 2, output: this.tokens - 2 } });
    const end = (status: 'completed' | 'aborted') => q.finish({
      status, text: status === 'completed' ? `${req.agent} done` : '', usage: { ...ZERO_USAGE, input: 2, output: this.tokens - 2 }, costUsd: 0.01, costSource: 'cli',
      toolCalls: 1, malformedLines: 0, error: status === 'completed' ? null : 'aborted', exitCode: 0, sessionId: null, durationMs: 1, stderr: '',
    });
    this.releases.push(() => end('completed'));
    // The engine stops an agent that passes the budget: it ends as aborted.
    req.signal?.addEventListener('abort', () => end('aborted'), { once: true });
    return q;
  }
}

async function panelOn(system: System, runner: AgentRunner, budget?: { tokens: number }) {
  const { baton } = await makeBaton();
  baton.pipelines.setRunners(() => runner);
  const feed = new PipelineFeed();
  const failures: unknown[] = [];
  const pipelines = new LocalPipelines(baton.pipelines, (_id, ex) => failures.push(ex));
  const unwatch = pipelines.onProgress((p) => feed.add(p));
  // Started as a CLI would through the owner: the panel hears it through the same seam.
  const runId = await baton.pipelines.start(system, { input: 'the task', cwd: '/tmp', ...(budget ? { budget } : {}) });
  const posted: ToWebview[] = [];
  const source = new LocalSource(baton, { url: '', token: '' });
  const controller = new PanelController(source, runId, {
    post: (m) => posted.push(m), openArtifact: async () => undefined, log: { warn: () => undefined, error: (m) => failures.push(m) },
    pipelines: { source: async () => pipelines, feed },
  }, null, 5);
  await controller.receive({ type: 'panel/ready' });
  const last = (): PanelState => {
    const m = posted.at(-1)!;
    assert.ok(m.type === 'panel/init' || m.type === 'panel/update', JSON.stringify(m));
    return m.state;
  };
  /** A second window on the run that hears no stream (a follower reads the run from the owner): its latest state. */
  const follower = async (): Promise<PanelState> => {
    const seen: ToWebview[] = [];
    const followerSource: PipelineSource = { ...pipelinesOf(pipelines), live: false, onProgress: () => ({ dispose: () => undefined }) };
    const other = new PanelController(source, runId, {
      post: (m) => seen.push(m), openArtifact: async () => undefined, log: { warn: () => undefined, error: (m) => failures.push(m) },
      pipelines: { source: async () => followerSource, feed: new PipelineFeed() },
    }, null, 5);
    await other.receive({ type: 'panel/ready' });
    const m = await until('the follower\'s panel', () => seen.find((x) => x.type === 'panel/init'), 5000);
    other.dispose();
    assert.ok(m.type === 'panel/init');
    return m.state;
  };
  return { baton, runId, pipelines, controller, last, follower, failures, close: () => { controller.dispose(); unwatch.dispose(); } };
}

/** The calls of a pipeline source as plain functions (a follower's source reads the same runs, without the stream). */
function pipelinesOf(p: PipelineSource): Omit<PipelineSource, 'live' | 'onProgress'> {
  return { runs: () => p.runs(), view: (id) => p.view(id), start: (sys, st) => p.start(sys, st), resume: (id, b) => p.resume(id, b) };
}

test('the panel follows a run live: streamed output and tool calls, then the gate approved from the panel, then the spend', async () => {
  const runner = new HeldRunner();
  const system: System = {
    name: 'gated', description: '', agents: [{ id: 'writer', role: 'custom', runner: 'command', command: ['x'] }],
    workflow: [
      { id: 'draft', type: 'agent', agentId: 'writer', outputVariable: 'draft' },
      { id: 'sign', type: 'sequential', children: [{ id: 'ok', type: 'human_review', inputTemplate: 'Ship {{draft}}?' }] },
    ],
  };
  const p = await panelOn(system, runner);
  assert.equal(find(p.last().pipeline!.nodes, 'sign/ok')!.detail, 'Ship [draft]?', 'before the draft exists: its step named');
  assert.equal(p.last().pipeline?.system, 'gated');
  const drive = p.baton.pipelines.drive(p.runId);
  const streaming = await until('the streamed output in the panel', () => {
    const n = p.last().pipeline && find(p.last().pipeline!.nodes, 'draft');
    return n && n.status === 'running' && n.output?.includes('writer reading the task') && n.toolCalls.includes('baton/memory_store') && n;
  }, 5000);
  assert.equal(streaming.tokens, 7, 'live tokens of the running step');
  runner.releases[0]!();
  const waiting = await until('the gate in the panel', () => p.last().awaiting.includes('sign/ok') && p.last(), 5000);
  assert.equal(find(waiting.pipeline!.nodes, 'sign')!.status, 'awaiting_approval');
  assert.equal(find(waiting.pipeline!.nodes, 'sign/ok')!.detail, 'Ship writer done?', 'the prompt as the run asked it');
  assert.deepEqual((await p.pipelines.view(p.runId)).prompts, { 'sign/ok': 'Ship writer done?' }, 'recorded by the run');
  assert.deepEqual((await p.pipelines.view(p.runId)).onReject, { 'sign/ok': 'fail' }, 'what rejecting does, recorded by the run');
  assert.equal(panelRejection(waiting.pipeline, 'sign/ok'), 'fail', 'the gate box says the run ends');
  // The gate box's submission: no agent submits a review, but what the run asks and the draft are known here.
  assert.deepEqual(waiting.submissions.map((x) => [x.stepName, x.kind, x.summary, x.artifacts]),
    [['sign/ok', 'review', 'Ship writer done?', [{ type: 'agent_output', title: 'draft (writer)' }]]]);
  await p.controller.receive({ type: 'panel/approve', stepName: 'sign/ok' });
  const outcome = await drive;
  assert.equal(outcome.status, 'completed');
  const done = await until('the completed run in the panel', () => p.last().status === 'completed' && p.last(), 5000);
  assert.equal(find(done.pipeline!.nodes, 'sign/ok')!.status, 'completed');
  assert.deepEqual(done.pipeline!.byAgent, [{ agent: 'writer', tokens: 7, costUsd: 0.01, steps: 1 }]);
  assert.deepEqual(done.pipeline!.total, { tokens: 7, costUsd: 0.01 });
  assert.deepEqual(p.failures, []);
  p.close();
});

test('a run paused at its budget says so in the panel; raising it there resumes the run to the end', async () => {
  const runner = new HeldRunner(50);
  const system: System = {
    name: 'costly', description: '', agents: [{ id: 'a', role: 'custom', runner: 'command', command: ['x'] }],
    workflow: [{ id: 'one', type: 'agent', agentId: 'a' }, { id: 'two', type: 'agent', agentId: 'a' }],
  };
  const p = await panelOn(system, runner, { tokens: 60 });
  const first = p.baton.pipelines.drive(p.runId);
  await until('the first agent', () => runner.releases.length === 1, 5000);
  runner.releases[0]!();
  await until('the second agent', () => runner.releases.length === 2, 5000);
  const paused = await first;
  assert.equal(paused.status, 'paused', 'the second agent reported 50 more tokens: over 60');
  const state = await until('the pause in the panel', () => !!p.last().pipeline?.pausedForBudget && p.last(), 5000);
  assert.equal(state.pipeline!.pausedForBudget, '100 tokens used, budget 60 tokens', 'formatted, not budget_exceeded: …');
  assert.match((await p.pipelines.view(p.runId)).pauseReason!, /^budget_exceeded: 100 tokens used, budget 60$/, 'stored as it was');
  assert.ok(state.pipeline!.budgetUsedPercent! >= 100, String(state.pipeline!.budgetUsedPercent));
  assert.deepEqual(state.pipeline!.raise && [state.pipeline!.raise.tokens, state.pipeline!.raise.usd], [160, null], '100 spent + 60 again');
  // The step the budget stopped: what its attempt wrote, marked stopped with why, in the owner's window and a
  // follower's.
  const shown = (n: PanelPipelineNode) => [n.status, n.output, n.stopped, n.toolCalls];
  const stoppedHere = find(state.pipeline!.nodes, 'two')!;
  assert.deepEqual(shown(stoppedHere), ['pending', 'a reading the task', '100 tokens used, budget 60 tokens', ['baton/memory_store']]);
  assert.deepEqual(shown(find((await p.follower()).pipeline!.nodes, 'two')!), shown(stoppedHere), 'the same in a follower');
  assert.deepEqual((await p.pipelines.view(p.runId)).stopped, {
    two: { text: 'a reading the task', toolCalls: ['baton/memory_store'], reason: 'budget_exceeded: 100 tokens used, budget 60' },
  });
  // Still over: the panel reports why it cannot resume.
  await p.controller.receive({ type: 'pipeline/resume', tokens: 61, usd: null });
  const refused = p.last();
  assert.equal(refused.status, 'paused');
  await p.controller.receive({ type: 'pipeline/resume', tokens: 1000, usd: null });
  await until('the second pass to start the step again', () => runner.releases.length === 3, 5000);
  assert.deepEqual((await p.pipelines.view(p.runId)).stopped, {}, 'started again: the stopped attempt is no longer its output');
  const again = find((await p.follower()).pipeline!.nodes, 'two')!;
  assert.deepEqual([again.status, again.output, again.stopped, again.toolCalls, again.attempt], ['running', null, undefined, [], 2]);
  runner.releases[2]!();
  const done = await until('the completed run in the panel', () => p.last().status === 'completed' && p.last(), 5000);
  assert.deepEqual(done.pipeline!.budget, { tokens: 1000, usd: null });
  assert.equal(done.pipeline!.pausedForBudget, null);
  p.close();
});

test('a run a person interrupted shows as such in the panel, not over its budget; Resume there goes on with it', async () => {
  const runner = new HeldRunner();
  const system: System = {
    name: 'stopped', description: '', agents: [{ id: 'a', role: 'custom', runner: 'command', command: ['x'] }],
    workflow: [{ id: 'one', type: 'agent', agentId: 'a' }],
  };
  const p = await panelOn(system, runner);
  const first = p.baton.pipelines.drive(p.runId);
  await until('the agent', () => runner.releases.length === 1, 5000);
  assert.equal(p.baton.pipelines.interrupt(p.runId, 'interrupted (Ctrl-C)'), true);
  assert.equal((await first).status, 'paused');
  const state = await until('the pause in the panel', () => !!p.last().pipeline?.pausedInterrupted && p.last(), 5000);
  assert.equal(state.pipeline!.pausedInterrupted, 'interrupted (Ctrl-C)');
  assert.equal(state.pipeline!.pausedForBudget, null);
  // The step it was on: what it wrote, stopped by the person (not "aborted"), in both windows.
  for (const n of [find(state.pipeline!.nodes, 'one')!, find((await p.follower()).pipeline!.nodes, 'one')!]) {
    assert.deepEqual([n.status, n.output, n.stopped, n.toolCalls], ['pending', 'a reading the task', 'interrupted (Ctrl-C)', ['baton/memory_store']]);
  }
  // The webview's Resume button: no new limits.
  await p.controller.receive({ type: 'pipeline/resume', tokens: null, usd: null });
  await until('the step to start again', () => runner.releases.length === 2, 5000);
  runner.releases[1]!();
  const done = await until('the completed run in the panel', () => p.last().status === 'completed' && p.last(), 5000);
  assert.equal(done.pipeline!.pausedInterrupted, null);
  assert.deepEqual(p.failures, []);
  p.close();
});

test('a run that a CLI starts through the owner\'s pipeline_start streams to the editor\'s feed (the owner drives it)', async () => {
  const { handleControl } = await import('../../src/host/controlOps.js');
  const { silentLog } = await import('../../src/core/ports.js');
  const runner = new HeldRunner();
  const { baton } = await makeBaton();
  baton.pipelines.setRunners(() => runner);
  const feed = new PipelineFeed();
  const watching = new LocalPipelines(baton.pipelines, () => undefined).onProgress((p) => feed.add(p));
  const system = { name: 'from-cli', description: '', agents: [{ id: 'w', role: 'custom', runner: 'command', command: ['x'] }], workflow: [{ id: 'one', type: 'agent', agentId: 'w' }] };
  const started = await handleControl(baton, JSON.stringify({ op: 'pipeline_start', system, input: 'hello', cwd: '/tmp' }), silentLog);
  const runId = (started.body as { result: { runId: string } }).result.runId;
  const streamed = await until('the CLI run\'s output in the feed', () => feed.step(runId, 'one')?.text.includes('w reading hello') && feed.step(runId, 'one'), 5000);
  assert.deepEqual(streamed.toolCalls, ['baton/memory_store']);
  runner.releases[0]!();
  await until('the run to complete', () => baton.workflowStatus(runId).status === 'completed', 5000);
  watching.dispose();
  const view = await new LocalPipelines(baton.pipelines, () => undefined).view(runId);
  assert.equal(view.usage.total.tokens, 7);
  assert.equal(view.system.name, 'from-cli');
});
