// The command line of the process that holds a database's lock, for the words of a command waiting for it: which
// program a person would have to look at (a Baton opening a large database, a one-shot command, or not Baton at all).
import { readFileSync } from 'node:fs';

/** How long a command line may be in a message before it is cut. */
const COMMAND_CHARS = 100;

/** The command line of `pid` from Linux's /proc, shortened and ASCII; '' elsewhere, or when it cannot be read. */
export function holderCommand(pid: number, readCmdline: (pid: number) => string = (p) => readFileSync(`/proc/${p}/cmdline`, 'latin1')): string {
  if (process.platform !== 'linux') return '';
  let words: string;
  try {
    words = readCmdline(pid).split('\0').join(' ').trim();
  } catch {
    return '';
  }
  // A terminal shows control characters as commands of its own: every byte past printable ASCII becomes '?'.
  words = words.replace(/[^\x20-\x7e]/g, '?');
  return words.length > COMMAND_CHARS ? `${words.slice(0, COMMAND_CHARS - 3)}...` : words;
}
