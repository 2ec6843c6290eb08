// The `command` runner's output: any executable's standard output is its answer, line by line. A program that wants
// to report more prints JSON lines of Baton's simple format (one object a line, anywhere among its text):
//   {"type":"text","text":"…"}                                 some of the answer
//   {"type":"tool_call","name":"…","input":{…},"id":"…"}       a tool it called (id optional)
//   {"type":"tool_result","output":"…","is_error":false,"id":"…","name":"…"}
//   {"type":"usage","input":12,"output":3,"cached":0,"reasoning":0}   tokens, added up
//   {"type":"cost","usd":0.002}                                US dollars, added up
//   {"type":"error","message":"…"}                             a problem worth reporting
//   {"type":"result","text":"…","is_error":false}              the final answer (else: all text lines)
// A line that starts like such an object (`{"type":`) but is not valid is reported as malformed; any other line,
// JSON or not, is text.
import type { AgentRunEvent } from '../runner.js';
import { addUsage, ZERO_USAGE } from '../runner.js';
import { count, field, isRecord, MAX_ERROR_LINE_CHARS, ShapeError, type StreamOutcome, type StreamParser } from './streamParser.js';

const EVENT_START = /^\{\s*"type"\s*:/;
const KNOWN = new Set(['text', 'tool_call', 'tool_result', 'usage', 'cost', 'error', 'result']);

/** Parses a `command` runner's output. */
export class CommandStreamParser implements StreamParser {
  private readonly lines: string[] = [];
  private resultText: string | null = null;
  private usage = ZERO_USAGE;
  private costUsd: number | null = null;
  private failure: string | null = null;
  private toolCalls = 0;
  private malformed = 0;

  line(text: string, flags: { last?: boolean; overlong?: boolean } = {}): AgentRunEvent[] {
    if (flags.overlong) return this.bad('command: a line longer than the limit was dropped', text);
    const trimmed = text.trim();
    if (!EVENT_START.test(trimmed)) return this.plain(text);
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      return this.bad(`command: ${flags.last ? 'the output ended in the middle of an event line (truncated)' : 'an event line that is not valid JSON'}`, text);
    }
    if (!isRecord(value) || typeof value.type !== 'string' || !KNOWN.has(value.type)) return this.plain(text);
    try {
      return this.event(value);
    } catch (ex) {
      if (!(ex instanceof ShapeError)) throw ex;
      return this.bad(`command: unexpected "${String(value.type)}" event (${ex.message})`, text);
    }
  }

  end(): AgentRunEvent[] {
    return [];
  }

  outcome(): StreamOutcome {
    return {
      text: this.resultText ?? this.lines.join('\n'), usage: this.usage, costUsd: this.costUsd, failure: this.failure, finished: true,
      sessionId: null, toolCalls: this.toolCalls, malformedLines: this.malformed,
    };
  }

  private event(e: Record<string, unknown>): AgentRunEvent[] {
    switch (e.type) {
      case 'text': {
        const text = field(e, 'text', 'string');
        this.lines.push(text);
        return [{ type: 'text', text }];
      }
      case 'tool_call':
        this.toolCalls++;
        return [{ type: 'tool_call', id: field(e, 'id', 'string', true) ?? null, name: field(e, 'name', 'string'), server: field(e, 'server', 'string', true) ?? null, input: e.input ?? {} }];
      case 'tool_result':
        return [{
          type: 'tool_result', id: field(e, 'id', 'string', true) ?? null, name: field(e, 'name', 'string', true) ?? null,
          output: field(e, 'output', 'string'), isError: field(e, 'is_error', 'boolean', true) ?? false,
        }];
      case 'usage':
        this.usage = addUsage(this.usage, { input: count(e, 'input'), output: count(e, 'output'), cached: count(e, 'cached'), reasoning: count(e, 'reasoning') });
        return [{ type: 'usage', usage: this.usage }];
      case 'cost':
        this.costUsd = (this.costUsd ?? 0) + count(e, 'usd');
        return [{ type: 'cost', usd: this.costUsd }];
      case 'error':
        return [{ type: 'error', message: `command: ${field(e, 'message', 'string')}` }];
      default: {
        this.resultText = field(e, 'text', 'string');
        if (field(e, 'is_error', 'boolean', true)) this.failure = this.resultText || 'the command reported an error';
        return [];
      }
    }
  }

  private plain(text: string): AgentRunEvent[] {
    this.lines.push(text);
    return text === '' ? [] : [{ type: 'text', text }];
  }

  private bad(message: string, line: string): AgentRunEvent[] {
    this.malformed++;
    return [{ type: 'error', message, line: line.length > MAX_ERROR_LINE_CHARS ? `${line.slice(0, MAX_ERROR_LINE_CHARS)}…` : line }];
  }
}
