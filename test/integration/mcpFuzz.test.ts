// Rule: `baton mcp` on stdio, `baton serve` over HTTP and a `baton mcp` that forwards to the owning `baton serve` take
// requests made from their own schemas and mutated (wrong types, missing and extra keys, NULs, lone surrogates,
// malformed percent-encoding, 5 KB strings, prototype keys, ids of both kinds, up to 16 in flight) while real workflows
// run: every request gets exactly one answer, none an internal error or a JavaScript error's words (nor a 5xx), stdout
// carries JSON only, stderr no stack, the server still answers a ping and exits 0, and `baton status` then reads the
// database. Seeded, so a failure is replayed by its seed.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readDiscovery } from '../../src/host/discovery.js';
import { CLI, ensureBuilt, runCli, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';
import { rawStdio } from '../fixtures/mcp/rawStdio.js';
import { startNode } from '../helpers/processes.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; items?: Schema; enum?: Json[]; anyOf?: Schema[] };
type Tool = { name: string; inputSchema: Schema };

/**
 * A small deterministic generator (a linear congruential one, modulo 2^31) and what the fuzz draws from it. Its product
 * is `Math.imul`'s: a double's loses the low bits the modulus keeps, and every seed fell into one cycle of 10,466 draws
 * (seed 17 into one of 220).
 */
function drawing(seed: number) {
  let state = (seed * 2654435761) % 2147483647;
  const rnd = () => (state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
  return { rnd, pick };
}

const ODD: readonly Json[] = [
  null, true, false, 0, -1, 1.5, 1e308, -0, '', ' ', '\u0000', '\ud800', 'a\udc00b', '\u202e', '%', '%zz', '%ED%A0%80', 'a%00b',
  '../../etc/passwd', 'file:///etc/passwd', [], [1, 'a'], {}, { a: 1 }, JSON.parse('{"__proto__":{"polluted":1}}'),
  { constructor: { prototype: { p: 1 } } }, '💥'.repeat(100), 'bug-fix', 'available-workflows://all', 'current-step://active',
  Number.MAX_SAFE_INTEGER + 2, '2026-13-45T99:99:99Z', "'; DROP TABLE executions;--",
];
/** Words of a JavaScript or SQLite error that escaped into a refusal, or a stack's line. */
const INTERNAL = /TypeError|ReferenceError|Cannot read prop|is not a function|RangeError|SQLITE_|Maximum call stack|\n\s+at \S/;

function fuzz(seed: number, tools: Tool[], templates: string[], prompts: Array<{ name: string; arguments?: Array<{ name: string }> }>) {
  const { rnd, pick } = drawing(seed);
  // A copy of an object or array: the requests add keys to what they draw.
  const odd = (): Json => {
    const value = rnd() < 0.1 ? 'x'.repeat(1 + Math.floor(rnd() * 5000)) : pick(ODD);
    return value !== null && typeof value === 'object' ? (JSON.parse(JSON.stringify(value)) as Json) : value;
  };
  const text = () => String(odd()).slice(0, 300);
  const fromSchema = (s: Schema | undefined, depth = 0): Json => {
    if (!s || depth > 4 || rnd() < 0.12) return odd();
    if (s.enum) return pick(s.enum);
    if (s.anyOf) return fromSchema(pick(s.anyOf), depth + 1);
    switch (Array.isArray(s.type) ? pick(s.type) : s.type) {
      case 'string': return rnd() < 0.5 ? pick(['bug-fix', 'x', 'analyze-root-cause', 'done', '']) : String(odd());
      case 'number': case 'integer': return pick([0, 1, 5, -3, 2.5, 1e9]);
      case 'boolean': return rnd() < 0.5;
      case 'array': return Array.from({ length: Math.floor(rnd() * 3) }, () => fromSchema(s.items, depth + 1));
      default: {
        const o: Record<string, Json> = {};
        for (const [k, v] of Object.entries(s.properties ?? {})) if (rnd() < ((s.required ?? []).includes(k) ? 0.9 : 0.45)) o[k] = fromSchema(v, depth + 1);
        if (rnd() < 0.1) o[pick(['extra', 'tempalte_name', '__proto__', 'constructor'])] = odd();
        return o;
      }
    }
  };
  const tokens: string[] = [];
  const executions: string[] = [];
  const next = (tool: Tool): Json => {
    const output = tool.inputSchema.properties?.model_output_so_far;
    if (rnd() < 0.15) return { template_name: pick(['bug-fix', 'bug-fix', 'feature-implementation', 'no-such']), task_description: text() };
    if (rnd() < 0.4 && tokens.length) {
      const made = fromSchema(output);
      // Always an output or another request: a token alone on a gated step waits for the person (25 s).
      const submitted = rnd() < 0.6 || made === null || typeof made !== 'object' || Array.isArray(made)
        ? { summary: `did ${text()}`, artifacts: rnd() < 0.7 ? [{ type: pick(['markdown', 'json', 'yaml', 'adr']), title: `Root cause: ${text()}`, content: String(odd()) }] : [], references: [], confidence: pick([0.9, 0.5, 1, 0]) }
        : made;
      const args: Record<string, Json> = { step_token: rnd() < 0.9 ? tokens[tokens.length - 1 - Math.floor(rnd() * Math.min(3, tokens.length))]! : pick(tokens), model_output_so_far: submitted };
      if (rnd() < 0.15) args.request = pick(['refresh_token', 'get_task', 'reclaim']);
      return args;
    }
    const args = fromSchema(tool.inputSchema);
    if (args && typeof args === 'object' && !Array.isArray(args) && 'step_token' in args && !('model_output_so_far' in args) && !('request' in args)) args.request = 'refresh_token';
    return args;
  };
  const request = (): [string, Json | undefined] => {
    const r = rnd();
    if (r < 0.55) {
      // The broker's tool is most of what agents call: four in ten of the tool calls.
      const tool = rnd() < 0.4 ? tools.find((t) => t.name === 'workflow_next_step')! : pick(tools);
      const args = tool.name === 'workflow_next_step' ? next(tool) : fromSchema(tool.inputSchema);
      if (executions.length && args && typeof args === 'object' && !Array.isArray(args) && 'execution_id' in (tool.inputSchema.properties ?? {}) && rnd() < 0.5) args.execution_id = pick(executions);
      return ['tools/call', rnd() < 0.05 ? odd() : { name: rnd() < 0.05 ? String(odd()) : tool.name, arguments: args }];
    }
    if (r < 0.7) {
      const hole = () => (executions.length && rnd() < 0.5 ? pick(executions) : String(odd()).slice(0, 50));
      const uri = rnd() < 0.6 ? pick(templates).replace(/\{[^}]+\}/g, hole) : String(odd());
      return [pick(['resources/read', 'resources/subscribe', 'resources/unsubscribe']), { uri }];
    }
    if (r < 0.8) {
      const prompt = pick(prompts);
      const argSchema: Schema = { type: 'object', properties: Object.fromEntries((prompt.arguments ?? []).map((a) => [a.name, { type: 'string' }])) };
      return ['prompts/get', { name: rnd() < 0.9 ? prompt.name : String(odd()), arguments: fromSchema(argSchema) }];
    }
    if (r < 0.88) {
      const ref: Json = rnd() < 0.5 ? { type: 'ref/prompt', name: pick(prompts).name } : { type: 'ref/resource', uri: pick(templates) };
      return ['completion/complete', { ref, argument: { name: String(pick(['template_name', 'execution_id', 'x', odd()])), value: String(odd()).slice(0, 40) } }];
    }
    if (r < 0.92) return ['logging/setLevel', { level: pick(['debug', 'info', 'emergency', 'nope', odd()]) }];
    return [pick(['ping', 'tools/list', 'resources/list', 'prompts/list', 'no/such/method', '', 'rpc.discover']), rnd() < 0.5 ? undefined : odd()];
  };
  /** Learns the tokens and executions a result hands out, so later requests reach deep into real workflows. */
  const learn = (result: unknown) => {
    const json = JSON.stringify(result);
    for (const m of json.matchAll(/"new_step_token\\?":\\?"([A-Za-z0-9_.-]{20,})/g)) tokens.push(m[1]!);
    for (const m of json.matchAll(/"execution_id\\?":\\?"([0-9a-f-]{36})/g)) executions.push(m[1]!);
  };
  return { rnd, request, learn, tokens, executions };
}

type Answer = { result?: Record<string, any>; error?: { code: number; message: string } };
/** A JSON-RPC request without its `jsonrpc` (the transports add it); `params` left out when there are none. */
type Request = { id: string | number; method: string; params?: Json };
/** How the fuzz reaches a server: `call` sends one request and resolves with its answer. */
type Transport = { call(request: Request): Promise<Answer> };

/**
 * 700 fuzzed requests of `seed`, up to 16 in flight, through `transport`: asserts no internal error and that real
 * workflows ran; returns the requests sent.
 */
async function drive(seed: number, transport: Transport): Promise<Array<{ id: string | number; method: string; params: unknown }>> {
  const list = async (method: string) => (await transport.call({ id: `list-${method}`, method })).result!;
  const tools = (await list('tools/list')).tools as Tool[];
  const templates = ((await list('resources/templates/list')).resourceTemplates as Array<{ uriTemplate: string }>).map((t) => t.uriTemplate);
  const prompts = (await list('prompts/list')).prompts;
  const f = fuzz(seed, tools, templates, prompts);
  const sent: Array<{ id: string | number; method: string; params: unknown }> = [];
  const bad: string[] = [];
  let results = 0;
  let accepted = 0;
  while (sent.length < 700) {
    const batch: Array<Promise<void>> = [];
    for (let k = 1 + Math.floor(f.rnd() * (f.rnd() < 0.3 ? 16 : 2)); k > 0 && sent.length < 700; k--) {
      const [method, params] = f.request();
      const id = f.rnd() < 0.2 ? `s-${sent.length}` : 1000 + sent.length;
      sent.push({ id, method, params });
      batch.push(transport.call(params === undefined ? { id, method } : { id, method, params }).then((answer) => {
        const refusal = answer.error?.message ?? (answer.result?.isError ? JSON.stringify(answer.result.content) : '');
        if (answer.error?.code === -32603 || INTERNAL.test(refusal)) bad.push(`${JSON.stringify({ id, method, params }).slice(0, 300)} → ${JSON.stringify(answer).slice(0, 500)}`);
        if (!answer.result) return;
        results++;
        const call = params as { name?: string; arguments?: { model_output_so_far?: unknown } } | null;
        if (call?.name === 'workflow_next_step' && call.arguments?.model_output_so_far && !answer.result.isError) accepted++;
        f.learn(answer.result);
      }));
    }
    await Promise.all(batch);
  }
  assert.deepEqual(bad, [], `seed ${seed}: internal errors`);
  assert.ok(f.tokens.length > 20 && f.executions.length > 20 && accepted > 5, `real workflows ran: ${f.tokens.length} tokens, ${f.executions.length} executions, ${accepted} steps submitted`);
  assert.ok(results > 300 && results < 700, `both results and refusals: ${results} results`);
  return sent;
}

/** `baton status` reads the database the fuzz wrote. */
async function readable(db: string): Promise<void> {
  const status = await runCli(['status', '--db', db, '--all', '--json']);
  assert.equal(status.code, 0, status.stderr);
  assert.ok(JSON.parse(status.stdout), 'status reads the database');
}

const STACK = /\n\s+at \S|Uncaught|unhandled/i;
const SERVER_ARGS = ['--tools', 'all', '--rate-limits', 'off'];

describe('baton mcp and baton serve under schema-guided fuzzing', { timeout: 240_000 }, () => {
  const setup = tempSetup('baton-fuzz-');
  before(() => ensureBuilt());
  after(() => rmSync(setup.dir, { recursive: true, force: true }));

  /** 700 fuzzed requests of `seed` to `mcp` on stdio: each answered once, JSON only on stdout, a ping after; its exit code. */
  async function overStdio(mcp: ReturnType<typeof rawStdio>, seed: number): Promise<number | null> {
    let code: number | null;
    try {
      await mcp.initialized();
      const sent = await drive(seed, {
        call: (request) => {
          mcp.send(request);
          return mcp.answer(request.id, 20_000) as Promise<Answer>;
        },
      });
      const twice = sent.filter((s) => mcp.answersTo(s.id).length !== 1);
      assert.deepEqual(twice.map((s) => [s.id, mcp.answersTo(s.id).length]), [], 'each request answered exactly once');
      mcp.send({ id: 'last', method: 'ping' });
      assert.deepEqual((await mcp.answer('last')).result, {});
      assert.deepEqual(mcp.notJson, []);
    } finally {
      code = await mcp.close();
    }
    assert.doesNotMatch(mcp.stderr(), STACK);
    return code;
  }

  /** `baton serve` on `db`, once its discovery file is written: the process, its endpoint and its token. */
  async function serving(db: string) {
    const serve = startNode([CLI, 'serve', '--db', db, '--workspace', setup.workspace, ...SERVER_ARGS]);
    try {
      return { serve, server: await waitFor(() => readDiscovery(db), 20_000, "baton serve's discovery file") };
    } catch (ex) {
      serve.child.kill('SIGKILL');
      throw ex;
    }
  }

  /** Stops `baton serve` (SIGTERM); its exit code. */
  function stop(serve: ReturnType<typeof startNode>): Promise<number | null> {
    serve.child.kill('SIGTERM');
    return serve.exited;
  }

  /** A `baton serve` that exited 0 without a stack on stderr. */
  function cleanExit(serve: ReturnType<typeof startNode>, code: number | null): void {
    assert.equal(code, 0, serve.err());
    assert.doesNotMatch(serve.err(), STACK);
  }

  for (const seed of [1, 2]) {
    it(`stdio, seed ${seed}: one clean answer to each of 700 requests, JSON only on stdout, exit 0, the database readable`, async () => {
      const db = join(setup.dir, `fuzz-${seed}.db`);
      assert.equal(await overStdio(rawStdio(['--db', db, '--workspace', setup.workspace, ...SERVER_ARGS]), seed), 0);
      await readable(db);
    });
  }

  it('forwarded (baton mcp to the owning baton serve), seed 4: one clean answer to each of 700 requests, both exit 0', async () => {
    const dir = join(setup.dir, 'forwarded');
    mkdirSync(dir);
    const db = join(dir, 'baton.db');
    const { serve } = await serving(db);
    let code: number | null;
    try {
      const forwarder = rawStdio(['--db', db, '--workspace', setup.workspace]);
      assert.equal(await overStdio(forwarder, 4), 0, forwarder.stderr());
      assert.match(forwarder.stderr(), /forwarding stdio to http:\/\/127\.0\.0\.1/, 'the calls went through the owner');
    } finally {
      code = await stop(serve);
    }
    cleanExit(serve, code);
    await readable(db);
  });

  it('HTTP (baton serve), seed 3: one clean answer to each of 700 POSTs, no 5xx, exit 0 on SIGTERM, the database readable', async () => {
    const dir = join(setup.dir, 'serve');
    mkdirSync(dir);
    const db = join(dir, 'baton.db');
    const { serve, server } = await serving(db);
    let code: number | null;
    try {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${server.token}` };
      const post = async (message: Record<string, unknown>): Promise<Answer> => {
        const res = await fetch(server.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', ...message }), signal: AbortSignal.timeout(20_000) });
        const body = await res.text();
        assert.ok(res.status < 500, `HTTP ${res.status} for ${JSON.stringify(message).slice(0, 300)}: ${body}`);
        if (res.status === 202) return {};
        const lines = res.headers.get('content-type')?.includes('text/event-stream')
          ? body.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)) as Answer & { id?: unknown })
          : [JSON.parse(body) as Answer & { id?: unknown }];
        return lines.find((m) => m.id !== undefined) ?? assert.fail(`no answer to ${JSON.stringify(message).slice(0, 300)}: ${body}`);
      };
      const init = await fetch(server.url, {
        method: 'POST', headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } }),
      });
      assert.equal(init.status, 200, await init.text());
      Object.assign(headers, { 'mcp-session-id': init.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': '2025-06-18' });
      assert.deepEqual(await post({ method: 'notifications/initialized' }), {});
      await drive(3, { call: post });
      assert.deepEqual((await post({ id: 'last', method: 'ping' })).result, {});
    } finally {
      code = await stop(serve);
    }
    cleanExit(serve, code);
    await readable(db);
  });
});
