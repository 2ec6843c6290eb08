// Rule: each runner's parser turns its CLI's recorded output into text, tool calls, usage and cost, and a malformed,
// wrongly shaped or truncated line becomes an `error` event carrying the line — never a thrown error — while the lines
// around it still count.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { AgentRunEvent, TokenUsage } from '../../src/core/pipelines/runner.js';
import { ClaudeStreamParser } from '../../src/core/pipelines/streams/claudeStream.js';
import { CodexStreamParser } from '../../src/core/pipelines/streams/codexStream.js';
import { CommandStreamParser } from '../../src/core/pipelines/streams/commandStream.js';
import { CursorStreamParser } from '../../src/core/pipelines/streams/cursorStream.js';
import { GeminiStreamParser } from '../../src/core/pipelines/streams/geminiStream.js';
import { LineSplitter } from '../../src/core/pipelines/streams/lineSplitter.js';
import { OpencodeStreamParser } from '../../src/core/pipelines/streams/opencodeStream.js';
import type { StreamOutcome, StreamParser } from '../../src/core/pipelines/streams/streamParser.js';

const DIR = join(__dirname, '..', 'fixtures', 'runners', 'transcripts');
const transcript = (file: string) => readFileSync(join(DIR, file), 'utf8');

/** Feeds `output` to a parser the way processRun does: in chunks of `chunk` characters, the rest as the last line. */
function parse(parser: StreamParser, output: string, chunk = 37): { events: AgentRunEvent[]; outcome: StreamOutcome } {
  const splitter = new LineSplitter();
  const events: AgentRunEvent[] = [];
  for (let i = 0; i < output.length; i += chunk) {
    for (const line of splitter.push(output.slice(i, i + chunk))) events.push(...parser.line(line.text, { overlong: line.overlong }));
  }
  const rest = splitter.end();
  if (rest !== null) events.push(...parser.line(rest, { last: true }));
  events.push(...parser.end());
  return { events, outcome: parser.outcome() };
}

const of = <T extends AgentRunEvent['type']>(events: AgentRunEvent[], type: T) => events.filter((e): e is Extract<AgentRunEvent, { type: T }> => e.type === type);

interface Case {
  cli: string;
  make: () => StreamParser;
  file: string;
  usage: TokenUsage;
  cost: number | null;
  text: string;
  /** Tool calls in the transcript: [name, server]. */
  calls: Array<[string, string | null]>;
  sessionId: string | null;
  /** A line of a known event type with a wrong field. */
  wrongShape: string;
  /** Whether the format has a final event (a transcript cut before it did not finish). */
  finalEvent: boolean;
}

const CASES: Case[] = [
  {
    cli: 'claude', make: () => new ClaudeStreamParser(), file: 'claude.jsonl',
    usage: { input: 240, output: 60, cached: 40, reasoning: 0 }, cost: 0.0020080000000000002, text: 'DONE-ANSWER',
    calls: [['list_projects', 'baton']], sessionId: '4372d32c-b3e8-43cf-a6c1-f15b54b1e0fe',
    wrongShape: '{"type":"assistant","message":{"content":"not an array"}}', finalEvent: true,
  },
  {
    cli: 'codex', make: () => new CodexStreamParser(), file: 'codex.jsonl',
    usage: { input: 240, output: 60, cached: 40, reasoning: 10 }, cost: null, text: 'DONE-ANSWER',
    calls: [['list_projects', 'baton']], sessionId: '01a2296d-6147-77f1-ac74-78584d1d6a5b',
    wrongShape: '{"type":"item.completed","item":{"id":5,"type":"agent_message","text":"x"}}', finalEvent: true,
  },
  {
    cli: 'gemini', make: () => new GeminiStreamParser(), file: 'gemini.jsonl',
    usage: { input: 240, output: 60, cached: 40, reasoning: 10 }, cost: null, text: 'DONE-ANSWER',
    calls: [['list_projects', 'baton']], sessionId: null,
    wrongShape: '{"type":"tool_use","tool_name":7,"tool_id":"t"}', finalEvent: true,
  },
  {
    cli: 'opencode', make: () => new OpencodeStreamParser(), file: 'opencode.jsonl',
    usage: { input: 240, output: 60, cached: 40, reasoning: 10 }, cost: 0, text: 'DONE-ANSWER',
    calls: [['list_projects', 'baton']], sessionId: 'ses_df573438fffeOslSf9tasx82d8',
    wrongShape: '{"type":"text","part":{"text":42}}', finalEvent: false,
  },
  {
    cli: 'cursor-agent', make: () => new CursorStreamParser(), file: 'cursor-agent.jsonl',
    usage: { input: 240, output: 60, cached: 40, reasoning: 0 }, cost: null, text: "I'll list the projects.DONE-ANSWER",
    calls: [['list_projects', 'baton'], ['read', null]], sessionId: 'c6b62c6f-7ead-4fd6-9922-e952131177ff',
    wrongShape: '{"type":"tool_call","subtype":"started","call_id":"x","tool_call":{}}', finalEvent: true,
  },
  {
    cli: 'command', make: () => new CommandStreamParser(), file: 'command.txt',
    usage: { input: 240, output: 60, cached: 40, reasoning: 5 }, cost: 0.003, text: 'DONE-ANSWER',
    calls: [['list_projects', 'baton']], sessionId: null,
    wrongShape: '{"type":"usage","input":-3}', finalEvent: false,
  },
];

describe('runner stream parsers, against recorded transcripts', () => {
  for (const c of CASES) {
    describe(c.cli, () => {
      it('reads text, tool calls and results, usage, cost and the session from its recorded output', () => {
        for (const chunk of [1, 37, 1 << 20]) {
          const { events, outcome } = parse(c.make(), transcript(c.file), chunk);
          assert.deepEqual(of(events, 'error'), [], `chunk ${chunk}`);
          assert.deepEqual(of(events, 'tool_call').map((e) => [e.name, e.server]), c.calls);
          const results = of(events, 'tool_result');
          assert.equal(results.length, c.calls.length);
          assert.ok(results.every((r) => !r.isError && r.output.length > 0), JSON.stringify(results));
          assert.ok(of(events, 'text').length > 0);
          assert.deepEqual(outcome.usage, c.usage);
          const usages = of(events, 'usage');
          assert.deepEqual(usages.at(-1)?.usage, c.usage, 'the last usage event carries the totals');
          assert.equal(outcome.costUsd, c.cost);
          if (c.cost !== null) assert.ok(Math.abs(of(events, 'cost').at(-1)!.usd - c.cost) < 1e-12);
          else assert.deepEqual(of(events, 'cost'), []);
          assert.equal(outcome.text, c.text);
          assert.equal(outcome.finished, true);
          assert.equal(outcome.failure, null);
          assert.equal(outcome.toolCalls, c.calls.length);
          assert.equal(outcome.malformedLines, 0);
          if (c.sessionId) assert.equal(outcome.sessionId, c.sessionId);
        }
      });

      it('reports a line that is not JSON and a wrongly shaped event as errors with the line, and goes on', () => {
        const lines = transcript(c.file).trimEnd().split('\n');
        const broken = [lines[0], 'Warning: something printed to stdout', c.wrongShape, ...lines.slice(1)].join('\n') + '\n';
        const { events, outcome } = parse(c.make(), broken);
        const errors = of(events, 'error').filter((e) => e.line !== undefined);
        const expected = c.cli === 'command' ? [c.wrongShape] : ['Warning: something printed to stdout', c.wrongShape];
        assert.deepEqual(errors.map((e) => e.line), expected);
        assert.ok(errors.every((e) => e.message.startsWith(c.cli === 'cursor-agent' ? 'cursor-agent' : c.cli)), JSON.stringify(errors));
        assert.equal(outcome.malformedLines, expected.length);
        assert.deepEqual(outcome.usage, c.usage, 'the good lines still count');
        assert.equal(outcome.text, c.text);
        assert.equal(outcome.finished, true);
      });

      it('reports output cut in the middle of its last line as truncated', () => {
        const full = transcript(c.file).trimEnd();
        const cut = full.slice(0, full.length - Math.floor(full.split('\n').at(-1)!.length / 2));
        const { events, outcome } = parse(c.make(), cut);
        const truncated = of(events, 'error').filter((e) => /truncated/.test(e.message));
        assert.equal(truncated.length, 1, JSON.stringify(of(events, 'error')));
        assert.equal(truncated[0]!.line, cut.split('\n').at(-1));
        assert.equal(outcome.malformedLines, 1);
        if (c.finalEvent) {
          assert.equal(outcome.finished, false);
          assert.ok(of(events, 'error').some((e) => /ended before its final/.test(e.message)), 'a missing final event is reported');
        }
        assert.equal(of(events, 'tool_call').length, c.calls.length, 'the calls before the cut still count');
      });
    });
  }

  it('claude: a failed tool call is a tool_result with isError (recorded)', () => {
    const { events, outcome } = parse(new ClaudeStreamParser(), transcript('claude.tool-error.jsonl'));
    const [result] = of(events, 'tool_result');
    assert.equal(result!.isError, true);
    assert.match(result!.output, /No workflow "no-such-workflow"/);
    assert.equal(result!.name, 'get_workflow');
    assert.equal(outcome.failure, null, 'a failed tool call is not a failed run');
  });

  it('gemini: the pieces of a message it streams are text deltas; a whole message is plain text', () => {
    const events = new GeminiStreamParser().line('{"type":"message","role":"assistant","content":"DONE-","delta":true}', {});
    assert.deepEqual(events, [{ type: 'text', text: 'DONE-', delta: true }]);
    assert.deepEqual(new GeminiStreamParser().line('{"type":"message","role":"assistant","content":"Whole."}', {}), [{ type: 'text', text: 'Whole.' }]);
  });

  it('codex and gemini: a failed tool call is a tool_result with isError (recorded)', () => {
    for (const [parser, file] of [[new CodexStreamParser(), 'codex.tool-error.jsonl'], [new GeminiStreamParser(), 'gemini.tool-error.jsonl']] as const) {
      const { events } = parse(parser, transcript(file));
      const [result] = of(events, 'tool_result');
      assert.equal(result!.isError, true, file);
      assert.equal(result!.name, 'get_workflow', file);
    }
  });

  it('claude: a result that is an error, a denied tool and an MCP server that did not connect are reported', () => {
    const out = [
      '{"type":"system","subtype":"init","session_id":"s","mcp_servers":[{"name":"baton","status":"failed"}]}',
      '{"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"s","permission_denials":[{"tool_name":"Bash"}]}',
    ].join('\n');
    const { events, outcome } = parse(new ClaudeStreamParser(), `${out}\n`);
    const messages = of(events, 'error').map((e) => e.message);
    assert.ok(messages.some((m) => /could not connect to Baton's MCP server "baton" \(status: failed\)/.test(m)), messages.join('; '));
    assert.ok(messages.some((m) => /denied Bash/.test(m)));
    assert.equal(outcome.failure, 'claude ended with error_max_turns');
  });

  it('codex: a failed turn is the run\'s failure, with the last error', () => {
    const out = '{"type":"turn.started"}\n{"type":"error","message":"stream disconnected"}\n{"type":"turn.failed","error":{"message":"unexpected status 500"}}\n';
    const { events, outcome } = parse(new CodexStreamParser(), out);
    assert.deepEqual(of(events, 'error').map((e) => e.message), ['codex: stream disconnected']);
    assert.equal(outcome.failure, 'unexpected status 500');
    assert.equal(outcome.finished, true);
  });

  it('opencode: an error event is the run\'s failure', () => {
    const { outcome } = parse(new OpencodeStreamParser(), '{"type":"error","error":{"name":"APIError","data":{"message":"model not found"}}}\n');
    assert.equal(outcome.failure, 'opencode: model not found');
  });

  it('a line longer than the limit is dropped and reported, and the next line is read', () => {
    const splitter = new LineSplitter(100);
    const lines = [...splitter.push('x'.repeat(150)), ...splitter.push('y'.repeat(60) + '\n{"type":"turn.completed"}\n')];
    assert.equal(lines.length, 2);
    assert.equal(lines[0]!.overlong, true);
    assert.equal(lines[1]!.text, '{"type":"turn.completed"}');
    const parser = new CodexStreamParser();
    const events = lines.flatMap((l) => parser.line(l.text, { overlong: l.overlong }));
    assert.match(of(events, 'error')[0]!.message, /longer than the limit/);
    assert.equal(parser.outcome().finished, true);
  });

  it('the command runner\'s plain output is its answer when it prints no result event', () => {
    const { events, outcome } = parse(new CommandStreamParser(), 'line one\n\nline two');
    assert.deepEqual(of(events, 'text').map((e) => e.text), ['line one', 'line two']);
    assert.equal(outcome.text, 'line one\n\nline two');
    assert.equal(outcome.malformedLines, 0, 'a last line without a newline is text, not truncation');
  });
});
