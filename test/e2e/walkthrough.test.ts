// Rule: the walkthrough "Get started with Baton" works in a real editor (code-server in headless Chromium) on a
// workspace whose database another process owns (`baton serve`): it opens from the palette, each step shows its
// markdown, each step's button runs its command and does what the step and its markdown say (the buttons the
// markdown names are the ones the editor shows), "Approve a gate" before any gate exists leads on to the run that will
// reach one instead of a dead end, and each step is ticked by its completion event.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, type Browser, type Page } from './harness/browser.js';
import { repoRoot, startEditorServer, type EditorServer } from './harness/editorServer.js';
import { waitFor, Workbench } from './harness/workbench.js';

const TASK = 'Fix cart total ignoring quantities';
const STEPS = ['start', 'connect', 'approve', 'watch'] as const;

describe('the walkthrough "Get started with Baton"', { timeout: 6 * 60_000 }, () => {
  let server: EditorServer;
  let serve: ChildProcess | undefined;
  let browser: Browser;
  let page: Page;
  let wb: Workbench;

  /** A step of the walkthrough on screen (the page keeps hidden copies of it, disabled, while it slides). */
  const step = (id: (typeof STEPS)[number]) => page.locator(`.getting-started-step:not([disabled])[data-step-id$="#baton.walkthrough.${id}"]`).first();
  const ticked = async () => Object.fromEntries(await Promise.all(STEPS.map(async (id) => [id, (await step(id).getAttribute('aria-checked', { timeout: 5000 })) === 'true'])));
  /** Back on the walkthrough's tab (shown again, it can open on the welcome page: a person clicks Baton's there). */
  const showWalkthrough = async () => {
    await page.locator('.part.editor .tabs-container .tab').filter({ hasText: /Welcome|Walkthrough/ }).first().click();
    const category = page.locator('.getting-started-category:not([disabled])').filter({ hasText: 'Get started with Baton' }).first();
    await waitFor('the walkthrough', async () => {
      if (await step('start').isVisible()) return true;
      if (await category.isVisible()) await category.click();
      return false;
    });
  };
  /** Selects the step (unless it is open already) and waits for its markdown; returns the markdown's text. */
  const openStep = async (id: (typeof STEPS)[number], heading: string) => {
    if ((await step(id).getAttribute('aria-expanded')) !== 'true') await step(id).click();
    return waitFor(`the markdown of step ${id}`, async () => {
      for (const frame of page.frames()) {
        const text = await frame.locator('body').innerText({ timeout: 500 }).catch(() => '');
        if (text.startsWith(heading)) return text;
      }
      return null;
    }, 30_000);
  };
  const pressButton = (id: (typeof STEPS)[number]) => step(id).locator('.monaco-button, a').first().click();
  const clipboard = () => page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());

  before(async () => {
    server = await startEditorServer({ kind: 'code-server' });
    // Another process owns the workspace's database before the editor opens: the editor joins it as a client.
    serve = spawn(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'serve', '--workspace', server.workspace], { cwd: server.workspace, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    serve.stdout!.on('data', (d) => (out += d));
    serve.stderr!.on('data', (d) => (out += d));
    await waitFor('baton serve to own the database', () => /Baton serving/.test(out) || (serve!.exitCode !== null && assert.fail(out)), 30_000);
    browser = await launchBrowser(server.host.chromium!);
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    page = await context.newPage();
    wb = new Workbench(page);
    await page.goto(`${server.url}/?folder=${encodeURIComponent(server.workspace)}`);
    await wb.ready();
  });
  after(async () => {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    serve?.kill();
  });

  it('opens from the palette with its four steps, none ticked', async () => {
    await wb.runCommand('Welcome: Open Walkthrough...');
    await wb.waitForQuickInput('Get started with Baton');
    await page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: 'Get started with Baton' }).first().click();
    await step('start').waitFor({ state: 'visible', timeout: 30_000 });
    assert.deepEqual(await ticked(), { start: false, connect: false, approve: false, watch: false });
  });

  it('Start a workflow: its button starts one, and the notification offers the button its markdown names', async () => {
    const markdown = await openStep('start', 'Start a workflow');
    await pressButton('start');
    await wb.waitForQuickInput('bug-fix');
    await page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: 'bug-fix' }).first().click();
    await wb.answerQuickInput(TASK);
    await waitFor('the run’s panel', async () => (await wb.tabTitles()).some((t) => t.includes(TASK)), 30_000);
    await waitFor('the status bar to say the first step waits for an agent', async () => (await wb.statusBarEntries()).some((e) => /waits for an agent/.test(e)));
    const toast = page.locator('.notifications-toasts .notification-list-item').filter({ hasText: 'started bug-fix' }).first();
    const button = toast.locator('.monaco-button').first();
    const label = (await button.innerText({ timeout: 20_000 })).trim();
    assert.equal(label, 'Copy Agent Prompt');
    assert.ok(markdown.includes(label), `the markdown names the notification's "${label}":\n${markdown}`);
    assert.match(markdown, /waits for an agent/);
    await button.click();
    assert.match(await waitFor('the agent prompt on the clipboard', async () => /workflow_next_step/.test(await clipboard()) && clipboard()), /task_id/);
    await showWalkthrough();
    await waitFor('Start a workflow ticked', async () => (await ticked()).start);
  });

  it('Connect an agent: its button copies the MCP config and ticks the step', async () => {
    const markdown = await openStep('connect', 'Connect an agent');
    assert.match(markdown, /\.mcp\.json/);
    await pressButton('connect');
    const config = JSON.parse(await waitFor('the MCP config on the clipboard', async () => (await clipboard()).includes('mcpServers') && clipboard()));
    assert.deepEqual(config.mcpServers.baton.args.slice(-3), ['mcp', '--workspace', server.workspace]);
    await waitFor('Connect an agent ticked', async () => (await ticked()).connect);
  });

  it('Approve a gate: with no gate waiting yet its button names the run that will reach one and hands it to an agent', async () => {
    const markdown = await openStep('approve', 'Approve a gate');
    await pressButton('approve');
    // Not a dead end: the run started above is named with where it is, and the buttons lead on (as the markdown says).
    const toast = page.locator('.notifications-toasts .notification-list-item').filter({ hasText: 'no step is awaiting approval yet' }).first();
    await toast.waitFor({ state: 'visible', timeout: 20_000 });
    assert.match((await toast.innerText()).replace(/\s+/g, ' '), new RegExp(`bug-fix “${TASK}” is at "analyze-root-cause": its gate comes when an agent reaches`));
    const labels = await toast.locator('.monaco-button').evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()));
    assert.deepEqual(labels, ['Copy Agent Prompt', 'Show']);
    for (const label of labels) assert.ok(markdown.includes(label), `the markdown names the notification's "${label}":\n${markdown}`);
    assert.match(markdown, /No gate yet\?/);
    await toast.locator('.monaco-button').filter({ hasText: 'Copy Agent Prompt' }).first().click();
    // The clipboard held the MCP config (the step before): now the prompt that hands this run to an agent.
    assert.match(await waitFor('the agent prompt on the clipboard', async () => /workflow_next_step/.test(await clipboard()) && clipboard()), /task_id/);
    await showWalkthrough();
    await waitFor('Approve a gate ticked', async () => (await ticked()).approve);
  });

  it("Watch it move: Show Log shows Baton's log (the owner it joined); opening the Baton view ticks the step", async () => {
    await showWalkthrough();
    await openStep('watch', 'Watch it move');
    await pressButton('watch');
    await waitFor('the log naming the process that owns the database', async () =>
      /is owned by Baton process \d+; using its endpoint/.test((await page.locator('.part.panel').first().innerText({ timeout: 1000 })).replace(/\s+/g, ' ')));
    assert.equal((await ticked()).watch, false, 'the log alone does not tick it');
    await wb.openActivity('Baton');
    await waitFor('the run in the tree', async () => (await wb.treeRows()).some((r) => r.label.includes(TASK)), 30_000);
    // Every step done: the walkthrough is finished (the editor may show its welcome page instead).
    await waitFor('Watch it move ticked', async () => {
      const done = page.locator('.getting-started-step[data-step-id$="#baton.walkthrough.watch"][aria-checked="true"]');
      return (await done.count()) > 0;
    });
  });
});
