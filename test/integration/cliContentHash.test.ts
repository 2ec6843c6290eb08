// Rule: the content tools answer with the lifecycle spec's ETag name, `fileHash` (the file's SHA-256; `contentHash`
// stays as its alias), and `ifNoneMatch` compares with it — through a real SDK client on `baton mcp --tools content`.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureBuilt, ROOT, startMcp, tempSetup, type CliSession } from '../fixtures/mcp/cliHarness.js';

describe('content tools over stdio: fileHash', () => {
  const setup = tempSetup('baton-filehash-');
  let session: CliSession;
  const sha256 = (path: string) => createHash('sha256').update(readFileSync(path, 'utf8')).digest('hex');
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await session.client.callTool({ name, arguments: args });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    return r.structuredContent as Record<string, unknown>;
  };

  before(async () => {
    ensureBuilt();
    session = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--tools', 'content']);
  });
  after(async () => {
    await session?.client.close().catch(() => undefined);
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it('get_workflow and get_agent_persona answer fileHash, the SHA-256 of the file; includeHash false drops it', async () => {
    const workflow = await call('get_workflow', { workflowName: 'bug-fix' });
    const hash = sha256(join(ROOT, 'content', 'workflows', 'bug-fix.yaml'));
    assert.equal(workflow.fileHash, hash);
    assert.equal(workflow.contentHash, hash, 'the older name stays as an alias');
    const agent = await call('get_agent_persona', { agentName: 'implementer' });
    assert.equal(agent.fileHash, sha256(join(ROOT, 'content', 'agents', 'implementer.md')));
    const bare = await call('get_workflow', { workflowName: 'bug-fix', includeHash: false });
    assert.deepEqual([bare.fileHash, bare.contentHash], [undefined, undefined]);
  });

  it('ifNoneMatch with the fileHash answers notModified; a stale one gets the workflow', async () => {
    const { fileHash } = await call('get_workflow', { workflowName: 'bug-fix' });
    assert.deepEqual(await call('get_workflow', { workflowName: 'bug-fix', ifNoneMatch: fileHash }), { notModified: true, fileHash, contentHash: fileHash });
    assert.deepEqual(await call('get_workflow', { workflowName: 'bug-fix', ifNoneMatch: `"${String(fileHash)}"` }), { notModified: true, fileHash, contentHash: fileHash });
    const stale = await call('get_workflow', { workflowName: 'bug-fix', ifNoneMatch: '0'.repeat(64) });
    assert.equal(stale.name, 'bug-fix');
    assert.equal(stale.notModified, undefined);
  });

  it('the tool descriptions name fileHash as the ETag', async () => {
    const { tools } = await session.client.listTools();
    const getWorkflow = tools.find((t) => t.name === 'get_workflow')!;
    assert.match(getWorkflow.description!, /fileHash .* is the ETag: send it back as ifNoneMatch/);
    const props = getWorkflow.inputSchema.properties as Record<string, { description?: string }>;
    assert.match(props.includeHash!.description!, /Include fileHash/);
    assert.match(props.ifNoneMatch!.description!, /A fileHash you hold/);
  });
});
