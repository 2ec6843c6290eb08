// Rule: the panel page works under its own strict CSP in a real browser — no violations, says `panel/ready` first,
// renders every data-testid the editor tests use, keeps Reject disabled until feedback is typed, sends only protocol
// messages, selects steps by click and keyboard, drops malformed messages, and shows a spec workflow's current phase
// (tasks with state, gate, what the last submission lacked, the drift of tasks.md). At a gate it shows what the agent
// submitted (a pipeline review: what the run asks) and says what rejecting does (a workflow step goes back to its
// agent; a review ends the run or lets it go on, asking a reason); a step a dead owner left shows interrupted, one a
// pause stopped shows what it wrote marked stopped, and the timeline calls it stopped and a pipeline's end a
// pipeline's; a follower says another process drives the run only while it moves; a budget box keeps what was typed
// through updates and a refused resume, and refuses a limit not above the spend before sending it; the badge reads as
// words ("awaiting approval", "cancelled"); a run that failed or was cancelled has no current step: its steps left
// unfinished read "not run" / "stopped", drawn muted, and the panel says how it ended and why; long unbroken agent
// text wraps inside its column and bidi controls in it are shown, not obeyed. Needs Chromium (`apt-get install -y
// chromium`; .ci/run installs it) and playwright-core (a dev dependency).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StepStatusView, WorkflowStatusResource } from '../../src/core/api.js';
import type { PanelPipeline, PanelPipelineNode, PanelSpec, PanelState } from '../../src/shared/protocol.js';
import { buildPanelState } from '../../src/vscode/panels/panelState.js';
import { launchChromium, servePanelPage } from '../helpers/panelPage.js';

interface Loc {
  click(opts?: { force?: boolean }): Promise<void>;
  fill(text: string): Promise<void>;
  inputValue(): Promise<string>;
  focus(): Promise<void>;
  press(key: string): Promise<void>;
  count(): Promise<number>;
  nth(i: number): Loc;
  textContent(): Promise<string | null>;
  getAttribute(name: string): Promise<string | null>;
  waitFor(opts?: { state?: string; timeout?: number }): Promise<void>;
}
interface Page {
  goto(url: string): Promise<unknown>;
  locator(selector: string): Loc;
  exposeFunction(name: string, fn: (arg: unknown) => void): Promise<void>;
  evaluate<A>(fn: (arg: A) => unknown, arg: A): Promise<unknown>;
  on(event: 'pageerror', fn: (e: Error) => void): void;
}
/** The part of the page's window the test touches (this tsconfig has no DOM lib). */
interface BrowserWindow {
  postMessage(message: unknown, target: string): void;
  document: { activeElement: { getAttribute(name: string): string | null } | null };
}
interface Browser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

function step(name: string, status: StepStatusView['status'], deps: string[], extra: Partial<StepStatusView> = {}): StepStatusView {
  return {
    step_name: name, status, agent_name: 'implementer', dependencies: deps, started_at: '2026-01-01T00:00:00Z', completed_at: null,
    duration_ms: 1500, outcome_summary: null, feedback: null, attempt: 1, artifacts: [], ...extra,
  };
}

function fixture(fixStatus: StepStatusView['status']): PanelState {
  const status: WorkflowStatusResource = {
    execution_id: 'e1', task_id: 't1', workflow: 'bug-fix', status: fixStatus === 'awaiting_approval' ? 'awaiting_approval' : 'running',
    current_step: 'implement_fix', progress: 50, started_at: '2026-01-01T00:00:00Z', completed_at: null,
    steps: [step('analyze', 'completed', []), step('implement_fix', fixStatus, ['analyze']), step('review', 'pending', ['implement_fix'])],
  };
  const current = {
    execution_id: 'e1', task_id: 't1', workflow: 'bug-fix', status: status.status, progress: 50, current_step: 'implement_fix', artifacts: [],
    active_steps: [{
      step_name: 'implement_fix', status: fixStatus, agent_name: 'implementer', feedback: null,
      contract: { step_name: 'implement_fix', allowed_actions: ['edit source files'], forbidden_actions: ['NEVER commit secrets'], required_output_format: 'a diff', human_gate_required: true },
    }],
  };
  const artifact = {
    id: 1, artifact_id: 'a1', execution_id: 'e1', step_name: 'analyze', agent_name: 'debugger', type: 'markdown', title: 'Root cause',
    content: '', description: null, is_final: false, created_at: '2026-01-01T00:00:01Z', content_size_bytes: 10,
    metadata: { findings: [{ severity: 'high', category: 'security', description: 'SQL by concatenation', recommendation: 'bind' }] },
  };
  const events = [{ event_type: 'workflow_started', event_data: { template: 'bug-fix' }, created_at: '2026-01-01T00:00:00Z' }];
  return buildPanelState(status, current, events, [artifact], '# Active Guardrails\n\n## Rule: Security\n\n- **NEVER** commit secrets\n');
}

/** A run ended early with its first step done, the next one ready (nobody took it) and the last pending. */
function endedFixture(cancelled: boolean): PanelState {
  const status: WorkflowStatusResource = {
    execution_id: 'e2', task_id: 't2', workflow: 'bug-fix', status: 'failed', cancelled, current_step: null, progress: 33,
    started_at: '2026-01-01T00:00:00Z', completed_at: '2026-01-01T00:05:00Z',
    steps: [step('analyze', 'completed', []), step('implement_fix', 'ready', ['analyze']), step('review', 'pending', ['implement_fix'])],
  };
  const end = cancelled
    ? { event_type: 'workflow_cancelled', event_data: { reason: 'cancelled from the editor', by: 'vscode' }, created_at: '2026-01-01T00:05:00Z' }
    : { event_type: 'workflow_failed', event_data: { reason: 'no ready steps', incomplete: ['review'] }, created_at: '2026-01-01T00:05:00Z' };
  return buildPanelState(status, null, [{ event_type: 'workflow_started', event_data: {}, created_at: '2026-01-01T00:00:00Z' }, end], [], '');
}

/**
 * A spec workflow in Phase 1 of 2: one task current, one ticked in source, a gate item missing, tasks.md drifted, and
 * its parse's warnings, 2 of 12 listed.
 */
function specFixture(): PanelSpec {
  return {
    source: 'specs/cart/tasks.md', currentPhase: 1, phaseCount: 2, ticked: 0, writeBackProblem: null,
    warnings: [{ line: 9, message: 'task id 1.1 is written on lines 4 and 9: each is used' }, { line: 10, message: 'task id 1.2 is written on lines 5 and 10: each is used' }],
    warningCount: 12,
    drift: { state: 'drifted', line: 4, snapshot: '- [ ] 1.1 Multiply', current: '- [ ] 1.1 Multiply twice' },
    phases: [
      { phase: 0, title: 'Phase 0/2: Read the spec', stepName: 'phase-0', status: 'completed', signoff: false, tasks: [], gate: [{ text: 'Spec read', evidence: 'spec.md' }], missing: [] },
      {
        phase: 1, title: 'Phase 1/2: Fix the total', stepName: 'phase-1', status: 'running', signoff: false,
        tasks: [{ id: '1.1', name: 'Multiply', state: 'current', doneInSource: false, line: 4 }, { id: '1.2', name: 'Add a test', state: 'done', doneInSource: true, line: 5 }],
        gate: [{ text: 'Code builds', evidence: null }, { text: 'Tests pass', evidence: null }], missing: ['Tests pass'],
      },
      { phase: 2, title: 'Phase 2/2: Document', stepName: 'phase-2', status: 'pending', signoff: true, tasks: [], gate: [], missing: [] },
    ],
  };
}

// The stand-in for the editor's webview host: acquireVsCodeApi forwards to the test, CSP violations are reported.
const STUB = `
window.acquireVsCodeApi = () => ({
  postMessage: (m) => window.__toHost(m),
  getState: () => window.__saved,
  setState: (s) => { window.__saved = s; window.__toHost({ saved: s }); },
});
document.addEventListener('securitypolicyviolation', (e) => window.__toHost({ csp: e.violatedDirective + ' ' + e.blockedURI }));
`;

function pnode(name: string, type: string, status: PanelPipelineNode['status'], extra: Partial<PanelPipelineNode> = {}): PanelPipelineNode {
  return { name, label: name.split('/').at(-1)!, type, status, agent: null, detail: null, attempt: 1, tokens: 0, costUsd: null, output: null, toolCalls: [], children: [], ...extra };
}

function pipelineFixture(): PanelPipeline {
  return {
    system: 'review', input: 'fix it', live: true, drivenElsewhere: false,
    nodes: [
      pnode('draft', 'agent', 'completed', { agent: 'writer', tokens: 60, costUsd: 0.01, output: 'the draft' }),
      pnode('fan', 'parallel', 'running', { detail: 'fail_fast', children: [
        pnode('fan/lint', 'agent', 'running', { agent: 'checker', tokens: 60, output: 'linting the draft', toolCalls: ['baton/memory_store'] }),
        pnode('fan/loud', 'transform', 'completed'),
      ] }),
      pnode('polish', 'agent', 'pending', { agent: 'writer', attempt: 1, output: 'polishing the dr', stopped: 'token budget of 100 reached' }),
    ],
    total: { tokens: 120, costUsd: 0.01 }, byAgent: [{ agent: 'writer', tokens: 60, costUsd: 0.01, steps: 1 }],
    budget: { tokens: 100, usd: null }, budgetUsedPercent: 120, pausedForBudget: 'token budget of 100 reached', pausedInterrupted: null,
    raise: { tokens: 220, usd: null, hint: 'Prefilled: what the run has spent plus its budget again (120 + 100 tokens → 220)' },
  };
}

test('the panel page renders and talks the protocol under its CSP', { timeout: 60_000 }, async () => {
  const browser = await launchChromium<Browser>();
  const served = await servePanelPage(STUB);
  try {
    const page = await browser.newPage();
    const posted: Array<Record<string, unknown>> = [];
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.exposeFunction('__toHost', (m) => posted.push(m as Record<string, unknown>));
    const send = (m: unknown) => page.evaluate((msg) => (globalThis as unknown as BrowserWindow).postMessage(msg, '*'), m);
    const messages = () => posted.filter((m) => typeof m.type === 'string');
    await page.goto(served.url);
    const deadline = Date.now() + 10_000;
    while (!posted.some((m) => m.type === 'panel/ready') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(messages()[0], { type: 'panel/ready' });

    await send({ type: 'bogus' });
    await send({ type: 'panel/init', executionId: 'e1', state: fixture('awaiting_approval') });
    const $ = (id: string) => page.locator(`[data-testid="${id}"]`);
    await $('graph').waitFor({ timeout: 10_000 });
    assert.equal(await $('status').textContent(), 'awaiting approval');
    assert.equal(await $('progress').textContent(), '50%');
    assert.equal(await $('node-implement_fix').getAttribute('data-status'), 'awaiting_approval');
    assert.equal(await $('node-implement_fix').getAttribute('aria-label'), 'implement_fix: awaiting approval');
    assert.equal(await $('selected-step').textContent(), 'implement_fix');
    assert.equal(await $('allowed').textContent(), 'edit source files');
    assert.equal(await $('forbidden').textContent(), 'NEVER commit secrets');
    assert.equal(await $('output-format').textContent(), 'a diff');
    assert.equal(await $('gate').getAttribute('data-gate'), 'true');
    assert.match((await $('guardrails').textContent()) ?? '', /NEVER commit secrets/);
    assert.match((await $('findings').textContent()) ?? '', /SQL by concatenation/);
    assert.match((await $('timeline').textContent()) ?? '', /workflow started/);
    for (const id of ['contract', 'artifacts', 'approve', 'reject', 'feedback']) assert.equal(await $(id).count(), 1, id);

    assert.equal(await $('feedback-help').textContent(), 'Rejecting sends the step back to the agent with your feedback.');
    assert.equal(await $('reject').getAttribute('aria-disabled'), 'true');
    await $('reject').click({ force: true }); // a disabled Reject sends nothing
    await $('feedback').fill('  cover the null case  ');
    assert.equal(await $('reject').getAttribute('aria-disabled'), 'false');
    await $('reject').click();
    await $('artifact-a1').click();
    await $('node-review').click();
    assert.equal(await $('selected-step').textContent(), 'review');
    await $('node-analyze').focus();
    await $('node-analyze').press('Enter');
    assert.equal(await $('selected-step').textContent(), 'analyze');
    const focused = await page.evaluate(() => (globalThis as unknown as BrowserWindow).document.activeElement?.getAttribute('data-testid'), null);
    assert.equal(focused, 'node-analyze', 'focus stays on the node');
    await $('node-analyze').press('ArrowDown');
    const next = await page.evaluate(() => (globalThis as unknown as BrowserWindow).document.activeElement?.getAttribute('data-testid'), null);
    assert.equal(next, 'node-implement_fix', 'arrow keys walk the graph');

    await send({ type: 'panel/update', state: fixture('completed') });
    await page.locator('[data-testid="node-implement_fix"][data-status="completed"]').waitFor({ timeout: 5_000 });
    assert.equal(await $('approve').count(), 0, 'no gate once decided');
    await send({ type: 'panel/error', message: 'Step was already decided' });
    assert.match((await $('error').textContent()) ?? '', /already decided/);

    // A spec workflow: the current phase's title, its tasks with their states, its gate with evidence, the drift notice.
    await send({ type: 'panel/update', state: { ...fixture('running'), spec: specFixture() } });
    await $('spec').waitFor({ timeout: 5_000 });
    assert.equal(await $('spec-current').textContent(), 'Phase 1/2: Fix the total');
    assert.equal(await page.locator('[data-testid="spec-tasks"] li[data-state="current"]').count(), 1);
    assert.match((await page.locator('[data-testid="spec-tasks"] li[data-task="1.2"]').textContent()) ?? '', /1\.2 Add a test — done, ticked in source/);
    assert.match((await $('spec-gate').textContent()) ?? '', /Tests pass\s*Missing from the last submission\./);
    assert.match((await $('spec-missing').textContent()) ?? '', /lacked evidence for: Tests pass/);
    assert.match((await $('spec-drift').textContent()) ?? '', /changed since this workflow started \(first at line 4: "- \[ \] 1\.1 Multiply twice", was "- \[ \] 1\.1 Multiply"\)/);
    // The parse's warnings, folded under their count: the listed ones and how many more there are.
    assert.match((await page.locator('[data-testid="spec-warnings"] summary').textContent()) ?? '', /12 warnings about specs\/cart\/tasks\.md: the workflow runs it as parsed/);
    const items = page.locator('[data-testid="spec-warnings"] li');
    assert.deepEqual([await items.nth(0).textContent(), await items.nth(1).textContent(), await items.count()], [
      'line 9: task id 1.1 is written on lines 4 and 9: each is used', 'line 10: task id 1.2 is written on lines 5 and 10: each is used', 2,
    ]);
    assert.match((await $('spec-warnings').textContent()) ?? '', /10 more: baton spec status lists them all\./);
    // Opened, they stay open through the next update, which makes the section anew.
    assert.equal(await $('spec-warnings').getAttribute('open'), null, 'folded at first');
    await $('spec-warnings-toggle').click();
    await send({ type: 'panel/update', state: { ...fixture('running'), progress: 55, spec: specFixture() } });
    for (const until = Date.now() + 5_000; (await $('progress').textContent()) !== '55%' && Date.now() < until;) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await $('progress').textContent(), '55%', 'the update was rendered');
    assert.equal(await $('spec-warnings').getAttribute('open'), '');
    await send({ type: 'panel/update', state: { ...fixture('running'), spec: { ...specFixture(), warnings: [], warningCount: 0, drift: { state: 'in_sync', line: null, snapshot: null, current: null } } } });
    await page.locator('[data-testid="spec-drift"]').waitFor({ state: 'detached', timeout: 5_000 });
    assert.equal(await $('spec-warnings').count(), 0, 'no warnings, no section');
    assert.equal(await $('spec-write-back').count(), 0);
    // A finished spec workflow counts its phases in words: "All 2 phases done", and a one-phase spec's "Its one phase".
    const finished = (n: number): PanelSpec => ({
      ...specFixture(), currentPhase: null, phaseCount: n, drift: { state: 'in_sync', line: null, snapshot: null, current: null },
      phases: specFixture().phases.slice(0, n + 1).map((p) => ({ ...p, status: 'completed' as const })),
    });
    await send({ type: 'panel/update', state: { ...fixture('completed'), spec: finished(2) } });
    await page.locator('[data-testid="spec-current"]:has-text("All 2 phases done")').waitFor({ timeout: 5_000 });
    await send({ type: 'panel/update', state: { ...fixture('completed'), spec: finished(1) } });
    await page.locator('[data-testid="spec-current"]:has-text("phase done")').waitFor({ timeout: 5_000 });
    assert.equal(await $('spec-current').textContent(), 'Its one phase done');

    // A pipeline run paused at its budget: the nested steps with their output, the budget used, raise and resume.
    const pipelineTimeline = [
      { type: 'step_interrupted', at: '2026-01-01T00:00:01Z', step: 'polish', detail: 'reason: 120 tokens used, budget 100 tokens' },
      { type: 'workflow_completed', at: '2026-01-01T00:00:02Z', step: null, detail: '' },
    ];
    await send({ type: 'panel/update', state: { ...fixture('running'), status: 'paused', pipeline: pipelineFixture(), timeline: pipelineTimeline } });
    await $('pipeline').waitFor({ timeout: 5_000 });
    // The timeline says "stopped" as the step does, and a pipeline's end as its start ("pipeline started").
    assert.equal(await page.locator('[data-event="step_interrupted"] strong').textContent(), 'step stopped');
    assert.equal(await page.locator('[data-event="workflow_completed"] strong').textContent(), 'pipeline completed');
    assert.equal(await $('graph').count(), 0, 'a pipeline shows its outline, not the dependency graph');
    assert.equal(await $('pipeline-input').count(), 0, 'the run\'s input is the task the header shows: not said twice');
    assert.equal(await $('driven-elsewhere').count(), 0, 'a paused run: nothing drives it');
    assert.equal(await $('pstep-fan/lint').getAttribute('data-status'), 'running');
    assert.equal(await $('pstep-fan').getAttribute('data-type'), 'parallel');
    assert.match((await page.locator('[data-testid="pstep-fan/lint"] [data-testid="poutput"]').textContent()) ?? '', /linting the draft/);
    assert.match((await page.locator('[data-testid="pstep-fan/lint"] [data-testid="ptools"]').textContent()) ?? '', /baton\/memory_store/);
    // A step the pause stopped: what it wrote, marked stopped with why.
    assert.equal(await page.locator('[data-testid="pstep-polish"] [data-testid="pstopped"]').textContent(), ' Stopped: token budget of 100 reached');
    assert.equal(await page.locator('[data-testid="pstep-polish"] [data-testid="poutput"]').textContent(), 'polishing the dr');
    assert.equal(await page.locator('[data-testid="pstep-fan/lint"] [data-testid="pstopped"]').count(), 0);
    assert.match((await $('budget').textContent()) ?? '', /Budget: 120% used — 120 of 100 tokens/);
    assert.match((await $('budget-paused').textContent()) ?? '', /Paused: budget exceeded.*token budget of 100 reached/);
    assert.deepEqual([await $('budget-tokens').inputValue(), await $('budget-usd').inputValue()], ['220', ''], 'prefilled as the extension says');
    assert.match((await $('raise-hint').textContent()) ?? '', /spent plus its budget again \(120 \+ 100 tokens → 220\)/);
    // A limit not above what the run spent (120 tokens) is refused next to the box, before anything is sent.
    assert.equal(await $('raise-problem').getAttribute('hidden'), '');
    await $('budget-tokens').fill('110');
    await $('raise-budget').click();
    assert.equal(await $('raise-problem').textContent(), '110 tokens is not above the 120 the run has spent: type a token budget above 120.');
    assert.equal(await $('budget-tokens').getAttribute('aria-invalid'), 'true');
    await $('budget-tokens').fill('');
    await $('raise-budget').click();
    assert.match((await $('raise-problem').textContent()) ?? '', /^Left empty, the token budget stays 100 tokens, not above the 120/);
    await $('budget-tokens').fill('500');
    assert.equal(await $('raise-problem').getAttribute('hidden'), '', 'typing again clears it');
    await $('budget-usd').fill('');
    await $('raise-budget').click();
    assert.equal(await $('raise-budget').getAttribute('disabled'), '', 'one request at a time');
    // The run refused it after all (its owner saw more spent): the banner says why, the box keeps what was typed.
    await send({ type: 'panel/error', message: 'Could not resume run r1: Run r1 is still over its budget' });
    await send({ type: 'panel/update', state: { ...fixture('running'), status: 'paused', pipeline: pipelineFixture(), timeline: pipelineTimeline } });
    await page.locator('[data-testid="raise-budget"]:not([disabled])').waitFor({ timeout: 5_000 });
    assert.deepEqual([await $('budget-tokens').inputValue(), await $('budget-usd').inputValue()], ['500', ''], 'not reset to the prefill');
    assert.match((await $('error').textContent()) ?? '', /still over its budget/);
    // Paused because a person stopped the process driving it (Ctrl-C): resumed as it is, no budget asked for.
    await send({ type: 'panel/update', state: { ...fixture('running'), status: 'paused', pipeline: { ...pipelineFixture(), pausedForBudget: null, pausedInterrupted: 'interrupted (Ctrl-C)' } } });
    await $('interrupted-paused').waitFor({ timeout: 5_000 });
    assert.equal(await $('budget-paused').count(), 0);
    assert.match((await $('interrupted-paused').textContent()) ?? '', /Paused: interrupted.*interrupted \(Ctrl-C\); the step it was on runs again/);
    await $('resume-interrupted').click();
    // Left running by a Baton process that ended: the header says interrupted, not running.
    await send({ type: 'panel/update', state: { ...fixture('running'), pipeline: { ...pipelineFixture(), pausedForBudget: null, pausedInterrupted: 'interrupted (the Baton process running it ended)' } } });
    await page.locator('[data-testid="status"][data-status="interrupted"]').waitFor({ timeout: 5_000 });
    assert.equal(await $('status').textContent(), 'interrupted');
    // Followed from another window while the owner drives it: said once, without denying the stopped output shown here.
    await send({ type: 'panel/update', state: { ...fixture('running'), pipeline: { ...pipelineFixture(), pausedForBudget: null, raise: null, live: false, drivenElsewhere: true } } });
    await $('driven-elsewhere').waitFor({ timeout: 5_000 });
    assert.match((await $('driven-elsewhere').textContent()) ?? '', /^Another Baton process drives this run: .*as they run shows only there\.$/);

    // At a gate: what the agent submitted, with long unbroken tokens and a right-to-left override in it.
    const token = 'x'.repeat(3000);
    const gated = fixture('awaiting_approval');
    const findingsIn = Array.from({ length: 30 }, (_, i) => ({ severity: i < 8 ? 'critical' : 'low', category: 'sec', description: `${token}${i}`, location: null, recommendation: '' }));
    await send({ type: 'panel/update', state: {
      ...gated, cancelled: false, taskDescription: 'Fix the \u202Eevil\u202C total',
      steps: gated.steps.map((st) => ({ ...st, summary: token })),
      artifacts: [{ ...gated.artifacts[0]!, title: `${token}-title` }],
      findings: findingsIn,
      submissions: [{
        stepName: 'implement_fix', summary: `Patched ${token}`, confidence: 0.2, findings: findingsIn, blockers: ['blocked by the fixture'],
        decisions: [{ decision: 'Round half up', rationale: 'spec', alternativesRejected: [], tradeOffs: '' }], artifacts: [{ type: 'code', title: 'patch' }],
        references: ['src/cart.js'], nextSteps: [],
      }],
    } });
    await $('submission').waitFor({ timeout: 5_000 });
    assert.match((await $('submission-summary').textContent()) ?? '', /^Patched x/);
    assert.equal(await $('submission-confidence').textContent(), 'Confidence: 20%');
    assert.match((await $('submission-blockers').textContent()) ?? '', /Blockers \(1\)blocked by the fixture/);
    assert.match((await $('submission-findings').textContent()) ?? '', /^Findings \(30\)critical/);
    assert.match((await $('submission-decisions').textContent()) ?? '', /Round half up/);
    assert.match((await $('submission-references').textContent()) ?? '', /src\/cart\.js/);
    assert.equal(await page.locator('[data-testid="findings"] li').count(), 30);
    assert.equal(await $('task').textContent(), 'Fix the [U+202E]evil[U+202C] total', 'the override is shown, not obeyed');
    // A pipeline's review: what the run asks and what its agents produced, no confidence (no agent submitted it).
    await send({ type: 'panel/update', state: { ...gated, submissions: [{
      stepName: 'implement_fix', kind: 'review', summary: 'Ship the draft v1?', confidence: null, findings: [], blockers: [], decisions: [],
      artifacts: [{ type: 'agent_output', title: 'draft (writer)' }], references: [], nextSteps: [],
    }] } });
    await page.locator('[data-testid="submission"][data-kind="review"]').waitFor({ timeout: 5_000 });
    assert.equal(await $('submission-summary').textContent(), 'Ship the draft v1?');
    assert.match((await $('submission-artifacts').textContent()) ?? '', /draft \(writer\) · agent_output/);
    assert.equal(await $('submission-confidence').count(), 0);
    await $('node-implement_fix').click();
    const widths = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document;
      return [doc.documentElement.scrollWidth, doc.documentElement.clientWidth];
    }, null) as [number, number];
    assert.ok(widths[0] <= widths[1], `the page is no wider than the view (${widths[0]} > ${widths[1]})`);
    const [icon, title] = await page.evaluate(() => {
      const d = (globalThis as unknown as { document: { querySelector(s: string): { getBoundingClientRect(): { top: number } } | null } }).document;
      return [d.querySelector('.artifact-list li .codicon')!.getBoundingClientRect().top, d.querySelector('.artifact-list li button')!.getBoundingClientRect().top];
    }, null) as [number, number];
    assert.ok(Math.abs(icon - title) < 12, `the artifact icon stays on the title's first line (${icon} vs ${title})`);
    // A pipeline's review says what rejecting it does to the run, and asks for a reason, not for an agent's changes.
    const review = (onReject: 'fail' | 'continue'): PanelPipeline => ({ ...pipelineFixture(), pausedForBudget: null, nodes: [
      pnode('draft', 'agent', 'interrupted'), pnode('implement_fix', 'human_review', 'awaiting_approval', { onReject }),
    ] });
    const helpSays = async (text: string) => {
      for (const end = Date.now() + 5_000; Date.now() < end && (await $('feedback-help').textContent()) !== text;) await new Promise((r) => setTimeout(r, 50));
      assert.equal(await $('feedback-help').textContent(), text);
    };
    await send({ type: 'panel/update', state: { ...gated, pipeline: review('fail') } });
    await helpSays('Rejecting ends the run: it fails with your reason.');
    assert.equal(await $('feedback').getAttribute('placeholder'), 'Why do you reject it? (needed to reject)');
    assert.equal(await page.locator('[data-testid="pstep-draft"] [data-testid="pstatus"]').textContent(), ' interrupted');
    await send({ type: 'panel/update', state: { ...gated, pipeline: review('continue') } });
    await helpSays('Rejecting records your reason; the run goes on with this review not approved.');
    await send({ type: 'panel/update', state: { ...fixture('completed'), status: 'failed', cancelled: true } });
    await page.locator('[data-testid="status"][data-status="cancelled"]').waitFor({ timeout: 5_000 });
    assert.equal(await $('status').textContent(), 'cancelled');

    assert.deepEqual(messages(), [
      { type: 'panel/ready' },
      { type: 'panel/reject', stepName: 'implement_fix', feedback: 'cover the null case' },
      { type: 'panel/openArtifact', artifactId: 'a1' },
      { type: 'panel/selectStep', stepName: 'review' },
      { type: 'panel/selectStep', stepName: 'analyze' },
      { type: 'pipeline/resume', tokens: 500, usd: null },
      { type: 'pipeline/resume', tokens: null, usd: null },
      { type: 'panel/selectStep', stepName: 'implement_fix' },
    ]);
    assert.deepEqual(posted.filter((m) => 'saved' in m).at(-1), { saved: { executionId: 'e1', selectedStep: 'implement_fix' } });
    assert.deepEqual(posted.filter((m) => 'csp' in m), [], 'no CSP violations');

    // A run cancelled (or failed) before its next step was taken, opened fresh: no step is current, the step it left
    // ready reads "not run", drawn muted, and the panel says how the run ended and why.
    const ended = await browser.newPage();
    ended.on('pageerror', (e) => errors.push(e.message));
    const endedPosted: Array<Record<string, unknown>> = [];
    await ended.exposeFunction('__toHost', (m) => endedPosted.push(m as Record<string, unknown>));
    await ended.goto(served.url);
    for (const end = Date.now() + 10_000; !endedPosted.some((m) => m.type === 'panel/ready') && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
    const $e = (id: string) => ended.locator(`[data-testid="${id}"]`);
    const sendEnded = (m: unknown) => ended.evaluate((msg) => (globalThis as unknown as BrowserWindow).postMessage(msg, '*'), m);
    await sendEnded({ type: 'panel/init', executionId: 'e2', state: endedFixture(false) });
    await $e('run-ended').waitFor({ timeout: 5_000 });
    assert.equal(await $e('selected-step').textContent(), 'Run failed');
    assert.equal(await $e('end-reason').textContent(), 'Failed: no ready steps.');
    await sendEnded({ type: 'panel/update', state: endedFixture(true) });
    await ended.locator('[data-testid="status"][data-status="cancelled"]').waitFor({ timeout: 5_000 });
    assert.equal(await $e('selected-step').textContent(), 'Run cancelled');
    assert.equal(await $e('end-reason').textContent(), 'Cancelled (by the editor).');
    assert.match((await $e('run-ended').textContent()) ?? '', /No step runs any more: 2 steps were left unfinished\./);
    assert.equal(await ended.locator('g.node.selected').count(), 0, 'no step is marked current');
    assert.equal(await ended.locator('g.node[aria-pressed="true"]').count(), 0);
    assert.equal(await $e('node-implement_fix').getAttribute('aria-label'), 'implement_fix: not run (run cancelled)');
    assert.equal(await $e('node-implement_fix').getAttribute('data-left'), '', 'drawn muted, not as a step running');
    assert.equal(await $e('node-review').getAttribute('aria-label'), 'review: not run (run cancelled)');
    assert.equal(await $e('node-analyze').getAttribute('aria-label'), 'analyze: completed');
    assert.equal(await $e('node-analyze').getAttribute('data-left'), null);
    // A spec workflow cancelled in its Phase 1: how far it got, not "all phases done".
    const phases = specFixture().phases.map((p) => (p.phase === 1 ? { ...p, status: 'failed' as const } : p));
    await sendEnded({ type: 'panel/update', state: { ...endedFixture(true), spec: { ...specFixture(), currentPhase: null, phases } } });
    await $e('spec').waitFor({ timeout: 5_000 });
    assert.equal(await $e('spec-current').textContent(), 'Spec workflow cancelled: 0 of 2 phases done');
    assert.equal(await ended.locator('[data-testid="spec-phase"] h3').textContent(), 'Phase 2/2: Document · not run (run cancelled)');
    await $e('node-implement_fix').click();
    assert.equal(await $e('selected-status').textContent(), 'not run (run cancelled)');
    // The step under way when the run was cancelled: the core fails it and marks it stopped; the panel says the cancel
    // stopped it (a step failed before the cancel has no mark, and stays "failed").
    const cut = endedFixture(true);
    const failed = (name: string, mark: { stopped?: true }) => cut.steps.map((x) => (x.name === name ? { ...x, status: 'failed' as const, ...mark } : x));
    await sendEnded({ type: 'panel/update', state: { ...cut, steps: failed('implement_fix', { stopped: true }) } });
    await ended.locator('[data-testid="node-implement_fix"][aria-label="implement_fix: stopped (run cancelled)"]').waitFor({ timeout: 5_000 });
    await sendEnded({ type: 'panel/update', state: { ...cut, steps: failed('implement_fix', {}) } });
    await ended.locator('[data-testid="node-implement_fix"][aria-label="implement_fix: failed"]').waitFor({ timeout: 5_000 });
    assert.deepEqual(endedPosted.filter((m) => 'csp' in m), [], 'no CSP violations');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    served.close();
  }
});

/** A 100-step sequential run waiting at step 50 (a release train). */
function longRunFixture(): PanelState {
  const names = Array.from({ length: 100 }, (_, i) => `s${String(i + 1).padStart(3, '0')}`);
  const status: WorkflowStatusResource = {
    execution_id: 'e9', task_id: 't9', workflow: 'release-train', status: 'awaiting_approval', current_step: 's050', progress: 49,
    started_at: '2026-01-01T00:00:00Z', completed_at: null,
    steps: names.map((n, i) => step(n, i < 49 ? 'completed' : i === 49 ? 'awaiting_approval' : 'pending', i ? [names[i - 1]!] : [])),
  };
  return buildPanelState(status, null, [{ event_type: 'workflow_started', event_data: {}, created_at: '2026-01-01T00:00:00Z' }], [], '');
}

// Rule: a keyboard user meets a 100-step graph as one Tab stop (the selected step; arrows walk the others and take the
// stop along), a live update keeps where the graph was scrolled and which node had focus, and the page turns off motion
// for a person who asked for less of it.
test('a long run\'s graph is one Tab stop, and a live update keeps its scroll and focus', { timeout: 60_000 }, async () => {
  const browser = await launchChromium<Browser>();
  const served = await servePanelPage(STUB, 'Baton');
  try {
    const page = await browser.newPage() as Page & {
      emulateMedia(o: { reducedMotion: 'reduce' }): Promise<void>;
      keyboard: { press(key: string): Promise<void> };
    };
    const posted: Array<Record<string, unknown>> = [];
    await page.exposeFunction('__toHost', (m) => posted.push(m as Record<string, unknown>));
    await page.goto(served.url);
    const send = (m: unknown) => page.evaluate((msg) => (globalThis as unknown as BrowserWindow).postMessage(msg, '*'), m);
    const focused = () => page.evaluate(() => (globalThis as unknown as BrowserWindow).document.activeElement?.getAttribute('data-testid'), null);
    const $ = (id: string) => page.locator(`[data-testid="${id}"]`);
    await send({ type: 'panel/init', executionId: 'e9', state: longRunFixture() });
    await $('node-s100').waitFor({ timeout: 10_000 });

    const stops = await page.evaluate(() => (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } })
      .document.querySelectorAll('g.node[tabindex="0"]').length, null);
    assert.equal(stops, 1, 'one Tab stop in the graph, not 100');
    assert.equal(await $('node-s050').getAttribute('tabindex'), '0', 'the stop is the step shown (the gate)');
    await $('node-s050').focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(), 'node-s051');
    assert.equal(await $('node-s051').getAttribute('tabindex'), '0', 'the stop moves with the arrows');
    assert.equal(await $('node-s050').getAttribute('tabindex'), '-1');

    // The graph box scrolled to step 70 by hand, focus on step 51: an update must leave both where they were.
    const scrollOf = () => page.evaluate(() => (globalThis as unknown as { document: { querySelector(s: string): { scrollTop: number } } })
      .document.querySelector('.graph-scroll').scrollTop, null) as Promise<number>;
    await page.evaluate(() => {
      (globalThis as unknown as { document: { querySelector(s: string): { scrollTop: number } } }).document.querySelector('.graph-scroll').scrollTop = 5000;
    }, null);
    const before = await scrollOf();
    assert.ok(before > 1000, `the graph box scrolls (${before})`);
    await send({ type: 'panel/update', state: { ...longRunFixture(), progress: 50 } });
    await page.locator('[data-testid="progress"]:text-is("50%")').waitFor({ timeout: 5_000 });
    assert.equal(await scrollOf(), before, 'an update does not throw the graph back to its top');
    assert.equal(await focused(), 'node-s051', 'focus survives the update');

    // A spinning codicon (the codicons' own animation) as the panel could show one.
    const spin = () => page.evaluate(() => {
      const d = (globalThis as unknown as { document: { createElement(t: string): { className: string }; body: { append(e: unknown): void } } }).document;
      const el = d.createElement('span');
      el.className = 'codicon codicon-sync codicon-modifier-spin';
      d.body.append(el);
      return (globalThis as unknown as { getComputedStyle(e: unknown): { animationDuration: string } }).getComputedStyle(el).animationDuration;
    }, null);
    assert.notEqual(await spin(), '0s', 'it spins by default');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    assert.equal(await spin(), '0s', 'no animation under prefers-reduced-motion');
  } finally {
    await browser.close();
    served.close();
  }
});
