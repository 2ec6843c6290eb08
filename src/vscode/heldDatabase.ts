// The editor's words for a database another process holds and serves nothing this window can use: a one-shot command
// still at work (`baton prune --compact` on a big database), a Baton stopped with Ctrl-Z, or a program that is not
// Baton. They name the process, what the system says of it, and the way on; the window waits and retries meanwhile.
import { basename } from 'node:path';
import { discoveryPath } from '../host/discovery.js';
import { capital, halted, ownerCommand, ownerState, silentOwnerWays, stateFromPs, type OwnerState, type PsRunner } from '../host/silentOwner.js';
import { lockPathOf } from '../store/lock.js';

/** What is known of the process holding the database's lock. */
export interface Holder {
  pid: number;
  /** Its endpoint when its discovery file names it (it does not answer), else null. */
  url: string | null;
  state: OwnerState;
  /** Its command line, shortened; '' when the system does not say. */
  command: string;
}

/** How long a reading of the holder from ps is used again (see HolderReader). */
export const HOLDER_PS_MS = 5000;

/** The system a HolderReader reads on (tests force darwin's ps on Linux, and a clock). */
export interface HolderSystem {
  platform?: NodeJS.Platform;
  ps?: PsRunner;
  now?: () => number;
}

/**
 * What the system says of the holder, for the editor's connect loop, which looks at it at every try (4 a second, then
 * 1 a second for as long as it waits, hours for a stopped one). From /proc a reading is free and taken each time; from
 * ps (macOS, the BSDs) each costs a spawn that blocks the extension host for milliseconds, so one is used again for
 * HOLDER_PS_MS: the first says a stopped holder at once, a later change shows within seconds.
 */
export class HolderReader {
  private readonly everyMs: number;
  private last: { pid: number; at: number; state: OwnerState; command?: string } | undefined;

  constructor(private readonly system: HolderSystem = {}) {
    this.everyMs = stateFromPs(system.platform) ? HOLDER_PS_MS : 0;
  }

  /** Whether `pid` is stopped (Ctrl-Z, SIGSTOP) or held in a debugger: it cannot let go of anything until resumed. */
  stopped(pid: number): boolean {
    return halted(this.reading(pid).state);
  }

  /** The holder `pid` (`url`: the endpoint its discovery file names, if any). */
  of(pid: number, url: string | null): Holder {
    const reading = this.reading(pid);
    reading.command ??= ownerCommand(pid, undefined, this.system.platform, this.system.ps);
    return { pid, url, state: reading.state, command: reading.command };
  }

  private reading(pid: number): { state: OwnerState; command?: string } {
    const now = (this.system.now ?? Date.now)();
    if (this.last === undefined || this.last.pid !== pid || now - this.last.at >= this.everyMs) {
      this.last = { pid, at: now, state: ownerState(pid, undefined, this.system.platform, this.system.ps) };
    }
    return this.last;
  }
}

/** The message while `holder` keeps the database at `dbPath` from this window. */
export function heldDatabaseText(dbPath: string, holder: Holder): string {
  const { pid, url, state } = holder;
  const who = `process ${pid}${holder.command ? ` (${holder.command})` : ''}`;
  const { why, resume, kill } = silentOwnerWays(pid, state);
  const back = 'This window connects, or opens the database itself, as soon as it can: no reload needed.';
  if (url) {
    const ways = resume ? `${capital(resume)}, or end it (${kill})` : `End it (${kill})`;
    return `the database ${dbPath} is owned by Baton ${who}, but its endpoint ${url} does not answer, and it lives on, ${why}. ${ways}. ${back}`;
  }
  if (halted(state)) {
    return `the database ${dbPath} is held by ${who}, which is ${why}, so it cannot finish and let go of it. ` +
      `${capital(resume!)}, or end it (${kill}). ${back}`;
  }
  const end = process.platform === 'win32' ? `taskkill /PID ${pid}` : `kill ${pid}`;
  // 'unknown' (no /proc): it may have been stopped with Ctrl-Z too.
  const orResume = state === 'unknown' && resume ? `; ${resume}` : '';
  return `the database ${dbPath} is held by ${who}, which serves no endpoint this window can use (no ` +
    `${basename(discoveryPath(dbPath))} of it beside the database): a command still at work (such as baton prune --compact ` +
    `on a big database), a Baton still opening a big one, or a program that is not Baton. Wait for it to finish, or end it (${end})${orResume}. ${back} ` +
    `If process ${pid} is not Baton (its pid was reused after a restart), delete ${lockPathOf(dbPath)}.`;
}
