// cursor-agent `-p --output-format stream-json` (its documented format): `system/init`, `user`, `thinking`,
// `assistant` (one line per message), `tool_call` started / completed (`{"mcpToolCall": {args, result}}`,
// `{"readToolCall": …}`, …), and a final `result` with the answer (and, in recent versions, the usage; no cost).
import type { AgentRunEvent } from '../runner.js';
import { contentText, count, field, isRecord, JsonLinesParser, ShapeError, toolOutput, type ParserOptions } from './streamParser.js';

/** Parses cursor-agent's stream-json output. */
export class CursorStreamParser extends JsonLinesParser {
  private readonly announced = new Set<string>();
  private lastText = '';

  constructor(options: ParserOptions = {}) {
    super('cursor-agent', 'result', options);
  }

  protected event(e: Record<string, unknown>): AgentRunEvent[] {
    switch (e.type) {
      case 'system':
        this.sessionId = field(e, 'session_id', 'string', true) ?? this.sessionId;
        return [];
      case 'assistant': {
        const text = contentText(field(field(e, 'message', 'object'), 'content', 'array'));
        if (text === '') return [];
        this.lastText = text;
        return [{ type: 'text', text }];
      }
      case 'tool_call':
        return this.toolCallEvent(e);
      case 'result':
        return this.result(e);
      default:
        return [];
    }
  }

  private toolCallEvent(e: Record<string, unknown>): AgentRunEvent[] {
    const id = field(e, 'call_id', 'string');
    const call = field(e, 'tool_call', 'object');
    const kind = Object.keys(call).find((k) => k.endsWith('ToolCall') || k === 'function');
    if (!kind || !isRecord(call[kind])) throw new ShapeError('"tool_call" names no tool');
    const body = call[kind] as Record<string, unknown>;
    const args = field(body, 'args', 'object', true) ?? {};
    let name: string;
    let server: string | null = null;
    let input: unknown = args;
    if (kind === 'mcpToolCall') {
      name = (typeof args.toolName === 'string' ? args.toolName : undefined) ?? (typeof args.name === 'string' ? args.name : 'mcp');
      server = typeof args.providerIdentifier === 'string' ? args.providerIdentifier : typeof args.serverIdentifier === 'string' ? args.serverIdentifier : null;
      input = args.args ?? args.arguments ?? {};
    } else if (kind === 'function') {
      name = field(body, 'name', 'string');
      input = body.arguments ?? {};
    } else {
      name = kind.slice(0, -'ToolCall'.length);
    }
    const events: AgentRunEvent[] = [];
    if (!this.announced.has(id)) {
      this.announced.add(id);
      events.push(this.toolCall(id, name, server, input));
    }
    if (e.subtype === 'completed') {
      const result = field(body, 'result', 'object', true);
      const success = result && isRecord(result.success) ? result.success : undefined;
      const failed = !success || success.isError === true;
      const output = success
        ? (success.content !== undefined ? contentText(success.content) : toolOutput(success))
        : toolOutput(result?.error ?? result?.failure ?? result ?? '');
      events.push({ type: 'tool_result', id, name, output: toolOutput(output), isError: failed });
    }
    return events;
  }

  private result(e: Record<string, unknown>): AgentRunEvent[] {
    this.markFinished();
    this.sessionId = field(e, 'session_id', 'string', true) ?? this.sessionId;
    const answer = field(e, 'result', 'string', true);
    this.text = answer ?? this.lastText;
    if (e.is_error === true || (typeof e.subtype === 'string' && e.subtype !== 'success')) {
      this.failure = answer || `cursor-agent ended with ${String(e.subtype ?? 'an error')}`;
    }
    const usage = field(e, 'usage', 'object', true);
    if (!usage) return [];
    const cacheRead = count(usage, 'cacheReadTokens');
    this.usage = {
      input: count(usage, 'inputTokens') + cacheRead + count(usage, 'cacheWriteTokens'),
      output: count(usage, 'outputTokens'),
      cached: cacheRead,
      reasoning: 0,
    };
    return [{ type: 'usage', usage: this.usage }];
  }
}
