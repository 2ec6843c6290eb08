// Rule: `npm run package` makes a .vsix of at most 3 MB without development files, and that .vsix, installed into a
// real editor with `code-server --install-extension`, activates and owns the workspace's MCP endpoint.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, type Browser } from './harness/browser.js';
import { extensionManifest, repoRoot, serverLogFile, startEditorServer, type EditorServer } from './harness/editorServer.js';
import { waitFor, Workbench } from './harness/workbench.js';

describe('the packaged extension', { timeout: 10 * 60_000 }, () => {
  const manifest = extensionManifest();
  const vsix = join(repoRoot, `${manifest.name}-${manifest.version}.vsix`);
  let server: EditorServer;
  let browser: Browser;
  let packageOutput = '';

  before(async () => {
    const packaged = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'package.mjs')], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
    packageOutput = `${packaged.stdout}\n${packaged.stderr}`;
    assert.equal(packaged.status, 0, packageOutput);
    server = await startEditorServer({ kind: 'code-server', vsix });
    browser = await launchBrowser(server.host.chromium!);
  });
  after(async () => {
    await browser?.close().catch(() => undefined);
    await server?.stop();
  });

  it('is a checked .vsix of at most 3 MB', () => {
    assert.match(packageOutput, /checked/);
    assert.ok(statSync(vsix).size <= 3 * 1024 * 1024);
  });

  it('installs as a real folder holding the bundle and not the sources', () => {
    const installed = join(server.extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`);
    assert.ok(!lstatSync(installed).isSymbolicLink());
    for (const f of ['dist/extension.js', 'dist/cli.js', 'dist/engine.js', 'dist/mcp-catalog.json', 'dist/sql-wasm.wasm', 'content/workflows/bug-fix.yaml']) assert.ok(existsSync(join(installed, f)), f);
    for (const f of ['src', 'test', 'node_modules', 'editor-host', 'dist/extension.js.map']) assert.ok(!existsSync(join(installed, f)), f);
  });

  it('activates in the editor and owns the workspace endpoint', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const started = Date.now();
    await page.goto(`${server.url}/?folder=${encodeURIComponent(server.workspace)}`);
    await new Workbench(page).ready();
    await waitFor('Baton to activate (extension host log)', () => /_doActivateExtension baton-dev\.baton\b/.test(serverLogFile(server, 'remoteexthost.log')), 60_000);
    const ownerLine = await waitFor('Baton to own the endpoint (Baton log)', () => serverLogFile(server, 'Baton.log').match(/MCP endpoint (http:\S+)/), 30_000);
    process.stderr.write(`packaged Baton active and owning ${ownerLine[1]} ${Date.now() - started} ms after opening the page\n`);
    assert.doesNotMatch(serverLogFile(server, 'remoteexthost.log'), /Activating extension 'baton-dev\.baton' failed/);
    assert.ok(existsSync(join(server.workspace, '.baton', 'server.json')), 'discovery file');
  });
});
