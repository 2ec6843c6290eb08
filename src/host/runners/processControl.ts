// Finding an agent process again after the Baton process that spawned it died, and stopping it (agentProcesses.ts).
// A pid alone proves nothing: once a process ends, the system may give its pid to another. On Linux a process is
// named by the boot it runs in (/proc/sys/kernel/random/boot_id) and its start time in clock ticks since that boot
// (field 22 of /proc/<pid>/stat): two processes cannot share both. Elsewhere nothing is recorded that tells them
// apart, so a live pid there is `unknown` and is never signalled.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, isAbsolute } from 'node:path';
import type { ProcessCheck, ProcessControl } from '../../core/pipelines/agentProcesses.js';
import type { AgentProcess } from '../../core/pipelines/runner.js';

/** Between SIGTERM and SIGKILL when a runner stops a process group (processRun.ts), and when a left one is stopped. */
export const KILL_GRACE_MS = 2_000;
/** After SIGKILL, how long a group may take to be gone before stopping it counts as failed. */
const KILLED_WAIT_MS = 5_000;
const POLL_MS = 50;

/** What /proc/<pid>/stat says of a process: its state letter, process group and start time. */
interface ProcStat {
  state: string;
  pgrp: number;
  startTime: string;
}

/** The fields after the command name, which is in parentheses and may itself hold spaces and parentheses. */
function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state), so field n is rest[n - 3].
  return { state: rest[0] ?? '', pgrp: Number(rest[2]), startTime: rest[19] ?? '' };
}

let bootId: string | null | undefined;
function currentBootId(): string | null {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      bootId = null;
    }
  }
  return bootId;
}

const onLinux = process.platform === 'linux';

/** The identity of a live process (`linux:<boot id>:<start time>`); null where it cannot be read. */
export function processIdentity(pid: number): string | null {
  if (!onLinux) return null;
  const boot = currentBootId();
  const stat = readStat(pid);
  return boot && stat && /^\d+$/.test(stat.startTime) ? `linux:${boot}:${stat.startTime}` : null;
}

/** A zombie (Z) or dead (X) process has ended; only its parent has not collected it yet. */
const ended = (state: string) => state === 'Z' || state === 'X';

function check(p: { pid: number; identity: string | null }): ProcessCheck {
  if (!Number.isInteger(p.pid) || p.pid <= 1) return 'other';
  if (onLinux) {
    const stat = readStat(p.pid);
    if (!stat || ended(stat.state)) return 'gone';
    if (p.identity === null || !p.identity.startsWith('linux:')) return 'unknown';
    return processIdentity(p.pid) === p.identity ? 'same' : 'other';
  }
  try {
    process.kill(p.pid, 0);
    return 'unknown';
  } catch (ex) {
    // EPERM: a process of another user, which an agent Baton spawned as this user cannot have become.
    return (ex as NodeJS.ErrnoException).code === 'EPERM' ? 'other' : 'gone';
  }
}

/** Whether any process of group `pgid` is alive (zombies not counted: they have ended). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false; // ESRCH: no process is in the group
  }
  if (!onLinux) return true;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat && stat.pgrp === pgid && !ended(stat.state)) return true;
  }
  return false;
}

function signalGroup(p: AgentProcess, signal: NodeJS.Signals): void {
  for (const target of [-p.pgid, p.pid]) {
    try {
      process.kill(target, signal);
    } catch {
      // ESRCH: gone already.
    }
  }
}

async function groupGone(pgid: number, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function stopGroup(p: AgentProcess): Promise<void> {
  // Runners record each agent as the leader of its own group (processRun.ts). A row that names another group was not
  // written by Baton, and signalling it could reach anything: group 0 is this process's own, -1 every process.
  if (p.pgid !== p.pid) throw new Error(`its process group is recorded as ${p.pgid}, not its own pid ${p.pid}; nothing was signalled`);
  // Proved again right before the signal. The group id is the agent's pid, which no other process can hold while it
  // lives: every process in the group is the agent's.
  if (check(p) !== 'same') return;
  signalGroup(p, 'SIGTERM');
  if (await groupGone(p.pgid, KILL_GRACE_MS)) return;
  signalGroup(p, 'SIGKILL');
  if (!(await groupGone(p.pgid, KILLED_WAIT_MS))) throw new Error(`process group ${p.pgid} was still alive ${KILLED_WAIT_MS} ms after SIGKILL`);
}

/** A runner's scratch folder: mkdtemp's `baton-run-` and six characters (scratchDir.ts). */
const SCRATCH_NAME = /^baton-run-[A-Za-z0-9]{6}$/;

/**
 * Removes a scratch folder named in the database: only an absolute path to a real folder (no symbolic link) of this
 * user named as makeScratchDir names them, since a row could have been written by anyone who can write the file.
 */
async function removeScratch(path: string): Promise<boolean> {
  if (!isAbsolute(path) || !SCRATCH_NAME.test(basename(path))) throw new Error(`${path} is not a Baton run's scratch folder (baton-run-XXXXXX); left alone`);
  let st;
  try {
    st = lstatSync(path);
  } catch (ex) {
    if ((ex as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw ex;
  }
  if (!st.isDirectory()) throw new Error(`${path} is not a folder; left alone`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new Error(`${path} belongs to another user; left alone`);
  await rm(path, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  return true;
}

/** The host's process control: Linux proves identities; elsewhere every live process is `unknown`. */
export const processControl: ProcessControl = {
  self: () => ({ pid: process.pid, identity: processIdentity(process.pid) }),
  check,
  stopGroup,
  removeScratch,
};
