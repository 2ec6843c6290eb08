// Rule: as a Copilot user sees it, the editor's built-in chat agent (signed out) with a scripted language model from a
// test-only extension drives a whole bug-fix workflow through Baton's registered MCP server: it starts the workflow,
// submits every step, waits at the gate while the person approves in the panel, and ends the chat with the synthesis;
// the tree and panel follow live.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, type Browser, type Frame, type Page } from './harness/browser.js';
import { repoRoot, startEditorServer, type EditorServer } from './harness/editorServer.js';
import { waitFor, Workbench } from './harness/workbench.js';

const scriptedModel = join(repoRoot, 'test', 'e2e', 'fixtures', 'scripted-model');

describe("the editor's agent mode drives Baton", { timeout: 10 * 60_000 }, () => {
  let server: EditorServer;
  let browser: Browser;
  let page: Page;
  let wb: Workbench;
  let panel: Frame;
  let logDir: string;
  const turns = () => {
    const file = join(logDir, 'scripted.log');
    return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>) : [];
  };

  before(async () => {
    logDir = mkdtempSync(join(tmpdir(), 'baton-agent-'));
    server = await startEditorServer({
      kind: 'code-server',
      env: { BATON_SCRIPTED_LOG: join(logDir, 'scripted.log') },
      // Signed out, with tool calls approved without the confirmation card (the test extension sets the test-mode context).
      settings: { 'chat.allowAnonymousAccess': true, 'chat.tools.global.autoApprove': true },
    });
    symlinkSync(scriptedModel, join(server.extensionsDir, 'baton-test.baton-scripted-model-0.0.1'), 'dir');
    browser = await launchBrowser(server.host.chromium!);
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    wb = new Workbench(page);
    await page.goto(`${server.url}/?folder=${encodeURIComponent(server.workspace)}`);
    await wb.ready();
  });
  after(async () => {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    rmSync(logDir, { recursive: true, force: true });
  });

  it('a prompt in the chat makes the agent start bug-fix through Baton and submit every step', async () => {
    await wb.openActivity('Baton');
    await waitFor('the scripted model to be active', () => turns().some((t) => t.turn === 'activated'), 30_000);
    await wb.runCommand('Chat: Open Chat');
    const input = page.locator('.interactive-input-part .monaco-editor').first();
    await input.waitFor({ state: 'visible', timeout: 20_000 });
    await input.click({ force: true });
    await page.keyboard.type('Use Baton to fix the cart total bug with the bug-fix workflow.');
    await page.keyboard.press('Enter');
    await waitFor('the agent to reach the gate', () => turns().some((t) => t.turn === 'saw' && t.status === 'awaiting_approval'), 90_000);
    const submitted = turns().filter((t) => t.turn === 'call' && t.input?.model_output_so_far).map((t) => t.input.model_output_so_far.summary as string);
    for (const step of ['analyze-root-cause', 'implement-fix', 'write-tests', 'review-code']) assert.ok(submitted.some((s) => s.includes(step)), `${step} submitted: ${submitted}`);
  });

  it('the tree and the panel follow the agent, and the person approves the gate with the panel button', async () => {
    const execution = await waitFor('the execution in the tree', async () => {
      const row = (await wb.treeRows()).find((r) => r.level === '2' && /awaiting approval/i.test(r.label));
      return row?.label;
    });
    await wb.treeRow(execution.split(',')[0]!).click();
    panel = await wb.webviewFrame('approve');
    await waitFor('the review step shown awaiting approval', async () => /awaiting/i.test(await panel.locator('[data-testid="status"]').first().innerText({ timeout: 1000 })));
    await panel.locator('[data-testid="approve"]').first().click();
    await waitFor('the agent to see the workflow closed', () => turns().some((t) => t.turn === 'saw' && t.status === 'task_closed'), 60_000);
    await waitFor('the panel to show completion', async () => /complet/i.test(await panel.locator('[data-testid="status"]').first().innerText({ timeout: 1000 })));
  });

  it('the chat ends with the synthesis', async () => {
    const answer = await waitFor('the final answer in the chat', async () => {
      const text = await page.locator('.interactive-session .interactive-item-container').last().innerText({ timeout: 1000 });
      return /Workflow complete/.test(text) && text;
    }, 30_000);
    assert.match(answer, /Synthesis:/);
    await wb.clearNotifications();
    await wb.screenshot('agent');
  });
});
