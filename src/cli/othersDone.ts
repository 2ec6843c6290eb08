// A command that owns the database runs, in its process, the work other commands started there (they found it the
// owner and follow that work through it); it must not close the database under them when its own work ends.

/** How long an owner stays after the work it ran for other commands ends, so that they read how it ended. */
const FOLLOWERS_READ_MS = 2000;

/**
 * Waits until `running()` (the work other commands started in this process) is empty, saying so on stderr; Ctrl-C
 * calls `stop`, as those commands' own Ctrl-C would. Returns at once when there is none.
 */
export async function othersDone(what: string, running: () => string[], stop: () => void): Promise<void> {
  if (running().length === 0) return;
  process.stderr.write(`baton: this process owns the database and runs ${what} ${running().join(', ')} for other commands; it stops when they end (Ctrl-C stops them)\n`);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    while (running().length > 0) await new Promise((r) => setTimeout(r, 200));
    // Their commands poll every 250 ms or so: time to read how the work ended before its owner goes.
    await new Promise((r) => setTimeout(r, FOLLOWERS_READ_MS));
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
  }
}
