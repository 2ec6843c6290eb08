// What the on-demand installers share (the editor host, the agent CLIs, the conformance suite). One installer at a
// time: a lock folder holding the installer's pid. A lock whose process is gone, or that never got its pid file within
// 10 s, is taken over. And the environment a child npm gets.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Takes `lockDir`, waiting while another live process holds it (saying `waiting` once, giving up after `maxWaitMs`);
 * returns the function that releases it.
 */
export async function takeInstallLock(lockDir, { label, waiting, maxWaitMs, log, pollMs = 1000 }) {
  const started = Date.now();
  let told = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      return () => rmSync(lockDir, { recursive: true, force: true });
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    if (lockIsStale(lockDir)) {
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (!told) {
      log(`${label}: ${waiting}`);
      told = true;
    }
    if (Date.now() - started > maxWaitMs) throw new Error(`${label}: gave up waiting for ${lockDir}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * Whether the lock's holder is gone (or never wrote its pid, whole, and the folder is older than 10 s). An empty pid
 * file is one not written yet, not pid 0: signal 0 to pid 0 asks after this process's own group, which always lives.
 */
export function lockIsStale(lockDir) {
  let pid;
  try {
    const text = readFileSync(join(lockDir, 'pid'), 'utf8');
    pid = /^\s*\d+\s*$/.test(text) ? Number(text) : 0;
  } catch (err) {
    if (err.code !== 'ENOENT') return true;
    pid = 0;
  }
  if (pid > 0) {
    try {
      process.kill(pid, 0);
      return false;
    } catch (err) {
      return err.code !== 'EPERM';
    }
  }
  try {
    return Date.now() - statSync(lockDir).mtimeMs > 10_000;
  } catch {
    return true;
  }
}

/**
 * The environment without what an enclosing `npm run` leaves behind: its npm_config_* variables are config for the
 * child npm too (npm_config_user_agent would tell code-server's postinstall it runs on the outer Node).
 */
export function cleanEnv() {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^npm_/i.test(key) || key === 'INIT_CWD' || key === 'NODE') delete env[key];
  }
  return env;
}
