// What the status bar says about the active execution. No 'vscode' import (unit-tested).
import type { ExecutionSummary } from '../core/api.js';

/** The status bar's text, tooltip and the execution a click opens; undefined hides the item. */
export interface StatusBarView {
  text: string;
  tooltip: string;
  executionId: string;
}

const ACTIVE = new Set(['pending', 'running', 'paused', 'timeout', 'escalated', 'awaiting_approval']);

/** A gate waiting for a person wins; otherwise the most recently updated running execution. */
export function statusBarView(executions: ExecutionSummary[]): StatusBarView | undefined {
  const active = executions.filter((e) => ACTIVE.has(e.status)).sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  const gated = active.find((e) => e.steps.some((s) => s.status === 'awaiting_approval'));
  if (gated) {
    const step = gated.steps.find((s) => s.status === 'awaiting_approval')!.step_name;
    return {
      text: `$(bell) Baton: ${step} awaiting approval`,
      tooltip: `${gated.workflow ?? gated.kind}: "${step}" waits for your approval. Click to open the execution.`,
      executionId: gated.execution_id,
    };
  }
  const current = active[0];
  if (!current) return undefined;
  const running = current.steps.filter((s) => s.status === 'running').map((s) => s.step_name);
  const step = current.current_step ?? running[0] ?? current.status;
  return {
    text: `$(sync~spin) Baton: ${step} · ${Math.round(current.progress)}%`,
    tooltip: `${current.workflow ?? current.kind}: ${running.length ? `running ${running.join(', ')}` : current.status.replace(/_/g, ' ')}` +
      `${active.length > 1 ? ` (${active.length} active executions)` : ''}. Click to open the execution.`,
    executionId: current.execution_id,
  };
}
