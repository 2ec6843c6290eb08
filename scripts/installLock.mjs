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

/** Whether the lock's holder is gone (or never wrote its pid and the folder is older than 10 s). */
export function lockIsStale(lockDir) {
  try {
    process.kill(Number(readFileSync(join(lockDir, 'pid'), 'utf8')), 0);
    return false;
  } catch (err) {
    if (err.code === 'EPERM') return false;
    // No pid file yet: stale only if the folder is old (the owner writes it right after mkdir).
    if (err.code === 'ENOENT') {
      try {
        return Date.now() - statSync(lockDir).mtimeMs > 10_000;
      } catch {
        return true;
      }
    }
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
