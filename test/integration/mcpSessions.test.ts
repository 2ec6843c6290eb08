// Rule: starting an MCP session stays cheap because what never changes is built once per process: every session's
// server shares one JSON Schema validator, and tools/list is converted from zod once per set of tool groups,
// each session getting the same list. (Scripted core.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { silentLog } from '../../src/core/ports.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import type { ToolGroup } from '../../src/mcp/toolGroups.js';
import { FakeBaton } from '../fixtures/mcp/fakeBaton.js';

async function session(baton: FakeBaton, toolGroups: ToolGroup[]) {
  const server = createMcpServer(baton, { toolGroups, version: '0.0.0-test', log: silentLog });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'sessions-test', version: '1' });
  await Promise.all([server.connect(a), client.connect(b)]);
  return { server, client };
}

const registered = (server: McpServer) => (server as unknown as { _registeredTools: Record<string, { description?: string }> })._registeredTools;

describe('MCP sessions (scripted core)', () => {
  it('share one JSON Schema validator', async () => {
    const baton = new FakeBaton();
    const [one, two] = [await session(baton, ['broker']), await session(baton, ['broker', 'lifecycle'])];
    const validator = (s: McpServer) => (s.server as unknown as { _jsonSchemaValidator: unknown })._jsonSchemaValidator;
    assert.ok(validator(one.server));
    assert.equal(validator(one.server), validator(two.server));
    await Promise.all([one.client.close(), two.client.close()]);
  });

  it('list the tools converted once per set of tool groups', async () => {
    const baton = new FakeBaton();
    const first = await session(baton, ['broker', 'content']);
    const listed = (await first.client.listTools()).tools;
    assert.deepEqual(listed.map((t) => t.name).sort(), Object.keys(registered(first.server)).sort());
    // A later session with the same groups is answered from the list already built (its own registration is
    // not converted again), and one with other groups gets its own list.
    const second = await session(baton, ['broker', 'content']);
    for (const tool of Object.values(registered(second.server))) tool.description = 'not converted again';
    assert.deepEqual((await second.client.listTools()).tools, listed);
    const other = await session(baton, ['broker']);
    assert.deepEqual((await other.client.listTools()).tools.map((t) => t.name), ['workflow_next_step']);
    await Promise.all([first.client.close(), second.client.close(), other.client.close()]);
  });
});
