// Rule: as a Copilot user sees it, the editor's built-in chat agent (signed out) with a scripted language model from a
// test-only extension drives a whole bug-fix workflow through Baton's registered MCP server: it starts the workflow,
// submits every step with an artifact, waits at the gate while the person approves with the panel's button, and ends
// the chat with the synthesis; the tree and the panel follow it live, and Baton's state shows the execution completed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { agentModeSettings, installScriptedModel, scriptedModel, webviewFrameWith, type ScriptedModel } from './harness/agentMode.js';
import type { Browser, Frame, Page } from './harness/browser.js';
import { startEditorServer, type EditorServer } from './harness/editorServer.js';
import { openWorkbench, waitFor, type Workbench } from './harness/workbench.js';

const STEPS = ['analyze-root-cause', 'implement-fix', 'write-tests', 'review-code'];
const SYNTHESIS_LINE = '# Workflow Synthesis: bug-fix';

describe("the editor's agent mode drives Baton", { timeout: 5 * 60_000 }, () => {
  let server: EditorServer;
  let browser: Browser;
  let page: Page;
  let wb: Workbench;
  let panel: Frame | undefined;
  let model: ScriptedModel;
  let failed = false;
  const t0 = Date.now();
  const marks: Record<string, number> = {};
  const mark = (name: string) => (marks[name] = Date.now() - t0);

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-agent-mode-'));
    model = scriptedModel(dir);
    server = await startEditorServer({
      kind: 'code-server',
      // The model works on each step until the test releases it, so what the editor shows meanwhile can be checked.
      env: { BATON_SCRIPTED_DIR: dir, BATON_SCRIPTED_HOLD: '1' },
      settings: agentModeSettings,
      testHooks: true, // the scripted model's "Save Baton State" reads baton.test.state
    });
    installScriptedModel(server);
    ({ browser, page, wb } = await openWorkbench(server));
    mark('workbench');
  });

  after(async () => {
    process.stderr.write(`agent mode timings (ms from start): ${JSON.stringify(marks)}\n`);
    if (failed) {
      process.stderr.write(`the scripted model's turns and requests are kept in ${model.dir}\n`);
      if (page) await wb.screenshot('agent-mode-failure').then((p) => process.stderr.write(`screenshot: ${p}\n`)).catch(() => undefined);
    }
    await browser?.close().catch(() => undefined);
    await server?.stop();
    if (!failed) rmSync(model.dir, { recursive: true, force: true });
  });

  const step = (name: string, fn: () => Promise<void>) =>
    it(name, async () => {
      try {
        await fn();
      } catch (err) {
        failed = true;
        throw err;
      }
    });

  step('Baton and the scripted model are ready in the editor', async () => {
    await wb.openActivity('Baton');
    await waitFor('the bundled workflows in the tree', async () => (await wb.treeRows()).some((r) => r.label.startsWith('bug-fix')), 60_000);
    await waitFor('the scripted model to be active', () => model.turns().some((t) => t.turn === 'activated'), 60_000);
    mark('ready');
  });

  step('a prompt in agent mode makes the agent start bug-fix through Baton, and the tree shows it', async () => {
    // The prompt goes to the agent mode with the scripted model selected (workbench.action.chat.open).
    await wb.runCommand('Baton Test: Ask the Agent to Fix the Cart Bug');
    await waitFor('the prompt in the chat view', async () => (await page.locator('.interactive-session').first().innerText({ timeout: 1000 })).includes('cart total bug'), 30_000);
    mark('prompt shown');
    const start = await waitFor('the agent to call workflow_next_step', () => model.turns().find((t) => t.turn === 'call'), 60_000);
    assert.match(start.tool, /^mcp_.*workflow_next_step$/, 'the tool is the one Baton registered through the MCP provider');
    assert.deepEqual(start.input, { template_name: 'bug-fix', task_description: 'Fix cart total ignoring quantities' });
    const first = await waitFor('Baton\'s answer to the start', () => model.turns().find((t) => t.turn === 'saw'), 30_000);
    assert.equal(first.status, 'ok', JSON.stringify(first));
    assert.equal(first.step, 'analyze-root-cause');
    await waitFor('the execution in the tree', async () => (await wb.treeRows()).some((r) => r.level === '2' && r.label.startsWith('bug-fix ·')), 20_000);
    mark('execution in tree');
  });

  step('the tree and the panel opened with "Baton: Show Execution" follow the agent step by step', async () => {
    await wb.runCommand('Baton: Show Execution'); // the only run: its panel opens without a pick
    const view = await webviewFrameWith(page, 'status');
    panel = view;
    mark('panel');
    for (const [i, s] of STEPS.entries()) {
      // The agent holds the step (working on it); the editor shows it in progress without a reload.
      await waitFor(`the agent to work on ${s}`, () => model.turns().some((t) => t.turn === 'holding' && t.step === s), 30_000);
      const progress = `${i * 25}%`;
      await waitFor(`the panel to show ${s} running at ${progress}`, async () => {
        const status = await view.locator(`[data-testid="node-${s}"]`).first().getAttribute('data-status', { timeout: 1000 });
        const shown = (await view.locator('[data-testid="progress"]').first().innerText({ timeout: 1000 })).trim();
        return status === 'running' && shown === progress;
      }, 20_000);
      if (i > 0) assert.equal(await view.locator(`[data-testid="node-${STEPS[i - 1]}"]`).first().getAttribute('data-status'), 'completed');
      // The row names the run by its task, then the step it is at.
      await waitFor(`the tree to name ${s} as the current step`, async () =>
        (await wb.treeRows()).some((r) => r.level === '2' && r.label === `bug-fix · running · ${progress}, Fix cart total ignoring quantities · ${s}`), 20_000);
      await waitFor(`the tree's step row ${s} running`, async () => (await wb.treeRows()).some((r) => r.level === '3' && r.label.startsWith(`${s}, running`)), 20_000);
      writeFileSync(join(model.dir, 'release', s), '');
    }
    mark('steps followed');
    await waitFor('the gate: the approve button in the panel', async () => (await view.locator('[data-testid="approve"]').count()) > 0, 30_000);
    await waitFor('the tree to show review-code awaiting approval', async () => (await wb.treeRows()).some((r) => r.level === '3' && /^review-code, awaiting approval/.test(r.label)), 20_000);
    mark('gate');
    const submitted = model.turns().filter((t) => t.turn === 'call' && t.input?.model_output_so_far && !/^retry/.test(t.why)).map((t) => t.input.model_output_so_far.summary as string);
    assert.deepEqual(submitted, STEPS.map((s) => `Did ${s} for the cart total bug.`), 'every step submitted once, with an artifact');
  });

  step('the person approves with the panel button while the agent waits, and the workflow closes', async () => {
    // The agent's call is out and held by Baton: its last line is a call with the token only, unanswered for over a
    // second (every answer that does not wait came back well within that).
    const pending = () => {
      const turns = model.turns().filter((t) => t.turn === 'call' || t.turn === 'saw');
      const index = turns.length - 1;
      const t = turns[index];
      const waits = t?.turn === 'call' && t.input?.step_token && !t.input.model_output_so_far;
      return waits && Date.now() - Date.parse(t.at) > 1000 ? { index, at: t.at as string } : undefined;
    };
    const waiting = await waitFor('the agent to wait on the gate', pending, 30_000);
    const clickedAt = new Date();
    await panel!.locator('[data-testid="approve"]').first().click();
    mark('approved');
    const closed = await waitFor('the agent to see the workflow closed', () => model.turns().find((t) => t.turn === 'saw' && t.status === 'task_closed'), 60_000);
    mark('task_closed');
    // The call that waited is the one that came back with the closed workflow.
    const answered = model.turns().filter((t) => t.turn === 'call' || t.turn === 'saw')[waiting.index + 1];
    assert.equal(answered?.status, 'task_closed', JSON.stringify(answered));
    assert.ok(new Date(waiting.at) <= clickedAt && clickedAt < new Date(closed.at), `waited ${waiting.at}, clicked ${clickedAt.toISOString()}, closed ${closed.at}`);
    await waitFor('the panel to show the workflow completed', async () => /complet/i.test(await panel!.locator('[data-testid="status"]').first().innerText({ timeout: 1000 })), 20_000);
    await waitFor('the tree to show the workflow completed', async () => (await wb.treeRows()).some((r) => r.level === '2' && /^bug-fix · completed · 100%/.test(r.label)), 20_000);
    // Every step's artifact and the synthesis are listed in the panel.
    const artifacts = await waitFor('the artifacts in the panel', async () => {
      const text = await panel!.locator('[data-testid="artifacts"]').first().innerText({ timeout: 1000 });
      return STEPS.every((s) => text.includes(`${s} notes`)) && /Workflow Synthesis/.test(text) && text;
    }, 20_000);
    assert.ok(artifacts);
  });

  step("the chat ends with the model's final text, holding the synthesis' first line", async () => {
    const answer = await waitFor('the final answer in the chat view', async () => {
      const texts = await page.locator('.interactive-session .interactive-item-container').evaluateAll((els) => els.map((e) => (e as unknown as { innerText: string }).innerText));
      return texts.find((t) => t.includes(SYNTHESIS_LINE));
    }, 30_000);
    mark('final text');
    assert.match(answer, /Workflow complete/);
    assert.equal(model.turns().find((t) => t.turn === 'final')?.synthesis, SYNTHESIS_LINE);
    await wb.clearNotifications();
    await wb.screenshot('agent');
  });

  step("Baton's state shows the execution completed, every step done", async () => {
    await wb.runCommand('Baton Test: Save Baton State');
    const state = await waitFor('Baton\'s state from baton.test.state', () => model.savedState(), 20_000);
    const executions = state.executions as Array<{ workflow: string; status: string; progress: number; steps: Array<{ step_name: string; status: string }> }>;
    assert.equal(executions.length, 1, JSON.stringify(executions));
    const [e] = executions;
    assert.equal(e!.workflow, 'bug-fix');
    assert.equal(e!.status, 'completed');
    assert.equal(e!.progress, 100);
    assert.deepEqual(e!.steps.map((s) => `${s.step_name}:${s.status}`), STEPS.map((s) => `${s}:completed`));
    // The agent read Baton's structured answer out of every tool result (how it arrived is noted per turn).
    const saw = model.turns().filter((t) => t.turn === 'saw');
    assert.ok(saw.every((t) => typeof t.status === 'string'), JSON.stringify(saw));
    const sawFrom = new Set(saw.map((t) => t.from as string));
    process.stderr.write(`tool results read from: ${[...sawFrom].join(', ')}; requests the model got: ${model.requests().length}\n`);
    mark('done');
  });
});
