// The live progress of a pipeline run on a terminal: one line per step (status, agent, tokens, elapsed), the run's
// totals and budget, and the last line an agent wrote; redrawn in place.
import type { Budget, PipelineProgress, System } from '../core/pipelines/types.js';
import { plural } from '../shared/labels.js';
import { shellQuote } from './common.js';

interface Row {
  step: string;
  agent: string | null;
  status: string;
  tokens: number;
  costUsd: number | null;
  started: number;
  ended: number | null;
}

/** A step's mark by the start of its status; '…' for one still going. */
const ROW_MARKS: ReadonlyArray<[string, string]> = [['done', '✓'], ['FAILED', '✗'], ['stopped', '■']];

/** Redraws the run's state on each event. */
export class ProgressView {
  private readonly rows = new Map<string, Row>();
  private drawn = 0;
  private last = '';
  private readonly started = Date.now();
  private readonly timer: ReturnType<typeof setInterval>;

  /** `db`: dbFlagFor's flag for the run's database, so the approve and reject commands shown work pasted. */
  constructor(
    private readonly out: NodeJS.WriteStream, private readonly system: System, private readonly runId: string, private readonly budget: Budget | null,
    private readonly db: string,
  ) {
    this.timer = setInterval(() => this.draw(), 1000);
    this.timer.unref();
  }

  /** Takes one event. */
  update(p: PipelineProgress): void {
    const row = (step: string) => {
      let r = this.rows.get(step);
      if (!r) this.rows.set(step, (r = { step, agent: null, status: 'pending', tokens: 0, costUsd: null, started: Date.now(), ended: null }));
      return r;
    };
    switch (p.type) {
      case 'step_started':
        Object.assign(row(p.step), { agent: p.agent, status: p.attempt > 1 ? `running (attempt ${p.attempt})` : 'running', started: Date.now(), ended: null });
        break;
      case 'step_output':
        this.last = p.text.trim().split('\n').pop() ?? this.last;
        break;
      case 'step_usage':
        row(p.step).tokens = p.usage.input + p.usage.output;
        break;
      case 'step_retry':
        row(p.step).status = `retry in ${p.waitMs} ms: ${p.error.slice(0, 60)}`;
        break;
      case 'step_completed':
        Object.assign(row(p.step), { status: p.replayed ? 'done (earlier)' : 'done', tokens: p.usage.input + p.usage.output, costUsd: p.costUsd, ended: Date.now() });
        break;
      case 'step_failed':
        Object.assign(row(p.step), { status: `FAILED: ${p.error.slice(0, 80)}`, ended: Date.now() });
        break;
      case 'step_awaiting_approval':
        Object.assign(row(p.step), { status: 'awaiting approval', agent: 'person' });
        break;
      case 'run_finished':
        // The run stopped under the steps still going (Ctrl-C, its budget, a cancel): the last frame says so.
        for (const r of this.rows.values()) {
          if (r.ended !== null || r.status.startsWith('done') || r.status.startsWith('FAILED')) continue;
          Object.assign(r, { status: p.status === 'paused' ? 'stopped (runs again on resume)' : 'stopped', ended: Date.now() });
        }
        break;
      default:
        break;
    }
    this.draw();
  }

  private draw(): void {
    const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
    const rows = [...this.rows.values()];
    const tokens = rows.reduce((a, r) => a + r.tokens, 0);
    const usd = rows.reduce((a, r) => a + (r.costUsd ?? 0), 0);
    const budget = this.budget ? ` / budget ${[this.budget.tokens !== undefined ? plural(this.budget.tokens, 'token') : '', this.budget.usd !== undefined ? `$${this.budget.usd}` : ''].filter(Boolean).join(', ')}` : '';
    const width = this.out.columns || 100;
    const lines = [
      `${this.system.name}  run ${this.runId}  ${secs(Date.now() - this.started)}  ${plural(tokens, 'token')}  $${usd.toFixed(4)}${budget}`,
      ...rows.map((r) => `  ${ROW_MARKS.find(([status]) => r.status.startsWith(status))?.[1] ?? '…'} ${r.step}  ${r.agent ?? ''}  ${r.status}  ${r.tokens} tok  ${secs((r.ended ?? Date.now()) - r.started)}`),
      `  ${this.last}`,
    ].map((l) => (l.length > width - 1 ? `${l.slice(0, width - 2)}…` : l));
    // The commands a person pastes are never cut short: a long --db path wraps, and the redraw counts the rows it took.
    const commands = this.decisionLines();
    let text = this.drawn ? `\x1b[${this.drawn}A\x1b[J` : '';
    text += [...lines, ...commands].map((l) => `\x1b[2K${l}`).join('\n') + '\n';
    this.out.write(text);
    this.drawn = lines.length + commands.reduce((n, l) => n + Math.max(1, Math.ceil(l.length / width)), 0);
  }

  /** For each step awaiting approval, the commands that decide it (`--step` only when several wait). */
  private decisionLines(): string[] {
    const waiting = [...this.rows.values()].filter((r) => r.status === 'awaiting approval');
    return waiting.map((r) => {
      const step = waiting.length > 1 ? ` --step ${shellQuote(r.step)}` : '';
      return `  ${r.step}: baton approve ${this.runId}${step}${this.db}   or   baton reject ${this.runId}${step}${this.db} --feedback TEXT`;
    });
  }

  /** Stops redrawing. */
  close(): void {
    clearInterval(this.timer);
  }
}
