// Rule: the Baton tree's status icons can be told apart from the side bar in every default theme: in a real editor
// (code-server) in Light Modern, Dark Modern, Dark High Contrast, Light High Contrast and the 2026 themes, every colour
// the tree gives an icon (ICON_COLORS, as the theme resolves it; Baton's own colours from package.json) is at least 3:1
// against the side bar, and so is each icon the tree draws for a run with completed, failed, running and
// paused parts and for a workflow that has not run (WCAG 1.4.11, graphical objects). Each icon is read as drawn.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openBaton } from '../../src/host/openBaton.js';
import { ICON_COLORS } from '../../src/vscode/views/treeModel.js';
import type { Browser, Page } from './harness/browser.js';
import { demoWorkspace, startEditorServer, type EditorServer } from './harness/editorServer.js';
import { openWorkbench, waitFor, type Workbench } from './harness/workbench.js';

/** Theme label in the Color Theme picker, and the class the workbench then carries. */
const THEMES: [string, string][] = [
  ['Light Modern', 'vscode-theme-defaults-themes-light_modern-json'],
  ['Dark Modern', 'vscode-theme-defaults-themes-dark_modern-json'],
  ['Light High Contrast', 'vscode-theme-defaults-themes-hc_light-json'],
  ['Dark High Contrast', 'vscode-theme-defaults-themes-hc_black-json'],
  ['Light 2026', 'vscode-theme-defaults-themes-2026-light-json'],
  ['Dark 2026', 'vscode-theme-defaults-themes-2026-dark-json'],
];

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** A bug-fix run with a completed, a failed and a running step, a completed run and a paused one, in `ws`'s database. */
async function seedRuns(ws: string): Promise<void> {
  mkdirSync(join(ws, '.baton'), { recursive: true });
  const opened = await openBaton({ dbPath: join(ws, '.baton', 'baton.db'), workspace: ws, timeoutSweepMs: 0, log: quiet });
  try {
    const l = opened.baton.lifecycle;
    const run = await l.startExecution({ workflowName: 'bug-fix' });
    await l.transition(run.id, 'running');
    const analyzed = await l.startStep({ executionId: run.id, stepName: 'analyze-root-cause' });
    await l.completeStep(analyzed.id, { summary: 'The total ignores quantities.' });
    const fixed = await l.startStep({ executionId: run.id, stepName: 'implement-fix' });
    await l.completeStep(fixed.id, undefined, 'the tests failed');
    await l.startStep({ executionId: run.id, stepName: 'write-tests' });
    const done = await l.startExecution({ workflowName: 'bug-fix' });
    await l.transition(done.id, 'running');
    await l.completeExecution(done.id, { summary: 'Fixed.' });
    const paused = await l.startExecution({ workflowName: 'bug-fix' });
    await l.transition(paused.id, 'running');
    await l.transition(paused.id, 'paused');
  } finally {
    await opened.close();
  }
}

// Runs in the workbench: the side bar's background, each colour id as the theme resolves it there (unset: the side
// bar's text colour, which is what the tree then draws with), and each tree icon with its row.
const READ = (ids: string[]) => `(() => {
  const bar = document.querySelector('.part.sidebar');
  const probe = document.createElement('span'); bar.appendChild(probe);
  const colors = {};
  for (const id of ${JSON.stringify(ids)}) {
    probe.style.color = 'var(--vscode-' + id.replace(/\\./g, '-') + ')'; colors[id] = getComputedStyle(probe).color;
    probe.style.color = 'var(--vscode-' + id.replace(/\\./g, '-') + ', rgb(1, 2, 3))'; if (getComputedStyle(probe).color === 'rgb(1, 2, 3)') colors[id] += ' (unset)';
  }
  probe.remove();
  const opacity = (el) => { let o = 1; for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; };
  const icons = [...bar.querySelectorAll('.monaco-list-row .custom-view-tree-node-item-icon')].map((e) => ({ colored: !!e.style.color,
    row: e.closest('.monaco-list-row').getAttribute('aria-label'), icon: [...e.classList].find((c) => c.startsWith('codicon-') && c !== 'codicon-colored'),
    color: getComputedStyle(e).color, opacity: opacity(e) }));
  return { background: getComputedStyle(bar).backgroundColor, colors, icons };
})()`;

function rgba(c: string): [number, number, number, number] {
  const p = (/rgba?\(([^)]+)\)/.exec(c)?.[1] ?? '').split(/[ ,/]+/).filter(Boolean).map(Number);
  assert.equal(p.length >= 3, true, `a colour: ${c}`);
  return [p[0]!, p[1]!, p[2]!, p[3] ?? 1];
}

/** WCAG contrast of `fg` (its alpha and `opacity` composited over `bg`) against `bg`. */
function contrast(fg: string, bg: string, opacity = 1): number {
  const [b0, b1, b2] = rgba(bg);
  const [f0, f1, f2, fa] = rgba(fg);
  const a = fa * opacity;
  const mixed = [f0 * a + b0 * (1 - a), f1 * a + b1 * (1 - a), f2 * a + b2 * (1 - a)];
  const lum = (c: number[]) => {
    const [r = 0, g = 0, bl = 0] = c.map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(mixed), lum([b0, b1, b2])];
  return Math.round(((Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05)) * 100) / 100;
}

describe('the tree status icons against the side bar in the default themes', { timeout: 10 * 60_000 }, () => {
  let parent: string;
  let server: EditorServer;
  let browser: Browser;
  let page: Page;
  let wb: Workbench;

  before(async () => {
    parent = mkdtempSync(join(tmpdir(), 'baton-contrast-'));
    const ws = demoWorkspace(parent);
    await seedRuns(ws);
    server = await startEditorServer({ kind: 'code-server', workspace: ws });
    // Tall enough for every row opened below: the tree draws only the rows in view, and a run listed last can put its
    // pending steps (the icon checked below) past the bottom of a 900 px window.
    ({ browser, page, wb } = await openWorkbench(server, { width: 1400, height: 1600 }));
    await wb.openActivity('Baton');
    // Open the runs (and their steps) and a workflow that has not run, so their icons are drawn.
    for (const label of ['bug-fix', 'security-audit']) {
      await waitFor(`${label} in the tree`, async () => (await wb.treeRows()).some((r) => r.label.startsWith(label)));
      if ((await wb.treeRow(label).getAttribute('aria-expanded')) === 'false') await wb.treeRow(label).locator('.monaco-tl-twistie').click();
    }
    await waitFor('the runs of bug-fix in the tree', async () => (await wb.treeRows()).filter((r) => /^bug-fix · /.test(r.label)).length === 3);
    for (const label of ['bug-fix · completed', 'bug-fix · paused', 'bug-fix · running']) {
      const row = wb.treeRow(label);
      if ((await row.getAttribute('aria-expanded')) === 'false') await row.locator('.monaco-tl-twistie').click();
    }
    await waitFor('the failed step in the tree', async () => (await wb.treeRows()).some((r) => r.label.includes('implement-fix') && r.level === '3'));
  });
  after(async () => {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    if (parent) rmSync(parent, { recursive: true, force: true });
  });

  for (const [theme, themeClass] of THEMES) {
    it(`gives every status icon at least 3:1 in ${theme}`, async () => {
      await wb.runCommand('Preferences: Color Theme');
      await wb.answerQuickInput(theme);
      await waitFor(`the workbench in ${theme}`, () => page.locator(`.monaco-workbench.${themeClass}`).count());
      const seen = await waitFor('the tree redrawn in the theme', async () => {
        const read = await page.evaluate<{
          background: string; colors: Record<string, string>; icons: { colored: boolean; row: string; icon: string; color: string; opacity: number }[];
        }>(READ(Object.values(ICON_COLORS)));
        // The tree takes the new theme's colours when it redraws its rows, a moment after the workbench switched.
        const drawn = new Set(Object.values(read.colors).map((c) => c.replace(' (unset)', '')));
        return read.icons.length > 0 && read.icons.every((i) => !i.colored || drawn.has(i.color)) && read;
      });
      const low: string[] = [];
      for (const [id, color] of Object.entries(seen.colors)) {
        if (id.startsWith('baton.')) assert.ok(!color.endsWith('(unset)'), `${id} is contributed (package.json contributes.colors)`);
        const ratio = contrast(color.replace(' (unset)', ''), seen.background);
        if (ratio < 3) low.push(`${id} ${color}: ${ratio}:1`);
      }
      for (const i of seen.icons) {
        const ratio = contrast(i.color, seen.background, i.opacity);
        if (ratio < 3) low.push(`${i.icon} on "${i.row}" ${i.color}: ${ratio}:1`);
      }
      const icons = new Set(seen.icons.map((i) => i.icon));
      for (const icon of ['codicon-pass', 'codicon-error', 'codicon-sync', 'codicon-debug-pause', 'codicon-circle-small']) {
        assert.ok(icons.has(icon), `the tree draws ${icon} (drawn: ${[...icons].join(', ')})`);
      }
      assert.deepEqual(low, [], `under 3:1 against the side bar (${seen.background}) in ${theme}`);
      process.stderr.write(`${theme}: side bar ${seen.background}; ` +
        `${Object.entries(seen.colors).map(([id, c]) => `${id} ${contrast(c.replace(' (unset)', ''), seen.background)}:1`).join(', ')}\n`);
    });
  }
});
