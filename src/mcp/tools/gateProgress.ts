// While a continue waits on a human gate (the long poll, up to `approvalWaitMs`), the client hears why: MCP progress
// notifications for a call that carries a progressToken, and its cancellation ends the wait instead of leaving it
// to run out.
import type { GateWait } from '../../core/types.js';
import type { ToolCallExtra } from '../toolSpec.js';

/** How often a waiting call reports progress. */
export const GATE_PROGRESS_MS = 5_000;

/** The GateWait of one tools/call, and `stop` for when the call returns (no progress goes out after the answer). */
export function gateWait(extra: ToolCallExtra | undefined, everyMs: number): { wait: GateWait; stop: () => void } {
  let timer: ReturnType<typeof setInterval> | undefined;
  // The signal is read only when a call waits on a gate: a request's is made when first read (jsonRpc.ts callDirectly).
  const wait: GateWait = {
    get signal() {
      return extra?.signal;
    },
  };
  const progressToken = extra?._meta?.progressToken;
  if (extra && progressToken !== undefined) {
    wait.onWait = ({ step_name, wait_ms }) => {
      const started = Date.now();
      let last = -1;
      const report = (now = Date.now()) => {
        // Milliseconds waited, never past the total: the spec asks for a value that grows with each notification.
        const progress = Math.min(now - started, wait_ms);
        if (progress <= last) return;
        last = progress;
        const left = Math.max(0, Math.ceil((wait_ms - progress) / 1000));
        // VS Code shows the message in place of the tool's own while the call runs: it is for the person, short.
        const message = `Waiting for a person to approve step "${step_name}" (Baton answers when they decide, or in ${left} s)`;
        extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total: wait_ms, message } })
          .catch(() => undefined);
      };
      report(started); // the first says the wait has begun: 0 ms waited, however busy the machine
      timer = setInterval(report, everyMs);
      timer.unref?.();
    };
  }
  return { wait, stop: () => clearInterval(timer) };
}
