// gemini `-o stream-json`: `init`, `message` (user / assistant, the assistant's in deltas), `tool_use`,
// `tool_result`, `error`, and a final `result` with the token stats (gemini reports no cost).
import type { AgentRunEvent } from '../runner.js';
import { count, field, JsonLinesParser, toolOutput, type ParserOptions } from './streamParser.js';

/** Parses gemini's stream-json output. */
export class GeminiStreamParser extends JsonLinesParser {
  private readonly toolNames = new Map<string, string>();
  /** The assistant's text since the last tool result: its answer. */
  private turnText = '';

  constructor(options: ParserOptions = {}) {
    super('gemini', 'result', options);
  }

  protected event(e: Record<string, unknown>): AgentRunEvent[] {
    switch (e.type) {
      case 'init':
        this.sessionId = field(e, 'session_id', 'string', true) ?? this.sessionId;
        return [];
      case 'message': {
        if (field(e, 'role', 'string') !== 'assistant') return [];
        const text = field(e, 'content', 'string');
        this.turnText = e.delta === true ? this.turnText + text : text;
        this.text = this.turnText;
        if (text === '') return [];
        return [e.delta === true ? { type: 'text', text, delta: true } : { type: 'text', text }];
      }
      case 'tool_use': {
        const raw = field(e, 'tool_name', 'string');
        const id = field(e, 'tool_id', 'string');
        this.toolNames.set(id, raw);
        const { name, server } = this.splitName(raw, `mcp_${this.server}_`);
        return [this.toolCall(id, name, server, e.parameters ?? {})];
      }
      case 'tool_result': {
        const id = field(e, 'tool_id', 'string');
        const raw = this.toolNames.get(id);
        const error = field(e, 'error', 'object', true);
        const output = field(e, 'output', 'string', true) ?? (error && typeof error.message === 'string' ? error.message : '');
        this.turnText = '';
        return [{
          type: 'tool_result', id, name: raw ? this.splitName(raw, `mcp_${this.server}_`).name : null,
          output: toolOutput(output), isError: field(e, 'status', 'string') !== 'success',
        }];
      }
      case 'error':
        return [{ type: 'error', message: `gemini: ${field(e, 'message', 'string')}` }];
      case 'result':
        return this.result(e);
      default:
        return [];
    }
  }

  private result(e: Record<string, unknown>): AgentRunEvent[] {
    this.markFinished();
    const status = field(e, 'status', 'string');
    if (status !== 'success') {
      const error = field(e, 'error', 'object', true);
      this.failure = error && typeof error.message === 'string' ? error.message : `gemini ended with status ${status}`;
    }
    const stats = field(e, 'stats', 'object', true);
    if (!stats) return [];
    const input = count(stats, 'input_tokens');
    const output = count(stats, 'output_tokens');
    // `output_tokens` leaves out the model's thoughts; they are what the total has beyond input and output.
    const thoughts = Math.max(0, count(stats, 'total_tokens') - input - output);
    this.usage = { input, output: output + thoughts, cached: count(stats, 'cached'), reasoning: thoughts };
    return [{ type: 'usage', usage: this.usage }];
  }
}
