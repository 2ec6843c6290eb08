// The signals that ask a Baton process to stop in order.

/**
 * Ctrl-C, `kill`, and the terminal closing (SIGHUP). Left to Node's default, SIGHUP ends the process at once: no
 * orderly stop of the database, and an agent the process runs in a process group of its own would run on, orphaned.
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Calls `handler` on each of the stop signals' first arrival; returns the function that stops listening. */
export function onStopSignal(handler: (signal: NodeJS.Signals) => void): () => void {
  const listeners = STOP_SIGNALS.map((signal) => {
    const listener = () => {
      if (signal === 'SIGHUP') outputMayBeGone();
      handler(signal);
    };
    process.once(signal, listener);
    return [signal, listener] as const;
  });
  return () => listeners.forEach(([signal, listener]) => process.removeListener(signal, listener));
}

/**
 * After SIGHUP the terminal may be gone: writing to it fails (EIO), and an unhandled stream error would end the process
 * in the middle of its orderly stop. What it still writes is dropped.
 */
function outputMayBeGone(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.listenerCount('error') === 0) stream.on('error', () => undefined);
  }
}
