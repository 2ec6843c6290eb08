// The execution panel's page as the editor serves it, for the tests that run the webview in Chromium: the script
// bundled for the browser into a temp folder, the page's HTML and CSP with a stub of the editor's webview API before
// the script, and the codicons. `close()` stops the server and removes the folder.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { panelHtml } from '../../src/vscode/panels/panelHtml.js';

const root = join(__dirname, '..', '..');

/** Debian's Chromium (or BATON_CHROMIUM), which `.ci/run` installs for the tests that run a page. */
export const chromiumPath = [process.env.BATON_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((c) => c && existsSync(c));

/** Headless Chromium through playwright-core (a dev dependency), typed as the test's own `Browser` interface. */
export async function launchChromium<B>(): Promise<B> {
  assert.ok(chromiumPath, 'Chromium is needed: apt-get install -y chromium (or set BATON_CHROMIUM)');
  const playwright = createRequire(join(root, 'package.json'))('playwright-core') as { chromium: { launch(o: object): Promise<B> } };
  return playwright.chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
}

/** A served panel page: its URL, and how to stop serving it. */
export interface PanelPage {
  url: string;
  close(): void;
}

/** Bundles the panel's script and serves its page on 127.0.0.1, with `stub` (the webview API) run first. */
export async function servePanelPage(stub: string, title = 'Baton: bug-fix'): Promise<PanelPage> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-webview-'));
  await build({
    bundle: true, platform: 'browser', target: 'es2022', format: 'iife', logLevel: 'warning', absWorkingDir: root,
    entryPoints: ['webview/main.ts'], outfile: join(dir, 'main.js'), loader: { '.css': 'text' },
  });
  const server = createServer((req, res) => {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const files: Record<string, [string, () => string]> = {
      '/': ['text/html', () => panelHtml({ cspSource: origin, nonce: 'N0nce', scriptUri: `${origin}/main.js`, codiconsUri: `${origin}/codicon.css`, title })
        .replace('<script nonce', '<script nonce="N0nce" src="/stub.js"></script>\n<script nonce')],
      '/stub.js': ['text/javascript', () => stub],
      '/main.js': ['text/javascript', () => readFileSync(join(dir, 'main.js'), 'utf8')],
      '/codicon.css': ['text/css', () => readFileSync(join(root, 'node_modules', '@vscode', 'codicons', 'dist', 'codicon.css'), 'utf8')],
    };
    const file = files[(req.url ?? '/').split('?')[0]!];
    res.statusCode = file ? 200 : 404;
    if (file) res.setHeader('content-type', file[0]);
    res.end(file ? file[1]() : '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
