// Rule: editing the workspace's .baton/ content while Baton runs re-syncs it and tells MCP clients
// (list_changed); a broken file is reported and never takes the server down.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Log } from '../../src/core/ports.js';
import { openBaton } from '../../src/host/openBaton.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { makeWorkspace } from '../helpers/coreHarness.js';

const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
};

describe('content watching', () => {
  it('picks up a new workflow file, sends list_changed, and reports a broken one', { timeout: 20_000 }, async () => {
    const workspace = makeWorkspace();
    const warnings: string[] = [];
    const log: Log = { debug() {}, info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
    const opened = await openBaton({ dbPath: null, workspace, watchContent: true, rateLimits: false, log });
    const server = createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log });
    const client = new Client({ name: 'watcher', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    let listChanged = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanged++;
    });
    try {
      writeFileSync(join(workspace, '.baton', 'workflows', 'hotfix.yaml'), 'name: hotfix\ndescription: Ship a fix fast\ntype: sequential\nsteps:\n  - name: patch\n    agent: implementer\n    description: Patch it\n');
      assert.ok(await until(() => opened.baton.availableWorkflows().workflows.some((w) => w.name === 'hotfix')), 'new workflow synced');
      assert.ok(await until(() => listChanged > 0), 'client told the list changed');
      const r = await opened.baton.nextStep({ template_name: 'hotfix' });
      assert.equal(r.status, 'ok');
      writeFileSync(join(workspace, '.baton', 'workflows', 'broken.yaml'), 'name: broken\nsteps: [\n');
      assert.ok(await until(() => warnings.some((w) => w.includes('broken.yaml'))), 'broken file reported with its path');
      assert.ok(opened.baton.availableWorkflows().workflows.some((w) => w.name === 'hotfix'), 'still serving the good content');
      // A content folder created while Baton runs is watched from then on.
      mkdirSync(join(workspace, '.baton', 'agents'));
      writeFileSync(join(workspace, '.baton', 'agents', 'tester.md'), '---\nname: tester\ndescription: Writes tests first\n---\n# Tester Agent\n\n**Role**: testing\n');
      assert.ok(await until(() => opened.baton.agentNames().includes('tester')), 'agent in a new folder synced');
      // The database files beside the content do not trigger syncs (no endless loop on every write).
      const before = listChanged;
      await opened.baton.nextStep({ template_name: 'hotfix' });
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(listChanged, before);
    } finally {
      await client.close();
      await opened.close();
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
