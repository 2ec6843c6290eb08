// Rule: a run token opens only MCP sessions on the owner's endpoint, each built for its run and agent (their tool
// groups, their calls logged under the agent); it opens nothing else, cannot ride another session, and stops working
// (its sessions closed) once revoked.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BatonApi, CallLogEntry } from '../../src/core/api.js';
import type { RunScope } from '../../src/core/pipelines/runner.js';
import { silentLog } from '../../src/core/ports.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer, type OwnerServer } from '../../src/host/ownerServer.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { assertToolGroups } from '../../src/mcp/toolGroups.js';

function status(port: number, path: string, method: string, token: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port, path, method,
      headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      res.destroy();
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'run-token-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

describe('run tokens on the owner endpoint', () => {
  let workspace: string;
  let opened: OpenedBaton;
  let owner: OwnerServer;
  const calls: CallLogEntry[] = [];
  const scopes: Array<RunScope | undefined> = [];

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'baton-runtokens-'));
    opened = await openBaton({ dbPath: null, workspace, rateLimits: false, log: silentLog } as Parameters<typeof openBaton>[0]);
    const spy = Object.create(opened.baton) as BatonApi;
    spy.logCall = (entry) => {
      calls.push(entry);
      opened.baton.logCall(entry);
    };
    owner = await startOwnerServer({
      baton: opened.baton,
      createServer: (scope) => {
        scopes.push(scope);
        return createMcpServer(spy, { toolGroups: scope?.toolGroups ? assertToolGroups(scope.toolGroups) : ['broker'], version: 't', log: silentLog, scope });
      },
      log: silentLog,
    });
  });
  after(async () => {
    await owner.close();
    await opened.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('serves the run\'s tool groups and logs its calls under its agent', async () => {
    const grant = owner.issueRunToken({ runId: 'run-1', agent: 'scout', toolGroups: ['content'] });
    const client = await connect(owner.url, grant.token);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('list_projects'), names.join(', '));
      assert.ok(!names.includes('workflow_next_step'), 'the owner\'s broker group is not served to this run');
      const result = await client.callTool({ name: 'list_projects', arguments: {} });
      assert.equal(result.isError, undefined);
      assert.deepEqual(scopes.at(-1), { runId: 'run-1', agent: 'scout', toolGroups: ['content'] });
      assert.equal(calls.at(-1)!.name, 'list_projects');
      assert.equal(calls.at(-1)!.agent_name, 'scout');
    } finally {
      await client.close();
      grant.revoke();
    }
  });

  it('opens nothing but /mcp: /control and /events refuse it', async () => {
    const grant = owner.issueRunToken({ runId: 'run-2', agent: 'a' });
    try {
      assert.equal(await status(owner.port, '/control', 'POST', grant.token, '{"op":"status"}'), 401);
      assert.equal(await status(owner.port, '/events', 'GET', grant.token), 401);
      assert.equal(await status(owner.port, '/events', 'GET', owner.token), 200, 'the owner token still does');
    } finally {
      grant.revoke();
    }
  });

  it('once revoked, the token is refused and its open session is closed', async () => {
    const grant = owner.issueRunToken({ runId: 'run-3', agent: 'b', toolGroups: ['content'] });
    const client = await connect(owner.url, grant.token);
    await client.listTools();
    grant.revoke();
    await assert.rejects(client.listTools());
    await client.close().catch(() => undefined);
    await assert.rejects(connect(owner.url, grant.token), /401|unauthorized/i);
  });

  it('a session opened with one token cannot be used with another', async () => {
    const one = owner.issueRunToken({ runId: 'run-4', agent: 'c', toolGroups: ['content'] });
    const two = owner.issueRunToken({ runId: 'run-4', agent: 'd', toolGroups: ['content'] });
    const transport = new StreamableHTTPClientTransport(new URL(owner.url), { requestInit: { headers: { Authorization: `Bearer ${one.token}` } } });
    const client = new Client({ name: 't', version: '1' });
    await client.connect(transport);
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} });
      const res = await fetch(owner.url, {
        method: 'POST', body,
        headers: { authorization: `Bearer ${two.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
      });
      assert.equal(res.status, 404, 'no such session for this token (as if it did not exist)');
      const owners = await fetch(owner.url, {
        method: 'POST', body,
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
      });
      assert.equal(owners.status, 404, 'not even the owner token rides a run\'s session');
    } finally {
      await client.close();
      one.revoke();
      two.revoke();
    }
  });
});
