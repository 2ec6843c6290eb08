// Headless Chromium through playwright-core (installed in editor-host/, so it is loaded from there at run time and
// typed here by the small part the tests use).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from './editorServer.js';

export interface Locator {
  first(): Locator;
  last(): Locator;
  nth(i: number): Locator;
  locator(selector: string): Locator;
  filter(opts: { hasText?: string | RegExp }): Locator;
  count(): Promise<number>;
  click(opts?: { timeout?: number; force?: boolean; button?: 'left' | 'right' | 'middle'; position?: { x: number; y: number } }): Promise<void>;
  hover(opts?: { timeout?: number }): Promise<void>;
  dblclick(opts?: { timeout?: number }): Promise<void>;
  fill(text: string, opts?: { timeout?: number }): Promise<void>;
  focus(): Promise<void>;
  press(key: string): Promise<void>;
  textContent(opts?: { timeout?: number }): Promise<string | null>;
  innerText(opts?: { timeout?: number }): Promise<string>;
  getAttribute(name: string, opts?: { timeout?: number }): Promise<string | null>;
  isVisible(): Promise<boolean>;
  waitFor(opts?: { state?: 'attached' | 'detached' | 'visible' | 'hidden'; timeout?: number }): Promise<void>;
  evaluateAll<R>(fn: (els: Element[]) => R): Promise<R>;
  screenshot(opts: { path: string }): Promise<Buffer>;
  boundingBox(): Promise<{ x: number; y: number; width: number; height: number } | null>;
}
/** The `Element` the page's functions receive (no DOM lib in this tsconfig). */
export interface Element {
  getAttribute(name: string): string | null;
  textContent: string | null;
}
export interface Frame {
  url(): string;
  locator(selector: string): Locator;
  childFrames(): Frame[];
  parentFrame(): Frame | null;
  waitForSelector(selector: string, opts?: { timeout?: number; state?: string }): Promise<unknown>;
}
export interface Page extends Frame {
  goto(url: string, opts?: { timeout?: number; waitUntil?: string }): Promise<unknown>;
  frames(): Frame[];
  mainFrame(): Frame;
  keyboard: { press(key: string): Promise<void>; type(text: string, opts?: { delay?: number }): Promise<void> };
  screenshot(opts: { path: string; fullPage?: boolean; clip?: { x: number; y: number; width: number; height: number } }): Promise<Buffer>;
  exposeFunction(name: string, fn: (...args: never[]) => unknown): Promise<void>;
  on(event: 'console', fn: (msg: { type(): string; text(): string }) => void): void;
  on(event: 'pageerror', fn: (err: Error) => void): void;
  setViewportSize(size: { width: number; height: number }): Promise<void>;
  waitForTimeout(ms: number): Promise<void>;
  evaluate<R>(fn: () => R | Promise<R>): Promise<R>;
  /** Evaluates a script's text in the page (for code that uses the DOM, which the tests' node types do not have). */
  evaluate<R>(expression: string): Promise<R>;
  close(): Promise<void>;
}
export interface BrowserContext {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
export interface Browser {
  newPage(opts?: { viewport?: { width: number; height: number } }): Promise<Page>;
  newContext(opts?: { viewport?: { width: number; height: number }; permissions?: string[] }): Promise<BrowserContext>;
  close(): Promise<void>;
}

interface PlaywrightCore {
  chromium: { launch(opts: { executablePath: string; headless: boolean; args: string[]; timeout?: number }): Promise<Browser> };
}

const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

/** Headless Chromium with a fresh temporary profile (playwright creates and removes it). */
export async function launchBrowser(executablePath: string): Promise<Browser> {
  const require = createRequire(join(repoRoot, 'editor-host', 'package.json'));
  const playwright = require('playwright-core') as PlaywrightCore;
  return playwright.chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
}
