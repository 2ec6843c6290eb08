// Splits a process's decoded output into lines as chunks arrive; what is left at the end without a newline is the
// last (possibly truncated) line. A line longer than the limit is cut and reported, so one runaway line cannot
// exhaust memory.

/** A line, and whether it was cut at the length limit. */
export interface SplitLine {
  text: string;
  /** The line went on past the limit; `text` is its start. */
  overlong: boolean;
}

/** Chunks in, complete lines out. */
export class LineSplitter {
  private pending = '';
  private skipping = false;

  constructor(private readonly maxLineChars = 8 * 1024 * 1024) {}

  /** The complete lines that `chunk` finished (without their `\n` or `\r\n`). */
  push(chunk: string): SplitLine[] {
    const lines: SplitLine[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', start);
      if (nl < 0) break;
      const piece = chunk.slice(start, nl);
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        this.pending = '';
        continue;
      }
      lines.push({ text: stripCr(this.pending + piece), overlong: false });
      this.pending = '';
    }
    if (!this.skipping) {
      this.pending += chunk.slice(start);
      if (this.pending.length > this.maxLineChars) {
        lines.push({ text: this.pending.slice(0, 200), overlong: true });
        this.pending = '';
        this.skipping = true;
      }
    }
    return lines;
  }

  /** What is left after the last newline (a line cut short when the output ended), or null. */
  end(): string | null {
    const rest = this.skipping ? '' : this.pending;
    this.pending = '';
    this.skipping = false;
    return rest.length > 0 ? stripCr(rest) : null;
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
