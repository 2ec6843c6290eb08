// How often the editor tells a person that steps wait at their gates. One notification per gate, each reading the run's
// status, decisions and pipeline view first, flooded the window when agents brought runs to their gates faster than
// anyone decides them: 5,000 gates in eight minutes made 5,000 notifications, whose rendering took more of the two
// cores than the agents' calls, and buried the first ones. Here the first `perWindow` gates of any `windowMs` get a
// notification each; the gates after them are counted, and one notification says how many when the window has room
// again (it counts as one of the window's). No 'vscode' import (unit-tested with mocked timers).

/** How many gate notifications a window of time holds. */
export interface GateNoteTimes {
  perWindow: number;
  windowMs: number;
}

export const GATE_NOTE_TIMES: GateNoteTimes = { perWindow: 3, windowMs: 60_000 };

/** Paces gate notifications (see the file's comment). */
export class GateNotes<Gate> {
  /** When each notification of the current window was shown. */
  private shown: number[] = [];
  private held = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `one`: notifies of one gate. `many`: notifies that `count` more gates came since the last notification (the
   * person finds them in the tree, the status bar and Approve Step).
   */
  constructor(
    private readonly one: (gate: Gate) => void,
    private readonly many: (count: number) => void,
    private readonly times: GateNoteTimes = GATE_NOTE_TIMES,
  ) {}

  /** A step began waiting at its gate. */
  gate(gate: Gate): void {
    const now = Date.now();
    this.shown = this.shown.filter((t) => now - t < this.times.windowMs);
    if (this.held === 0 && this.shown.length < this.times.perWindow) {
      this.shown.push(now);
      this.one(gate);
      return;
    }
    this.held++;
    // The count goes out when the oldest notification of the window leaves it.
    this.timer ??= setTimeout(() => this.flush(), Math.max(0, this.shown[0]! + this.times.windowMs - now));
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.held = 0;
  }

  private flush(): void {
    this.timer = undefined;
    const count = this.held;
    this.held = 0;
    const now = Date.now();
    this.shown = [...this.shown.filter((t) => now - t < this.times.windowMs), now];
    this.many(count);
  }
}
