// Rule: the vscode-lm runner gives the editor's language model Baton's MCP tools for its run (through the run's
// token), calls the tools the model asks for and feeds the results back until it answers, counts tokens, and ends
// as aborted / timeout (request cancelled), failed (the model's error) or runner_unavailable (no such model).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import type { AgentRunEvent, AgentRunRequest } from '../../src/core/pipelines/runner.js';
import { silentLog } from '../../src/core/ports.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer, type OwnerServer } from '../../src/host/ownerServer.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { assertToolGroups } from '../../src/mcp/toolGroups.js';
import { LmRunner, type LmToolClient, type LmVscode } from '../../src/vscode/lmRunner.js';

// A fake of the vscode.lm surface the runner uses.
class TextPart {
  constructor(public value: string) {}
}
class ToolCallPart {
  constructor(public callId: string, public name: string, public input: object) {}
}
class ToolResultPart {
  constructor(public callId: string, public content: unknown[]) {}
}
interface Message {
  role: 'user' | 'assistant';
  content: string | unknown[];
}
class CancellationTokenSource {
  private listeners: Array<() => void> = [];
  cancelled = false;
  token = {
    get isCancellationRequested() {
      return false;
    },
    onCancellationRequested: (fn: () => void) => {
      this.listeners.push(fn);
      return { dispose() {} };
    },
  };
  cancel() {
    this.cancelled = true;
    for (const fn of this.listeners) fn();
  }
  dispose() {}
}

interface FakeModelSpec {
  id?: string;
  family?: string;
  /** The parts of the answer to one request. */
  reply(messages: Message[], options: { tools?: Array<{ name: string }> }): unknown[] | Promise<unknown[]>;
}

function fakeVscode(specs: FakeModelSpec[], seen: Array<{ messages: Message[]; tools: string[] }> = []): LmVscode & { sources: CancellationTokenSource[] } {
  const sources: CancellationTokenSource[] = [];
  const text = (m: Message | string) => (typeof m === 'string' ? m : JSON.stringify(m.content));
  const models = specs.map((spec, i) => ({
    id: spec.id ?? `m${i}`, family: spec.family ?? `fam${i}`, vendor: 'fake', name: `Fake ${i}`, version: '1', maxInputTokens: 1000,
    countTokens: async (m: Message | string) => Math.ceil(text(m).length / 4),
    sendRequest: async (messages: Message[], options: { tools?: Array<{ name: string }> }) => {
      seen.push({ messages: structuredClone(messages), tools: (options.tools ?? []).map((t) => t.name) });
      const parts = await spec.reply(messages, options);
      return { stream: (async function* () { yield* parts; })(), text: (async function* () {})() };
    },
  }));
  const vs = {
    lm: { selectChatModels: async () => models },
    LanguageModelChatMessage: { User: (content: unknown) => ({ role: 'user', content }), Assistant: (content: unknown) => ({ role: 'assistant', content }) },
    LanguageModelTextPart: TextPart, LanguageModelToolCallPart: ToolCallPart, LanguageModelToolResultPart: ToolResultPart,
    CancellationTokenSource: class extends CancellationTokenSource {
      constructor() {
        super();
        sources.push(this);
      }
    },
    sources,
  };
  return vs as unknown as LmVscode & { sources: CancellationTokenSource[] };
}

const holdsResult = (messages: Message[]) => messages.some((m) => Array.isArray(m.content) && m.content.some((p) => p instanceof ToolResultPart));

/** The usual script: call `tool` once, then answer with `answer`. */
const callThenAnswer = (tool: string, answer: string): FakeModelSpec => ({
  reply: (messages, options) => holdsResult(messages) || !options.tools?.some((t) => t.name === tool)
    ? [new TextPart(answer.slice(0, 5)), new TextPart(answer.slice(5))]
    : [new TextPart('Let me look. '), new ToolCallPart('call-1', tool, {})],
});

async function drain(runner: LmRunner, request: Partial<AgentRunRequest>) {
  const run = runner.run({ agent: 'scout', prompt: 'List the projects.', cwd: '/tmp', ...request });
  const events: AgentRunEvent[] = [];
  for await (const e of run) events.push(e);
  return { events, result: await run.result };
}

describe('vscode-lm runner', () => {
  let workspace: string;
  let opened: OpenedBaton;
  let owner: OwnerServer;

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'baton-lm-'));
    opened = await openBaton({ dbPath: null, workspace, rateLimits: false, log: silentLog } as Parameters<typeof openBaton>[0]);
    owner = await startOwnerServer({
      baton: opened.baton,
      createServer: (scope) => createMcpServer(opened.baton, { toolGroups: assertToolGroups(scope?.toolGroups ?? ['broker']), version: 't', log: silentLog, scope }),
      log: silentLog,
    });
  });
  after(async () => {
    await owner.close();
    await opened.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('offers the run\'s Baton tools over MCP, calls the one the model picks, feeds back the result and reports the answer', async () => {
    const seen: Array<{ messages: Message[]; tools: string[] }> = [];
    const grant = owner.issueRunToken({ runId: 'r1', agent: 'scout', toolGroups: ['content'] });
    try {
      const runner = new LmRunner(fakeVscode([callThenAnswer('list_projects', 'DONE-ANSWER')], seen));
      const { events, result } = await drain(runner, { mcp: { url: owner.url, token: grant.token }, systemPrompt: 'You are the scout.', price: { input: 1, output: 2 } });
      assert.equal(result.status, 'completed', result.error ?? '');
      assert.equal(result.text, 'DONE-ANSWER');
      assert.equal(result.toolCalls, 1);
      assert.ok(seen[0]!.tools.includes('list_projects') && !seen[0]!.tools.includes('workflow_next_step'), seen[0]!.tools.join(', '));
      assert.equal(seen[0]!.messages[0]!.content, 'You are the scout.\n\nList the projects.', 'the system prompt leads the first message');
      const call = events.find((e) => e.type === 'tool_call');
      assert.deepEqual(call, { type: 'tool_call', id: 'call-1', name: 'list_projects', server: 'baton', input: {} });
      const toolResult = events.find((e) => e.type === 'tool_result') as Extract<AgentRunEvent, { type: 'tool_result' }>;
      assert.equal(toolResult.isError, false);
      assert.ok(toolResult.output.includes(workspace), 'the structured content (the project) reaches the model');
      const fed = seen[1]!.messages.at(-1)!.content as ToolResultPart[];
      assert.equal(fed[0]!.callId, 'call-1');
      assert.ok((fed[0]!.content[0] as TextPart).value.includes(workspace));
      assert.ok(result.usage.input > 0 && result.usage.output > 0);
      assert.equal(result.costSource, 'price');
      assert.equal(result.costUsd, (result.usage.input * 1 + result.usage.output * 2) / 1_000_000);
      assert.deepEqual(events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text), ['Let me look. ', 'DONE-', 'ANSWER']);
      assert.equal(events.at(-1)!.type, 'done');
    } finally {
      grant.revoke();
    }
  });

  it('picks the model by id, family or vendor/family; no such model, or none at all, is runner_unavailable', async () => {
    const vs = fakeVscode([{ id: 'a', family: 'fa', reply: () => [new TextPart('from a')] }, { id: 'b', family: 'fb', reply: () => [new TextPart('from b')] }]);
    for (const model of ['b', 'fb', 'fake/fb']) assert.equal((await drain(new LmRunner(vs), { model })).result.text, 'from b', model);
    assert.equal((await drain(new LmRunner(vs), {})).result.text, 'from a', 'the first by default');
    await assert.rejects(new LmRunner(vs).run({ agent: 'a', prompt: 'p', cwd: '/tmp', model: 'gpt-9' }).result,
      (ex: unknown) => BatonError.is(ex, 'runner_unavailable') && /no language model "gpt-9" in this editor; it has fake\/fa, fake\/fb/.test((ex as Error).message));
    await assert.rejects(new LmRunner(fakeVscode([])).run({ agent: 'a', prompt: 'p', cwd: '/tmp' }).result,
      (ex: unknown) => BatonError.is(ex, 'runner_unavailable') && /GitHub Copilot Chat/.test((ex as Error).message));
  });

  it('abort cancels the request and the run ends "aborted"; a timeout ends it "timeout"', async () => {
    const hanging = (vs: { sources: CancellationTokenSource[] }): FakeModelSpec => ({
      reply: () => new Promise((_, reject) => {
        const source = vs.sources.at(-1)!;
        source.token.onCancellationRequested(() => reject(new Error('Canceled')));
      }),
    });
    const vsA = fakeVscode([]);
    (vsA as unknown as { lm: { selectChatModels: () => Promise<unknown[]> } }).lm.selectChatModels = async () => [
      { id: 'h', family: 'h', vendor: 'fake', name: 'Hang', countTokens: async () => 1, sendRequest: async () => hanging(vsA).reply([], {}) },
    ];
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const aborted = await drain(new LmRunner(vsA), { signal: controller.signal });
    assert.equal(aborted.result.status, 'aborted');
    assert.ok(vsA.sources.at(-1)!.cancelled, 'the request was cancelled');
    assert.match(aborted.result.error!, /aborted/);
    const timedOut = await drain(new LmRunner(vsA), { timeoutMs: 50 });
    assert.equal(timedOut.result.status, 'timeout');
    assert.match(timedOut.result.error!, /did not finish within 0.05 s/);
  });

  it('a model error fails the run with its message; a failing tool is an error result the model sees', async () => {
    const broken = await drain(new LmRunner(fakeVscode([{ reply: () => Promise.reject(new Error('quota exceeded')) }])), {});
    assert.equal(broken.result.status, 'failed');
    assert.match(broken.result.error!, /quota exceeded/);

    const tools: LmToolClient = {
      tools: [{ name: 'memory_store', description: 'x' }],
      call: async () => {
        throw new Error('store is full');
      },
      close: async () => undefined,
    };
    const seen: Array<{ messages: Message[]; tools: string[] }> = [];
    const run = await drain(new LmRunner(fakeVscode([callThenAnswer('memory_store', 'gave up nicely')], seen), async () => tools), { mcp: { url: 'http://127.0.0.1:9/mcp', token: 't' } });
    assert.equal(run.result.status, 'completed');
    const result = run.events.find((e) => e.type === 'tool_result') as Extract<AgentRunEvent, { type: 'tool_result' }>;
    assert.deepEqual([result.isError, result.output], [true, 'store is full']);
    assert.equal(((seen[1]!.messages.at(-1)!.content as ToolResultPart[])[0]!.content[0] as TextPart).value, 'store is full');
  });

  it('a model that keeps calling tools is stopped after 25 turns', async () => {
    const tools: LmToolClient = { tools: [{ name: 't', description: 'x' }], call: async () => ({ text: 'ok', isError: false }), close: async () => undefined };
    const looping: FakeModelSpec = { reply: () => [new ToolCallPart(`c${Math.random()}`, 't', {})] };
    const run = await drain(new LmRunner(fakeVscode([looping]), async () => tools), { mcp: { url: 'http://127.0.0.1:9/mcp', token: 't' } });
    assert.equal(run.result.status, 'failed');
    assert.match(run.result.error!, /no final answer after 25 turns/);
    assert.equal(run.result.toolCalls, 25);
  });
});
