// A command that owns the database runs, in its process, the work other commands started there (they found it the
// owner and follow that work through it); it must not close the database under them when its own work ends.
import { onStopSignal } from '../host/stopSignals.js';

/** How long an owner stays after the work it ran for other commands ends, so that they read how it ended. */
const FOLLOWERS_READ_MS = 2000;

/**
 * Waits until `running()` (the work other commands started in this process) is empty and the endpoint not `busy`
 * (handing work over), saying so on stderr, then lingers for their commands to read how it ended; Ctrl-C calls `stop`,
 * as those commands' own Ctrl-C would. Returns at once when this process `hosted` no such work and none is coming.
 */
export async function othersDone(what: string, running: () => string[], stop: () => void, busy: () => boolean, hosted: boolean): Promise<void> {
  // A command whose work ended a moment ago may not have read its end yet: having run any, the owner lingers.
  if (!hosted && running().length === 0 && !busy()) return;
  if (running().length > 0) process.stderr.write(`baton: this process owns the database and runs ${what} ${running().join(', ')} for other commands; it stops when they end (Ctrl-C stops them)\n`);
  const stopListening = onStopSignal(stop);
  try {
    // A command may be handing work over right now (busy): it is waited for too. The owner refuses new work from its
    // close on, which its caller starts at once after this.
    for (;;) {
      while (running().length > 0 || busy()) await new Promise((r) => setTimeout(r, 100));
      // Their commands poll every 250 ms or so: time to read how the work ended before its owner goes.
      await new Promise((r) => setTimeout(r, FOLLOWERS_READ_MS));
      if (running().length === 0 && !busy()) break;
    }
  } finally {
    stopListening();
  }
}
