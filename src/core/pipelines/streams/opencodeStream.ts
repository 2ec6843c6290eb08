// opencode `run --format json`: each line carries a `part`: `step_start`, `text`, `tool_use` (the call and its result
// at once), `step_finish` with the step's tokens and cost, and `error`. There is no final event: the answer is the
// last text, the usage and cost the sums over the steps.
import type { AgentRunEvent } from '../runner.js';
import { addUsage } from '../runner.js';
import { count, field, isRecord, JsonLinesParser, toolOutput, type ParserOptions } from './streamParser.js';

/** Parses opencode's JSON output. */
export class OpencodeStreamParser extends JsonLinesParser {
  constructor(options: ParserOptions = {}) {
    super('opencode', null, options);
  }

  protected event(e: Record<string, unknown>): AgentRunEvent[] {
    if (typeof e.sessionID === 'string') this.sessionId = e.sessionID;
    switch (e.type) {
      case 'text': {
        const text = field(field(e, 'part', 'object'), 'text', 'string');
        this.text = text;
        return [{ type: 'text', text }];
      }
      case 'tool_use':
        return this.toolUse(field(e, 'part', 'object'));
      case 'step_finish':
        return this.stepFinish(field(e, 'part', 'object'));
      case 'error': {
        const error = field(e, 'error', 'object', true);
        const data = error && isRecord(error.data) ? error.data : undefined;
        const message = (typeof data?.message === 'string' ? data.message : undefined) ?? (typeof error?.name === 'string' ? error.name : 'an error');
        this.failure = `opencode: ${message}`;
        return [{ type: 'error', message: this.failure }];
      }
      default:
        return [];
    }
  }

  private toolUse(part: Record<string, unknown>): AgentRunEvent[] {
    const raw = field(part, 'tool', 'string');
    const id = field(part, 'callID', 'string', true) ?? null;
    const state = field(part, 'state', 'object');
    const status = field(state, 'status', 'string');
    const { name, server } = this.splitName(raw, `${this.server}_`);
    const events: AgentRunEvent[] = [this.toolCall(id, name, server, state.input ?? {})];
    if (status === 'completed' || status === 'error') {
      const output = status === 'error' ? field(state, 'error', 'string', true) ?? 'failed' : state.output;
      events.push({ type: 'tool_result', id, name, output: toolOutput(output), isError: status === 'error' });
    }
    return events;
  }

  private stepFinish(part: Record<string, unknown>): AgentRunEvent[] {
    const events: AgentRunEvent[] = [];
    const tokens = field(part, 'tokens', 'object', true);
    if (tokens) {
      // opencode counts input without the cache and output without the reasoning; Baton's usage includes both.
      const cache = field(tokens, 'cache', 'object', true);
      const cacheRead = count(cache, 'read');
      const reasoning = count(tokens, 'reasoning');
      this.usage = addUsage(this.usage, {
        input: count(tokens, 'input') + cacheRead + count(cache, 'write'),
        cached: cacheRead,
        output: count(tokens, 'output') + reasoning,
        reasoning,
      });
      events.push({ type: 'usage', usage: this.usage });
    }
    const cost = field(part, 'cost', 'number', true);
    if (cost !== undefined) {
      this.costUsd = (this.costUsd ?? 0) + cost;
      events.push({ type: 'cost', usd: this.costUsd });
    }
    return events;
  }
}
