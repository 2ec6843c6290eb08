// Rule: GROUP_TOOLS, which tells an agent calling a tool of a group its server does not serve how to ask for it,
// names exactly the tools each group's registrar registers (the catalog is built from the real server).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCatalog } from '../../src/mcp/catalogBuilder.js';
import { GROUP_TOOLS, groupOfTool, TOOL_GROUPS } from '../../src/mcp/toolGroups.js';

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
