// Runs a test suite inside the real extension host (like @vscode/test-electron's runTests, offline): the VS Code
// server with the smoke-test driver loads Baton as the development extension and calls the suite's `run()`; the
// exit code comes back through `codeAutomationExit` and each check's result through a JSON file.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser } from './browser.js';
import { repoRoot, startEditorServer } from './editorServer.js';

export interface InHostCheck {
  name: string;
  ok: boolean;
  detail?: unknown;
  error?: string;
}

export interface InHostRun {
  exitCode: number;
  checks: InHostCheck[];
  /** Wall time from opening the page to the suite's exit. */
  ms: number;
  serverLog: string;
  consoleLog: string[];
}

/** A do-nothing development extension: the smoke-test driver runs a suite only with one, and a packaged Baton is not. */
export const probeExtension = join(repoRoot, 'test', 'e2e', 'fixtures', 'inhost-probe');

export interface InHostOptions {
  /** A CommonJS file exporting `run()`. */
  suite: string;
  /** More development extensions besides Baton's checkout. */
  extraExtensions?: string[];
  timeoutMs?: number;
  /** Ask Baton for its test hooks (BATON_TEST_HOOKS=1). */
  testHooks?: boolean;
  /** Install this .vsix and run the suite against it: Baton's checkout is not loaded, the probe is the development extension. */
  vsix?: string;
}

/**
 * Runs `suite` in the extension host with Baton's checkout (and `extraExtensions`) as development extensions, or with
 * a packaged Baton installed from `vsix`. The suite receives BATON_INHOST_RESULTS (a file to write its checks to) in its env.
 */
export async function runInHost(opts: InHostOptions): Promise<InHostRun> {
  const resultsDir = mkdtempSync(join(tmpdir(), 'baton-inhost-'));
  const results = join(resultsDir, 'results.json');
  // The server's env reaches the extension host, so the suite learns where to write its checks.
  const server = await startEditorServer({
    kind: 'server-main', env: { BATON_INHOST_RESULTS: results }, testHooks: opts.testHooks ?? false, ...(opts.vsix ? { vsix: opts.vsix } : {}),
  });
  const consoleLog: string[] = [];
  const browser = await launchBrowser(server.host.chromium!);
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('console', (msg) => consoleLog.push(`${msg.type()}: ${msg.text()}`));
    let exited: (code: number) => void = () => undefined;
    const exit = new Promise<number>((resolve) => (exited = resolve));
    await page.exposeFunction('codeAutomationExit', (code: number) => exited(code));
    const remote = (p: string) => `vscode-remote://127.0.0.1:${server.port}${p}`;
    const payload = [
      ...[opts.vsix ? probeExtension : repoRoot, ...(opts.extraExtensions ?? [])].map((p) => ['extensionDevelopmentPath', remote(p)]),
      ['extensionTestsPath', remote(opts.suite)],
    ];
    const started = Date.now();
    await page.goto(`${server.url}/?folder=${encodeURIComponent(server.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
    const timeoutMs = opts.timeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    const exitCode = await Promise.race([exit, new Promise<number>((r) => (timer = setTimeout(() => r(-1), timeoutMs)))]);
    clearTimeout(timer);
    const ms = Date.now() - started;
    const checks = existsSync(results) ? (JSON.parse(readFileSync(results, 'utf8')) as InHostCheck[]) : [];
    return { exitCode, checks, ms, serverLog: server.log(), consoleLog };
  } finally {
    rmSync(resultsDir, { recursive: true, force: true });
    await browser.close().catch(() => undefined);
    await server.stop();
  }
}
