// Rule: pipelines run from the editor the way a person runs them (code-server in headless Chromium): "Baton: Run
// Pipeline…" from the palette on a workspace system whose agents are `command` runners; the panel follows the run live
// (step statuses change, an agent's output streams in), a human_review step (what it asks in the gate box, the progress
// short of 100%) is approved in the panel, and the run completes (tree and database agree). A file that is not valid is
// refused with file:line and opened at it, from the palette or a click on its row in the tree; a run that `baton
// pipeline run` starts against the editor (the owner) appears in the tree live.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Frame, Page } from './harness/browser.js';
import { repoRoot, startEditorServer, type EditorServer } from './harness/editorServer.js';
import { openWorkbench, waitFor, type Workbench } from './harness/workbench.js';
import { runCli } from '../fixtures/mcp/cliHarness.js';

const AGENT = join(repoRoot, 'test', 'e2e', 'fixtures', 'pipelineAgent.js');

const REVIEW = `name: review
description: Draft, check in parallel, sign off
agents:
  - { id: writer, role: implementer, runner: command, command: [NODE, AGENT], env: { RELEASE_FILE: RELEASE_PATH } }
  - { id: checker, role: reviewer, runner: command, command: [NODE, AGENT], env: { DELAY_MS: "200" } }
workflow:
  - { id: draft, type: agent, agentId: writer, outputVariable: draft }
  - id: checks
    type: parallel
    children:
      - { id: lint, type: agent, agentId: checker, inputTemplate: "lint {{draft}}" }
      - { id: loud, type: transform, inputTemplate: "{{draft}}", operation: upper }
  - { id: signoff, type: human_review, inputTemplate: "Ship the draft?" }
`;

const QUICK = `name: quick
description: One slow agent
agents:
  - { id: solo, role: custom, runner: command, command: [NODE, AGENT], env: { DELAY_MS: "3000" } }
workflow:
  - { id: only, type: agent, agentId: solo }
`;

const BLUEPRINT = `id: echo-pair
name: Echo Pair
description: One scripted agent on a topic
category: custom
agentTemplates:
  - { id: first, role: custom, suggestedModels: [claude-haiku], suggestedTools: [], runner: command, command: [NODE, AGENT], promptTemplate: "{{system.input}} about {{topic}} ({{tone}})" }
workflowTemplate:
  - { id: only, type: agent, agentId: first }
requiredInputs:
  - { name: topic, description: What it is about, type: string }
  - { name: tone, description: How it sounds, type: selection, options: [calm, loud], default: calm }
`;

const BROKEN = `name: broken
agents:
  - { id: a, runner: command, command: [node, x.js] }
workflow:
  - { id: s, type: agnet, agentId: a }
`;

/** Runs the built CLI (quiet logs); resolves with its exit code and output. */
const cli = (args: string[]) => runCli(args, { BATON_LOG_LEVEL: 'error' }, undefined, 120_000);

describe('pipelines in the editor', { timeout: 5 * 60_000 }, () => {
  let server: EditorServer;
  let browser: Browser;
  let page: Page;
  let wb: Workbench;
  let panel: Frame;
  let db = '';
  let release = '';

  before(async () => {
    server = await startEditorServer({ kind: 'code-server' });
    const dir = join(server.workspace, '.baton', 'pipelines');
    mkdirSync(dir, { recursive: true });
    release = join(server.scratch, 'release-writer');
    const fill = (yaml: string) => yaml.replaceAll('NODE', JSON.stringify(process.execPath)).replaceAll('AGENT', JSON.stringify(AGENT)).replaceAll('RELEASE_PATH', JSON.stringify(release));
    writeFileSync(join(dir, 'review.yaml'), fill(REVIEW));
    writeFileSync(join(dir, 'quick.yaml'), fill(QUICK));
    writeFileSync(join(dir, 'broken.yaml'), BROKEN);
    mkdirSync(join(server.workspace, '.baton', 'blueprints'), { recursive: true });
    writeFileSync(join(server.workspace, '.baton', 'blueprints', 'echo-pair.yaml'), fill(BLUEPRINT));
    db = join(server.workspace, '.baton', 'baton.db');
    ({ browser, page, wb } = await openWorkbench(server, { width: 1400, height: 1000 }));
    await wb.openActivity('Baton');
    await waitFor('the Pipelines group in the tree', async () => (await wb.treeRows()).some((r) => r.label.startsWith('Pipelines')), 60_000);
  });
  after(async () => {
    await browser?.close().catch(() => undefined);
    await server?.stop();
  });

  it('refuses a system that is not valid with file:line and opens the file there', async () => {
    await wb.runCommand('Baton: Run Pipeline…');
    await wb.waitForQuickInput('broken');
    // The pick stays open when the person clicks elsewhere (here the empty part of the side bar), as the later steps do.
    await page.locator('.part.sidebar').click({ position: { x: 100, y: 900 } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.ok(await page.locator('.quick-input-widget .quick-input-box input').isVisible(), 'the pick is still open');
    const rows = await wb.quickPickRows();
    assert.ok(rows.some((r) => r.includes('review')) && rows.some((r) => /Research|research/.test(r)), `systems and blueprints: ${rows.join(' | ')}`);
    await wb.answerQuickInput('.baton/pipelines/broken.yaml');
    assert.match(await wb.openFileFromError('broken.yaml', 5), /broken\.yaml:5: workflow\[0\]\.type: must be one of agent/);
    // The tree marks it not valid; a click on it shows the same problem, and Open File goes there (it did nothing).
    await wb.runCommand('View: Close All Editors');
    await wb.clearNotifications();
    await wb.openActivity('Baton');
    const row = page.locator('.part.sidebar .monaco-list-row[aria-label="broken, not valid"]').first();
    await row.waitFor({ state: 'visible', timeout: 20_000 });
    await row.click();
    assert.match(await wb.openFileFromError('broken.yaml', 5), /broken\.yaml:5: workflow\[0\]\.type: must be one of agent/);
  });

  it('runs a system from the palette; the panel follows it live and the review is approved in the panel', async () => {
    await wb.runCommand('Baton: Run Pipeline…');
    await wb.waitForQuickInput('review');
    await wb.answerQuickInput('.baton/pipelines/review.yaml');
    await wb.answerQuickInput('Fix the login bug');
    panel = await wb.webviewFrame('pipeline', 60_000);
    const node = (name: string) => panel.locator(`[data-testid="pstep-${name}"]`).first();
    const status = async (name: string) => (await node(name).getAttribute('data-status', { timeout: 2000 })) ?? '';
    // The writer works until the test has seen its output in the panel (then the test lets it finish).
    const streamed = await waitFor('the writer\'s output while it runs', async () => {
      if ((await status('draft')) !== 'running') return false;
      const out = node('draft').locator('[data-testid="poutput"]');
      return (await out.count()) > 0 && (await out.innerText({ timeout: 1000 })).includes('writer: working on Fix the login bug') && 'ok';
    }, 30_000);
    assert.equal(streamed, 'ok');
    assert.equal(await status('checks/lint'), 'pending');
    assert.equal(await node('checks').getAttribute('data-type'), 'parallel');
    writeFileSync(release, '');
    await waitFor('the review to wait in the panel', async () => (await status('signoff')) === 'awaiting_approval', 30_000);
    assert.equal(await status('draft'), 'completed');
    assert.equal(await status('checks/lint'), 'completed');
    assert.equal(await status('checks/loud'), 'completed');
    assert.match(await node('draft').locator('[data-testid="poutput"]').innerText(), /writer: finished/);
    assert.match(await panel.locator('[data-testid="pipeline-usage"]').innerText(), /Run: 60 tokens · \$0\.0040/);
    assert.match(await panel.locator('[data-testid="agent-usage"]').innerText(), /writer\s+1\s+30/);
    // The gate box says what the run asks (no agent submits a review), and the run is not done while it waits.
    assert.equal(await panel.locator('[data-testid="approval"] [data-testid="submission-summary"]').first().innerText(), 'Ship the draft?');
    assert.equal(await panel.locator('[data-testid="progress"]').first().innerText(), '75%');
    const approve = panel.locator('[data-testid="approval"][data-step="signoff"] [data-testid="approve"]').first();
    await approve.click();
    await waitFor('the run completed in the panel', async () =>
      (await panel.locator('[data-testid="status"]').first().innerText({ timeout: 1000 })).trim() === 'completed' && (await status('signoff')) === 'completed', 30_000);
    await waitFor('the run completed in the tree', async () =>
      (await wb.treeRows()).some((r) => r.label.startsWith('review · completed')), 30_000);
    const listed = await cli(['pipeline', 'list', '--json', '--db', db, '--workspace', server.workspace]);
    assert.equal(listed.code, 0, listed.stderr);
    const { runs } = JSON.parse(listed.stdout) as { runs: Array<{ system: string; status: string; usage: { tokens: number } }> };
    const review = runs.find((r) => r.system === 'review');
    assert.equal(review?.status, 'completed', listed.stdout);
    assert.equal(review?.usage.tokens, 60);
  });

  /** Answers the quick input once it shows `title`. */
  async function answer(title: string, text: string): Promise<void> {
    await page.locator('.quick-input-widget .quick-input-title').filter({ hasText: title }).first().waitFor({ state: 'visible', timeout: 15_000 });
    await wb.answerQuickInput(text);
  }

  it('runs a blueprint: its inputs are asked (a box, a pick), then the runner and the task', async () => {
    await wb.runCommand('Baton: Run Pipeline…');
    await wb.waitForQuickInput('echo-pair');
    await wb.answerQuickInput('blueprint echo-pair');
    await answer('Blueprint echo-pair: topic', 'caching');
    await answer('Blueprint echo-pair: tone', 'loud');
    await answer('Blueprint echo-pair: who runs the agents?', 'As the blueprint suggests');
    await answer('Run echo-pair', 'Explain');
    const frame = await wb.webviewFrame('pstep-only', 60_000);
    const only = frame.locator('[data-testid="pstep-only"]').first();
    await waitFor('the blueprint\'s agent to finish', async () => (await only.getAttribute('data-status', { timeout: 1000 })) === 'completed', 30_000);
    assert.match(await only.locator('[data-testid="poutput"]').innerText(), /first: working on Explain about caching \(loud\)/);
  });

  it('shows a run that `baton pipeline run` starts against the editor in the tree, live', async () => {
    const run = cli(['pipeline', 'run', 'quick', '--input', 'from the terminal', '--json', '--db', db, '--workspace', server.workspace]);
    await waitFor('the CLI\'s run running in the tree', async () => (await wb.treeRows()).some((r) => r.label.startsWith('quick · running')), 30_000);
    const done = await run;
    assert.equal(done.code, 0, done.stderr + done.stdout);
    assert.match(done.stdout, /"owner":\d+/, 'the editor (the owner) drove the run');
    await waitFor('the CLI\'s run completed in the tree', async () => (await wb.treeRows()).some((r) => r.label.startsWith('quick · completed')), 30_000);
  });
});
