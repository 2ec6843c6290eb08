// The `vscode-lm` runner: an agent step run by one of the editor's language models (`vscode.lm`), with Baton's MCP
// tools offered to it. The runner is the MCP client (the run's token, so the tools are scoped to the run and agent):
// it lists the tools, hands them to the model, calls the ones the model asks for and feeds the results back, until
// the model answers without a tool call. Tokens are counted with the model's own `countTokens`.
import type * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BatonError } from '../core/errors.js';
import { RunEventQueue } from '../core/pipelines/runEvents.js';
import type { AgentRun, AgentRunner, AgentRunRequest, AgentRunResult, AgentRunStatus, McpEndpoint, TokenUsage } from '../core/pipelines/runner.js';
import { addUsage, priceUsage, ZERO_USAGE } from '../core/pipelines/runner.js';
import { MAX_TOOL_OUTPUT_CHARS } from '../core/pipelines/streams/streamParser.js';

/** The part of the `vscode` namespace the runner uses (a fake in unit tests). */
export type LmVscode = Pick<
  typeof vscode,
  'lm' | 'LanguageModelChatMessage' | 'LanguageModelTextPart' | 'LanguageModelToolCallPart' | 'LanguageModelToolResultPart' | 'CancellationTokenSource'
>;

/** A tool as the runner offers it, and how it is called. */
export interface LmToolClient {
  tools: vscode.LanguageModelChatTool[];
  call(name: string, input: unknown): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

/** Opens Baton's MCP server for a run (the real one: the MCP SDK over Streamable HTTP with the run's token). */
export type ConnectTools = (mcp: McpEndpoint) => Promise<LmToolClient>;

/** Model turns at most (each may call tools); past them the run fails rather than loop forever. */
const MAX_TURNS = 25;

/** Runs agents on the editor's language models. */
export class LmRunner implements AgentRunner {
  readonly kind = 'vscode-lm' as const;

  constructor(private readonly vs: LmVscode, private readonly connect: ConnectTools = connectMcpTools) {}

  run(request: AgentRunRequest): AgentRun {
    const queue = new RunEventQueue();
    this.execute(request, queue).catch((ex: unknown) => queue.fail(ex));
    return queue;
  }

  private async execute(request: AgentRunRequest, queue: RunEventQueue): Promise<void> {
    const { vs } = this;
    const model = await this.pickModel(request.model);
    const started = Date.now();
    const cancel = new vs.CancellationTokenSource();
    const stopped: { why: 'aborted' | 'timeout' | null } = { why: null };
    const stop = (why: 'aborted' | 'timeout') => {
      stopped.why ??= why;
      cancel.cancel();
    };
    const onAbort = () => stop('aborted');
    request.signal?.addEventListener('abort', onAbort, { once: true });
    if (request.signal?.aborted) stop('aborted');
    const timer = request.timeoutMs !== undefined ? setTimeout(() => stop('timeout'), request.timeoutMs) : undefined;

    const tally = { usage: ZERO_USAGE, toolCalls: 0, text: '' };
    let tools: LmToolClient | null = null;
    let error: string | null = null;
    try {
      tools = request.mcp ? await this.connect(request.mcp) : null;
      await this.converse(model, request, tools, cancel.token, tally, (e) => queue.push(e));
    } catch (ex) {
      error = stopped.why ? null : ex instanceof Error ? ex.message : String(ex);
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      await tools?.close().catch(() => undefined);
      cancel.dispose();
    }
    const status: AgentRunStatus = stopped.why ?? (error ? 'failed' : 'completed');
    const costUsd = request.price ? priceUsage(tally.usage, request.price) : null;
    if (costUsd !== null) queue.push({ type: 'cost', usd: costUsd });
    const result: AgentRunResult = {
      status, text: tally.text, usage: tally.usage, costUsd, costSource: costUsd === null ? null : 'price', toolCalls: tally.toolCalls,
      malformedLines: 0, exitCode: null, sessionId: null, durationMs: Date.now() - started, stderr: '',
      error: status === 'completed' ? null
        : status === 'aborted' ? `the run was aborted; the request to ${model.name} was cancelled`
        : status === 'timeout' ? `${model.name} did not finish within ${(request.timeoutMs ?? 0) / 1000} s; the request was cancelled`
        : `${model.name}: ${error}`,
    };
    queue.finish(result);
  }

  /** The model named `wanted` (its id, family or `vendor/family`), else the editor's first; runner_unavailable when none. */
  private async pickModel(wanted: string | undefined): Promise<vscode.LanguageModelChat> {
    const models = await this.vs.lm.selectChatModels();
    const model = wanted ? models.find((m) => m.id === wanted || m.family === wanted || `${m.vendor}/${m.family}` === wanted) : models[0];
    if (model) return model;
    const have = models.map((m) => `${m.vendor}/${m.family}`).join(', ');
    throw new BatonError(
      'runner_unavailable',
      wanted
        ? `vscode-lm: no language model "${wanted}" in this editor${have ? `; it has ${have}` : ''}. Pick one of those, or install and sign in to an extension that provides it (e.g. GitHub Copilot Chat).`
        : 'vscode-lm: this editor has no language model. Install and sign in to an extension that provides one (e.g. GitHub Copilot Chat).',
      { runner: 'vscode-lm', model: wanted ?? null },
    );
  }

  private async converse(
    model: vscode.LanguageModelChat, request: AgentRunRequest, tools: LmToolClient | null, token: vscode.CancellationToken,
    tally: { usage: TokenUsage; toolCalls: number; text: string }, emit: (e: Parameters<RunEventQueue['push']>[0]) => void,
  ): Promise<void> {
    const { vs } = this;
    // vscode.lm has no system role: the system prompt leads the first user message.
    const first = request.systemPrompt ? `${request.systemPrompt}\n\n${request.prompt}` : request.prompt;
    const messages: vscode.LanguageModelChatMessage[] = [vs.LanguageModelChatMessage.User(first)];
    for (let turn = 0; turn < MAX_TURNS; turn++) {
      const input = await countAll(model, messages, token);
      const response = await model.sendRequest(messages, tools ? { tools: tools.tools } : {}, token);
      let text = '';
      const called: vscode.LanguageModelToolCallPart[] = [];
      for await (const part of response.stream) {
        if (part instanceof vs.LanguageModelTextPart) {
          text += part.value;
          emit({ type: 'text', text: part.value });
        } else if (part instanceof vs.LanguageModelToolCallPart) {
          called.push(part);
          tally.toolCalls++;
          emit({ type: 'tool_call', id: part.callId, name: part.name, server: request.mcp?.name ?? 'baton', input: part.input });
        }
      }
      const output = text ? await model.countTokens(text, token) : 0;
      tally.usage = addUsage(tally.usage, { input, output, cached: 0, reasoning: 0 });
      emit({ type: 'usage', usage: tally.usage });
      if (called.length === 0) {
        tally.text = text;
        return;
      }
      messages.push(vs.LanguageModelChatMessage.Assistant([...(text ? [new vs.LanguageModelTextPart(text)] : []), ...called]));
      const results: vscode.LanguageModelToolResultPart[] = [];
      for (const call of called) {
        const { text: out, isError } = tools
          ? await tools.call(call.name, call.input).catch((ex: unknown) => ({ text: ex instanceof Error ? ex.message : String(ex), isError: true }))
          : { text: `no tool "${call.name}": this run has no tools`, isError: true };
        const kept = out.length > MAX_TOOL_OUTPUT_CHARS ? `${out.slice(0, MAX_TOOL_OUTPUT_CHARS)}…` : out;
        emit({ type: 'tool_result', id: call.callId, name: call.name, output: kept, isError });
        results.push(new vs.LanguageModelToolResultPart(call.callId, [new vs.LanguageModelTextPart(out)]));
      }
      messages.push(vs.LanguageModelChatMessage.User(results));
    }
    throw new Error(`no final answer after ${MAX_TURNS} turns of tool calls`);
  }
}

async function countAll(model: vscode.LanguageModelChat, messages: vscode.LanguageModelChatMessage[], token: vscode.CancellationToken): Promise<number> {
  let total = 0;
  for (const m of messages) total += await model.countTokens(m, token);
  return total;
}

/** Baton's MCP tools for a run, through the MCP SDK client with the run's bearer token. */
export async function connectMcpTools(mcp: McpEndpoint): Promise<LmToolClient> {
  const client = new Client({ name: 'baton-vscode-lm', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { Authorization: `Bearer ${mcp.token}` } } }));
  const listed = await client.listTools();
  return {
    tools: listed.tools.map((t) => ({ name: t.name, description: t.description ?? t.title ?? t.name, inputSchema: t.inputSchema })),
    async call(name, input) {
      const result = await client.callTool({ name, arguments: (input ?? {}) as Record<string, unknown> });
      const content = Array.isArray(result.content) ? result.content : [];
      const text = content.map((c) => (c.type === 'text' ? c.text : '')).filter(Boolean).join('\n');
      // The text may be a summary; the structured content carries the data, so the model gets both.
      const structured = result.structuredContent ? `\n${JSON.stringify(result.structuredContent)}` : '';
      return { text: `${text}${structured}`, isError: result.isError === true };
    },
    close: () => client.close(),
  };
}
