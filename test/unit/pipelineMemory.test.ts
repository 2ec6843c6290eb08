// Rule: pipeline memory is scoped to its run (global only when asked), searched with ranked FTS4, bounded by size
// limits with clear errors; the memory tools take their run and agent from the session's RunScope.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LIST_TEXT_LIMITS } from '../../src/mcp/tools/listText.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MEMORY_LIMITS, RANK_WINDOW } from '../../src/core/pipelines/memory.js';
import type { RunScope } from '../../src/core/pipelines/runner.js';
import { silentLog } from '../../src/core/ports.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { makeBaton } from '../helpers/coreHarness.js';

async function withRuns() {
  const made = await makeBaton();
  const sys = { name: 's', description: '', agents: [{ id: 'a', role: 'custom' as const, runner: 'command' as const, command: ['x'] }], workflow: [] };
  const run1 = await made.baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
  const run2 = await made.baton.pipelines.start(sys, { input: 'y', cwd: '/tmp' });
  return { ...made, run1, run2 };
}

test('entries are per run; global entries are shared; a key is replaced, not duplicated', async () => {
  const { baton, run1, run2 } = await withRuns();
  const m = baton.memory;
  await m.store({ runId: run1, agent: 'scout' }, { key: 'findings', value: 'cart total ignores discounts', category: 'findings' });
  await m.store({ runId: run1, agent: 'scout' }, { key: 'findings', value: 'cart total ignores discounts and tax', category: 'findings' });
  await m.store({ runId: run2, agent: 'scout' }, { key: 'findings', value: 'other run', category: 'findings' });
  await m.store({ runId: run1, agent: 'planner' }, { key: 'conventions', value: 'use vitest', category: 'notes', global: true });
  assert.equal(m.retrieve({ runId: run1, agent: null }, 'findings').value, 'cart total ignores discounts and tax');
  assert.equal(m.retrieve({ runId: run2, agent: null }, 'findings').value, 'other run');
  assert.equal(m.retrieve({ runId: run2, agent: null }, 'conventions').scope, 'global');
  assert.throws(() => m.retrieve({ runId: run2, agent: null }, 'conventions', 'run'), /No memory entry "conventions"\. Keys: findings\./);
  assert.equal(m.list({ runId: run1, agent: null }, 'findings', 'run').total, 1);
  assert.equal(m.list({ runId: run1, agent: null }).total, 2);
  // A key is stored and read without the spaces around it, as the stored entry's key says.
  assert.equal((await m.store({ runId: run1, agent: 'scout' }, { key: ' plan ', value: 'p' })).key, 'plan');
  assert.equal(m.retrieve({ runId: run1, agent: null }, 'plan\n').value, 'p');
});

test('stores made at once answer each with its own value, and the key holds one of them', async () => {
  const { baton, run1 } = await withRuns();
  const values = Array.from({ length: 8 }, (_, i) => `writer ${i}`);
  const answers = await Promise.all(values.map((value, i) => baton.memory.store({ runId: run1, agent: `a${i}` }, { key: 'shared', value, global: true })));
  assert.deepEqual(answers.map((e) => e.value), values, 'each call answered with what it wrote');
  assert.deepEqual(answers.map((e) => e.agent), values.map((_, i) => `a${i}`));
  assert.ok(values.includes(baton.memory.retrieve({ runId: run1, agent: null }, 'shared').value));
  assert.equal(baton.memory.list({ runId: run1, agent: null }, undefined, 'global').total, 1);
});

test('search is full text, ranked, filtered by category and scope', async () => {
  const { baton, run1, run2 } = await withRuns();
  const m = baton.memory;
  const s = { runId: run1, agent: 'x' };
  await m.store(s, { key: 'a', value: 'the payment service retries payment calls on payment failure', category: 'findings' });
  await m.store(s, { key: 'b', value: 'payment is mentioned once here among many other words about logging and metrics', category: 'findings' });
  await m.store(s, { key: 'c', value: 'a plan to refactor payment retries', category: 'plans' });
  await m.store({ runId: run2, agent: 'x' }, { key: 'd', value: 'payment payment payment', category: 'findings' });
  const r = m.search(s, { query: 'payment' });
  assert.deepEqual(r.entries.map((e) => e.key), ['a', 'c', 'b'], 'best first; the other run is not seen');
  assert.ok(r.entries[0]!.score! > r.entries[2]!.score!);
  assert.deepEqual(m.search(s, { query: 'payment', category: 'plans' }).entries.map((e) => e.key), ['c']);
  assert.deepEqual(m.search(s, { query: 'retr* NOT plan' }).entries.map((e) => e.key), ['a']);
  assert.deepEqual(m.search(s, { query: '"payment calls"' }).entries.map((e) => e.key), ['a']);
  assert.throws(() => m.search(s, { query: '"unclosed' }), /cannot be searched: a quote is not closed/);
  assert.throws(() => m.search(s, { category: 'ideas' }), /category "ideas" is not one of findings, plans, code, notes, custom/);
});

test('a term in more entries than the rank window ranks the newest of them and still counts them all', async () => {
  const { baton, store, run1 } = await withRuns();
  const iso = new Date().toISOString();
  await store.transaction(() => {
    for (let i = 0; i < RANK_WINDOW + 5; i++) {
      const value = i === 3 ? 'common common common common' : `common entry ${i}`;
      baton.memory.storeInTx(run1, { runId: run1, agent: 'a' }, { key: `k${i}`, value, category: 'notes', metadata: '{}', size: value.length, id: `id${i}`, iso });
    }
  });
  const r = baton.memory.search({ runId: run1, agent: null }, { query: 'common', limit: 3 });
  assert.equal(r.total, RANK_WINDOW + 5);
  assert.equal(r.entries.length, 3);
  assert.ok(!r.entries.some((e) => e.key === 'k3'), 'the oldest entries are outside the window');
  assert.ok(r.entries.every((e) => Number(e.key.slice(1)) >= 5), 'ranked among the newest');
});

test('size limits are enforced with errors that say the limit and what to do', async () => {
  const { baton, run1 } = await withRuns();
  const s = { runId: run1, agent: 'x' };
  await assert.rejects(baton.memory.store(s, { key: 'big', value: 'x'.repeat(MEMORY_LIMITS.valueBytes + 1) }), /value is 65537 bytes; the limit is 65536 \(64 KB\)\. Store a summary, or split it/);
  await assert.rejects(baton.memory.store(s, { key: 'k'.repeat(201), value: 'v' }), /key is 201 characters; the limit is 200/);
  // Characters as the schema's maxLength counts them: 200 emoji (400 UTF-16 units) fit, 201 do not.
  await assert.rejects(baton.memory.store(s, { key: '\u{1F389}'.repeat(201), value: 'v' }), /key is 201 characters; the limit is 200/);
  assert.throws(() => baton.memory.search(s, { query: '\u{1F389}' }), /cannot be searched: there is no search term \(only words are indexed: letters and digits; emoji and symbols alone cannot be searched\)/);
  await assert.rejects(baton.memory.store(s, { key: '  ', value: 'v' }), /key must not be empty/);
  await assert.rejects(baton.memory.store(s, { key: 'm', value: 'v', metadata: { blob: 'x'.repeat(9000) } }), /metadata is \d+ bytes of JSON; the limit is 8192/);
  assert.equal(baton.memory.list(s).total, 0, 'nothing was stored');
  await baton.memory.store(s, { key: '\u{1F389}'.repeat(200), value: 'v' });
  assert.equal(baton.memory.list(s).total, 1, '200 emoji are 200 characters');
});

test('the memory context lists the run\'s entries under the spec\'s heading, newest first, within its budget', async () => {
  const { baton, run1 } = await withRuns();
  assert.doesNotMatch(baton.memory.contextFor(run1, 'a'), /Context from Previous Agents/);
  await baton.memory.store({ runId: run1, agent: 'scout' }, { key: 'first', value: 'one', category: 'findings' });
  await baton.memory.store({ runId: run1, agent: 'planner' }, { key: 'second', value: 'y'.repeat(20_000), category: 'plans' });
  const ctx = baton.memory.contextFor(run1, 'implementer');
  assert.match(ctx, /^## Context from Previous Agents\n\n### second \(plans, from planner\)\ny+\n… \(cut; memory_retrieve "second" for all\)/);
  assert.ok(ctx.length < MEMORY_LIMITS.contextChars + 600);
  assert.match(ctx, /## Your Task\n\nYou are agent "implementer"[\s\S]*memory_store tool with category "findings"/);
});

async function client(baton: Awaited<ReturnType<typeof makeBaton>>['baton'], scope?: RunScope) {
  const server = createMcpServer(baton, { toolGroups: ['memory'], version: '0', log: silentLog, scope });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const c = new Client({ name: 'memory-test', version: '1' });
  await server.connect(a);
  await c.connect(b);
  const call = (name: string, args: Record<string, unknown>) => c.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  return { c, call };
}

test('the memory tools act on the session\'s run and agent and refuse another run', async () => {
  const { baton, run1, run2 } = await withRuns();
  const { c, call } = await client(baton, { runId: run1, agent: 'scout' });
  assert.deepEqual((await c.listTools()).tools.map((t) => t.name).sort(), ['memory_list', 'memory_retrieve', 'memory_search', 'memory_store']);
  const stored = await call('memory_store', { key: 'f', value: 'the cart bug is in total()', category: 'findings' });
  assert.equal(stored.isError, undefined);
  assert.equal((stored.structuredContent as { agent: string }).agent, 'scout');
  assert.equal(baton.memory.retrieve({ runId: run1, agent: null }, 'f', 'run').executionId, run1);
  const found = await call('memory_search', { query: 'cart' });
  assert.equal((found.structuredContent as { entries: unknown[] }).entries.length, 1);
  const other = await call('memory_retrieve', { key: 'f', run_id: run2 });
  assert.equal(other.isError, true);
  assert.match((other.content[0] as { text: string }).text, new RegExp(`belongs to run ${run1} \\(agent scout\\)`));
  const bad = await call('memory_store', { key: 'x', value: 'y', category: 'ideas' });
  assert.equal(bad.isError, true);
  assert.match((bad.content[0] as { text: string }).text, /category/);
  const listed = await call('memory_list', {});
  assert.equal((listed.content[0] as { text: string }).text, '1 of 1 entry:\n\n## f [findings, from scout]\nthe cart bug is in total()');
  assert.match(((await call('memory_search', { query: 'cart' })).content[0] as { text: string }).text, /## f \[findings, from scout\]\nthe cart bug is in total\(\)/);
  assert.equal(((await call('memory_retrieve', { key: 'f' })).content[0] as { text: string }).text, 'the cart bug is in total()');
});

test('list texts carry the values, cut per entry and in all, with how many more and how to narrow the query', async () => {
  const { baton, run1 } = await withRuns();
  const { call } = await client(baton, { runId: run1, agent: 'scout' });
  const long = `needle ${'x'.repeat(LIST_TEXT_LIMITS.itemChars + 500)}`;
  for (let i = 0; i < 12; i++) await call('memory_store', { key: `k${i}`, value: long, category: 'notes' });
  const text = ((await call('memory_search', { query: 'needle', limit: 12 })).content[0] as { text: string }).text;
  assert.ok(text.length <= LIST_TEXT_LIMITS.totalChars + 600, `bounded: ${text.length}`);
  assert.match(text, new RegExp(`… \\(cut at ${LIST_TEXT_LIMITS.itemChars} of ${long.length} characters; memory_retrieve "k\\d+" for all\\)`));
  const shown = (text.match(/^## k\d+ /gm) ?? []).length;
  assert.ok(shown >= 2 && shown < 12, `shown ${shown}`);
  assert.match(text, new RegExp(`^${shown} of 12 entries:`));
  assert.match(text, new RegExp(`\\n\\n… ${12 - shown} more, narrow the query \\(more specific terms, a category or a scope\\)\\.$`));
  const limited = ((await call('memory_search', { query: 'needle', limit: 1 })).content[0] as { text: string }).text;
  assert.match(limited, /^1 of 12 entries:[\s\S]*… 11 more, narrow the query/);
  assert.equal(((await call('memory_search', { query: 'absent' })).content[0] as { text: string }).text, 'Nothing matches.');
});

test('a session without a run needs run_id or the global scope', async () => {
  const { baton, run1 } = await withRuns();
  const { call } = await client(baton);
  const refused = await call('memory_store', { key: 'k', value: 'v' });
  assert.equal(refused.isError, true);
  assert.match((refused.content[0] as { text: string }).text, /not part of a pipeline run: pass run_id .* or global: true/);
  assert.equal((await call('memory_store', { key: 'k', value: 'v', run_id: run1 })).isError, undefined);
  assert.equal((await call('memory_store', { key: 'g', value: 'shared', global: true })).isError, undefined);
  const missing = await call('memory_list', { run_id: 'nope' });
  assert.match((missing.content[0] as { text: string }).text, /No pipeline run "nope"/);
  const globalOnly = await call('memory_search', {});
  assert.deepEqual((globalOnly.structuredContent as { entries: Array<{ key: string }> }).entries.map((e) => e.key), ['g']);
});

test('the memory tools refuse a misspelt field, name the query field in a search error, and refuse metadata nested too deep', async () => {
  const { baton, run1 } = await withRuns();
  const { call } = await client(baton, { runId: run1, agent: 'scout' });
  const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
  const typo = await call('memory_store', { key: 'k3', value: 'v', categroy: 'plans' });
  assert.equal(typo.isError, true);
  assert.match(text(typo), /unknown field "categroy"/);
  assert.match(text(typo), /category/);
  assert.equal((await call('memory_search', { qeury: 'x' })).isError, true, 'a misspelt query does not list everything');
  const star = await call('memory_search', { query: '*' });
  assert.match(text(star), /^query "\*" cannot be searched: /);
  const long = await call('memory_search', { query: Array.from({ length: 5000 }, () => 'a').join(' OR ') });
  assert.equal(long.isError, true);
  assert.ok(text(long).length < 600, `the query is clipped in the error: ${text(long).length} characters`);
  let deep: unknown = 'leaf';
  for (let i = 0; i < 20_000; i++) deep = { d: deep };
  const tooDeep = await call('memory_store', { key: 'deep', value: 'v', metadata: { deep } });
  assert.equal(tooDeep.isError, true);
  assert.match(text(tooDeep), /^Invalid arguments for memory_store: metadata is nested more than 100 levels deep /);
  baton.logCall({ call_type: 'tool', name: 'memory_store', request: { deep }, response: null, duration_ms: 1, success: false });
  await baton.flushCalls();
  assert.match(String(baton.recentCalls(1)[0]!.request_full), /"unloggable":"nested too deep to walk"/, 'the call log keeps a row that says so, and the process lives');
});
