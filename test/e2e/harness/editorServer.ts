// Starts a real editor server for a test: code-server (the product a person opens) or the VS Code server inside it
// with the smoke-test driver (for tests that run inside the extension host). Each gets scratch user data,
// extensions, HOME, XDG and TMP folders, runs in its own process group, and is stopped with the whole group.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureEditorHost, type EditorHostPaths } from '../../../scripts/editorHost.mjs';
import { settlesAfter } from '../../helpers/until.js';

export const repoRoot = join(__dirname, '..', '..', '..');
export const extensionId = 'baton-dev.baton';

/** The repo's package.json (name, publisher, version, contributes). */
export function extensionManifest(): { name: string; publisher: string; version: string; repository?: unknown; contributes?: Record<string, unknown> } {
  return JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
}

export interface EditorServerOptions {
  /** `code-server` (the product) or `server-main` (VS Code server with the smoke-test driver, for in-host tests). */
  kind: 'code-server' | 'server-main';
  /** Folder opened as the workspace (default: a fresh copy of the demo workspace fixture). */
  workspace?: string;
  /** Link this folder into the extensions dir as the installed extension (default: the repo, for code-server). */
  linkExtension?: string | false;
  /** Install this .vsix with `code-server --install-extension` instead. */
  vsix?: string;
  /** User settings written before start. */
  settings?: Record<string, unknown>;
  /** Extra environment for the server (and so for the extension host). */
  env?: Record<string, string>;
  /** Ask Baton for its test hooks (`baton.test.state`) with BATON_TEST_HOOKS=1; without it the product has none. */
  testHooks?: boolean;
}

export interface EditorServer {
  kind: EditorServerOptions['kind'];
  url: string;
  port: number;
  workspace: string;
  scratch: string;
  extensionsDir: string;
  host: EditorHostPaths;
  /** Startup time: spawn to the server answering HTTP. */
  readyMs: number;
  /** The server's stdout and stderr so far. */
  log(): string;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** A fresh copy of test/e2e/fixtures/demo-workspace in `parent`. */
export function demoWorkspace(parent: string): string {
  const ws = join(parent, 'demo-workspace');
  cpSync(join(repoRoot, 'test', 'e2e', 'fixtures', 'demo-workspace'), ws, { recursive: true });
  return ws;
}

export async function startEditorServer(opts: EditorServerOptions): Promise<EditorServer> {
  const host = await ensureEditorHost({ log: (line) => process.stderr.write(`${line}\n`) });
  const scratch = mkdtempSync(join(tmpdir(), 'baton-e2e-'));
  const dirs = Object.fromEntries(
    ['user-data', 'extensions', 'home', 'xdg-config', 'xdg-data', 'xdg-cache', 'tmp'].map((d) => {
      mkdirSync(join(scratch, d), { recursive: true });
      return [d, join(scratch, d)];
    }),
  ) as Record<string, string>;
  const workspace = opts.workspace ?? demoWorkspace(scratch);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dirs.home,
    XDG_CONFIG_HOME: dirs['xdg-config'],
    XDG_DATA_HOME: dirs['xdg-data'],
    XDG_CACHE_HOME: dirs['xdg-cache'],
    TMPDIR: dirs.tmp,
    VSCODE_CLI: undefined,
    ELECTRON_RUN_AS_NODE: undefined,
    ...opts.env,
  };
  delete env.NODE_OPTIONS; // tsx's loader must not leak into the editor's Node
  delete env.BATON_TEST_HOOKS; // only a test that asks gets them, whatever the outer environment says
  if (opts.testHooks) env.BATON_TEST_HOOKS = '1';
  const userDir = opts.kind === 'code-server' ? join(dirs['user-data']!, 'User') : join(dirs['user-data']!, 'server', 'data', 'User');
  mkdirSync(userDir, { recursive: true });
  writeFileSync(join(userDir, 'settings.json'), JSON.stringify(baseSettings(opts.settings), null, 2));

  const manifest = extensionManifest();
  const link = opts.linkExtension ?? (opts.vsix ? false : opts.kind === 'code-server' ? repoRoot : false);
  if (link) symlinkSync(link, join(dirs.extensions!, `${manifest.publisher}.${manifest.name}-${manifest.version}`), 'dir');
  if (opts.vsix) {
    const install = spawnSync(
      host.node,
      [host.codeServer, '--user-data-dir', dirs['user-data']!, '--extensions-dir', dirs.extensions!, '--install-extension', opts.vsix],
      { env, encoding: 'utf8', timeout: 60_000 },
    );
    if (install.status !== 0) throw new Error(`--install-extension failed (${install.status}):\n${install.stdout}\n${install.stderr}`);
  }

  const port = await freePort();
  const args =
    opts.kind === 'code-server'
      ? [
          host.codeServer,
          '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
          '--bind-addr', `127.0.0.1:${port}`,
          '--user-data-dir', dirs['user-data']!, '--extensions-dir', dirs.extensions!,
          workspace,
        ]
      : [
          host.serverMain,
          '--host', '127.0.0.1', '--port', String(port),
          '--without-connection-token', '--accept-server-license-terms', '--enable-smoke-test-driver',
          '--disable-telemetry', '--disable-workspace-trust',
          '--user-data-dir', dirs['user-data']!, '--server-data-dir', join(dirs['user-data']!, 'server'),
          '--extensions-dir', dirs.extensions!,
        ];
  const logPath = join(scratch, 'server.log');
  const fd = openSync(logPath, 'a');
  const started = Date.now();
  const child = spawn(host.node, args, { cwd: workspace, env, detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const log = () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : '');
  const stop = () => stopGroup(child, scratch);
  try {
    await waitForHttp(`http://127.0.0.1:${port}${opts.kind === 'code-server' ? '/healthz' : '/version'}`, child, 30_000);
  } catch (err) {
    const text = log();
    await stop();
    throw new Error(`${(err as Error).message}\n--- server log ---\n${text}`);
  }
  return {
    kind: opts.kind, url: `http://127.0.0.1:${port}`, port, workspace, scratch, extensionsDir: dirs.extensions!, host,
    readyMs: Date.now() - started, log, stop,
  };
}

// Quiet, deterministic editor: no welcome page, no update or telemetry chatter, no trust prompts, no restored editors.
function baseSettings(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'security.workspace.trust.enabled': false,
    'window.restoreWindows': 'none',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'workbench.layoutControl.enabled': false,
    ...extra,
  };
}

function waitForHttp(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return reject(new Error(`editor server exited (${child.exitCode}) before answering ${url}`));
      const req = get(url, (res) => {
        res.resume();
        if ((res.statusCode ?? 500) < 500) resolve();
        else retry();
      });
      req.on('error', retry);
      req.setTimeout(2000, () => req.destroy());
    };
    const retry = () => (Date.now() > deadline ? reject(new Error(`editor server did not answer ${url} within ${timeoutMs} ms`)) : setTimeout(attempt, 200));
    attempt();
  });
}

async function stopGroup(child: ChildProcess, scratch: string): Promise<void> {
  const pid = child.pid;
  if (pid !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    killGroup(pid, 'SIGTERM');
    const timedOut = await Promise.race([exited.then(() => false), settlesAfter(5000, true)]);
    if (timedOut) killGroup(pid, 'SIGKILL');
  }
  // Children that outlived the leader (extension host, file watcher) still carry the group id.
  if (pid !== undefined) killGroup(pid, 'SIGKILL');
  rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

/** The text of the server's log files whose path ends with `suffix` (e.g. 'exthost1/remoteexthost.log', 'Baton.log'). */
export function serverLogFile(server: EditorServer, suffix: string): string {
  const logs = join(server.scratch, 'user-data');
  if (!existsSync(logs)) return '';
  return readdirSync(logs, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(suffix))
    .map((f) => readFileSync(join(logs, f), 'utf8'))
    .join('\n');
}
