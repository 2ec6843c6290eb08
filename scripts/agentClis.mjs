// The real agent CLIs the runner end-to-end tests drive against a scripted model on 127.0.0.1: claude, codex, gemini
// and opencode from npm, pinned in agent-clis/package.json and its lock (`npm install`: `npm ci` refuses a lock that
// leaves out other platforms' optional binaries, as opencode-ai's does). Installed on demand into agent-clis/ by the test
// set-up (scripts/test.mjs); never a dependency of the extension or the CLI.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, takeInstallLock } from './installLock.mjs';

const root = join(new URL('.', import.meta.url).pathname, '..');
const dir = join(root, 'agent-clis');
const marker = join(dir, 'node_modules', '.baton-agent-clis.json');
const lockDir = join(dir, '.install.lock');
const logFile = join(dir, 'install.log');

/** The CLIs by runner kind, each the executable its npm package installs. */
export function agentCliPaths() {
  const bin = join(dir, 'node_modules', '.bin');
  return { claude: join(bin, 'claude'), codex: join(bin, 'codex'), gemini: join(bin, 'gemini'), opencode: join(bin, 'opencode') };
}

/** Installs the pinned CLIs when they are missing or stale (one installer at a time) and returns their paths. */
export async function ensureAgentClis({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  if (ready()) return agentCliPaths();
  const release = await takeInstallLock(lockDir, { label: 'agent CLIs', waiting: 'another process is installing them; waiting…', maxWaitMs: 10 * 60_000, log });
  try {
    if (!ready()) {
      const started = Date.now();
      log('agent CLIs: installing claude, codex, gemini and opencode from npm into agent-clis (once, about 1–2 min)…');
      rmSync(marker, { force: true });
      await npmCi(log);
      const missing = Object.entries(agentCliPaths()).filter(([, p]) => !existsSync(p)).map(([k]) => k);
      if (missing.length > 0) throw new Error(`agent CLIs: npm install finished but ${missing.join(', ')} is missing; see agent-clis/install.log`);
      writeFileSync(marker, JSON.stringify({ dependencies: wanted(), installedAt: new Date().toISOString() }));
      log(`agent CLIs: installed in ${Math.round((Date.now() - started) / 1000)} s`);
    }
  } finally {
    release();
  }
  return agentCliPaths();
}

function wanted() {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies;
}

function ready() {
  try {
    const installed = JSON.parse(readFileSync(marker, 'utf8')).dependencies;
    return JSON.stringify(installed) === JSON.stringify(wanted()) && Object.values(agentCliPaths()).every((p) => existsSync(p));
  } catch {
    return false;
  }
}

function npmCi(log) {
  const env = cleanEnv();
  const fd = openSync(logFile, 'a');
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, env, stdio: ['ignore', fd, fd] });
    const ticker = setInterval(() => log(`agent CLIs: still installing… ${Math.round((Date.now() - started) / 1000)} s`), 30_000);
    const done = (err) => {
      clearInterval(ticker);
      closeSync(fd);
      if (!err) return resolve();
      const tail = readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n');
      reject(new Error(`agent CLIs: ${err.message}; last lines of agent-clis/install.log:\n${tail}`));
    };
    child.on('error', done);
    child.on('exit', (code) => done(code === 0 ? null : new Error(`\`npm ci\` failed (exit ${code})`)));
  });
}

