// `npm start`: builds Baton, installs the editor host if it is absent (Node 24 + code-server, once), refreshes the demo
// workspace (scripts/demo.mjs: ~/.local/share/baton/demo, a git repository of its own), and opens code-server with
// Baton linked in as an extension. Prints the URL, then what the editor does (page opened, Baton active, its endpoint),
// and runs until Ctrl-C. Options: --port N (default 8080, or a free one if taken), --folder PATH (instead of the demo);
// for the tests: --run-dir DIR (the editor's user data, default editor-host/.run) and --no-build.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, symlinkSync, readdirSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { demoFolder, prepareDemo, writeStartSettings } from './demo.mjs';
import { ensureEditorHost } from './editorHost.mjs';
import { watchEditorProgress } from './startProgress.mjs';

const root = join(new URL('.', import.meta.url).pathname, '..');
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const say = (line) => process.stderr.write(`${line}\n`);

if (!args.includes('--no-build')) {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

let host;
try {
  host = await ensureEditorHost({ log: say });
} catch (err) {
  say(err.message);
  process.exit(1);
}

let folder;
try {
  folder = option('folder') ? resolve(option('folder')) : prepareDemo(demoFolder(), { log: say }).folder;
} catch (err) {
  say(err.message);
  process.exit(1);
}
const run = option('run-dir') ? resolve(option('run-dir')) : join(root, 'editor-host', '.run');
const dirs = Object.fromEntries(['user-data', 'extensions', 'home', 'xdg-config', 'xdg-data', 'xdg-cache'].map((d) => [d, join(run, d)]));
for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
linkExtension(dirs.extensions);
writeStartSettings(join(dirs['user-data'], 'User', 'settings.json'));

// code-server and its git extension put their IPC sockets (vscode-ipc-*.sock, vscode-git-*.sock) in XDG_RUNTIME_DIR,
// else in the temporary folder, and leave them there when stopped: each start left two more in /tmp. A short folder
// of this run's own (a socket path has at most 107 bytes), removed when it ends.
const runtime = mkdtempSync(join(tmpdir(), 'baton-editor-'));

const port = await pickPort(Number(option('port') ?? process.env.PORT ?? 8080));
const logPath = join(run, 'code-server.log');
const fd = openSync(logPath, 'w');
const child = spawn(
  host.node,
  [
    host.codeServer,
    '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--bind-addr', `127.0.0.1:${port}`,
    '--user-data-dir', dirs['user-data'], '--extensions-dir', dirs.extensions,
    folder,
  ],
  {
    cwd: folder,
    detached: true, // its own process group, stopped as a whole
    stdio: ['ignore', fd, fd],
    env: {
      ...process.env,
      HOME: dirs.home,
      XDG_CONFIG_HOME: dirs['xdg-config'],
      XDG_DATA_HOME: dirs['xdg-data'],
      XDG_CACHE_HOME: dirs['xdg-cache'],
      XDG_RUNTIME_DIR: runtime,
    },
  },
);
closeSync(fd);

let stopping = false;
const stop = (code) => {
  if (stopping) return;
  stopping = true;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
  setTimeout(() => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    process.exit(code);
  }, 1500).unref();
};
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
process.on('exit', () => {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  rmSync(runtime, { recursive: true, force: true });
});
child.on('exit', (code) => {
  if (!stopping) {
    say(`code-server exited (${code}); its log:\n${readFileSync(logPath, 'utf8').split('\n').slice(-20).join('\n')}`);
    process.exit(code ?? 1);
  }
  process.exit(0);
});

const started = Date.now();
await waitForHealth(`http://127.0.0.1:${port}/healthz`);
const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`;
say(`code-server ready in ${Date.now() - started} ms (log: ${logPath})`);
console.log(`\nBaton in VS Code:  ${url}\nWorkspace:         ${folder}\nPress Ctrl-C to stop.\n`);
say('waiting for the page to open…');
watchEditorProgress(join(dirs['user-data'], 'logs'), say);

// The repo itself is the extension: a symlink named publisher.name-version in the scratch extensions dir.
function linkExtension(extensionsDir) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const prefix = `${manifest.publisher}.${manifest.name}-`;
  for (const entry of readdirSync(extensionsDir)) if (entry.startsWith(prefix)) rmSync(join(extensionsDir, entry), { recursive: true, force: true });
  rmSync(join(extensionsDir, 'extensions.json'), { force: true });
  symlinkSync(root, join(extensionsDir, `${prefix}${manifest.version}`), 'dir');
}

function pickPort(preferred) {
  const tryPort = (p) =>
    new Promise((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(null));
      srv.listen(p, '127.0.0.1', () => {
        const got = srv.address().port;
        srv.close(() => resolve(got));
      });
    });
  return tryPort(preferred).then((p) => p ?? tryPort(0));
}

async function waitForHealth(url) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const req = get(url, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('error', () => resolve(false));
      req.setTimeout(2000, () => req.destroy());
    });
    if (ok) return;
    if (Date.now() > deadline) {
      say(`code-server did not answer ${url} within 60 s; see ${logPath}`);
      stop(1);
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
