// Drives the VS Code workbench in the browser the way a person does: the command palette, the activity bar, the
// side-bar tree, the webview panel, the status bar, screenshots.
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser, type Browser, type Frame, type Locator, type Page } from './browser.js';
import { repoRoot, type EditorServer } from './editorServer.js';

/** Where screenshots go: media/screenshots with BATON_SCREENSHOTS=1 (`npm run screenshots`), else a temp folder. */
export const screenshotsDir = process.env.BATON_SCREENSHOTS === '1' ? join(repoRoot, 'media', 'screenshots') : join(tmpdir(), 'baton-e2e-screenshots');

/** Polls `fn` until it returns a truthy value (returned) or the timeout passes (throws with `what`). */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export class Workbench {
  constructor(readonly page: Page) {}

  /** Waits until the workbench shows its activity bar and status bar. */
  async ready(timeoutMs = 60_000): Promise<void> {
    await this.page.waitForSelector('.monaco-workbench .part.activitybar', { timeout: timeoutMs });
    await this.page.waitForSelector('.monaco-workbench .part.statusbar', { timeout: timeoutMs });
  }

  /** Runs a command by its title from the command palette (F1, type, Enter). */
  async runCommand(title: string): Promise<void> {
    await this.closeQuickInput();
    await this.page.locator('.monaco-workbench').first().click({ timeout: 5000 }).catch(() => undefined);
    await this.page.keyboard.press('F1');
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(`>${title}`);
    const row = this.page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: title }).first();
    await row.waitFor({ state: 'visible', timeout: 15_000 });
    // The list can re-render under the click (a late "similar commands" section), which then runs nothing and leaves
    // the palette open: click again until the palette closes on it.
    // Still the palette with this command (not closed, nor a quick input the command itself opened): the click was lost.
    const stillHere = async () => {
      const values = await this.page.locator('.quick-input-widget .quick-input-box input')
        .evaluateAll((els) => els.map((e) => (e as unknown as { value: string; offsetParent: unknown }).offsetParent ? (e as unknown as { value: string }).value : ''))
        .catch(() => [] as string[]);
      return values.includes(`>${title}`);
    };
    for (let attempt = 0; ; attempt++) {
      await row.click();
      const lost = await waitFor('the palette to take the click', async () => !(await stillHere()), 2000).then(() => false, () => true);
      if (!lost || attempt >= 3) return;
    }
  }

  /** The visible quick pick's rows (aria-labels). */
  async quickPickRows(): Promise<string[]> {
    return this.page
      .locator('.quick-input-widget .monaco-list-row')
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.textContent ?? ''));
  }

  /** Waits for the quick input to show, optionally a row containing `text`. */
  async waitForQuickInput(text?: string): Promise<void> {
    await this.page.locator('.quick-input-widget .quick-input-box input').waitFor({ state: 'visible', timeout: 15_000 });
    if (text) await this.page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: text }).first().waitFor({ state: 'visible', timeout: 15_000 });
  }

  /** Types into the quick input and presses Enter. */
  async answerQuickInput(text: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill(text);
    await input.press('Enter');
  }

  async closeQuickInput(): Promise<void> {
    const widget = this.page.locator('.quick-input-widget');
    if (await widget.first().isVisible().catch(() => false)) await this.page.keyboard.press('Escape');
  }

  /** The activity-bar item with this label (e.g. "Baton"). */
  activityItem(label: string): Locator {
    return this.page.locator(`.part.activitybar .action-item .action-label[aria-label^="${label}"]`).first();
  }

  /** Clicks the activity-bar item unless its container is already open. */
  async openActivity(label: string): Promise<void> {
    const item = this.activityItem(label);
    await item.waitFor({ state: 'visible', timeout: 30_000 });
    const checked = await this.page.locator('.part.activitybar .action-item.checked .action-label').first().getAttribute('aria-label', { timeout: 2000 }).catch(() => null);
    if (!checked || !checked.startsWith(label)) await item.click();
    await this.page.locator(`.part.sidebar .composite.title h2`).filter({ hasText: label.toUpperCase() }).first().waitFor({ state: 'visible', timeout: 10_000 }).catch(async () => {
      await this.page.locator('.part.sidebar').first().waitFor({ state: 'visible', timeout: 10_000 });
    });
  }

  /** The side bar's tree rows: aria-label, and expanded state. */
  async treeRows(): Promise<{ label: string; expanded: string | null; level: string | null }[]> {
    return this.page.locator('.part.sidebar .monaco-list-row').evaluateAll((els) =>
      els.map((e) => ({ label: e.getAttribute('aria-label') ?? '', expanded: e.getAttribute('aria-expanded'), level: e.getAttribute('aria-level') })),
    );
  }

  /** A side-bar tree row whose aria-label contains `text`. */
  treeRow(text: string): Locator {
    return this.page.locator(`.part.sidebar .monaco-list-row[aria-label*="${text}"]`).first();
  }

  /** The status bar's entries (aria-labels and text). */
  async statusBarEntries(): Promise<string[]> {
    return this.page.locator('.part.statusbar .statusbar-item').evaluateAll((els) =>
      els.map((e) => `${e.getAttribute('aria-label') ?? ''} ${e.textContent ?? ''}`.trim()),
    );
  }

  /** Titles of the open editor tabs. */
  async tabTitles(): Promise<string[]> {
    return this.page.locator('.part.editor .tabs-container .tab').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.textContent ?? ''));
  }

  /** Notification toasts' text. */
  async notifications(): Promise<string[]> {
    return this.page.locator('.notifications-toasts .notification-list-item').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.textContent ?? ''));
  }

  /**
   * Waits for the error notification naming `file:line`, clicks its Open File button, and waits for the file open with
   * the cursor on that line; returns the notification's text.
   */
  async openFileFromError(file: string, line: number): Promise<string> {
    const toast = this.page.locator('.notifications-toasts .notification-list-item').filter({ hasText: `${file}:${line}` }).first();
    await toast.waitFor({ state: 'visible', timeout: 20_000 });
    const text = await toast.innerText();
    await toast.locator('a.monaco-button, .monaco-button').filter({ hasText: 'Open File' }).first().click();
    await waitFor(`${file} open in the editor`, async () => (await this.tabTitles()).some((t) => t.includes(file)));
    await waitFor(`the cursor on line ${line}`, async () => (await this.statusBarEntries()).some((e) => new RegExp(`Ln ${line}, Col 1`).test(e)));
    return text;
  }

  /** The content frame of the (first visible) webview whose inner document has `[data-testid=<testId>]`. */
  async webviewFrame(testId: string, timeoutMs = 30_000): Promise<Frame> {
    return waitFor(`a webview showing [data-testid=${testId}]`, async () => {
      for (const frame of this.page.frames()) {
        if (!frame.url().includes('fake.html') && !frame.url().includes('index.html?id=')) continue;
        const hit = frame.locator(`[data-testid="${testId}"]`);
        if ((await hit.count()) > 0) return frame;
      }
      return null;
    }, timeoutMs);
  }

  /** Saves a screenshot of the page (or of `locator`, at most `maxHeight` px of it) as <screenshotsDir>/<name>.png. */
  async screenshot(name: string, locator?: Locator, maxHeight?: number): Promise<string> {
    mkdirSync(screenshotsDir, { recursive: true });
    const path = join(screenshotsDir, `${name}.png`);
    const box = locator ? await locator.boundingBox() : null;
    if (box) await this.page.screenshot({ path, clip: { ...box, height: Math.min(box.height, maxHeight ?? box.height) } });
    else await this.page.screenshot({ path });
    return path;
  }

  /** Dismisses every notification toast (for a clean screenshot). */
  async clearNotifications(): Promise<void> {
    await this.runCommand('Notifications: Clear All Notifications');
    await waitFor('the toasts to go', async () => (await this.notifications()).length === 0, 5000).catch(() => undefined);
    await this.page.locator('.quick-input-widget').first().waitFor({ state: 'hidden', timeout: 5000 }).catch(() => undefined);
    await this.page.waitForTimeout(400); // the palette fades out
  }
}

/** A browser on `server`'s workspace with the workbench ready: where each editor test file starts. */
export async function openWorkbench(server: EditorServer, viewport = { width: 1400, height: 900 }): Promise<{ browser: Browser; page: Page; wb: Workbench }> {
  const browser = await launchBrowser(server.host.chromium!);
  try {
    const page = await browser.newPage({ viewport });
    const wb = new Workbench(page);
    await page.goto(`${server.url}/?folder=${encodeURIComponent(server.workspace)}`);
    await wb.ready();
    return { browser, page, wb };
  } catch (ex) {
    await browser.close().catch(() => undefined);
    throw ex;
  }
}
