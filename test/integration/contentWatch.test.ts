// Rule: editing the workspace's .baton/ content while Baton runs re-syncs it and tells MCP clients
// (list_changed); a broken file is reported and never takes the server down.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Log } from '../../src/core/ports.js';
import { openBaton } from '../../src/host/openBaton.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { makeWorkspace } from '../helpers/coreHarness.js';

const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
};

describe('content watching', () => {
  it('picks up a new workflow file, sends list_changed, and reports a broken one', { timeout: 90_000 }, async () => {
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
    let promptsChanged = 0;
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      promptsChanged++;
    });
    try {
      writeFileSync(join(workspace, '.baton', 'workflows', 'hotfix.yaml'), 'name: hotfix\ndescription: Ship a fix fast\ntype: sequential\nsteps:\n  - name: patch\n    agent: implementer\n    description: Patch it\n');
      assert.ok(await until(() => opened.baton.availableWorkflows().workflows.some((w) => w.name === 'hotfix')), 'new workflow synced');
      assert.ok(await until(() => listChanged > 0), 'client told the list changed');
      const r = await opened.baton.nextStep({ template_name: 'hotfix' });
      assert.equal(r.status, 'ok');
      // One prompts/list_changed per sync that changed the prompts, not one per prompt re-registered (2 × N).
      assert.ok(promptsChanged >= 1 && promptsChanged <= listChanged, `${promptsChanged} prompt notes for ${listChanged} syncs`);
      assert.ok((await client.listPrompts()).prompts.some((p) => p.name === 'hotfix'));
      const promptNotes = promptsChanged;
      writeFileSync(join(workspace, '.baton', 'workflows', 'hotfix.yaml'), 'name: hotfix\ndescription: Ship a fix faster\ntype: sequential\nsteps:\n  - name: patch\n    agent: implementer\n    description: Patch it\n  - name: check\n    agent: reviewer\n    description: Check it\n');
      assert.ok(await until(() => promptsChanged > promptNotes), 'a changed description is a changed prompt list');
      assert.equal((await client.listPrompts()).prompts.find((p) => p.name === 'hotfix')?.description, 'Ship a fix faster');
      const got = await client.getPrompt({ name: 'hotfix', arguments: {} });
      assert.match((got.messages[0]!.content as { text: string }).text, /Steps: patch → check\./, 'the prompt is made from the template as it is now');
      writeFileSync(join(workspace, '.baton', 'workflows', 'broken.yaml'), 'name: broken\nsteps: [\n');
      assert.ok(await until(() => warnings.some((w) => w.includes('broken.yaml'))), 'broken file reported with its path');
      assert.ok(opened.baton.availableWorkflows().workflows.some((w) => w.name === 'hotfix'), 'still serving the good content');
      // A content folder created while Baton runs is watched from then on.
      mkdirSync(join(workspace, '.baton', 'agents'));
      writeFileSync(join(workspace, '.baton', 'agents', 'tester.md'), '---\nname: tester\ndescription: Writes tests first\n---\n# Tester Agent\n\n**Role**: testing\n');
      const promptNotesBefore = promptsChanged;
      const resourceNotesBefore = listChanged;
      assert.ok(await until(() => opened.baton.agentNames().includes('tester')), 'agent in a new folder synced');
      assert.ok(await until(() => listChanged > resourceNotesBefore), 'the resources changed');
      assert.equal(promptsChanged, promptNotesBefore, 'a new agent changes no prompt');
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
