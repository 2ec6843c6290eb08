// The real editor used by `npm start` and the editor tests: code-server (a VS Code server) on Node 24, with
// headless Chromium from the system. Installed on demand into editor-host/ (never part of the extension).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync, openSync, closeSync } from 'node:fs';
import { join, delimiter } from 'node:path';
import { cleanEnv, takeInstallLock } from './installLock.mjs';

const root = join(new URL('.', import.meta.url).pathname, '..');
const hostDir = join(root, 'editor-host');
const node24Dir = join(hostDir, 'node24');
const nodeHome = join(node24Dir, 'node_modules', 'node', 'node_modules', `node-${process.platform}-${process.arch}`);
const codeServerDir = join(hostDir, 'node_modules', 'code-server');
const marker = join(hostDir, 'node_modules', '.baton-editor-host.json');
const lockDir = join(hostDir, '.install.lock');
const APT_PACKAGES = ['chromium', 'libkrb5-dev'];

/** Where the editor host's parts live (whether or not they are installed yet). */
export function editorHostPaths() {
  return {
    node: join(nodeHome, 'bin', 'node'),
    nodeDir: nodeHome,
    codeServerDir,
    codeServer: join(codeServerDir, 'out', 'node', 'entry.js'),
    serverMain: join(codeServerDir, 'lib', 'vscode', 'out', 'server-main.js'),
    chromium: findChromium(),
  };
}

/**
 * Installs whatever of the editor host is missing (Chromium and Kerberos headers through apt when allowed,
 * Node 24, code-server) and returns the paths to run it. Progress goes to `log` (stderr by default).
 */
export async function ensureEditorHost({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const paths = editorHostPaths();
  if (!paths.chromium) ensureAptPackages(log);
  const release = await takeInstallLock(lockDir, { label: 'editor host', waiting: 'another process is installing it; waiting…', maxWaitMs: 15 * 60_000, log });
  try {
    if (!existsSync(paths.node)) {
      await installNode24(log);
      if (!existsSync(paths.node)) throw new Error(`editor host: Node 24 install finished but ${paths.node} is missing`);
    }
    if (!hostReady(paths)) {
      if (!hasKerberosHeaders()) ensureAptPackages(log);
      await installCodeServer(paths, log);
    }
  } finally {
    release();
  }
  const chromium = findChromium();
  if (!chromium) throw new Error(missingSystemPackages());
  return { ...editorHostPaths(), chromium };
}

/**
 * Returns the Chromium the browser tests use, installing it through apt first when it is missing and that is allowed
 * (root with apt-get); otherwise throws the command to run. Quick when it is there.
 */
export function ensureChromium({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const found = findChromium();
  if (found) return found;
  ensureAptPackages(log, ['chromium']);
  const chromium = findChromium();
  if (!chromium) throw new Error(missingSystemPackages());
  return chromium;
}

function hostReady(paths) {
  if (!existsSync(marker) || !existsSync(paths.codeServer) || !existsSync(paths.serverMain)) return false;
  try {
    return JSON.parse(readFileSync(marker, 'utf8')).codeServer === readVersion(join(codeServerDir, 'package.json'));
  } catch {
    return false;
  }
}

function readVersion(file) {
  return JSON.parse(readFileSync(file, 'utf8')).version;
}

function findChromium() {
  const candidates = [process.env.BATON_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
  return candidates.find((c) => existsSync(c)) ?? null;
}

function hasKerberosHeaders() {
  return existsSync('/usr/include/krb5.h') || existsSync('/usr/include/gssapi.h');
}

function missingSystemPackages() {
  return (
    `editor host: Chromium (and, to build code-server's native modules, the Kerberos headers) are missing.\n` +
    `Install them with:  sudo apt-get install -y ${APT_PACKAGES.join(' ')}\n` +
    `(or point BATON_CHROMIUM at a Chromium binary).`
  );
}

function ensureAptPackages(log, packages = APT_PACKAGES) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (!isRoot || !hasApt) throw new Error(missingSystemPackages());
  log(`editor host: installing ${packages.join(' ')} with apt-get (once, ~1 min)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  const install = update.status === 0
    ? spawnSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: ['ignore', 'ignore', 'inherit'], env })
    : update;
  if (install.status !== 0) throw new Error(`editor host: apt-get failed (exit ${install.status}).\n${missingSystemPackages()}`);
}

async function installNode24(log) {
  log('editor host: installing Node 24 into editor-host/node24 (once, ~10 s)…');
  const started = Date.now();
  await npmInstall(node24Dir, cleanEnv(), log, 'node24');
  log(`editor host: Node 24 installed in ${seconds(started)}`);
}

async function installCodeServer(paths, log) {
  const version = JSON.parse(readFileSync(join(hostDir, 'package.json'), 'utf8')).dependencies['code-server'];
  log(`editor host: installing code-server ${version} into editor-host (once, 2 to 4 min: it compiles native modules)…`);
  const started = Date.now();
  rmSync(marker, { force: true });
  // Its native modules (VS Code's SQLite for the editor's state, spdlog, node-pty, ...) build without optimisation
  // unless CFLAGS/CXXFLAGS say otherwise: the install takes about a minute less of CPU (SQLite's amalgamation alone
  // compiles in 5 s instead of 35), and nothing the editor does with them here is measurably slower.
  const env = {
    ...cleanEnv(),
    PATH: `${join(paths.nodeDir, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: paths.nodeDir,
    CFLAGS: process.env.CFLAGS ?? '-O0',
    CXXFLAGS: process.env.CXXFLAGS ?? '-O0',
  };
  await npmInstall(hostDir, env, log, 'code-server');
  if (!existsSync(paths.codeServer) || !existsSync(paths.serverMain)) {
    throw new Error(`editor host: code-server install finished but ${paths.serverMain} is missing; see editor-host/install.log`);
  }
  writeFileSync(marker, JSON.stringify({ codeServer: readVersion(join(codeServerDir, 'package.json')), installedAt: new Date().toISOString() }));
  log(`editor host: code-server installed in ${seconds(started)}`);
}

// `npm ci` when a lock file pins the tree (reproducible), else `npm install`; output goes to editor-host/install.log.
function npmInstall(cwd, env, log, what) {
  const verb = existsSync(join(cwd, 'package-lock.json')) ? 'ci' : 'install';
  const logFile = join(hostDir, 'install.log');
  const fd = openSync(logFile, 'a');
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('npm', [verb, '--no-audit', '--no-fund', '--foreground-scripts'], { cwd, env, stdio: ['ignore', fd, fd] });
    const ticker = setInterval(() => log(`editor host: still installing ${what}… ${seconds(started)}`), 30_000);
    child.on('error', (err) => {
      clearInterval(ticker);
      closeSync(fd);
      reject(err);
    });
    child.on('exit', (code) => {
      clearInterval(ticker);
      closeSync(fd);
      if (code === 0) return resolve();
      const tail = readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n');
      reject(new Error(`editor host: \`npm ${verb}\` for ${what} failed (exit ${code}); last lines of editor-host/install.log:\n${tail}`));
    });
  });
}

function seconds(since) {
  return `${Math.round((Date.now() - since) / 1000)} s`;
}

// `node scripts/editorHost.mjs` installs the host and prints its paths.
if (import.meta.url === `file://${process.argv[1]}`) {
  ensureEditorHost().then(
    (paths) => console.log(JSON.stringify(paths, null, 2)),
    (err) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
