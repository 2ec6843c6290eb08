// The words for a Baton process that owns a database and lives on without answering: resumed, a stopped one (Ctrl-Z,
// SIGSTOP) answers again; a hung one must be ended. Said to a person by `baton status|mcp|run…` (cli/common.ts) and
// to an agent by a forwarding `baton mcp` (proxyAnswers.ts), in the same words.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** What the system says of a live process: stopped by job control, stopped in a debugger, running, or not known. */
export type OwnerState = 'stopped' | 'traced' | 'running' | 'unknown';

/** Whether a process in `state` is halted (job control or a debugger): it does nothing until it is resumed. */
export function halted(state: OwnerState): boolean {
  return state === 'stopped' || state === 'traced';
}

/** How long a command line may be in a message before it is cut. */
const COMMAND_CHARS = 100;

/** Runs `ps` with `args`, giving what it prints; throws when there is no ps, it fails (no such process), or hangs. */
export type PsRunner = (args: string[]) => string;

/** How long one `ps` may take before it counts as no answer: it blocks the process that asks, the editor's too. */
const PS_TIMEOUT_MS = 1000;

/** The system's `ps`, run with no shell; what it says on stderr is dropped. */
export const runPs: PsRunner = (args) =>
  execFileSync('ps', args, { encoding: 'latin1', timeout: PS_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'ignore'] });

/**
 * Whether a process's state and command line come from `ps` on `platform` (macOS, the BSDs: no /proc to read). One ps
 * blocks the caller about 7 ms and costs about as much CPU (bench/ownerState.bench.ts), where /proc costs 0.02 ms: a
 * caller that would ask often asks there only when it has a reason (remoteSource.ts, heldDatabase.ts, cli/common.ts).
 */
export function stateFromPs(platform: NodeJS.Platform = process.platform): boolean {
  return platform !== 'linux' && platform !== 'win32';
}

/**
 * The command line of `pid`, shortened and ASCII ('' on Windows, or when it cannot be read): which program a person
 * would have to look at (a Baton opening a large database, a one-shot command, or not Baton at all). Linux reads
 * /proc/PID/cmdline; macOS and the BSDs ask `ps -o args= -p PID` (POSIX's keyword, which BSD and procps ps take).
 */
export function ownerCommand(
  pid: number,
  readCmdline: (pid: number) => string = (p) => readFileSync(`/proc/${p}/cmdline`, 'latin1'),
  platform: NodeJS.Platform = process.platform,
  ps: PsRunner = runPs,
): string {
  let words: string;
  try {
    if (platform === 'linux') words = readCmdline(pid).split('\0').join(' ').trim();
    else if (stateFromPs(platform)) words = ps(['-o', 'args=', '-p', String(pid)]).trim();
    else return '';
  } catch {
    return '';
  }
  // The text goes to a terminal, a notification and the log as it is: every byte past printable ASCII becomes '?'.
  words = words.replace(/[^\x20-\x7e]/g, '?');
  return words.length > COMMAND_CHARS ? `${words.slice(0, COMMAND_CHARS - 3)}...` : words;
}

/**
 * The state of `pid`: from Linux's /proc (its stat's third field), from `ps -o stat= -p PID` on macOS and the BSDs;
 * 'unknown' on Windows, or when the system cannot tell.
 */
export function ownerState(
  pid: number,
  readStat: (pid: number) => string = (p) => readFileSync(`/proc/${p}/stat`, 'utf8'),
  platform: NodeJS.Platform = process.platform,
  ps: PsRunner = runPs,
): OwnerState {
  if (platform === 'linux') return procState(pid, readStat);
  return stateFromPs(platform) ? psState(pid, ps) : 'unknown';
}

/** The state of `pid` from /proc/PID/stat. */
function procState(pid: number, readStat: (pid: number) => string): OwnerState {
  let stat: string;
  try {
    stat = readStat(pid);
  } catch {
    return 'unknown';
  }
  // `PID (COMM) STATE …`: COMM may hold spaces and parentheses, so the state follows the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 1).trim()[0];
  if (state === undefined) return 'unknown';
  return state === 'T' ? 'stopped' : state === 't' ? 'traced' : state === 'Z' || state === 'X' ? 'unknown' : 'running';
}

/**
 * The state of `pid` from the first letter of ps's STAT ("T+", "Ss", "R"; the letters after it are flags). `stat` is
 * not in POSIX's list of keywords, but BSD, macOS and procps ps all take it. macOS's and the BSDs' ps say T both for a
 * process stopped by job control and for one stopped in a debugger (their X flag says only that a debugger is
 * attached), so T reads as 'stopped' (resume it); only procps' ps has t for the debugger. A zombie, a process that is
 * gone (ps prints nothing and fails), or output that is not one such word reads as 'unknown'.
 */
function psState(pid: number, ps: PsRunner): OwnerState {
  let out: string;
  try {
    out = ps(['-o', 'stat=', '-p', String(pid)]).trim();
  } catch {
    return 'unknown';
  }
  if (!/^[A-Za-z]\S*$/.test(out)) return 'unknown';
  const state = out[0]!;
  if (state === 'T') return 'stopped';
  if (state === 't') return 'traced';
  // Runnable, sleeping, idle, or waiting on a disk or a lock (macOS: R S I U; the BSDs add D L W; procps D I P W).
  return 'RSIUDLWP'.includes(state) ? 'running' : 'unknown';
}

/** How to get past a silent owner: why it is silent, the way to resume it (none for a hung one), the way to end it. */
export interface SilentOwnerWays {
  /** `stopped by Ctrl-Z or SIGSTOP`, `stopped in a debugger`, `hung`, or `stopped or hung`. */
  why: string;
  /** `resume it (fg in its terminal, or kill -CONT 42)`, or null when resuming is no way on. */
  resume: string | null;
  /** `kill -9 42`: the command that ends it. */
  kill: string;
}

/** The ways on from a silent owner `pid` in `state`, the first to try first. */
export function silentOwnerWays(pid: number, state: OwnerState): SilentOwnerWays {
  const kill = process.platform === 'win32' ? `taskkill /F /PID ${pid}` : `kill -9 ${pid}`;
  const how = `fg in its terminal, or kill -CONT ${pid}`;
  switch (state) {
    case 'stopped':
      return { why: 'stopped by Ctrl-Z or SIGSTOP', resume: `resume it (${how})`, kill };
    case 'traced':
      return { why: 'stopped in a debugger', resume: 'continue it in the debugger', kill };
    case 'running':
      return { why: 'hung', resume: null, kill };
    case 'unknown':
      // Windows has no job control: a process there that does not answer is hung.
      if (process.platform === 'win32') return { why: 'hung', resume: null, kill };
      return { why: 'stopped or hung', resume: `resume it if it was stopped (Ctrl-Z: ${how})`, kill };
  }
}

/** `Text` with its first letter a capital. */
export function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The rule by which an owner that is alive and not stopped counts as silent: its checks failed in a row for `limitMs`
 * since the first of them began, and at least three of them. Silence takes a few failures as well as the time: one
 * check that spans a jump of the clock (the machine slept) is not a silent owner.
 */
export class SilenceCount {
  private failures = 0;
  private since = 0;

  constructor(private readonly limitMs: number) {}

  /** The owner answered (or the count starts afresh). */
  heard(): void {
    this.failures = 0;
  }

  /** One more check that began at `at` failed: whether the owner is silent now. */
  failed(at: number): boolean {
    if (this.failures++ === 0) this.since = at;
    return this.failures >= 3 && Date.now() - this.since >= this.limitMs;
  }

  /** How long since the first of the failed checks began. */
  silentMs(): number {
    return Date.now() - this.since;
  }
}
