// One owner per database: `baton.db.lock` beside it holds the owner's pid (DESIGN "Who owns the database").
import { closeSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { BatonError } from '../core/errors.js';
import { followLinks } from './dbPath.js';

/**
 * The result of trying to take the lock. `stillHeld(othersWrote)`: whether the lock file is still this process's; false
 * once it names another process, or once it was deleted and `othersWrote()` (another process may have owned the
 * database meanwhile, and gone). A lock file deleted is made again at once where it can be.
 */
export type LockResult = { acquired: true; release(): void; stillHeld(othersWrote?: () => boolean): boolean } | { acquired: false; ownerPid: number };
/** A lock this process holds. */
export type HeldLock = Extract<LockResult, { acquired: true }>;

/** The lock file of the database at `dbPath`: beside the file its links lead to, where its owner writes. */
export const lockPathOf = (dbPath: string): string => `${followLinks(dbPath)}.lock`;
// A takeover only guards a few syscalls: a guard this old was left by a crash (or by a process stopped in the middle,
// which then gets no second chance), whatever its pid says.
const STALE_TAKEOVER_MS = 10_000;
// ...and one whose process is gone (or was never a Baton) needs only outlive the moment a new guard's pid is written.
const DEAD_TAKEOVER_MS = 1_000;
// How long acquiring tries before it gives up: past DEAD_TAKEOVER_MS, so that a crashed takeover's guard ages out.
const ACQUIRE_MS = 1_500;

// The lock files this process holds (a count per path: a store that takes its lock again after its folder was deleted
// holds it twice). Shared through the global object, because dist/cli.js and dist/engine.js each bundle this module
// and one may take the lock the other's store relies on.
const HELD = Symbol.for('baton.heldLocks');
const heldLocks: Map<string, number> = ((globalThis as Record<symbol, unknown>)[HELD] as Map<string, number> | undefined) ??
  ((globalThis as Record<symbol, unknown>)[HELD] = new Map<string, number>());

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

/**
 * Whether the live process `pid` may be a Baton: Node.js, or an editor's extension host. False only where Linux's /proc
 * shows plainly some other program (the pid was reused after a restart); elsewhere, or when /proc cannot tell, true.
 */
export function mayBeBaton(pid: number, readCmdline: (pid: number) => string = readProcCmdline): boolean {
  if (process.platform !== 'linux') return true;
  let cmdline: string;
  try {
    cmdline = readCmdline(pid);
  } catch {
    return true;
  }
  const words = cmdline.split('\0').join(' ').trim();
  // Empty: a kernel thread, or a process that has exited and not been reaped yet; neither holds a database.
  return words !== '' && BATON_HOSTS.test(words);
}

// Node.js itself (the CLI, a test), another JavaScript runtime, or an Electron editor's helper (--type=utility, the
// extension host): generous on purpose, since taking over a live owner's lock would have two processes write one file.
const BATON_HOSTS = /node|baton|electron|bun|deno|--type=|extension|\.[cm]?[jt]sx?\b/i;

const readProcCmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'latin1');

/**
 * Whether the lock file at `lockPath` naming `pid` belongs to a live owner. Our own pid in a lock we do not hold is
 * stale: a previous process had our pid (Baton as PID 1 in a restarted container).
 */
function isLiveOwner(lockPath: string, pid: number): boolean {
  if (pid === process.pid) return heldLocks.has(lockPath);
  return isLiveBaton(pid);
}

/** Whether process `pid` runs and may be a Baton (see mayBeBaton): not gone, nor a reused pid of another program. */
export function isLiveBaton(pid: number): boolean {
  return isPidAlive(pid) && mayBeBaton(pid);
}

/** The pid a lock (or takeover guard) file holds; null when it holds none. A folder in its place is named. */
function readPid(path: string): number | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (ex) {
    const code = (ex as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    // Reading a folder fails without its path: the system's words alone would not say which file is meant.
    if (code === 'EISDIR') {
      throw new BatonError('invalid_input', `${path} is a folder where Baton keeps a lock file; move it aside (Baton makes the file itself), then start Baton again.`, { path });
    }
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
  const lockPath = lockPathOf(dbPath);
  const pid = readPid(lockPath);
  return pid !== null && isLiveOwner(lockPath, pid) ? pid : null;
}

/**
 * Takes the lock, or reports the live owner. A lock of a dead pid (or an empty/garbage one, or a pid now some other
 * program's, or our own pid from an earlier process) is taken over under a second exclusive file, so two processes
 * racing for a stale lock cannot both remove it and both win.
 */
export function acquireLock(dbPath: string): LockResult {
  const lockPath = lockPathOf(dbPath);
  const deadline = Date.now() + ACQUIRE_MS;
  for (;;) {
    try {
      if (createExclusive(lockPath)) return held(lockPath);
      const owner = readPid(lockPath);
      if (owner !== null && isLiveOwner(lockPath, owner)) return { acquired: false, ownerPid: owner };
      if (takeOverStale(lockPath)) return held(lockPath);
    } catch (ex) {
      throw lockFileError(ex, lockPath, dbPath);
    }
    if (Date.now() >= deadline) throw stuckTakeover(lockPath);
    sleepSync(5);
  }
}

/** A system error met while making or reading a lock file: any file of it. */
export type LockFileError = NodeJS.ErrnoException & { path: string; database: string };

/**
 * A system error of the lock's own files, about the lock file and its database: the temp file the lock is made from
 * (or the takeover guard) is no name the user knows, nor one to act on. Any other error as it is.
 */
function lockFileError(ex: unknown, lockPath: string, dbPath: string): unknown {
  const e = ex as NodeJS.ErrnoException;
  if (typeof e?.code !== 'string') return ex;
  const verb = e.syscall === 'unlink' ? 'remove' : e.syscall === 'read' ? 'read' : 'create';
  return Object.assign(new Error(`cannot ${verb} the lock file ${lockPath} of the database ${dbPath}: ${e.message}`, { cause: ex }), {
    code: e.code, errno: e.errno, syscall: verb, path: lockPath, database: dbPath,
  }) satisfies LockFileError;
}

function takeOverStale(lockPath: string): boolean {
  const guard = guardPathOf(lockPath);
  if (!createExclusive(guard)) {
    if (staleGuard(guard)) unlinkQuiet(guard);
    return false;
  }
  try {
    // Re-check under the guard: someone may have taken it over since we looked.
    const owner = readPid(lockPath);
    if (owner !== null && isLiveOwner(lockPath, owner)) return false;
    unlinkQuiet(lockPath);
    return createExclusive(lockPath);
  } finally {
    unlinkQuiet(guard);
  }
}

const guardPathOf = (lockPath: string) => `${lockPath}.takeover`;

/** Whether a takeover guard was left by a takeover that will not finish (see STALE_TAKEOVER_MS). */
function staleGuard(guard: string): boolean {
  const age = Date.now() - mtimeOr(guard, Date.now());
  if (age > STALE_TAKEOVER_MS) return true;
  const pid = readPid(guard);
  // Our own pid: this process takes over synchronously and removes its guard, so an earlier process with our pid left
  // it.
  if (pid === process.pid) return true;
  return (pid === null || !isPidAlive(pid) || !mayBeBaton(pid)) && age > DEAD_TAKEOVER_MS;
}

/** The failure when the database at `path` is owned by the live Baton process `ownerPid` (store_locked). */
export function lockedError(path: string, ownerPid: number): BatonError {
  return new BatonError(
    'store_locked',
    `${path} is owned by Baton process ${ownerPid}; connect to it (it serves MCP, see server.json) or stop it. If process ${ownerPid} is not Baton (its pid was reused after a restart), delete ${lockPathOf(path)} and start again.`,
    { ownerPid, path },
  );
}

/** The failure when a stale lock could not be taken over in time: a young takeover guard held by a live process. */
function stuckTakeover(lockPath: string): BatonError {
  const guard = guardPathOf(lockPath);
  const owner = readPid(lockPath);
  const guardPid = readPid(guard);
  return new BatonError(
    'store_locked',
    `could not take over the stale lock ${lockPath} (it names ${owner === null ? 'no live process' : `process ${owner}, not a live Baton`}): ` +
      `${guard}, the guard of a takeover, is held by ${guardPid === null ? 'no process' : `process ${guardPid}`}. ` +
      `If no Baton is starting on this database, delete ${guard} and ${lockPath}, then start Baton again (a guard older than ${STALE_TAKEOVER_MS / 1000} s is removed by itself).`,
    { path: lockPath, guard },
  );
}

function mtimeOr(path: string, fallback: number): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return fallback;
  }
}

function held(lockPath: string): LockResult {
  heldLocks.set(lockPath, (heldLocks.get(lockPath) ?? 0) + 1);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    const count = (heldLocks.get(lockPath) ?? 1) - 1;
    if (count > 0) heldLocks.set(lockPath, count);
    else heldLocks.delete(lockPath);
    // Only remove the file if it is still ours.
    if (readPid(lockPath) === process.pid) unlinkQuiet(lockPath);
  };
  process.on('exit', release);
  // The lock file as made (or last seen ours): one stat answers the common case. Its change time tells a file made
  // again after a deletion from ours, should it get our inode number back.
  const statOf = () => statSync(lockPath, { throwIfNoEntry: false });
  let seen = statOf();
  const stillHeld = (othersWrote: () => boolean = () => false): boolean => {
    if (released) return false;
    const st = statOf();
    if (st && seen && st.ino === seen.ino && st.ctimeMs === seen.ctimeMs) return true;
    // The file was deleted, or replaced: another process may have owned the database meanwhile, and gone.
    if (othersWrote()) return false;
    if (!st) {
      try {
        if (createExclusive(lockPath)) {
          seen = statOf();
          return true;
        }
      } catch {
        return true; // its folder is gone too: the store writes its files again, this lock included (relock)
      }
    }
    let pid: number | null;
    try {
      pid = readPid(lockPath);
    } catch {
      return true; // a folder in its place: no process owns the database through it
    }
    if (pid === process.pid) seen = statOf();
    return pid === null || pid === process.pid;
  };
  return { acquired: true, release, stillHeld };
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
