// Rule: a spec workflow runs in a real editor (code-server in headless Chromium): the CodeLens over an open tasks.md
// starts it, an agent (an MCP SDK client on the editor's endpoint) passes Phase 0 and Phase 1 with evidence, the
// checkbox is ticked in the open editor's buffer — which the person had left unsaved, so the tick joins it unsaved
// and one undo takes it back — and the panel, tree and status bar show the next phase, the panel noting the drift;
// a one-phase tasks.md starts with its phase counted in words; one Baton cannot read is named by file:line, and the
// error's Open File goes there.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connectAgent, type Agent } from './harness/agent.js';
import type { Browser, Frame, Page } from './harness/browser.js';
import { startEditorServer, type EditorServer } from './harness/editorServer.js';
import { openWorkbench, waitFor, type Workbench } from './harness/workbench.js';

const SOURCE = 'specs/cart/tasks.md';
const TASKS = [
  '# Tasks: cart totals',
  '',
  '- [ ] 1. Fix the total',
  '  - [ ] 1.1 Multiply price by quantity in src/cart.js',
  '  - [ ] 1.2 Add a test for two items of quantity 3',
  '- [ ] 2. Document the fix',
  '  - [ ] 2.1 Note the fix in README.md',
  '',
].join('\n');

/** The open editor's text as the person sees it (Monaco renders spaces as no-break spaces). */
async function editorText(page: Page): Promise<string> {
  return (await page.locator('.part.editor .monaco-editor .view-lines').first().innerText({ timeout: 2000 })).replace(/\u00a0/g, ' ');
}

/** Evidence for every gate item of the phase a step result hands out. */
function evidenceFor(r: Record<string, any>): Record<string, string> {
  const gate: string[] = r.context?.spec?.validation_gate ?? [];
  assert.ok(gate.length > 0, `the phase has a gate: ${JSON.stringify(r.context?.spec)}`);
  return Object.fromEntries(gate.map((_, i) => [String(i + 1), `checked: item ${i + 1} (npm test, 12 passing)`]));
}

const output = (summary: string) => ({ summary, artifacts: [], references: [SOURCE], confidence: 0.9 });

describe('a spec workflow from a tasks.md in the editor', { timeout: 5 * 60_000 }, () => {
  let server: EditorServer;
  let browser: Browser;
  let page: Page;
  let wb: Workbench;
  let agent: Agent | undefined;
  let panel: Frame;
  let executionId = '';
  let token = '';
  let phase1: Record<string, any> = {};

  before(async () => {
    // A web editor saves a dirty buffer a second after the last keystroke by default (files.autoSave afterDelay);
    // the desktop default is off, and the unsaved-buffer case below needs the buffer to stay unsaved until it checks
    // the disk (on a busy machine the auto-save won the race and wrote the buffer before the check).
    server = await startEditorServer({ kind: 'code-server', settings: { 'files.autoSave': 'off' } });
    mkdirSync(join(server.workspace, 'specs', 'cart'), { recursive: true });
    writeFileSync(join(server.workspace, SOURCE), TASKS);
    ({ browser, page, wb } = await openWorkbench(server));
  });
  after(async () => {
    await agent?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await server?.stop();
  });

  /** Opens `path` (relative to the workspace) with Go to File and waits for the editor to show `shows`. */
  const goToFile = async (path: string, shows: string) => {
    await wb.runCommand('Go to File');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill(path);
    // The row of this file, its folder in its description: a row of another tasks.md may still be listed from before.
    const [folder, name] = path.split('/').slice(-2) as [string, string];
    await page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: name }).filter({ hasText: folder }).first().click({ timeout: 30_000 });
    await waitFor(`${path} in the editor`, async () => (await editorText(page)).includes(shows), 30_000);
  };

  it('opens tasks.md and starts the workflow from its CodeLens; the panel shows Phase 0', async () => {
    await goToFile('specs/cart/tasks.md', '1.1 Multiply price');
    const lens = page.locator('.part.editor .codelens-decoration a').filter({ hasText: 'Start with Baton' }).first();
    await lens.waitFor({ state: 'visible', timeout: 60_000 });
    await lens.click();
    panel = await wb.webviewFrame('spec', 60_000);
    await waitFor('the panel to name Phase 0', async () => /Phase 0\/2/.test(await panel.locator('[data-testid="spec-current"]').first().innerText({ timeout: 1000 })));
    const meta = await panel.locator('.meta').first().innerText({ timeout: 2000 });
    executionId = /Execution (\S+)/.exec(meta)?.[1] ?? '';
    assert.ok(executionId, meta);
    await waitFor('the CodeLens to show the running workflow', async () =>
      (await page.locator('.part.editor .codelens-decoration a').filter({ hasText: 'Phase 0/2' }).count()) > 0);
  });

  it('an agent passes Phase 0 with evidence and takes Phase 1, whose tasks the panel lists as current', async () => {
    agent = await connectAgent(server.workspace);
    const phase0 = await agent.nextStep({ task_id: executionId });
    assert.equal(phase0.status, 'ok', JSON.stringify(phase0).slice(0, 800));
    assert.equal(phase0.next_step_contract.step_name, 'phase-0');
    phase1 = await agent.nextStep({ step_token: phase0.new_step_token, model_output_so_far: output('Read the spec; scope confirmed.'), evidence: evidenceFor(phase0) });
    assert.equal(phase1.status, 'ok', JSON.stringify(phase1).slice(0, 800));
    assert.equal(phase1.next_step_contract.step_name, 'phase-1');
    token = phase1.new_step_token;
    await waitFor('the panel to show Phase 1 and its tasks as current', async () =>
      /Phase 1\/2: Fix the total/.test(await panel.locator('[data-testid="spec-current"]').first().innerText({ timeout: 1000 })) &&
      (await panel.locator('[data-testid="spec-tasks"] li[data-state="current"]').count()) === 2);
    // Phase 0's evidence is on record: the graph's phase-0 node opens it in the spec section.
    await panel.locator('[data-testid="node-phase-0"]').first().click();
    await waitFor('Phase 0 with its evidence', async () => /checked: item 1/.test(await panel.locator('[data-testid="spec-gate"]').first().innerText({ timeout: 1000 })));
    await panel.locator('[data-testid="node-phase-1"]').first().click();
  });

  it('ticks Phase 1 in the open, unsaved buffer when it passes; undo takes the ticks back; the panel shows Phase 2 and the drift', async () => {
    // The person edits tasks.md and leaves it unsaved: the buffer, not the disk, is the source now.
    await page.locator('.part.editor .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('Notes: keep rounding as it is.');
    await waitFor('the unsaved edit', async () => (await editorText(page)).includes('Notes: keep rounding'));
    await waitFor('the panel to note the drift', async () => (await panel.locator('[data-testid="spec-drift"]').count()) > 0, 30_000);
    const done = await agent!.nextStep({ step_token: token, model_output_so_far: output('Fixed the total and tested it.'), evidence: evidenceFor(phase1) });
    assert.equal(done.status, 'ok', JSON.stringify(done).slice(0, 800));
    assert.equal(done.next_step_contract.step_name, 'phase-2');
    const text = await waitFor('the boxes of Phase 1 ticked in the buffer', async () => {
      const t = await editorText(page);
      return t.includes('- [x] 1. Fix the total') && t.includes('- [x] 1.1 Multiply') && t.includes('- [x] 1.2 Add a test') && t;
    }, 30_000);
    assert.ok(text.includes('- [ ] 2. Document the fix') && text.includes('Notes: keep rounding'), text);
    assert.equal(readFileSync(join(server.workspace, SOURCE), 'utf8'), TASKS, 'the disk keeps the saved text: the tick went to the open buffer');
    await waitFor('the panel to show Phase 2 as current', async () =>
      /Phase 2\/2: Document the fix/.test(await panel.locator('[data-testid="spec-current"]').first().innerText({ timeout: 1000 })));
    await waitFor('the status bar to name the phase', async () => (await wb.statusBarEntries()).some((e) => e.includes('Phase 2/2: Document the fix')));
    await wb.openActivity('Baton');
    await waitFor('the tree to show the phases and the done tasks', async () => {
      const labels = (await wb.treeRows()).map((r) => r.label);
      return labels.some((l) => l.startsWith('Phase 1/2: Fix the total')) && labels.some((l) => l.startsWith('Phase 2/2: Document the fix, current'));
    }, 30_000);
    // One undo in the editor takes the write-back's ticks back (it was one edit of the buffer).
    await page.locator('.part.editor .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Control+z');
    await waitFor('the ticks undone', async () => {
      const t = await editorText(page);
      return t.includes('- [ ] 1.1 Multiply') && t.includes('Notes: keep rounding') && t;
    });
  });
  it('starts a one-phase tasks.md (a flat list) and the notification counts it in words: "Phase 0 and 1 phase"', async () => {
    mkdirSync(join(server.workspace, 'notes'), { recursive: true });
    writeFileSync(join(server.workspace, 'notes', 'tasks.md'), '# Tasks\n\n- [ ] Write the release notes\n- [ ] Tag the release\n');
    await goToFile('notes/tasks.md', 'Tag the release');
    const lens = page.locator('.part.editor .codelens-decoration a').filter({ hasText: 'Start with Baton' }).first();
    await lens.waitFor({ state: 'visible', timeout: 60_000 });
    await lens.click();
    const note = await waitFor('the started notification', async () => (await wb.notifications()).find((n) => n.includes('started a spec workflow on notes/tasks.md')), 30_000);
    assert.match(note, /\(Phase 0 and 1 phase from the file\)/);
  });
  it("a tasks.md Baton cannot read: the error names file:line in one line, and Open File goes to that line", async () => {
    mkdirSync(join(server.workspace, 'bad'), { recursive: true });
    writeFileSync(join(server.workspace, 'bad', 'tasks.md'), '# Tasks\n\n### Phase 1: Schema\n- [ ] **Task 1.1**: Users table\n\n### Phase 2: API\n**Goal:** endpoints\n');
    await goToFile('bad/tasks.md', 'Phase 2: API');
    await wb.runCommand('Baton: Start Spec Workflow from tasks.md');
    // (Not wb.openFileFromError: its tab check looks for the path in the tab's title, which says "tasks.md".)
    const toast = page.locator('.notifications-toasts .notification-list-item').filter({ hasText: 'bad/tasks.md:6' }).first();
    await toast.waitFor({ state: 'visible', timeout: 20_000 });
    const text = await toast.innerText();
    await toast.locator('.monaco-button').filter({ hasText: 'Open File' }).first().click();
    await waitFor('the cursor on line 6', async () => (await wb.statusBarEntries()).some((e) => /Ln 6, Col 1/.test(e)));
    assert.match(text, /bad\/tasks\.md:6: Phase 2 "API" has no tasks\. Expected task lines under the phase heading/);
    assert.doesNotMatch(text, /for example/, 'the multi-line example goes to the log, not into the one-line notification');
  });
});
