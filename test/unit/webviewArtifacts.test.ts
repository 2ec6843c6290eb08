// Rule: the panel page lists the artifacts it was sent (newest first), heads the list with the run's count, and when
// the run has more than were sent ends the list with a button that says how many are not listed and asks for more
// (`panel/moreArtifacts`); a list that holds them all has no such button. A click on an artifact opens it though an
// update arrives between its press and its release (the update is shown once the press ends, or after a second).
// Needs Chromium (`apt-get install -y chromium`; .ci/run installs it) and playwright-core (a dev dependency).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ArtifactRecord, WorkflowStatusResource } from '../../src/core/api.js';
import type { PanelState } from '../../src/shared/protocol.js';
import { buildPanelState } from '../../src/vscode/panels/panelState.js';
import { launchChromium, servePanelPage } from '../helpers/panelPage.js';

interface Loc {
  click(): Promise<void>;
  boundingBox(): Promise<{ x: number; y: number; width: number; height: number } | null>;
  count(): Promise<number>;
  textContent(): Promise<string | null>;
  waitFor(opts?: { state?: string; timeout?: number }): Promise<void>;
}
interface Page {
  goto(url: string): Promise<unknown>;
  locator(selector: string): Loc;
  exposeFunction(name: string, fn: (arg: unknown) => void): Promise<void>;
  evaluate<A>(fn: (arg: A) => unknown, arg: A): Promise<unknown>;
  mouse: { move(x: number, y: number): Promise<void>; down(): Promise<void>; up(): Promise<void> };
}
interface Browser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

const STUB = `
window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m), getState: () => undefined, setState: () => undefined });
`;

/** A run whose newest `sent` artifacts (of `total`) are in the state. */
function state(sent: number, total: number): PanelState {
  const status: WorkflowStatusResource = {
    execution_id: 'e1', task_id: 't1', workflow: 'bug-fix', status: 'running', current_step: null, progress: 0,
    started_at: '2026-01-01T00:00:00Z', completed_at: null, steps: [],
  };
  const records = Array.from({ length: sent }, (_, i): ArtifactRecord => ({
    id: i, artifact_id: `a${total - i}`, execution_id: 'e1', step_name: null, agent_name: 'a', type: 'markdown', title: `Artifact ${total - i}`,
    content: '', description: null, is_final: false, created_at: new Date(Date.UTC(2026, 0, 1) + (total - i) * 1000).toISOString(),
    content_size_bytes: 4, metadata: {},
  } as unknown as ArtifactRecord));
  return { ...buildPanelState(status, null, [], records, ''), artifactsTotal: total };
}

/** The panel page in Chromium, what it posts to the editor, and a way to send it a message; closed after `fn`. */
async function withPanelPage(fn: (p: { page: Page; posted: Array<Record<string, unknown>>; send: (m: unknown) => Promise<unknown> }) => Promise<void>) {
  const browser = await launchChromium<Browser>();
  const served = await servePanelPage(STUB);
  try {
    const page = await browser.newPage();
    const posted: Array<Record<string, unknown>> = [];
    await page.exposeFunction('__toHost', (m) => posted.push(m as Record<string, unknown>));
    const send = (m: unknown) => page.evaluate((msg) => (globalThis as unknown as { postMessage(m: unknown, t: string): void }).postMessage(msg, '*'), m);
    await page.goto(served.url);
    await fn({ page, posted, send });
  } finally {
    await browser.close();
    served.close();
  }
}

test('a capped artifact list says how many are not listed and asks for more', { timeout: 60_000 }, async () => {
  await withPanelPage(async ({ page, posted, send }) => {
    const $ = (id: string) => page.locator(`[data-testid="${id}"]`);
    const deadline = Date.now() + 10_000;
    while (!posted.some((m) => m.type === 'panel/ready') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    await send({ type: 'panel/init', executionId: 'e1', state: state(100, 5000) });
    await $('artifacts').waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('.artifact-list li').count(), 100);
    assert.equal(await page.locator('#artifacts-heading').textContent(), 'Artifacts (5000)');
    const order = await page.evaluate(() => [...(globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<{ getAttribute(n: string): string | null }> } })
      .document.querySelectorAll('.artifact-list li button')].slice(0, 2).map((b) => b.getAttribute('data-testid')), null);
    assert.deepEqual(order, ['artifact-a5000', 'artifact-a4999'], 'newest first');
    assert.equal(await $('artifacts-more').textContent(), 'Show more (4900 older not listed)');
    await $('artifacts-more').click();
    assert.deepEqual(posted.filter((m) => m.type === 'panel/moreArtifacts'), [{ type: 'panel/moreArtifacts' }]);

    await send({ type: 'panel/update', state: state(3, 3) });
    await page.locator('#artifacts-heading:text("Artifacts (3)")').waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('.artifact-list li').count(), 3);
    assert.equal(await $('artifacts-more').count(), 0, 'no button when all are listed');
  });
});

test('a click on an artifact opens it though an update arrives between its press and its release', { timeout: 60_000 }, async () => {
  await withPanelPage(async ({ page, posted, send }) => {
    const heading = () => page.locator('#artifacts-heading').textContent();
    await send({ type: 'panel/init', executionId: 'e1', state: state(3, 3) });
    const button = page.locator('[data-testid="artifact-a3"]');
    await button.waitFor({ timeout: 10_000 });
    const box = (await button.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);

    await page.mouse.down();
    await send({ type: 'panel/update', state: state(3, 7) });
    await new Promise((r) => setTimeout(r, 200)); // the update has arrived; a render now would replace the button
    assert.equal(await heading(), 'Artifacts (3)', 'held while the press lasts');
    await page.mouse.up();
    const deadline = Date.now() + 5_000;
    while (!posted.some((m) => m.type === 'panel/openArtifact') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(posted.filter((m) => m.type === 'panel/openArtifact'), [{ type: 'panel/openArtifact', artifactId: 'a3' }]);
    await page.locator('#artifacts-heading:text("Artifacts (7)")').waitFor({ timeout: 5_000 });

    // A press that does not end in the panel holds an update back for a second at most.
    await page.mouse.down();
    await send({ type: 'panel/update', state: state(3, 9) });
    await page.locator('#artifacts-heading:text("Artifacts (9)")').waitFor({ timeout: 5_000 });
    await page.mouse.up();
  });
});
