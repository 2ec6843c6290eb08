// Rule: `npm start` (scripts/start.mjs, run as a person runs it) opens its demo where the editor's git support finds no
// repository in a parent folder — outside the clone, as a git repository of its own, even when the user's data folder
// is inside a git repository — so the editor shows no git notification; it prints what the editor does until Baton is
// active; and the demo's database survives a restart.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connectAgent } from './harness/agent.js';
import { launchBrowser, type Browser, type Page } from './harness/browser.js';
import { repoRoot } from './harness/editorServer.js';
import { settlesAfter } from '../helpers/until.js';
import { waitFor, Workbench } from './harness/workbench.js';

const TASK = 'Fix cart total ignoring quantities';

interface NpmStart {
  url: string;
  workspace: string;
  stderr(): string;
  stop(): Promise<void>;
}

describe('npm start', { timeout: 10 * 60_000 }, () => {
  let scratch: string;
  let home: string;
  /** npm start's temporary folder (TMPDIR), to see what it leaves there. */
  let startTmp: string;
  let browser: Browser;
  let running: NpmStart | undefined;
  let firstPage: Page | undefined;
  const marks: Record<string, number> = {};

  // start.mjs as `npm start` runs it (no build: the suite built already), with its editor data in the scratch folder and
  // a HOME inside a git repository, like a home folder kept in git.
  const npmStart = async (): Promise<NpmStart> => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, TMPDIR: startTmp };
    for (const key of ['XDG_DATA_HOME', 'BATON_TEST_HOOKS', 'NODE_OPTIONS', 'PORT']) delete env[key];
    const child: ChildProcess = spawn(
      process.execPath,
      [join(repoRoot, 'scripts', 'start.mjs'), '--port', '0', '--no-build', '--run-dir', join(scratch, 'run')],
      { cwd: scratch, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const stop = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT'); // what Ctrl-C does: start.mjs stops code-server's process group, then exits
      const stopped = await Promise.race([exited.then(() => true), settlesAfter(15_000, false)]);
      if (!stopped) child.kill('SIGTERM');
      await exited;
    };
    try {
      const url = await waitFor('npm start to print its URL', () => (child.exitCode === null ? /Baton in VS Code:\s+(\S+)/.exec(out)?.[1] : assert.fail(`start.mjs exited ${child.exitCode}:\n${out}\n${err}`)), 120_000);
      const workspace = /Workspace:\s+(.+)/.exec(out)![1]!.trim();
      return { url, workspace, stderr: () => err, stop };
    } catch (ex) {
      await stop();
      throw ex;
    }
  };

  const openPage = async (url: string, tag: string): Promise<{ page: Page; wb: Workbench }> => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const wb = new Workbench(page);
    const t0 = Date.now();
    await page.goto(url);
    await wb.ready();
    marks[`${tag} workbench`] = Date.now() - t0;
    await wb.activityItem('Baton').waitFor({ state: 'visible', timeout: 60_000 });
    marks[`${tag} Baton icon`] = Date.now() - t0;
    await wb.openActivity('Baton');
    await waitFor('the bundled workflows in the tree', async () => (await wb.treeRows()).some((r) => r.label.startsWith('bug-fix')), 60_000);
    marks[`${tag} workflows in the tree`] = Date.now() - t0;
    return { page, wb };
  };

  /** The text of the editor's log files (under start.mjs's --run-dir) whose path ends with `suffix`. */
  const editorLog = (suffix: string) => {
    const logs = join(scratch, 'run', 'user-data', 'logs');
    if (!existsSync(logs)) return '';
    return readdirSync(logs, { recursive: true }).map(String).filter((f) => f.endsWith(suffix)).map((f) => readFileSync(join(logs, f), 'utf8')).join('\n');
  };

  before(async () => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'baton-start-')));
    const outer = join(scratch, 'outer');
    mkdirSync(outer);
    assert.equal(spawnSync('git', ['init', '-q'], { cwd: outer }).status, 0);
    home = join(outer, 'home');
    mkdirSync(home);
    startTmp = join(scratch, 'tmp');
    mkdirSync(startTmp);
    const { ensureEditorHost } = await import('../../scripts/editorHost.mjs');
    const host = await ensureEditorHost();
    browser = await launchBrowser(host.chromium);
    running = await npmStart();
  });
  after(async () => {
    process.stderr.write(`npm start timings (ms after opening the page): ${JSON.stringify(marks)}\n`);
    await browser?.close().catch(() => undefined);
    await running?.stop();
    rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  });

  it('puts the demo outside the clone, in the data folder, as a git repository of its own', () => {
    const { workspace } = running!;
    assert.equal(workspace, join(home, '.local', 'share', 'baton', 'demo'));
    assert.ok(!workspace.startsWith(repoRoot), workspace);
    const top = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: workspace, encoding: 'utf8' });
    assert.equal(top.stdout.trim(), workspace, 'the nearest repository is the demo itself, not the one around the home folder');
  });

  it('opens the demo in the editor with no git notification', async () => {
    const { page, wb } = await openPage(running!.url, 'first');
    firstPage = page;
    const scan = await waitFor('the git extension to finish its first scan', () => /Initial repository scan completed[^\n]*/.exec(editorLog('Git.log'))?.[0], 60_000);
    assert.match(scan, /repositories \(1\).*parent repositories \(0\)/, scan);
    await page.waitForTimeout(2000); // a notification follows the scan at once; give it time to show
    const toasts = await wb.notifications();
    assert.deepEqual(toasts.filter((t) => /git|repositor/i.test(t)), [], `notifications: ${JSON.stringify(toasts)}`);
  });

  it('prints what the editor does until Baton is active, and where its endpoint is', async () => {
    const ownsLine = `Baton: owns ${join(running!.workspace, '.baton', 'baton.db')}; MCP endpoint http://127.0.0.1:`;
    // npm start reads the editor's logs every 500 ms; its last line may still be on its way.
    await waitFor('npm start to say that Baton owns the database', () => running!.stderr().includes(ownsLine), 10_000).catch(() => undefined);
    const err = running!.stderr();
    const opened = err.indexOf('editor: a page opened');
    const active = err.search(/Baton: active [\d.]+ s after the page opened/);
    const owns = err.indexOf(ownsLine);
    assert.ok(opened >= 0 && active > opened && owns > opened, err);
  });

  it('keeps the demo database across a restart', async () => {
    assert.ok(firstPage, 'the editor is open (Baton runs in its extension host)');
    const agent = await connectAgent(running!.workspace);
    const started = await agent.nextStep({ template_name: 'bug-fix', task_description: TASK });
    await agent.close();
    assert.equal(started.status, 'ok', JSON.stringify(started));
    await firstPage.close();
    await running!.stop();
    assert.deepEqual(readdirSync(startTmp), [], 'a stopped npm start leaves nothing in the temporary folder (code-server\'s sockets were)');
    running = await npmStart();
    assert.equal(running.workspace, join(home, '.local', 'share', 'baton', 'demo'));
    const { wb } = await openPage(running.url, 'after the restart');
    const row = await waitFor('the execution from before the restart in the tree', async () =>
      (await wb.treeRows()).find((r) => r.label.startsWith('bug-fix · running') && r.level === '2'), 60_000);
    assert.match(row.label, /analyze-root-cause/);
    // npm start reads Baton's log every 500 ms, so its line may come a moment after the tree has filled.
    const owns = `Baton: owns ${join(running.workspace, '.baton', 'baton.db')}`;
    await waitFor('npm start to say that Baton owns the demo database again', () => running!.stderr().includes(owns), 10_000)
      .catch(() => assert.fail(`npm start never said "${owns}"; it printed:\n${running!.stderr()}`));
  });
});
