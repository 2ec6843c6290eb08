// Rule: a message the SDK's schema refuses for a reason none of the usual mistakes explains (a progressToken that is
// null, a result that is no object) is answered, on stdio and over HTTP, with Invalid Request naming the field at its
// full path and the kinds it may be, not the schema's bare "Invalid input" of the union of message kinds.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { readDiscovery } from '../../src/host/discovery.js';
import { CLI, ensureBuilt, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';
import { rawStdio } from '../fixtures/mcp/rawStdio.js';

const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
const NULL_TOKEN = { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'workflow_next_step', arguments: {}, _meta: { progressToken: null } } };
const TOKEN_REFUSED = 'Invalid Request: not a message the server accepts (params._meta.progressToken: Invalid input: expected string or number, received null)';

describe('a message the schema refuses names the field', () => {
  const setup = tempSetup('baton-invalid-fields-');
  before(() => ensureBuilt());
  after(() => rmSync(setup.dir, { recursive: true, force: true }));

  it('on stdio: a null progressToken, and an answer whose result is no object', async () => {
    const mcp = rawStdio(['--db', setup.db, '--workspace', setup.workspace]);
    try {
      mcp.send({ id: 1, method: 'initialize', params });
      await mcp.answer(1);
      mcp.send({ method: 'notifications/initialized' });
      mcp.send(NULL_TOKEN);
      assert.deepEqual(await mcp.answer(5), { jsonrpc: '2.0', id: 5, error: { code: -32600, message: TOKEN_REFUSED } });
      // JSON-RPC answers no answer, however malformed; the next call is served.
      mcp.send({ id: 6, result: 5 });
      mcp.send({ method: 'notifications/cancelled', params: 'x' });
      mcp.send({ id: 7, method: 'ping' });
      assert.deepEqual(await mcp.answer(7), { jsonrpc: '2.0', id: 7, result: {} });
      assert.deepEqual(mcp.notJson, []);
    } finally {
      await mcp.close();
    }
  });

  it('over HTTP (baton serve): the same answer, with 400', async () => {
    const db = `${setup.dir}/serve/baton.db`;
    const serve = spawn(process.execPath, [CLI, 'serve', '--db', db, '--workspace', setup.workspace], { stdio: 'ignore' });
    try {
      const info = await waitFor(() => readDiscovery(db), 10_000, 'the discovery file');
      const headers: Record<string, string> = { authorization: `Bearer ${info.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const post = (body: unknown) => fetch(info.url, { method: 'POST', headers, body: JSON.stringify(body) });
      const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
      headers['mcp-session-id'] = init.headers.get('mcp-session-id')!;
      headers['mcp-protocol-version'] = '2025-06-18';
      const refused = await post(NULL_TOKEN);
      assert.equal(refused.status, 400);
      assert.deepEqual(await refused.json(), { jsonrpc: '2.0', id: 5, error: { code: -32600, message: TOKEN_REFUSED } });
      const answer = await post({ jsonrpc: '2.0', id: 6, result: 5 });
      assert.equal(answer.status, 400);
      assert.match(((await answer.json()) as { error: { message: string } }).error.message, /\(result: Invalid input: expected object, received number\)$/);
      // A malformed notification: unanswered on stdio (above), but every POST gets a status: 400 and the error, no id.
      const notification = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: 'x' });
      assert.equal(notification.status, 400);
      assert.deepEqual(await notification.json(), { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: params must be an object' } });
      assert.equal((await post({ jsonrpc: '2.0', id: 7, method: 'ping' })).status, 200);
    } finally {
      const exited = new Promise((resolve) => serve.once('exit', resolve));
      serve.kill('SIGTERM');
      await exited;
    }
  });
});
