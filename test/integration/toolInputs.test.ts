// Rule: every field of every tool, given a value of the wrong kind, is refused with a message that names the field
// and says what it must be in plain words (never the validator's own words); a null in a field the call may leave
// out reads as left out, as models often send it; a JSON text where an object or a list is due reads as that
// object or list, as command-line clients and models send it; and the JSON-RPC level refuses what it must with
// -32602, not an internal error. (Real core, in memory, all tool groups.)
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { silentLog } from '../../src/core/ports.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { TOOL_GROUPS } from '../../src/mcp/toolGroups.js';

type Schema = { type?: string | string[]; enum?: unknown[]; items?: Schema; properties?: Record<string, Schema>; required?: string[]; anyOf?: Schema[] };

/** The (first) JSON type a field's schema names. */
const typeOf = (schema: Schema) => (Array.isArray(schema.type) ? schema.type[0] : schema.type ?? schema.anyOf?.[0]?.type);

/** A value of the wrong kind for `schema`. */
function wrongFor(schema: Schema): unknown {
  if (schema.enum) return 'not-one-of-them';
  return typeOf(schema) === 'string' ? 42 : 'text';
}

/** A value of the right kind for `schema`, for the required fields around the one under test. */
function rightFor(schema: Schema): unknown {
  if (schema.enum) return schema.enum[0];
  const type = typeOf(schema);
  return type === 'string' ? 'x' : type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? true : type === 'array' ? [] : type === 'object' ? {} : 'x';
}

const text = (res: unknown) => ((res as { content: Array<{ text?: string }> }).content[0]?.text ?? '');

describe('tool inputs (real core, every tool group)', () => {
  let workspace: string;
  let opened: OpenedBaton;
  let client: Client;
  let tools: Tool[];

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'baton-inputs-'));
    opened = await openBaton({ dbPath: null, workspace, rateLimits: false, log: silentLog, approvalWaitMs: 0 } as Parameters<typeof openBaton>[0]);
    const server = createMcpServer(opened.baton, { toolGroups: [...TOOL_GROUPS], version: '0.0.0-test', log: silentLog });
    const [a, b] = InMemoryTransport.createLinkedPair();
    client = new Client({ name: 'inputs-test', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    tools = (await client.listTools()).tools;
    for (const name of ['workflow_next_step', 'start_workflow', 'start_execution', 'get_workflow', 'memory_store', 'channel_send']) {
      assert.ok(tools.some((t) => t.name === name), `every group is listed (${name})`);
    }
  });
  after(async () => {
    await client.close();
    await opened.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('names the field and what it must be, in plain words, for a value of the wrong kind in any field of any tool', async () => {
    const vague: string[] = [];
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
      const required = Object.fromEntries((tool.inputSchema.required ?? []).map((f) => [f, rightFor(properties[f]!)]));
      for (const [field, schema] of Object.entries(properties)) {
        const res = await client.callTool({ name: tool.name, arguments: { ...required, [field]: wrongFor(schema) } });
        assert.equal(res.isError, true, `${tool.name}.${field}`);
        const said = text(res);
        if (!said.includes(`${field} must be`) || /Invalid input|Too (small|big)|expected \w+, received/.test(said)) vague.push(`${tool.name}.${field}: ${said}`);
      }
    }
    assert.deepEqual(vague, []);
  });

  it('says "is required" for a field left out, whatever its kind (an enum too), never "got nothing"', async () => {
    for (const tool of tools) {
      const required = tool.inputSchema.required ?? [];
      if (required.length === 0) continue;
      const said = text(await client.callTool({ name: tool.name, arguments: {} }));
      assert.match(said, new RegExp(`${required[0]} is required: pass `), `${tool.name}: ${said}`);
      assert.doesNotMatch(said, /got nothing/, `${tool.name}: ${said}`);
    }
  });

  it('reads null in any field a call may leave out as left out, in every tool', async () => {
    const refused: string[] = [];
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
      const requiredNames = tool.inputSchema.required ?? [];
      const args: Record<string, unknown> = Object.fromEntries(Object.keys(properties).map((f) => [f, requiredNames.includes(f) ? rightFor(properties[f]!) : null]));
      const said = text(await client.callTool({ name: tool.name, arguments: args }));
      // The call may still fail for what the values mean (no such execution); never for a null.
      if (/null/.test(said)) refused.push(`${tool.name}: ${said}`);
    }
    assert.deepEqual(refused, []);
  });

  it('runs a workflow whose calls carry nulls where fields are left out, at the top and inside the step output', async () => {
    const start = await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'login fails', step_token: null, request: null, intent_tags: null, rationale: null } });
    assert.equal(start.isError, undefined, text(start));
    const token = (start.structuredContent as { new_step_token: string }).new_step_token;
    const output = { summary: 'found it', artifacts: [{ type: 'markdown', title: 't', content: 'c', description: null, metadata: null }], references: [], confidence: 0.8, decisions: null, findings: null, next_steps: null };
    const next = await client.callTool({ name: 'workflow_next_step', arguments: { step_token: token, model_output_so_far: output, template_name: null, requested_step_name: null } });
    assert.equal(next.isError, undefined, text(next));
    assert.equal((next.structuredContent as { status: string }).status, 'ok');
  });

  it('reads a JSON text where an object or a list is due as that object or list, in any such field of any tool', async () => {
    const refused: string[] = [];
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
      const required = Object.fromEntries((tool.inputSchema.required ?? []).map((f) => [f, rightFor(properties[f]!)]));
      for (const [field, schema] of Object.entries(properties)) {
        const right = rightFor(schema);
        if (typeof right !== 'object') continue;
        const said = text(await client.callTool({ name: tool.name, arguments: { ...required, [field]: JSON.stringify(right) } }));
        // The call may still fail for what the values mean (no such execution); never for the text.
        if (said.includes(`${field} must be`)) refused.push(`${tool.name}.${field}: ${said}`);
      }
    }
    assert.deepEqual(refused, []);
  });

  it('runs a spec phase whose evidence and output come as JSON text (the MCP Inspector 0.15\'s --tool-arg)', async () => {
    mkdirSync(join(workspace, 'specs'), { recursive: true });
    copyFileSync(join(__dirname, '..', 'fixtures', 'specs', 'auth-service.tasks.md'), join(workspace, 'specs/tasks.md'));
    const start = await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'spec_execution_v1', source: 'specs/tasks.md' } });
    assert.equal(start.isError, undefined, text(start));
    const token = (start.structuredContent as { new_step_token: string }).new_step_token;
    const output = JSON.stringify({ summary: 'scope read', artifacts: [], references: [], confidence: 0.9, decisions: null });
    const next = await client.callTool({ name: 'workflow_next_step', arguments: { step_token: token, model_output_so_far: output, evidence: '["spec.md", "phases 1-3", "none", "npm test: ok"]' } });
    assert.equal(next.isError, undefined, text(next));
    assert.equal((next.structuredContent as { next_step_contract: { step_name: string } }).next_step_contract.step_name, 'phase-1');
  });

  it('refuses a JSON text that holds the wrong thing by what is wrong inside it, and a text that is no object or list as sent', async () => {
    const inside = text(await client.callTool({ name: 'workflow_next_step', arguments: { step_token: 'x', model_output_so_far: '{"summary": "s"}' } }));
    assert.match(inside, /model_output_so_far\.artifacts is required: pass /);
    const scalar = text(await client.callTool({ name: 'workflow_next_step', arguments: { step_token: 'x', model_output_so_far: '"s"' } }));
    assert.match(scalar, /model_output_so_far must be .* \(got "\\"s\\""\)/);
    const broken = text(await client.callTool({ name: 'workflow_next_step', arguments: { step_token: 'x', evidence: '{"1": ' } }));
    assert.match(broken, /evidence must be .* \(got "\{\\"1\\": "\)/);
  });

  it('keeps refusing a null where a value is needed: a required field, or an item of a list', async () => {
    const required = text(await client.callTool({ name: 'get_execution_details', arguments: { executionId: null } }));
    assert.match(required, /executionId is required: pass a non-empty execution id string/);
    const item = text(await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', intent_tags: [null] } }));
    assert.match(item, /intent_tags\[0\] must be a string \(got null\)/);
    const mixed = text(await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', rationale: null, intent_tags: 'security' } }));
    assert.match(mixed, /^Invalid arguments for workflow_next_step: intent_tags must be an array of strings \(got "security"\)\. Fix the field and call again\.$/, 'only the real problem is named');
  });

  it('says a tool takes no arguments when it takes none, and counts the problems it leaves out in words', async () => {
    const none = text(await client.callTool({ name: 'check_execution_timeout', arguments: { executionId: 'x' } }));
    assert.match(none, /unknown field "executionId"; this tool takes no arguments/);
    const six = text(await client.callTool({ name: 'start_step', arguments: { executionId: 1, stepName: 2, phaseName: 3, agentName: 4, dependsOn: 5, extra: 6 } }));
    assert.match(six, /\n\(and 1 more problem\)\. Fix the fields and call again\.$/, six);
  });

  it('refuses text UTF-8 cannot hold (a lone surrogate) and a "__proto__" key, naming the field; stores nothing', async () => {
    // As a JSON client sends them: JSON.parse keeps a "\ud83d" escape and an own "__proto__" key.
    const cases: Array<[string, string, RegExp]> = [
      ['memory_store', '{"key":"k1","value":"ab\\ud83dcd","global":true}', /: value holds a lone UTF-16 surrogate .*send the whole character or leave it out/],
      ['memory_store', '{"key":"k2","value":"v","global":true,"metadata":{"tags":["ok","x\\udc00"]}}', /: metadata\.tags\[1\] holds a lone UTF-16 surrogate/],
      ['memory_store', '{"key":"k3","value":"v","global":true,"metadata":{"\\ud800":1}}', /: metadata has a key holding a lone UTF-16 surrogate \("\\ud800"\)/],
      ['memory_store', '{"key":"k4","value":"v","global":true,"metadata":{"__proto__":{"a":1},"b":2}}', /: metadata has a key "__proto__", which cannot be kept as data; rename the key/],
    ];
    for (const [name, json, said] of cases) {
      const res = await client.callTool({ name, arguments: JSON.parse(json) as Record<string, unknown> });
      assert.equal(res.isError, true, json);
      assert.match(text(res), said);
    }
    const listed = text(await client.callTool({ name: 'memory_list', arguments: { global: true } }));
    for (const key of ['k1', 'k2', 'k3', 'k4']) assert.doesNotMatch(listed, new RegExp(`\\b${key}\\b`), listed);
    // A whole character (a surrogate pair) is stored, and so is a value nested a few dozen levels.
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const ok = await client.callTool({ name: 'memory_store', arguments: { key: 'k5', value: 'ok \u{1F600}', global: true, metadata: { deep } } });
    assert.notEqual(ok.isError, true, text(ok));
  });
});
