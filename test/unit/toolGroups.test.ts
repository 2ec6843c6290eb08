// Rule: GROUP_TOOLS, which tells an agent calling a tool of a group its server does not serve how to ask for it,
// names exactly the tools each group's registrar registers (the catalog is built from the real server). The methods
// the server answers do not depend on its groups: a forwarding `baton mcp`, which does not know the owner's groups,
// answers Method not found for any other method sent before initialize (batonMethods).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLog } from '../../src/core/ports.js';
import { batonMethods, buildCatalog } from '../../src/mcp/catalogBuilder.js';
import { createMcpServer, serverMethods } from '../../src/mcp/createMcpServer.js';
import { GROUP_TOOLS, groupOfTool, TOOL_GROUPS } from '../../src/mcp/toolGroups.js';
import { FakeBaton } from '../fixtures/mcp/fakeBaton.js';

test('each group lists the tools its registrar registers, and only those', async () => {
  const catalog = await buildCatalog('t');
  const registered = Object.fromEntries(catalog.groups.map((g) => [g.group, (g.tools as Array<{ name: string }>).map((t) => t.name)]));
  for (const group of TOOL_GROUPS) assert.deepEqual(GROUP_TOOLS[group], registered[group] ?? [], group);
});

test('groupOfTool names the group of a tool, and none for a name no group has', () => {
  assert.equal(groupOfTool('start_execution'), 'lifecycle');
  assert.equal(groupOfTool('memory_store'), 'memory');
  assert.equal(groupOfTool('workflow_next_step'), 'broker');
  assert.equal(groupOfTool('make_coffee'), undefined);
});

test('batonMethods are the methods a server with any tool groups answers; server/discover is not one', async () => {
  for (const groups of [[...TOOL_GROUPS], ...TOOL_GROUPS.map((g) => [g])]) {
    const server = createMcpServer(new FakeBaton(), { toolGroups: groups, version: 't', log: silentLog });
    assert.deepEqual(new Set(serverMethods(server)), batonMethods(), groups.join(','));
    await server.close();
  }
  assert.ok(batonMethods().has('tools/list') && batonMethods().has('resources/read'));
  assert.equal(batonMethods().has('server/discover'), false);
});
