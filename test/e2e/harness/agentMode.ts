// The editor's own agent mode in a test: the scripted language model of test/e2e/fixtures/scripted-model (a test-only
// extension, never packaged) installed next to Baton, and what it wrote down: one line per turn, every request the
// model got, and Baton's state when asked.
import { existsSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from './browser.js';
import { repoRoot, type EditorServer } from './editorServer.js';
import { waitFor } from './workbench.js';

export const scriptedModelFixture = join(repoRoot, 'test', 'e2e', 'fixtures', 'scripted-model');

/** User settings for the agent mode, signed out, with tool calls approved without the confirmation card. */
export const agentModeSettings: Record<string, unknown> = {
  // Without it a "Sign in to use GitHub Copilot" dialog blocks every request.
  'chat.allowAnonymousAccess': true,
  // The extension also sets the test-mode context that skips the one-time warning.
  'chat.tools.global.autoApprove': true,
  // The scripted agent calls as fast as the test lets it; Baton's per-task rate limit (0.5/s, burst 3) would send a
  // call back with rate_limited at a moment that depends on the machine's speed (the model retries, but the test
  // could no longer tell which call waited on the gate).
  'baton.rateLimits.enabled': false,
};

/** A line of the model's turns.jsonl. */
export interface Turn {
  at: string;
  turn: 'activated' | 'info-asked' | 'ask' | 'asked' | 'ask-failed' | 'call' | 'saw' | 'holding' | 'released' | 'final' | 'no-tool' | 'failed' | 'state-saved';
  [key: string]: any;
}

export interface ScriptedModel {
  /** The folder the model writes to (BATON_SCRIPTED_DIR). */
  dir: string;
  turns(): Turn[];
  /** The requests the model got, in order (the conversation the agent sent, the tools it offered). */
  requests(): Array<{ n: number; tools: string[]; messages: Array<{ role: number; content: Array<Record<string, any>> }> }>;
  /** Baton's state as `baton.test.state` reported it when the test ran "Baton Test: Save Baton State". */
  savedState(): Record<string, any> | null;
}

/** Installs the scripted model's extension into the server's extensions folder (before the page opens). */
export function installScriptedModel(server: EditorServer): void {
  symlinkSync(scriptedModelFixture, join(server.extensionsDir, 'baton-test.baton-scripted-model-0.0.1'), 'dir');
}

export function scriptedModel(dir: string): ScriptedModel {
  const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
  return {
    dir,
    turns: () =>
      read(join(dir, 'turns.jsonl'))
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Turn),
    requests: () => {
      const folder = join(dir, 'requests');
      return existsSync(folder) ? readdirSync(folder).sort().map((f) => JSON.parse(read(join(folder, f)))) : [];
    },
    savedState: () => {
      const text = read(join(dir, 'state.json'));
      return text ? (JSON.parse(text) as Record<string, any>) : null;
    },
  };
}

/**
 * The content frame of a webview whose document has `[data-testid=<testId>]` (like Workbench.webviewFrame, but a frame
 * that fails to answer — detached, or another webview still loading — is skipped instead of ending the round).
 */
export async function webviewFrameWith(page: Page, testId: string, timeoutMs = 45_000): Promise<Frame> {
  const errors: string[] = [];
  try {
    return await waitFor(`a webview showing [data-testid=${testId}]`, async () => {
      for (const frame of page.frames()) {
        const url = frame.url();
        if (!url.includes('fake.html') && !url.includes('index.html?id=')) continue;
        const count = await frame.locator(`[data-testid="${testId}"]`).count().catch((err: Error) => (errors.push(err.message.split('\n')[0]!), 0));
        if (count > 0) return frame;
      }
      return null;
    }, timeoutMs);
  } catch (err) {
    const frames = page.frames().map((f) => f.url().slice(0, 120));
    throw new Error(`${(err as Error).message}\nframes: ${frames.join(' | ')}\nframe errors: ${[...new Set(errors)].slice(0, 5).join(' | ')}`);
  }
}
