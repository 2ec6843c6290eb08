// One owner per database: `baton.db.lock` beside it holds the owner's pid (DESIGN "Who owns the database").
import { closeSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { followLinks } from './dbPath.js';

/** The result of trying to take the lock. */
export type LockResult = { acquired: true; release(): void } | { acquired: false; ownerPid: number };
/** A lock this process holds. */
export type HeldLock = Extract<LockResult, { acquired: true }>;

/** The lock file of the database at `dbPath`: beside the file its links lead to, where its owner writes. */
export const lockPathOf = (dbPath: string): string => `${followLinks(dbPath)}.lock`;
// A takeover that was interrupted by a crash leaves this behind; it only guards a few syscalls.
const STALE_TAKEOVER_MS = 10_000;

/** Whether a process with this pid exists (EPERM means it exists but is not ours). */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (ex) {
    return (ex as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(path: string): number | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (ex) {
    if ((ex as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw ex;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * Creates `path` holding our pid if it does not exist; false if it does. The pid is written to a
 * temp file first and hard-linked into place, so no reader ever sees an empty lock file.
 */
function createExclusive(path: string): boolean {
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temp, `${process.pid}\n`, { mode: 0o600 });
  try {
    linkSync(temp, path);
    return true;
  } catch (ex) {
    const code = (ex as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS') return createWithOpenExcl(path);
    throw ex;
  } finally {
    unlinkQuiet(temp);
  }
}

// For file systems without hard links.
function createWithOpenExcl(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (ex) {
    if ((ex as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw ex;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch (ex) {
    if ((ex as NodeJS.ErrnoException).code !== 'ENOENT') throw ex;
  }
}

/** The pid of the live process owning the database, or null when no live process does. */
export function readLockOwner(dbPath: string): number | null {
  const pid = readPid(lockPathOf(dbPath));
  return pid !== null && isPidAlive(pid) ? pid : null;
}

/**
 * Takes the lock, or reports the live owner. A lock of a dead pid (or an empty/garbage one) is
 * taken over under a second exclusive file, so two processes racing for a stale lock cannot
 * both remove it and both win.
 */
export function acquireLock(dbPath: string): LockResult {
  const lockPath = lockPathOf(dbPath);
  for (let attempt = 0; attempt < 50; attempt++) {
    if (createExclusive(lockPath)) return held(lockPath);
    const owner = readPid(lockPath);
    if (owner !== null && isPidAlive(owner)) return { acquired: false, ownerPid: owner };
    if (takeOverStale(lockPath)) return held(lockPath);
    sleepSync(5);
  }
  const owner = readPid(lockPath);
  throw new Error(`could not acquire ${lockPath} (holder: ${owner ?? 'unknown'})`);
}

function takeOverStale(lockPath: string): boolean {
  const guard = `${lockPath}.takeover`;
  if (!createExclusive(guard)) {
    const guardPid = readPid(guard);
    const age = Date.now() - mtimeOr(guard, Date.now());
    if ((guardPid === null || !isPidAlive(guardPid)) && age > STALE_TAKEOVER_MS) unlinkQuiet(guard);
    return false;
  }
  try {
    // Re-check under the guard: someone may have taken it over since we looked.
    const owner = readPid(lockPath);
    if (owner !== null && isPidAlive(owner)) return false;
    unlinkQuiet(lockPath);
    return createExclusive(lockPath);
  } finally {
    unlinkQuiet(guard);
  }
}

function mtimeOr(path: string, fallback: number): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return fallback;
  }
}

function held(lockPath: string): LockResult {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    // Only remove the file if it is still ours.
    if (readPid(lockPath) === process.pid) unlinkQuiet(lockPath);
  };
  process.on('exit', release);
  return { acquired: true, release };
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
