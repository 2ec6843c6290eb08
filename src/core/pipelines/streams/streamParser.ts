// The common part of the stream parsers: one JSON object a line in, AgentRunEvents out. A line that is not JSON, or
// whose known event has an unexpected shape, becomes an `error` event carrying the line; parsing goes on. Unknown
// event types are skipped (CLIs add new ones). A format with a final event reports output that ended without it.
import type { AgentRunEvent, TokenUsage } from '../runner.js';
import { ZERO_USAGE } from '../runner.js';

/** What a CLI's output said about the run as a whole. */
export interface StreamOutcome {
  /** The agent's final answer. */
  text: string;
  usage: TokenUsage;
  /** As the CLI reported it; null when it reports none. */
  costUsd: number | null;
  /** The CLI's own verdict that the run failed, in its words; null when it did not say so. */
  failure: string | null;
  /** The format's final event was seen (always true for formats without one). */
  finished: boolean;
  sessionId: string | null;
  toolCalls: number;
  malformedLines: number;
}

/** Parses one CLI's output format. */
export interface StreamParser {
  /** Events for one line of output (without its newline); `last`: the output ended without a newline after it. */
  line(text: string, flags?: { last?: boolean; overlong?: boolean }): AgentRunEvent[];
  /** Events once the output has ended (e.g. a missing final event). */
  end(): AgentRunEvent[];
  /** What the output said so far. */
  outcome(): StreamOutcome;
}

/** Options every parser takes. */
export interface ParserOptions {
  /** The name Baton's MCP server has in the CLI's configuration (to strip the CLI's tool-name prefix); `baton` unless set. */
  mcpServer?: string;
}

/** Tool output kept in a `tool_result` event, at most. */
export const MAX_TOOL_OUTPUT_CHARS = 16_000;
/** Characters of a malformed line kept in its `error` event, at most. */
export const MAX_ERROR_LINE_CHARS = 2_000;

/** A field of a known event had the wrong type. */
export class ShapeError extends Error {}

/** The base of the JSON-lines parsers. */
export abstract class JsonLinesParser implements StreamParser {
  protected text = '';
  protected usage: TokenUsage = ZERO_USAGE;
  protected costUsd: number | null = null;
  protected failure: string | null = null;
  protected finished = false;
  protected sessionId: string | null = null;
  protected toolCalls = 0;
  private malformed = 0;
  protected readonly server: string;

  /** `cli` names the CLI in messages; `finalEvent` is the event that ends its output, if the format has one. */
  constructor(protected readonly cli: string, private readonly finalEvent: string | null, options: ParserOptions = {}) {
    this.server = options.mcpServer ?? 'baton';
    if (finalEvent === null) this.finished = true;
  }

  line(text: string, flags: { last?: boolean; overlong?: boolean } = {}): AgentRunEvent[] {
    if (flags.overlong) return this.malformedLine(`${this.cli} printed a line longer than the limit; it was dropped`, text);
    const trimmed = text.trim();
    if (trimmed === '') return [];
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      const why = flags.last ? 'the output ended in the middle of a line (truncated)' : 'a line that is not JSON';
      return this.malformedLine(`${this.cli}: ${why}`, text);
    }
    if (!isRecord(value)) return this.malformedLine(`${this.cli}: a line that is not a JSON object`, text);
    try {
      return this.event(value);
    } catch (ex) {
      if (!(ex instanceof ShapeError)) throw ex;
      return this.malformedLine(`${this.cli}: unexpected event shape (${ex.message})`, text);
    }
  }

  end(): AgentRunEvent[] {
    const events = this.atEnd();
    if (!this.finished) {
      events.push({ type: 'error', message: `${this.cli}: the output ended before its final "${this.finalEvent}" event (the run was cut short)` });
    }
    return events;
  }

  outcome(): StreamOutcome {
    return {
      text: this.text, usage: this.usage, costUsd: this.costUsd, failure: this.failure, finished: this.finished,
      sessionId: this.sessionId, toolCalls: this.toolCalls, malformedLines: this.malformed,
    };
  }

  /** Events for one parsed line; throws ShapeError for a known event with a wrong shape. */
  protected abstract event(e: Record<string, unknown>): AgentRunEvent[];

  /** Events when the output ends, before the missing-final-event check. */
  protected atEnd(): AgentRunEvent[] {
    return [];
  }

  /** Marks the final event as seen. */
  protected markFinished(): void {
    this.finished = true;
  }

  /** A tool call event (counted). */
  protected toolCall(id: string | null, name: string, server: string | null, input: unknown): AgentRunEvent {
    this.toolCalls++;
    return { type: 'tool_call', id, name, server, input };
  }

  /** Splits a CLI's tool name (`mcp__baton__x`, `mcp_baton_x`, `baton_x`) into Baton's tool and server. */
  protected splitName(raw: string, prefix: string): { name: string; server: string | null } {
    return raw.startsWith(prefix) && raw.length > prefix.length ? { name: raw.slice(prefix.length), server: this.server } : { name: raw, server: null };
  }

  private malformedLine(message: string, line: string): AgentRunEvent[] {
    this.malformed++;
    return [{ type: 'error', message, line: line.length > MAX_ERROR_LINE_CHARS ? `${line.slice(0, MAX_ERROR_LINE_CHARS)}…` : line }];
  }
}

/** Whether `x` is a plain JSON object. */
export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** `e[key]` of the given JSON type; a ShapeError when it is something else, or missing and not `optional`. */
export function field<T extends JsonType>(e: Record<string, unknown>, key: string, type: T): FieldType<T>;
export function field<T extends JsonType>(e: Record<string, unknown>, key: string, type: T, optional: true): FieldType<T> | undefined;
export function field<T extends JsonType>(e: Record<string, unknown>, key: string, type: T, optional = false): FieldType<T> | undefined {
  const v = e[key];
  if (v === undefined || v === null) {
    if (optional) return undefined;
    throw new ShapeError(`"${key}" is missing`);
  }
  const ok = type === 'array' ? Array.isArray(v) : type === 'object' ? isRecord(v) : typeof v === type;
  if (!ok) throw new ShapeError(`"${key}" is not ${type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`}`);
  return v as FieldType<T>;
}

type JsonType = 'string' | 'number' | 'boolean' | 'object' | 'array';
type FieldType<T> = T extends 'string' ? string : T extends 'number' ? number : T extends 'boolean' ? boolean
  : T extends 'object' ? Record<string, unknown> : unknown[];

/** A count from a usage object: a non-negative number, 0 when absent. */
export function count(e: Record<string, unknown> | undefined, key: string): number {
  const v = e?.[key];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new ShapeError(`"${key}" is not a token count`);
  return v;
}

/** Tool output for an event: text as is, anything else as JSON, cut at MAX_TOOL_OUTPUT_CHARS. */
export function toolOutput(value: unknown): string {
  const text = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
  return text.length > MAX_TOOL_OUTPUT_CHARS ? `${text.slice(0, MAX_TOOL_OUTPUT_CHARS)}…` : text;
}

/** The text of MCP-style content (`[{type:"text",text}]` or a string). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return toolOutput(content);
  return content
    .map((c) => (isRecord(c) && typeof c.text === 'string' ? c.text : isRecord(c) && isRecord(c.text) && typeof c.text.text === 'string' ? c.text.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}
