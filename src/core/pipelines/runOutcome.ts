// How a spawned run ended, from what its output said and how its process exited: one pure function, so every
// runner reports status, error, usage and cost the same way.
import type { AgentRunResult, TokenPrice } from './runner.js';
import { priceUsage } from './runner.js';
import type { StreamOutcome } from './streams/streamParser.js';

/** How the process ended. */
export interface ProcessEnd {
  /** `exited`: on its own; `aborted` / `timeout`: Baton killed its process group. */
  ended: 'exited' | 'aborted' | 'timeout';
  exitCode: number | null;
  signal: string | null;
  stderr: string;
  durationMs: number;
  timeoutMs?: number;
}

/** The run's result. `cli` names the program in messages. */
export function settleRun(cli: string, outcome: StreamOutcome, end: ProcessEnd, price?: TokenPrice): AgentRunResult {
  const status = end.ended === 'exited'
    ? (end.exitCode === 0 && outcome.failure === null && outcome.finished ? 'completed' : 'failed')
    : end.ended;
  // A CLI that bills $0 for tokens it used has no price for the model (opencode on a provider of your own): the
  // agent's price, when it has one, says more.
  const unpriced = outcome.costUsd === 0 && price !== undefined && outcome.usage.input + outcome.usage.output > 0;
  const cliCost = unpriced ? null : outcome.costUsd;
  const costUsd = cliCost ?? (price ? priceUsage(outcome.usage, price) : null);
  return {
    status,
    text: outcome.text,
    usage: outcome.usage,
    costUsd,
    costSource: cliCost !== null ? 'cli' : costUsd !== null ? 'price' : null,
    toolCalls: outcome.toolCalls,
    malformedLines: outcome.malformedLines,
    error: status === 'completed' ? null : failureMessage(cli, outcome, end),
    exitCode: end.exitCode,
    sessionId: outcome.sessionId,
    durationMs: end.durationMs,
    stderr: end.stderr,
  };
}

function failureMessage(cli: string, outcome: StreamOutcome, end: ProcessEnd): string {
  if (end.ended === 'timeout') {
    return `${cli} did not finish within ${formatSeconds(end.timeoutMs ?? end.durationMs)}; its process group was killed`;
  }
  if (end.ended === 'aborted') return `the run was aborted; ${cli}'s process group was killed`;
  const parts: string[] = [];
  if (end.signal) parts.push(`${cli} was killed by ${end.signal}`);
  else if (end.exitCode !== 0) parts.push(`${cli} exited with code ${end.exitCode}`);
  if (outcome.failure) parts.push(outcome.failure);
  else if (!outcome.finished) parts.push(`${cli} ended without its final event`);
  const hint = lastLines(end.stderr);
  if (hint && (end.exitCode !== 0 || end.signal)) parts.push(`stderr: ${hint}`);
  return parts.join(': ') || `${cli} failed`;
}

/** A line that says what went wrong (`Error: Cannot find module …`, `fatal: …`), not a frame of a stack. */
const ERROR_LINE = /^(?:\w*(?:Error|Exception)\b|error\b|fatal\b|panic\b|npm ERR!)|\b(?:not found|No such file|permission denied|cannot|could not)\b/i;

/**
 * The last non-empty lines of stderr, after the first line that says what went wrong when it comes before them (Node
 * prints `Error: Cannot find module …` above its stack and ends with `Node.js v20…`), at most 500 characters.
 */
function lastLines(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const last = lines.slice(-3);
  const error = lines.slice(0, -3).find((l) => ERROR_LINE.test(l) && !/^at\s/.test(l));
  const tail = (error ? [error.slice(0, 300), '…', ...last] : last).join(' | ');
  return tail.length > 500 ? `…${tail.slice(-500)}` : tail;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
