// Rule: a forwarding `baton mcp` writes an owner's plain JSON answer to its client as the owner wrote it (no second
// serialization of what it parsed), and only then: an answer over several lines (stdio frames a message per line), one
// the SDK's schema checked (a copy), and a batch are written as JSON.stringify writes what was delivered.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StdioFront } from '../../src/cli/stdioFront.js';
import { silentLog } from '../../src/core/ports.js';
import { OwnerHttpTransport } from '../../src/host/ownerHttpTransport.js';
import { jsonTextOf } from '../../src/mcp/jsonText.js';

const CATALOG = { initialize: { protocolVersion: '2025-06-18' }, protocolVersions: ['2025-06-18'], groups: [] };

/** The lines a stdio front writes for the answers an owner stand-in gives as `bodies` (one per POST, in order). */
async function relayed(bodies: string[]): Promise<{ lines: string[]; delivered: JSONRPCMessage[] }> {
  let next = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(bodies[next++]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  const upstream = new OwnerHttpTransport(url, {});
  const output = new PassThrough();
  let written = '';
  output.on('data', (d: Buffer) => (written += d.toString()));
  const front = new StdioFront({ catalog: CATALOG, toolGroups: [], log: silentLog, input: new PassThrough(), output });
  const delivered: JSONRPCMessage[] = [];
  upstream.onmessage = (m) => {
    delivered.push(m);
    void front.send(m);
  };
  try {
    await upstream.start();
    for (let id = 1; id <= bodies.length; id++) {
      await upstream.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'workflow_next_step', arguments: {} } });
    }
    await new Promise((resolve) => setImmediate(resolve));
    return { lines: written.split('\n').slice(0, -1), delivered };
  } finally {
    await upstream.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

test("an owner's plain answer is written as the owner wrote it, on one line", async () => {
  // Written again by JSON.stringify, 1.50 would be 1 and \u00e9 an é: the line shows which text went out.
  const body = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"caf\\u00e9 at 1.50"}],"n":1.50}}';
  const error = '{"jsonrpc":"2.0", "id":2, "error":{"code":-32602,"message":"bad \\u0041rguments"}}';
  const { lines, delivered } = await relayed([body, error]);
  assert.deepEqual(lines, [body, error]);
  assert.equal(jsonTextOf(delivered[0]!), body);
  assert.deepEqual(delivered[0], JSON.parse(body));
});

test('an answer over several lines, one the SDK schema copied, and a batch are serialized from what was delivered', async () => {
  const pretty = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { n: 1.5, text: 'two\nlines' } }, null, 2);
  // A key the plain check leaves to the SDK's schema, which delivers a copy: its text is not what was delivered.
  const checked = '{"jsonrpc":"2.0","id":2,"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}},"n":2.50}}';
  const batch = '[{"jsonrpc":"2.0","id":3,"result":{"n":3.50}}]';
  const { lines, delivered } = await relayed([pretty, checked, batch]);
  assert.equal(delivered.length, 3);
  assert.deepEqual(lines, delivered.map((m) => JSON.stringify(m)), 'each on one line, as JSON.stringify writes it');
  assert.deepEqual(JSON.parse(lines[0]!), JSON.parse(pretty));
  assert.ok(lines.every((line) => !line.includes('.50')));
  assert.ok(delivered.every((m) => jsonTextOf(m) === undefined));
});
