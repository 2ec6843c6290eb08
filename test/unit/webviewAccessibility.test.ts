// Rule: the panel can be read in every default theme and by a screen reader. In the colours VS Code's Light Modern,
// Dark Modern, High Contrast and High Contrast Light themes give a webview (captured from code-server 1.139.1), its
// words are at least 4.5:1 against what is behind them and the graph's borders, edges and focus indicators 3:1, in
// every state a step can be drawn in; with the system's forced colours the graph takes the system colours. One live
// region, there from the start, says when a step starts waiting for a decision, when the run ends, when tasks.md
// drifts and what went wrong, and nothing while agents work (no part of what each update remakes is a live region);
// a team's new channel messages for people (not the person's own, not agents @mentioning each other) are said through
// it, several within a few seconds as one count, and none again when the panel renders anew; the header's status
// badge is read as "Status: <status>"; the graph's name counts its steps by status and each node's description says
// what it waits for; each agent's stop link says whose it is. Needs Chromium (`apt-get install -y chromium`) and
// playwright-core (a dev dependency).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StepStatusView, WorkflowStatusResource } from '../../src/core/api.js';
import type { PanelPipeline, PanelSpec, PanelState, PanelTeam } from '../../src/shared/protocol.js';
import { buildPanelState } from '../../src/vscode/panels/panelState.js';
import { launchChromium, servePanelPage } from '../helpers/panelPage.js';

const root = join(__dirname, '..', '..');
const THEMES = (JSON.parse(readFileSync(join(__dirname, 'fixtures', 'panelThemes.json'), 'utf8')) as {
  themes: Record<string, { bodyClass: string; vars: Record<string, string> }>;
}).themes;

interface Loc {
  count(): Promise<number>;
  focus(): Promise<void>;
  press(key: string): Promise<void>;
  textContent(): Promise<string | null>;
  getAttribute(name: string): Promise<string | null>;
  waitFor(opts?: { state?: string; timeout?: number }): Promise<void>;
  ariaSnapshot(): Promise<string>;
  nth(index: number): Loc;
}
interface Page {
  goto(url: string): Promise<unknown>;
  locator(selector: string): Loc;
  exposeFunction(name: string, fn: (arg: unknown) => void): Promise<void>;
  evaluate(expression: string): Promise<unknown>;
  emulateMedia(opts: { forcedColors: 'active' | 'none' }): Promise<void>;
  /** The page's fake clock (timers run only when the test says). */
  clock: { install(): Promise<void>; pauseAt(time: number): Promise<void>; runFor(ms: number): Promise<void> };
  close(): Promise<void>;
}
interface Browser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

function step(name: string, status: StepStatusView['status'], deps: string[]): StepStatusView {
  return {
    step_name: name, status, agent_name: 'implementer', dependencies: deps, started_at: '2026-01-01T00:00:00Z', completed_at: null,
    duration_ms: 1500, outcome_summary: null, feedback: null, attempt: 1, artifacts: [],
  };
}

/** A run with a step in every status the graph draws, findings of each severity, waiting at a gate (or not). */
function fixture(runStatus: WorkflowStatusResource['status'], gate: boolean, cancelled = false): PanelState {
  const status: WorkflowStatusResource = {
    execution_id: 'e1', task_id: 't1', workflow: 'bug-fix', status: runStatus, cancelled, current_step: 'review', progress: 40,
    started_at: '2026-01-01T00:00:00Z', completed_at: null,
    steps: [
      step('analyze', 'completed', []), step('fix', 'running', ['analyze']), step('docs', 'skipped', ['analyze']),
      step('lint', 'failed', ['analyze']), step('review', gate ? 'awaiting_approval' : 'running', ['fix', 'lint']), step('ship', 'pending', ['review']),
    ],
  };
  const findings = ['critical', 'high', 'medium', 'low'].map((severity) => ({ severity, category: 'sec', description: `a ${severity} one`, recommendation: 'fix it' }));
  const artifact = {
    id: 1, artifact_id: 'a1', execution_id: 'e1', step_name: 'analyze', agent_name: 'debugger', type: 'markdown', title: 'Root cause',
    content: '', description: null, is_final: false, created_at: '2026-01-01T00:00:01Z', content_size_bytes: 10, metadata: { findings },
  };
  const events = [{ event_type: 'workflow_started', event_data: {}, created_at: '2026-01-01T00:00:00Z' }];
  return buildPanelState(status, null, events, [artifact], '# Active Guardrails\n\n## Rule: Security\n\n- **NEVER** commit secrets\n');
}

const STUB = `
window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m), getState: () => undefined, setState: () => {} });
`;

// Runs in the page: each piece of text and each graph part with the colours behind it (alpha and opacity composited).
const AUDIT = `(() => {
  const parse = (c) => { const m = /rgba?\\(([^)]+)\\)/.exec(c || ''); if (!m) return null;
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
  const over = (f, b) => ({ r: f.r * f.a + b.r * (1 - f.a), g: f.g * f.a + b.g * (1 - f.a), b: f.b * f.a + b.b * (1 - f.a), a: 1 });
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return Math.round(((Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05)) * 100) / 100; };
  const opacity = (el) => { let o = 1; for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; };
  const page = () => parse(getComputedStyle(document.body).backgroundColor);
  const behind = (el) => { const layers = []; for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor);
    if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; } } let bg = page(); for (const c of layers.reverse()) bg = over(c, bg); return bg; };
  const ink = (color, el, bg) => { const c = parse(color); return c && over({ ...c, a: c.a * opacity(el) }, bg); };
  const out = [];
  for (const el of document.querySelectorAll('#root *')) {
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden' || el.closest('[disabled]')) continue;
    const text = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim()).map((n) => n.textContent.trim()).join(' ');
    const node = el.closest('g.node');
    const where = node ? node.getAttribute('data-testid') + ' ' + (el.getAttribute('class') || el.tagName) : el.tagName.toLowerCase() + '.' + el.className;
    if (text && !(el instanceof SVGElement)) {
      const bg = behind(el); out.push({ what: where, text, need: 4.5, ratio: ratio(ink(cs.color, el, bg), bg) });
    } else if (text && el.tagName === 'text') {
      const rect = node.querySelector('rect'); const bg = over(parse(getComputedStyle(rect).fill), page());
      out.push({ what: where, text, need: 4.5, ratio: ratio(ink(cs.fill, el, bg), bg) });
    } else if (el.tagName === 'rect' || (el.tagName === 'path' && el.classList.contains('edge'))) {
      const bg = page(); out.push({ what: where, text: 'border', need: 3, ratio: ratio(ink(cs.stroke, el, bg), bg) });
    }
  }
  return out;
})()`;

/** The focused element's indicator (a node's stroke, else the outline) against the page. */
const FOCUS = `(() => {
  const el = document.activeElement; const rect = el.querySelector && el.querySelector('rect');
  const cs = getComputedStyle(el);
  return { id: el.getAttribute('data-testid'), color: rect ? getComputedStyle(rect).stroke : cs.outlineStyle === 'none' ? 'none' : cs.outlineColor,
    page: getComputedStyle(document.body).backgroundColor };
})()`;

function contrast(a: string, b: string): number {
  const rgb = (c: string) => (/rgba?\(([^)]+)\)/.exec(c)?.[1] ?? '0 0 0').split(/[ ,/]+/).filter(Boolean).map(Number);
  const lum = (c: string) => {
    const [r = 0, g = 0, bl = 0] = rgb(c).map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/** A page on the panel in `theme`'s colours (as the editor sets them before the script runs), showing `state`. */
async function openPanel(browser: Browser, url: string, theme: string | null, state: PanelState, shown = 'graph', fakeClock = false): Promise<Page> {
  const page = await browser.newPage();
  if (fakeClock) await page.clock.install();
  let ready = false;
  await page.exposeFunction('__toHost', (m) => {
    if ((m as { type?: string }).type === 'panel/ready') ready = true;
  });
  await page.goto(url);
  const deadline = Date.now() + 10_000;
  while (!ready && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(ready, 'the panel said panel/ready');
  if (theme) {
    const t = THEMES[theme]!;
    await page.evaluate(`(() => { const vars = ${JSON.stringify(t.vars)}; for (const [k, v] of Object.entries(vars)) document.documentElement.style.setProperty(k, v);
      document.body.className = ${JSON.stringify(t.bodyClass)}; })()`);
  }
  await page.evaluate(`window.postMessage(${JSON.stringify({ type: 'panel/init', executionId: state.executionId, state })}, '*')`);
  await page.locator(`[data-testid="${shown}"]`).waitFor({ timeout: 10_000 });
  return page;
}

async function withBrowser(fn: (browser: Browser, url: string) => Promise<void>): Promise<void> {
  const browser = await launchChromium<Browser>();
  const { url, close } = await servePanelPage(STUB);
  try {
    await fn(browser, url);
  } finally {
    await browser.close();
    close();
  }
}

test('the panel keeps its words at 4.5:1 and its graph and focus at 3:1 in the four default themes', { timeout: 120_000 }, async () => {
  assert.deepEqual(Object.keys(THEMES), ['Light Modern', 'Dark Modern', 'High Contrast', 'High Contrast Light']);
  await withBrowser(async (browser, url) => {
    const low: string[] = [];
    for (const theme of Object.keys(THEMES)) {
      // At a gate (the approval box, every step status), and ended (steps left unfinished drawn muted).
      for (const state of [fixture('awaiting_approval', true), fixture('failed', false, true)]) {
        const page = await openPanel(browser, url, theme, state);
        const rows = (await page.evaluate(AUDIT)) as Array<{ what: string; text: string; need: number; ratio: number }>;
        assert.ok(rows.length > 40, `${theme}: the audit read the panel (${rows.length} parts)`);
        for (const r of rows) if (r.ratio < r.need) low.push(`${theme} ${state.status}: ${r.what} "${r.text}" ${r.ratio}:1 (needs ${r.need}:1)`);
        // Focus indicators: a graph node reached with the keyboard, an artifact's link.
        for (const id of ['node-analyze', 'artifact-a1']) {
          await page.locator(`[data-testid="${id}"]`).focus();
          await page.locator(`[data-testid="${id}"]`).press('Shift+Tab');
          await page.locator(`[data-testid="${id}"]`).focus();
          const f = (await page.evaluate(FOCUS)) as { id: string; color: string; page: string };
          assert.equal(f.id, id);
          const r = f.color === 'none' ? 0 : contrast(f.color, f.page);
          if (r < 3) low.push(`${theme} ${state.status}: focus on ${id} ${f.color} on ${f.page} ${r.toFixed(2)}:1 (needs 3:1)`);
        }
        await page.close();
      }
    }
    assert.deepEqual(low, []);
  });
});

test('with forced colours the graph is drawn in the system colours', { timeout: 60_000 }, async () => {
  await withBrowser(async (browser, url) => {
    const page = await openPanel(browser, url, 'Light Modern', fixture('awaiting_approval', true));
    await page.emulateMedia({ forcedColors: 'active' });
    const drawn = (await page.evaluate(`(() => {
      const probe = document.createElement('span'); document.body.append(probe);
      probe.style.color = 'CanvasText'; const text = getComputedStyle(probe).color;
      probe.style.color = 'Highlight'; const highlight = getComputedStyle(probe).color; probe.remove();
      const g = (id, sel) => getComputedStyle(document.querySelector('[data-testid="' + id + '"] ' + sel));
      return { text, highlight, review: g('node-review', 'rect').stroke, lint: g('node-lint', 'rect').stroke, name: g('node-fix', '.node-name').fill,
        status: g('node-lint', '.node-status').fill, edge: getComputedStyle(document.querySelector('.graph .edge')).stroke, selected: g('node-review', 'rect').stroke };
    })()`)) as Record<string, string>;
    const { text, highlight, ...parts } = drawn;
    assert.deepEqual(parts, { review: highlight, lint: text, name: text, status: text, edge: text, selected: highlight }, `CanvasText ${text}, Highlight ${highlight}`);
    await page.close();
  });
});

test('one live region says a gate and the run ending, and nothing while agents work', { timeout: 60_000 }, async () => {
  await withBrowser(async (browser, url) => {
    const page = await openPanel(browser, url, null, fixture('running', false));
    const said = () => page.locator('[data-testid="announcer"]').textContent();
    const update = async (state: PanelState) => {
      await page.evaluate(`window.postMessage(${JSON.stringify({ type: 'panel/update', state })}, '*')`);
      await page.locator(`[data-testid="node-review"][data-status="${state.steps.find((x) => x.name === 'review')!.status}"]`).waitFor({ timeout: 5_000 });
    };
    assert.equal(await page.locator('[role="status"][aria-live="polite"]').count(), 1, 'one live region');
    assert.equal(await page.locator('#root [aria-live]').count(), 0, 'none inside what each update replaces');
    assert.equal(await said(), '', 'opening the panel says nothing (the page is read)');
    // An agent at work: its events and progress say nothing.
    const working = fixture('running', false);
    await update({ ...working, progress: 60, timeline: [...working.timeline, { type: 'step_completed', at: '2026-01-01T00:00:02Z', step: 'fix', detail: '' }] });
    assert.equal(await said(), '');
    await update(fixture('awaiting_approval', true));
    assert.equal(await said(), 'review waits for your decision.');
    // The spec's tasks.md drifted from the workflow's snapshot: said once, when it starts to differ.
    const spec: PanelSpec = {
      source: 'specs/cart/tasks.md', currentPhase: 1, phaseCount: 1, ticked: 0, writeBackProblem: null, warnings: [], warningCount: 0,
      drift: { state: 'drifted', line: 4, snapshot: '- [ ] 1.1 Multiply', current: '- [ ] 1.1 Multiply twice' },
      phases: [{ phase: 1, title: 'Phase 1/1: Fix', stepName: 'review', status: 'awaiting_approval', signoff: true, tasks: [], gate: [], missing: [] }],
    };
    await update({ ...fixture('awaiting_approval', true), spec });
    assert.equal(await said(), 'specs/cart/tasks.md has changed since this workflow started.');
    assert.equal(await page.locator('#root [role="status"]').count(), 0, 'the drift notice is not a live region made anew by each update');
    // An error is said once: the box that shows it is made anew by each update, so it is no alert itself.
    await page.evaluate(`window.postMessage(${JSON.stringify({ type: 'panel/error', message: 'Step review was already decided' })}, '*')`);
    await page.locator('[data-testid="error"]').waitFor({ timeout: 5_000 });
    assert.equal(await said(), 'Step review was already decided');
    assert.equal(await page.locator('#root [role="alert"]').count(), 0);
    await update({ ...fixture('failed', false, true), endReason: 'by the editor' });
    assert.equal(await said(), 'Run cancelled: by the editor.');
    // A pipeline paused at its budget: said once by the region, its box no alert that each update would repeat.
    const pipeline: PanelPipeline = {
      system: 'review', input: 'fix it', live: true, drivenElsewhere: false, nodes: [], byAgent: [], total: { tokens: 120, costUsd: 0 },
      budget: { tokens: 100, usd: null }, budgetUsedPercent: 120, pausedForBudget: 'token budget of 100 reached', pausedInterrupted: null, raise: null,
    };
    const running = { ...fixture('running', false), executionId: 'p1' };
    await page.evaluate(`window.postMessage(${JSON.stringify({ type: 'panel/init', executionId: 'p1', state: { ...running, pipeline: { ...pipeline, pausedForBudget: null } } })}, '*')`);
    await page.locator('[data-testid="pipeline"]').waitFor({ timeout: 5_000 });
    await page.evaluate(`window.postMessage(${JSON.stringify({ type: 'panel/update', state: { ...running, status: 'paused', pipeline } })}, '*')`);
    await page.locator('[data-testid="budget-paused"]').waitFor({ timeout: 5_000 });
    assert.equal(await said(), 'Run paused: budget exceeded.');
    assert.equal(await page.locator('#root [role="alert"]:not([hidden])').count(), 0);
    await page.close();
  });
});

test('the graph is named by its steps\' statuses and each node says what it waits for', { timeout: 60_000 }, async () => {
  await withBrowser(async (browser, url) => {
    const page = await openPanel(browser, url, null, fixture('awaiting_approval', true));
    assert.equal(await page.locator('[data-testid="graph"]').getAttribute('aria-label'),
      'Step graph: 6 steps: 1 completed, 1 running, 1 skipped, 1 failed, 1 awaiting approval, 1 pending');
    assert.equal(await page.locator('[data-testid="node-review"] title').textContent(), 'review: awaiting approval (implementer), after fix, lint');
    assert.match(await page.locator('[data-testid="graph"]').ariaSnapshot(), /button "review: awaiting approval" \[pressed\]/);
    await page.close();
  });
});

test('a team\'s agents each have a stop link named by whose it is, and its channel does not talk over the page', { timeout: 60_000 }, async () => {
  const team: PanelTeam = {
    instance: 'review', workflow: 'pair', status: 'running', source: null, contextDir: null, canSend: true, working: ['alice', 'bob'],
    agents: ['alice', 'bob'].map((name) => ({ name, backend: 'claude', model: '', state: 'running', unread: 0 })), documents: [],
    channel: [{ from: 'alice', timestamp: '2026-01-01T00:00:01Z', message: '@bob look at cart.js', mentions: ['bob'] }],
  };
  await withBrowser(async (browser, url) => {
    const page = await openPanel(browser, url, null, { ...fixture('running', false), team }, 'team-agents');
    const agents = await page.locator('[data-testid="team-agents"]').ariaSnapshot();
    assert.match(agents, /link "Stop alice"/);
    assert.match(agents, /link "Stop bob"/);
    assert.equal(await page.locator('#root [aria-live]').count(), 0, 'each message is not read out as agents post');
    await page.close();
  });
});

test('a team\'s new messages for people are said, several within a few seconds as one count, and never again', { timeout: 60_000 }, async () => {
  const msg = (from: string, second: number, message: string, mentions: string[] = []) =>
    ({ from, timestamp: `2026-01-01T00:00:${String(second).padStart(2, '0')}Z`, message, mentions });
  const base: PanelTeam = {
    instance: 'review', workflow: 'pair', status: 'running', source: null, contextDir: null, canSend: true, working: ['alice', 'bob'],
    agents: ['alice', 'bob'].map((name) => ({ name, backend: 'claude', model: '', state: 'running', unread: 0 })), documents: [],
    channel: [msg('system', 1, '@alice @bob fix the cart total', ['alice', 'bob']), msg('bob', 2, 'Starting on the tests.')],
  };
  const withChannel = (...more: PanelTeam['channel']) => ({ ...fixture('running', false), team: { ...base, channel: [...base.channel, ...more] } });
  await withBrowser(async (browser, url) => {
    const page = await openPanel(browser, url, null, withChannel(), 'team-agents', true);
    // The page's timers move only when the test moves them, so "not yet" is not a race.
    await page.clock.pauseAt(Date.now() + 60_000);
    const said = () => page.locator('[data-testid="announcer"]').textContent();
    const send = async (type: 'panel/init' | 'panel/update', state: PanelState) => {
      await page.evaluate(`window.postMessage(${JSON.stringify({ type, executionId: state.executionId, state })}, '*')`);
      await page.locator('[data-testid="tmsg"]').nth(state.team!.channel.length - 1).waitFor({ timeout: 5_000 });
      assert.equal(await page.locator('[data-testid="tmsg"]').count(), state.team!.channel.length);
    };
    await page.clock.runFor(10_000);
    assert.equal(await said(), '', 'the messages there when the panel opens are read with the page, not announced');

    // Agents @mentioning each other, and the person's own post: the team at work, said to nobody.
    const atWork = [msg('alice', 3, '@bob look at cart.js', ['bob']), msg('user', 4, 'Keep the old rounding.')];
    await send('panel/update', withChannel(...atWork));
    await page.clock.runFor(10_000);
    assert.equal(await said(), '');

    // One message for people: said when it has waited a few seconds, in full.
    const done = msg('bob', 5, 'Done:\nthe total multiplies by quantity now.');
    await send('panel/update', withChannel(...atWork, done));
    assert.equal(await said(), '', 'gathered first, in case more come');
    await page.clock.runFor(3_000);
    assert.equal(await said(), 'Team message from bob: Done: the total multiplies by quantity now.');

    // Three in two updates within the window (one to @user though it @mentions an agent too): one count.
    const burst = [msg('alice', 6, '@user @bob the fix needs your review', ['bob']), msg('bob', 7, 'Tests pass.')];
    await send('panel/update', withChannel(...atWork, done, ...burst));
    await page.clock.runFor(1_000);
    const last = msg('alice', 8, 'Pushed to the branch.');
    await send('panel/update', withChannel(...atWork, done, ...burst, last));
    await page.clock.runFor(2_000);
    assert.equal(await said(), '3 new team messages from alice and bob.');

    // Rendered anew (the editor sends the run again, the channel's window moves on): nothing is said twice.
    await page.evaluate(`document.querySelector('[data-testid="announcer"]').textContent = ''`);
    const all = withChannel(...atWork, done, ...burst, last);
    await send('panel/init', all);
    await send('panel/update', { ...all, team: { ...all.team, channel: all.team.channel.slice(2) } });
    await page.clock.runFor(10_000);
    assert.equal(await said(), '');
    assert.equal(await page.locator('#root [aria-live]').count(), 0, 'the channel itself is not a live region');
    await page.close();
  });
});

test('the header\'s status badge is read as "Status: <status>" and looks as before', { timeout: 60_000 }, async () => {
  await withBrowser(async (browser, url) => {
    for (const [state, shown] of [[fixture('running', false), 'running'], [fixture('awaiting_approval', true), 'awaiting approval'],
      [fixture('failed', false, true), 'cancelled']] as const) {
      const page = await openPanel(browser, url, 'Light Modern', state);
      const header = await page.locator('header').ariaSnapshot();
      assert.match(header, new RegExp(`text: "?Status: ${shown}"?\\n`), header);
      assert.doesNotMatch(header, new RegExp(`text: "?${shown}"?\\n`), 'the badge\'s word is not read a second time');
      assert.equal(await page.locator('[data-testid="status"]').textContent(), shown, 'the badge shows the bare status');
      const hidden = (await page.evaluate(`(() => { const r = document.querySelector('[data-testid="status-name"]').getBoundingClientRect();
        return r.width <= 1 && r.height <= 1; })()`)) as boolean;
      assert.ok(hidden, 'the name is not shown');
      await page.close();
    }
  });
});
