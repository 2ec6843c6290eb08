// codex `exec --json`: `thread.started`, `turn.started`, `item.started` / `item.completed` (mcp_tool_call,
// command_execution, agent_message, …), and `turn.completed` with the usage (codex reports no cost) or `turn.failed`.
import type { AgentRunEvent } from '../runner.js';
import { addUsage } from '../runner.js';
import { contentText, count, field, isRecord, JsonLinesParser, toolOutput, type ParserOptions } from './streamParser.js';

/** Parses codex's JSON-lines output. */
export class CodexStreamParser extends JsonLinesParser {
  private readonly announced = new Set<string>();
  private lastError: string | null = null;

  constructor(options: ParserOptions = {}) {
    super('codex', 'turn.completed', options);
  }

  protected event(e: Record<string, unknown>): AgentRunEvent[] {
    switch (e.type) {
      case 'thread.started':
        this.sessionId = field(e, 'thread_id', 'string', true) ?? this.sessionId;
        return [];
      case 'item.started':
      case 'item.completed':
        return this.item(field(e, 'item', 'object'), e.type === 'item.completed');
      case 'turn.completed':
        return this.turnCompleted(e);
      case 'turn.failed': {
        this.markFinished();
        const error = field(e, 'error', 'object', true);
        this.failure = (error && typeof error.message === 'string' ? error.message : null) ?? this.lastError ?? 'codex reported a failed turn';
        return [];
      }
      case 'error': {
        const message = field(e, 'message', 'string');
        this.lastError = message;
        return [{ type: 'error', message: `codex: ${message}` }];
      }
      default:
        return [];
    }
  }

  private item(item: Record<string, unknown>, completed: boolean): AgentRunEvent[] {
    const id = field(item, 'id', 'string');
    switch (item.type) {
      case 'mcp_tool_call': {
        const tool = field(item, 'tool', 'string');
        const server = field(item, 'server', 'string');
        const events = this.announce(id, tool, server, item.arguments ?? {});
        if (!completed) return events;
        const error = field(item, 'error', 'object', true);
        const result = field(item, 'result', 'object', true);
        const output = error && typeof error.message === 'string' ? error.message : contentText(result?.content);
        const isError = Boolean(error) || item.status === 'failed' || result?.isError === true;
        return [...events, { type: 'tool_result', id, name: tool, output: toolOutput(output), isError }];
      }
      case 'command_execution': {
        const events = this.announce(id, 'shell', null, { command: field(item, 'command', 'string') });
        if (!completed) return events;
        const exit = field(item, 'exit_code', 'number', true);
        const output = toolOutput(field(item, 'aggregated_output', 'string', true) ?? '');
        return [...events, { type: 'tool_result', id, name: 'shell', output, isError: item.status === 'failed' || (exit !== undefined && exit !== 0) }];
      }
      case 'agent_message': {
        if (!completed) return [];
        const text = field(item, 'text', 'string');
        this.text = text;
        return [{ type: 'text', text }];
      }
      default:
        return [];
    }
  }

  /** The tool_call event, once per item (a fast call may arrive completed without having been started). */
  private announce(id: string, name: string, server: string | null, input: unknown): AgentRunEvent[] {
    if (this.announced.has(id)) return [];
    this.announced.add(id);
    return [this.toolCall(id, name, server, input)];
  }

  private turnCompleted(e: Record<string, unknown>): AgentRunEvent[] {
    this.markFinished();
    const usage = field(e, 'usage', 'object', true);
    if (!usage || !isRecord(usage)) return [];
    this.usage = addUsage(this.usage, {
      input: count(usage, 'input_tokens'),
      cached: count(usage, 'cached_input_tokens'),
      output: count(usage, 'output_tokens'),
      reasoning: count(usage, 'reasoning_output_tokens'),
    });
    return [{ type: 'usage', usage: this.usage }];
  }
}
