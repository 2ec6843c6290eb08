// Orderly shutdown of a CLI process on signals or the end of stdin.
import type { Log } from '../core/ports.js';
import { onStopSignal } from '../host/stopSignals.js';

/** Runs `stop` once on a stop signal or stdin end (if asked), then exits; returns how to do so without a signal. */
export function onShutdown(stop: (why: string) => Promise<void>, log: Log, watchStdin: boolean): (why: string) => void {
  let stopping = false;
  const handler = (why: string) => {
    if (stopping) return;
    stopping = true;
    stop(why)
      .then(() => process.exit()) // process.exitCode, 0 unless the command failed
      .catch((ex: unknown) => {
        log.error('shutdown failed', ex);
        process.exit(1);
      });
  };
  onStopSignal(handler);
  if (watchStdin) {
    process.stdin.once('end', () => handler('stdin ended'));
    process.stdin.once('close', () => handler('stdin closed'));
  }
  return handler;
}
