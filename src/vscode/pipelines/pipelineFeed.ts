// What streams from the runs this editor drives, kept per run and step so that a panel opened mid-run (or after a
// reload of the webview) shows the output so far: the text's tail, the tool calls, the live tokens. Bounded; pure.
import { appendStreamed, pushToolCall } from '../../core/pipelines/streamedText.js';
import type { PipelineProgress } from '../../core/pipelines/types.js';

/** The streamed state of one step instance. */
export interface StepFeed {
  text: string;
  toolCalls: string[];
  /** Tokens reported while the step runs (the CLIs' running totals). */
  tokens: number;
}

/** Characters of streamed text kept per step (the tail). */
export const FEED_TEXT_CHARS = 16_000;
/** Tool calls kept per step. */
export const FEED_TOOL_CALLS = 100;
/** Runs kept (the most recently active). */
export const FEED_RUNS = 20;

/** The feed of every run driven here; listeners hear which run changed. */
export class PipelineFeed {
  private readonly runs = new Map<string, Map<string, StepFeed>>();
  private readonly listeners = new Set<(runId: string) => void>();

  /** Takes one progress event. */
  add(p: PipelineProgress): void {
    const steps = this.stepsOf(p.runId);
    if (p.type === 'step_started') steps.set(p.step, { text: '', toolCalls: [], tokens: 0 });
    else if (p.type === 'step_output' || p.type === 'step_tool_call' || p.type === 'step_usage') {
      const s = steps.get(p.step) ?? { text: '', toolCalls: [], tokens: 0 };
      steps.set(p.step, s);
      if (p.type === 'step_output') s.text = appendStreamed(s.text, p.text, p.delta === true, FEED_TEXT_CHARS);
      else if (p.type === 'step_tool_call') pushToolCall(s.toolCalls, p.name, p.server, FEED_TOOL_CALLS);
      else s.tokens = p.usage.input + p.usage.output;
    }
    for (const l of [...this.listeners]) l(p.runId);
  }

  /** The streamed state of a run's step, if any streamed here. */
  step(runId: string, step: string): StepFeed | undefined {
    return this.runs.get(runId)?.get(step);
  }

  /** Hears the id of each run that changed; returns the unsubscribe. */
  onChange(listener: (runId: string) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private stepsOf(runId: string): Map<string, StepFeed> {
    let steps = this.runs.get(runId);
    if (steps) {
      // Most recently active last, so the oldest is dropped first.
      this.runs.delete(runId);
    } else {
      steps = new Map();
    }
    this.runs.set(runId, steps);
    if (this.runs.size > FEED_RUNS) this.runs.delete(this.runs.keys().next().value!);
    return steps;
  }
}
