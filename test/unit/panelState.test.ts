// Rule: the panel state is plain, bounded JSON built from the engine's resources — steps with status, dependencies,
// timings, attempts and feedback; live contracts first, template definitions for the rest; guardrails by rule;
// artifacts without content; findings from artifact metadata; the last 200 events (usage said as spend, not JSON; a
// stopped step's reason as the panel says it); awaiting steps. At a gate, everything the agent submitted for the
// waiting step (summary, findings, blockers, confidence, decisions, artifacts, references) is in the state before the
// decision; the task as typed, a cancelled execution, and why a failed one failed, are told.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ArtifactRecord, CurrentStepResource, StepStatusView, TimelineEvent, WorkflowStatusResource } from '../../src/core/api.js';
import type { StepDefinition } from '../../src/core/types.js';
import { TIMELINE_LIMIT, buildPanelState, eventDetail, parseGuardrailsMarkdown } from '../../src/vscode/panels/panelState.js';

function artifact(id: string, step: string | null, extra: Partial<ArtifactRecord> = {}): ArtifactRecord {
  return {
    id: 1, artifact_id: id, execution_id: 'e1', step_name: step, agent_name: 'architect', type: 'markdown', title: `T ${id}`,
    content: 'x'.repeat(5000), description: null, is_final: false, metadata: {}, created_at: `2026-01-01T00:00:0${id.length % 10}Z`,
    content_size_bytes: 5000, ...extra,
  };
}

function step(name: string, status: StepStatusView['status'], deps: string[], extra: Partial<StepStatusView> = {}): StepStatusView {
  return {
    step_name: name, status, agent_name: 'implementer', dependencies: deps, started_at: null, completed_at: null, duration_ms: null,
    outcome_summary: null, feedback: null, attempt: 1, artifacts: [], ...extra,
  };
}

const status: WorkflowStatusResource = {
  execution_id: 'e1', task_id: 't1', workflow: 'bug-fix', status: 'awaiting_approval', current_step: 'fix', progress: 49.6,
  started_at: '2026-01-01T00:00:00Z', completed_at: null,
  steps: [
    step('analyze', 'completed', [], { duration_ms: 1200, outcome_summary: 's'.repeat(2000), artifacts: [artifact('a1', 'analyze')] }),
    step('fix', 'awaiting_approval', ['analyze'], { attempt: 2, feedback: 'add a test' }),
    step('review', 'pending', ['fix']),
  ],
};

const current: CurrentStepResource = {
  execution_id: 'e1', task_id: 't1', workflow: 'bug-fix', status: 'awaiting_approval', progress: 50, current_step: 'fix',
  active_steps: [{
    step_name: 'fix', status: 'awaiting_approval', agent_name: 'implementer', feedback: 'add a test',
    contract: { step_name: 'fix', allowed_actions: ['edit code'], forbidden_actions: ['NEVER push to main'], required_output_format: 'diff', human_gate_required: true },
  }],
  artifacts: [],
};

const definitions: StepDefinition[] = [
  { name: 'analyze', agent: 'debugger', description: 'Find the cause', dependencies: [], allowed_actions: ['read'], required_output_format: 'report', human_gate: false, path_patterns: [], tags: [] },
  { name: 'review', agent: 'reviewer', description: 'Review it', dependencies: ['fix'], allowed_actions: ['comment'], required_output_format: 'review', human_gate: false, path_patterns: [], tags: [] },
];

const guardrails = '# Active Guardrails\n\n## Rule: Security\n\n- **NEVER** commit secrets\n- **ALWAYS** validate inputs\n\n## Rule: Quality\n\n- **MUST** write tests\n';

test('steps keep status, dependencies, timings, attempts, feedback; summaries are shortened', () => {
  const s = buildPanelState(status, current, [], [], guardrails, null, definitions);
  assert.deepEqual(s.steps.map((x) => [x.name, x.status, x.dependencies, x.attempt]), [
    ['analyze', 'completed', [], 1], ['fix', 'awaiting_approval', ['analyze'], 2], ['review', 'pending', ['fix'], 1],
  ]);
  assert.equal(s.steps[0]?.durationMs, 1200);
  assert.equal(s.steps[0]?.description, 'Find the cause');
  assert.equal(s.steps[1]?.feedback, 'add a test');
  assert.ok((s.steps[0]?.summary?.length ?? 0) <= 600);
  assert.equal(s.progress, 50);
  assert.deepEqual(s.awaiting, ['fix']);
  assert.equal(s.workflow, 'bug-fix');
  assert.equal(s.status, 'awaiting_approval');
});

test('the live contract comes first; template definitions describe the steps that are not active', () => {
  const s = buildPanelState(status, current, [], [], guardrails, null, definitions);
  assert.deepEqual(s.contracts[0], {
    stepName: 'fix', active: true, status: 'awaiting_approval', agent: 'implementer', allowed: ['edit code'],
    forbidden: ['NEVER push to main'], outputFormat: 'diff', gate: true, feedback: 'add a test',
  });
  assert.deepEqual(s.contracts.slice(1).map((c) => [c.stepName, c.active, c.allowed, c.outputFormat]), [
    ['analyze', false, ['read'], 'report'], ['review', false, ['comment'], 'review'],
  ]);
  assert.deepEqual(buildPanelState(status, null, [], [], '').contracts, []);
});

test('guardrails are grouped by rule with their bullets, bold marks removed', () => {
  assert.deepEqual(parseGuardrailsMarkdown(guardrails), [
    { rule: 'Security', items: ['NEVER commit secrets', 'ALWAYS validate inputs'] },
    { rule: 'Quality', items: ['MUST write tests'] },
  ]);
  assert.deepEqual(parseGuardrailsMarkdown('# Active Guardrails\n\nNo active rules.\n'), []);
});

test('artifacts carry no content, are deduplicated across sources, and findings come from metadata', () => {
  const synthesis = artifact('syn', null, {
    is_final: true, title: null,
    metadata: { findings: [
      { severity: 'high', category: 'security', description: 'SQL built by concatenation', location: 'db.ts:10', recommendation: 'bind parameters' },
      { severity: 'low', category: 'style' },
      'not a finding',
    ] },
  });
  const s = buildPanelState(status, current, [], [artifact('a1', 'analyze'), synthesis], '');
  assert.deepEqual(s.artifacts.map((a) => a.id).sort(), ['a1', 'syn']);
  const syn = s.artifacts.find((a) => a.id === 'syn');
  assert.deepEqual(syn, { id: 'syn', step: null, type: 'markdown', title: 'syn', sizeBytes: 5000, isFinal: true, createdAt: syn?.createdAt });
  assert.ok(!JSON.stringify(s).includes('x'.repeat(100)), 'no artifact content in the state');
  assert.deepEqual(s.findings, [
    { severity: 'high', category: 'security', description: 'SQL built by concatenation', location: 'db.ts:10', recommendation: 'bind parameters' },
  ]);
});

test('the timeline keeps the last 200 events with their step and a one-line detail', () => {
  const events: TimelineEvent[] = Array.from({ length: 250 }, (_, i) => ({
    event_type: i % 2 ? 'step_started' : 'step_completed', event_data: { step_name: `s${i}`, artifacts: i, extra: { a: 1 } },
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  }));
  const s = buildPanelState(status, current, events, [], '');
  assert.equal(s.timeline.length, TIMELINE_LIMIT);
  assert.equal(s.timeline[0]?.step, 's50');
  assert.equal(s.timeline.at(-1)?.step, 's249');
  assert.equal(s.timeline.at(-1)?.detail, 'artifacts: 249, extra: {"a":1}');
  assert.equal(eventDetail(null), '');
  assert.equal(eventDetail('plain'), 'plain');
  assert.ok(eventDetail({ text: 'y'.repeat(1000) }).length <= 240);
});

test('usage in the timeline reads as spend does in the panel ("1,234 tokens · $0.0100"), never as JSON', () => {
  const usage = { input: 1000, output: 234, cached: 50, reasoning: 0 };
  assert.equal(eventDetail({ step_name: 'draft', agent: 'writer', attempt: 1, usage, cost_usd: 0.01, error: null }),
    'agent: writer, attempt: 1, usage: 1,234 tokens · $0.0100');
  assert.equal(eventDetail({ usage: { usage, tokens: 1234, costUsd: 0.5 } }), 'usage: 1,234 tokens · $0.5000', 'a run\'s total');
  assert.equal(eventDetail({ reason: 'over', usage: { usage, tokens: 1234, costUsd: 0 }, budget: { tokens: 1000 } }),
    'reason: over, usage: 1,234 tokens, budget: 1,000 tokens');
  assert.equal(eventDetail({ reason: 'budget_exceeded: 6170 tokens used, budget 5000', usage: { usage, tokens: 6170, costUsd: 0 } }),
    'reason: 6,170 tokens used, budget 5,000 tokens, usage: 6,170 tokens', 'a budget pause\'s reason as the pause box says it');
  assert.equal(eventDetail({ step_name: 'loud', usage: { input: 0, output: 0, cached: 0, reasoning: 0 }, cost_usd: null }), '', 'a step that spent nothing');
  assert.equal(eventDetail({ usage: 'n/a', cost_usd: 0.2 }), 'usage: n/a, cost_usd: 0.2', 'what is not usage stays as it is');
  const s = buildPanelState(status, current, [{ event_type: 'workflow_completed', event_data: { usage: { usage, tokens: 1234, costUsd: 0.01 } }, created_at: '2026-01-01T00:00:00Z' }], [], '');
  assert.equal(s.timeline[0]?.detail, 'usage: 1,234 tokens · $0.0100');
  assert.ok(!s.timeline[0]?.detail.includes('{'));
});

test('a failed try of a step with retries reads with its error, its own spend and when it was tried again', () => {
  const usage = { input: 10, output: 5, cached: 0, reasoning: 0 };
  assert.equal(eventDetail({ step_name: 's', agent: 'scout', attempt: 1, usage, cost_usd: 0.001, error: 'flaky 1', wait_ms: 30 }, 'step_retry'),
    'agent: scout, attempt: 1, usage: 15 tokens · $0.0010, error: flaky 1, tried again in: 30 ms');
});

test('a stopped step\'s timeline entry gives why it was stopped as the panel says it, not the stored reason as an error', () => {
  const usage = { input: 1500, output: 968, cached: 0, reasoning: 0 };
  const data = { step_name: 'plan', agent: 'planner', attempt: 1, usage, cost_usd: null, error: 'budget_exceeded: 2468 tokens used, budget 2000' };
  const s = buildPanelState(status, current, [{ event_type: 'step_interrupted', event_data: data, created_at: '2026-01-01T00:00:00Z' }], [], '');
  assert.equal(s.timeline[0]?.detail, 'agent: planner, attempt: 1, usage: 2,468 tokens, reason: 2,468 tokens used, budget 2,000 tokens');
  assert.equal(eventDetail({ ...data, error: 'interrupted (Ctrl-C)' }, 'step_interrupted'), 'agent: planner, attempt: 1, usage: 2,468 tokens, reason: interrupted (Ctrl-C)');
  assert.equal(eventDetail({ error: 'flaky' }, 'step_failed'), 'error: flaky', 'a failure keeps its error');
});

test('a selected step survives only if the execution has it; the state is plain JSON', () => {
  assert.equal(buildPanelState(status, current, [], [], '', 'review').selectedStep, 'review');
  assert.equal(buildPanelState(status, current, [], [], '', 'gone').selectedStep, null);
  const s = buildPanelState(status, current, [], [artifact('a1', 'analyze')], guardrails, 'fix', definitions);
  assert.deepEqual(JSON.parse(JSON.stringify(s)), s);
});

/** The gate of `status` with what its agent submitted: 30 findings, blockers, a low confidence, a decision. */
function submittedCurrent(): CurrentStepResource {
  const findings = Array.from({ length: 30 }, (_, i) => ({
    severity: i < 8 ? 'critical' as const : 'low' as const, category: 'security', description: `finding ${i}`, location: `src/f${i}.ts:1`, recommendation: 'fix it',
  }));
  return {
    ...current,
    active_steps: [{
      ...current.active_steps[0]!,
      submitted: {
        summary: 'Patched the rounding', confidence: 0.2, references: ['src/cart.js'], findings, blockers: ['blocked by the missing fixture'],
        decisions: [{ decision: 'Round half up', rationale: 'matches the spec', alternatives_rejected: ['banker'], trade_offs: 'none' }],
        next_steps: ['add a test'], artifacts: [{ type: 'code', title: 'cart.js patch' }],
      },
    }],
  };
}

test('at a gate the submission of the waiting step is in the state before anyone decides, its findings listed', () => {
  const s = buildPanelState(status, submittedCurrent(), [], [], guardrails, null, definitions);
  assert.equal(s.submissions.length, 1);
  const sub = s.submissions[0]!;
  assert.equal(sub.stepName, 'fix');
  assert.equal(sub.summary, 'Patched the rounding');
  assert.equal(sub.confidence, 0.2);
  assert.deepEqual(sub.blockers, ['blocked by the missing fixture']);
  assert.deepEqual(sub.decisions, [{ decision: 'Round half up', rationale: 'matches the spec', alternativesRejected: ['banker'], tradeOffs: 'none' }]);
  assert.deepEqual(sub.artifacts, [{ type: 'code', title: 'cart.js patch' }]);
  assert.deepEqual(sub.references, ['src/cart.js']);
  assert.deepEqual(sub.nextSteps, ['add a test']);
  assert.equal(sub.findings.length, 30);
  assert.equal(s.findings.length, 30, 'the Findings section lists them too, not "No findings yet."');
  assert.equal(s.findings.filter((f) => f.severity === 'critical').length, 8);
  // After approval the synthesis carries the same findings: they are not listed twice.
  const synthesis = artifact('syn', null, { metadata: { findings: submittedCurrent().active_steps[0]!.submitted!.findings } });
  assert.equal(buildPanelState(status, submittedCurrent(), [], [synthesis], '').findings.length, 30);
  // A running step has nothing submitted; an older owner says nothing: no submission either way.
  assert.deepEqual(buildPanelState(status, current, [], [], '').submissions, []);
  assert.doesNotThrow(() => JSON.stringify(s));
});

test('the task as typed and a cancelled execution are in the state (cancelled from the mark, or from the timeline)', () => {
  const s = buildPanelState({ ...status, task_description: 'Fix the cart total rounding' }, current, [], [], '');
  assert.equal(s.taskDescription, 'Fix the cart total rounding');
  assert.equal(s.cancelled, false);
  const failed = { ...status, status: 'failed' as const };
  assert.equal(buildPanelState({ ...failed, cancelled: true }, null, [], [], '').cancelled, true);
  const cancelledEvent: TimelineEvent = { event_type: 'workflow_cancelled', event_data: { reason: 'cancelled' }, created_at: '2026-01-01T00:00:09Z' };
  assert.equal(buildPanelState(failed, null, [cancelledEvent], [], '').cancelled, true, 'an older owner: the timeline says so');
  assert.equal(buildPanelState(failed, null, [], [], '').cancelled, false, 'a failure is not a cancellation');
  assert.equal(buildPanelState(status, null, [], [], '').taskDescription, null);
});

test('a failed run says why: from transition_workflow_state\'s error, or a team run\'s, as from a workflow_failed event', () => {
  const failed = { ...status, status: 'failed' as const };
  const at = '2026-01-01T00:00:09Z';
  const moved: TimelineEvent = { event_type: 'state_changed', event_data: { from: 'running', to: 'failed', error: 'the build server is down' }, created_at: at };
  assert.equal(buildPanelState(failed, null, [moved], [], '').endReason, 'the build server is down');
  const team: TimelineEvent = { event_type: 'team_finished', event_data: { status: 'failed', error: 'the kickoff could not be posted' }, created_at: at };
  assert.equal(buildPanelState(failed, null, [team], [], '').endReason, 'the kickoff could not be posted');
  // A move to another state says nothing of an end.
  const paused: TimelineEvent = { event_type: 'state_changed', event_data: { from: 'running', to: 'paused', error: 'lunch' }, created_at: at };
  assert.equal(buildPanelState(failed, null, [paused], [], '').endReason, null);
});
