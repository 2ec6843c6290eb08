// Rule: `npm run package` makes a checked .vsix of at most 3 MB without development files, and prints one file count,
// the package's; that .vsix, installed into a real editor with `code-server --install-extension`, activates and owns
// the workspace's MCP endpoint, registers no test hook when no harness asks for one, and its extension page shows the
// icon and the README's screenshots.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, type Browser, type Page } from './harness/browser.js';
import { extensionManifest, repoRoot, serverLogFile, startEditorServer, type EditorServer } from './harness/editorServer.js';
import { runInHost } from './harness/inHost.js';
import { waitFor, Workbench } from './harness/workbench.js';
import { listZip } from '../../scripts/vsixChecks.mjs';

describe('the packaged extension', { timeout: 10 * 60_000 }, () => {
  const manifest = extensionManifest();
  const vsix = join(repoRoot, `${manifest.name}-${manifest.version}.vsix`);
  let server: EditorServer;
  let browser: Browser;
  let packageOutput = '';
  let page: Page;

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

  it('is a checked .vsix of at most 3 MB, and the one file count printed is the package\'s', () => {
    assert.match(packageOutput, /checked/);
    assert.ok(statSync(vsix).size <= 3 * 1024 * 1024);
    const counts = [...packageOutput.matchAll(/(\d+) files/g)].map((m) => Number(m[1]));
    assert.deepEqual(counts, [listZip(readFileSync(vsix)).length], packageOutput);
  });

  it('installs as a real folder holding the bundle and not the sources', () => {
    const installed = join(server.extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`);
    assert.ok(!lstatSync(installed).isSymbolicLink());
    for (const f of ['dist/extension.js', 'dist/cli.js', 'dist/engine.js', 'dist/mcp-catalog.json', 'dist/sql-wasm.wasm', 'content/workflows/bug-fix.yaml']) assert.ok(existsSync(join(installed, f)), f);
    for (const f of ['src', 'test', 'node_modules', 'editor-host', 'dist/extension.js.map']) assert.ok(!existsSync(join(installed, f)), f);
  });

  it('activates in the editor and owns the workspace endpoint', async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const started = Date.now();
    await page.goto(`${server.url}/?folder=${encodeURIComponent(server.workspace)}`);
    await new Workbench(page).ready();
    await waitFor('Baton to activate (extension host log)', () => /_doActivateExtension baton-dev\.baton\b/.test(serverLogFile(server, 'remoteexthost.log')), 60_000);
    const ownerLine = await waitFor('Baton to own the endpoint (Baton log)', () => serverLogFile(server, 'Baton.log').match(/MCP endpoint (http:\S+)/), 30_000);
    process.stderr.write(`packaged Baton active and owning ${ownerLine[1]} ${Date.now() - started} ms after opening the page\n`);
    assert.doesNotMatch(serverLogFile(server, 'remoteexthost.log'), /Activating extension 'baton-dev\.baton' failed/);
    assert.ok(existsSync(join(server.workspace, '.baton', 'server.json')), 'discovery file');
  });

  // The editor's extension page (like the Marketplace's) shows README images only from https addresses: it drops relative
  // and data: sources. With no public repository (vsce would rewrite the links to it), the screenshots show as their
  // alt text there; the README says so.
  it("shows Baton's icon and its README on its extension page, the screenshots as their alt text", async () => {
    const wb = new Workbench(page);
    await wb.runCommand('Extensions: Show Installed Extensions');
    const row = page.locator('.part.sidebar .extensions-list .monaco-list-row').filter({ hasText: 'Baton' }).first();
    await row.waitFor({ state: 'visible', timeout: 30_000 });
    await row.click();
    const icon = page.locator('.extension-editor .header .icon-container img.icon').first();
    await icon.waitFor({ state: 'visible', timeout: 30_000 });
    const iconSize = await waitFor('the icon to load', () => icon.evaluateAll((els) => (els as unknown as Array<{ naturalWidth: number }>)[0]?.naturalWidth || 0));
    assert.equal(iconSize, 128);
    type Img = { src: string; alt: string; width: number };
    let seen: unknown[] = [];
    const readme = await waitFor('the README in the extension page', async () => {
      seen = [];
      for (const frame of page.frames()) {
        const images = await frame
          .locator('img')
          .evaluateAll((els) => (els as unknown as Array<{ src: string; alt: string; complete: boolean; naturalWidth: number }>).map((e) => ({ src: e.src, alt: e.alt, width: e.complete ? e.naturalWidth : 0 })))
          .catch((): Img[] => []);
        const text = await frame.locator('body').innerText({ timeout: 1000 }).catch(() => '');
        seen.push({ frame: frame.url().slice(0, 100), images, text: text.slice(0, 80) });
        if (text.includes('In the editor') && images.length >= 3) return { text, images };
      }
      return null;
    }, 45_000).catch((err: Error) => assert.fail(`${err.message}\nframes seen: ${JSON.stringify(seen, null, 1)}`));
    assert.ok(!manifest.repository, 'with a public repository the screenshots must load: change this test');
    assert.deepEqual(
      readme.images.map((i) => i.alt).sort(),
      readFileSync(join(repoRoot, 'README.md'), 'utf8').match(/!\[[^\]]*\]\(media\/screenshots\/[^)]+\)/g)!.map((m) => /!\[([^\]]*)\]/.exec(m)![1]).sort(),
    );
    assert.ok(readme.images.every((i) => i.src === '' && i.width === 0), `a screenshot loaded after all: ${JSON.stringify(readme.images)}`);
  });

  it('registers no test hook in the editor when no harness asks for one (in-host, BATON_TEST_HOOKS unset)', async () => {
    const run = await runInHost({ suite: join(__dirname, 'inhost', 'packaged.js'), vsix });
    const detail = (name: string) => {
      const found = run.checks.find((c) => c.name === name);
      assert.ok(found, `check "${name}" did not run (exit ${run.exitCode}); console tail:\n${run.consoleLog.slice(-30).join('\n')}`);
      assert.ok(found.ok, `${name}: ${found.error}`);
      return found.detail as Record<string, any>;
    };
    const installed = detail('the packaged Baton is installed and activates');
    assert.match(installed.extensionPath, /baton-dev\.baton-\d+\.\d+\.\d+$/);
    assert.ok(!installed.extensionPath.startsWith(repoRoot), `ran the checkout, not the package: ${installed.extensionPath}`);
    assert.equal(installed.testHooksEnv, null);
    const commands = detail('its commands are registered and no test hook is');
    assert.deepEqual(commands.hooks, []);
    const executed = detail('executing baton.test.state fails: the command does not exist');
    assert.equal(executed.answered, false, `baton.test.state answered with ${JSON.stringify(executed.keys)}`);
    assert.match(executed.error, /command 'baton\.test\.state' not found/);
    const manifest = detail('the installed manifest has no test command and no onCommand: events');
    assert.deepEqual(manifest.onCommand, []);
    assert.equal(manifest.mentionsTestCommand, false);
    assert.equal(manifest.icon, 'media/icon.png');
    assert.equal(run.exitCode, 0);
  });
});
