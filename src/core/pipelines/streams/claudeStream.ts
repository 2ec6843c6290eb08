// claude `-p --output-format stream-json --verbose`: `system/init`, `assistant` messages (text, tool_use), `user`
// messages (tool_result), and a final `result` with the answer, the usage and the cost in US dollars.
import type { AgentRunEvent } from '../runner.js';
import { contentText, count, field, isRecord, JsonLinesParser, ShapeError, toolOutput, type ParserOptions } from './streamParser.js';

/** Parses claude's stream-json output. */
export class ClaudeStreamParser extends JsonLinesParser {
  private readonly toolNames = new Map<string, string>();
  private lastText = '';

  constructor(options: ParserOptions = {}) {
    super('claude', 'result', options);
  }

  protected event(e: Record<string, unknown>): AgentRunEvent[] {
    switch (e.type) {
      case 'system':
        return this.system(e);
      case 'assistant':
        return this.assistant(field(e, 'message', 'object'));
      case 'user':
        return this.user(field(e, 'message', 'object'));
      case 'result':
        return this.result(e);
      default:
        return [];
    }
  }

  private system(e: Record<string, unknown>): AgentRunEvent[] {
    if (e.subtype !== 'init') return [];
    this.sessionId = field(e, 'session_id', 'string', true) ?? this.sessionId;
    const servers = field(e, 'mcp_servers', 'array', true) ?? [];
    const ours = servers.find((s) => isRecord(s) && s.name === this.server);
    if (isRecord(ours) && ours.status !== 'connected') {
      return [{ type: 'error', message: `claude could not connect to Baton's MCP server "${this.server}" (status: ${String(ours.status)})` }];
    }
    return [];
  }

  private assistant(message: Record<string, unknown>): AgentRunEvent[] {
    const events: AgentRunEvent[] = [];
    for (const block of field(message, 'content', 'array')) {
      if (!isRecord(block)) throw new ShapeError('a content block is not an object');
      if (block.type === 'text') {
        const text = field(block, 'text', 'string');
        this.lastText = text;
        events.push({ type: 'text', text });
      } else if (block.type === 'tool_use') {
        const raw = field(block, 'name', 'string');
        const id = field(block, 'id', 'string');
        this.toolNames.set(id, raw);
        const { name, server } = this.splitName(raw, `mcp__${this.server}__`);
        events.push(this.toolCall(id, name, server, block.input ?? {}));
      }
    }
    return events;
  }

  private user(message: Record<string, unknown>): AgentRunEvent[] {
    const content = message.content;
    if (!Array.isArray(content)) return [];
    const events: AgentRunEvent[] = [];
    for (const block of content) {
      if (!isRecord(block) || block.type !== 'tool_result') continue;
      const id = field(block, 'tool_use_id', 'string');
      const raw = this.toolNames.get(id);
      events.push({
        type: 'tool_result', id, name: raw ? this.splitName(raw, `mcp__${this.server}__`).name : null,
        output: toolOutput(contentText(block.content)), isError: block.is_error === true,
      });
    }
    return events;
  }

  private result(e: Record<string, unknown>): AgentRunEvent[] {
    this.markFinished();
    this.sessionId = field(e, 'session_id', 'string', true) ?? this.sessionId;
    const answer = field(e, 'result', 'string', true);
    this.text = answer ?? this.lastText;
    const events: AgentRunEvent[] = [];
    const usage = field(e, 'usage', 'object', true);
    if (usage) {
      const cacheRead = count(usage, 'cache_read_input_tokens');
      const details = field(usage, 'output_tokens_details', 'object', true);
      this.usage = {
        input: count(usage, 'input_tokens') + count(usage, 'cache_creation_input_tokens') + cacheRead,
        output: count(usage, 'output_tokens'),
        cached: cacheRead,
        reasoning: count(details, 'thinking_tokens'),
      };
      events.push({ type: 'usage', usage: this.usage });
    }
    const cost = field(e, 'total_cost_usd', 'number', true);
    if (cost !== undefined) {
      this.costUsd = cost;
      events.push({ type: 'cost', usd: cost });
    }
    for (const denial of field(e, 'permission_denials', 'array', true) ?? []) {
      const tool = isRecord(denial) && typeof denial.tool_name === 'string' ? denial.tool_name : 'a tool';
      events.push({ type: 'error', message: `claude denied ${tool} (not in allowedTools)` });
    }
    if (e.is_error === true || (typeof e.subtype === 'string' && e.subtype !== 'success')) {
      this.failure = answer || `claude ended with ${String(e.subtype ?? 'an error')}`;
    }
    return events;
  }
}
