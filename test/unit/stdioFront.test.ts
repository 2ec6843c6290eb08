// Rule: before the engine, `baton mcp`'s stdio front answers initialize, tools/list and ping from the catalog, a method
// the server does not have with Method not found, and holds everything else; once the server is attached it gets the
// client's initialize and every held message in order and answers each; a failed open answers every held and later
// call with the error (and a later initialize with it as the instructions); the engine is asked for at once by a
// message that needs it, else after the handshake's grace time. A front told to attach when started (a forwarding
// `baton mcp`'s) attaches when the proxy or server that takes it over starts it.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { oversizeId, StdioFront } from '../../src/cli/stdioFront.js';
import { silentLog } from '../../src/core/ports.js';
import type { McpCatalog } from '../../src/mcp/catalog.js';

const CATALOG: McpCatalog = {
  initialize: { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'baton', version: 't' } },
  protocolVersions: ['2025-06-18', '2025-03-26'],
  groups: [
    { group: 'broker', tools: [{ name: 'echo', inputSchema: { type: 'object' } }] },
    { group: 'content', tools: [{ name: 'content_tool', inputSchema: { type: 'object' } }] },
  ],
  methods: ['ping', 'initialize', 'tools/list', 'tools/call', 'resources/list'],
};
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };

interface Wire {
  front: StdioFront;
  send(message: unknown): void;
  /** Writes a line as it is (not JSON-encoded). */
  line(text: string): void;
  /** Every message the front wrote so far. */
  out: any[]; // each a message, or an array of them (a batch's answer)
  /** Resolves once `n` messages were written. */
  written(n: number): Promise<void>;
}

function wire(graceMs = 60_000): Wire {
  const input = new PassThrough();
  const output = new PassThrough();
  const out: Wire['out'] = [];
  let waiters: Array<() => void> = [];
  let buf = '';
  output.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
      out.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
    for (const w of waiters) w();
  });
  const front = new StdioFront({ catalog: CATALOG, toolGroups: ['broker'], log: silentLog, input, output, graceMs });
  front.listen();
  return {
    front,
    out,
    send: (m) => input.write(JSON.stringify(m) + '\n'),
    line: (text) => input.write(text + '\n'),
    written: (n) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (out.length >= n) {
            waiters = waiters.filter((w) => w !== check);
            resolve();
          }
        };
        waiters.push(check);
        check();
      }),
  };
}

/** A real SDK server with the catalog's broker tool; records the client it was told about and the calls it got. */
function server() {
  const calls: string[] = [];
  const mcp = new McpServer({ name: 'baton', version: 't' });
  mcp.registerTool('echo', { description: 'echo' }, async () => {
    calls.push('echo');
    return { content: [{ type: 'text', text: `client ${mcp.server.getClientVersion()?.name}` }] };
  });
  return { mcp, calls };
}

/** A front attached to a real SDK server, past the client's initialize (MCP 2025-03-26 unless told). */
async function initialized(protocolVersion = INIT.params.protocolVersion) {
  const w = wire();
  const s = server();
  await s.mcp.connect(w.front);
  await w.front.attach(deserializeMessage);
  w.send({ ...INIT, params: { ...INIT.params, protocolVersion } });
  await w.written(1);
  return { w, s };
}

const settled = async (p: Promise<unknown>) => Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), 30))]);

describe('the stdio front of baton mcp', () => {
  it('answers the handshake and pings from the catalog, holds the rest, and hands it over in order once attached', async () => {
    const w = wire();
    w.send(INIT);
    await w.written(1);
    assert.deepEqual(w.out[0], { jsonrpc: '2.0', id: 1, result: { ...CATALOG.initialize, protocolVersion: '2025-03-26' } });
    w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(await settled(w.front.engineWanted), false, 'the handshake alone does not ask for the engine before its grace time');
    w.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    w.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    await w.written(3);
    assert.deepEqual(w.out[1]!.result, { tools: [CATALOG.groups[0]!.tools[0]] });
    assert.deepEqual(w.out[2], { jsonrpc: '2.0', id: 3, result: {} });
    assert.equal(await settled(w.front.engineWanted), true, 'tools/list asks for the engine');

    w.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    w.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    w.send({ jsonrpc: '2.0', id: 6, method: 'resources/list' });
    w.send({ jsonrpc: '2.0', id: 'paged', method: 'tools/list', params: { cursor: 'x' } });
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(w.out.length, 3, 'calls wait for the engine; so does a tools/list with a cursor (the server judges it)');

    const s = server();
    await s.mcp.connect(w.front);
    const answered = w.front.attach(deserializeMessage);
    await answered;
    const byId = new Map(w.out.slice(3).map((m) => [m.id, m]));
    assert.deepEqual([...byId.keys()].sort(), [4, 5, 6, 'paged'], 'every held request answered, the replayed initialize not at all');
    assert.equal(w.out.length, 7);
    assert.deepEqual(byId.get(4)!.result.content, [{ type: 'text', text: 'client c' }], 'the server got the client\'s initialize');
    assert.equal(byId.get(6)!.error?.code, -32601, 'resources/list reached the server, which has no resources');
    assert.deepEqual(s.calls, ['echo', 'echo']);

    w.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    await w.written(8);
    assert.equal(w.out[7]!.id, 7, 'later calls go straight to the server');
    // Only the replayed initialize's own answer is dropped: a client's request with that id is answered.
    w.send({ jsonrpc: '2.0', id: 'baton-stdio-front-initialize', method: 'ping' });
    await w.written(9);
    assert.deepEqual(w.out[8], { jsonrpc: '2.0', id: 'baton-stdio-front-initialize', result: {} });
    await s.mcp.close();
  });

  it('told to attach when started (a forwarder\'s front), attaches as whatever takes it over starts it', async () => {
    const w = wire();
    w.send(INIT);
    w.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    await w.written(1);
    w.front.attachOnStart(deserializeMessage);
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(w.out.length, 1, 'nothing is handed over before the start');
    const s = server();
    await s.mcp.connect(w.front); // starts the front
    await w.written(2);
    assert.deepEqual(w.out[1]!.result.content, [{ type: 'text', text: 'client c' }], 'the server got the replayed initialize, then the call');
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(w.out.length, 2, "the replayed initialize's answer is dropped");
    await s.mcp.close();
  });

  it('answers a method the server does not have with Method not found at once, before initialize too; no engine', async () => {
    const w = wire();
    w.send({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: {} });
    await w.written(1);
    const message = 'Method not found: "server/discover" is not a method this server answers; its methods: ping, initialize, tools/list, tools/call, resources/list';
    assert.deepEqual(w.out[0], { jsonrpc: '2.0', id: 'd', error: { code: -32601, message } });
    assert.equal(await settled(w.front.engineWanted), false, 'nothing asked for the engine');
    w.send({ jsonrpc: '2.0', method: 'notifications/whatever' });
    w.send({ jsonrpc: '2.0', id: 2, method: 'resources/list' });
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(w.out.length, 1, 'a method the server has waits for it; a notification is never answered');
    // A catalog that does not name the methods (an older build's): nothing is refused here, the server answers.
    const old = wire();
    (old.front as unknown as { options: { catalog: McpCatalog } }).options.catalog = { ...CATALOG, methods: undefined };
    old.send({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: {} });
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(old.out.length, 0);
  });

  it('asks for the engine at once for a call, and after the grace time when the client says nothing more', async () => {
    const early = wire();
    early.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    assert.equal(await settled(early.front.engineWanted), true);
    await early.front.close();

    const quiet = wire(40);
    quiet.send(INIT);
    await quiet.written(1);
    assert.equal(await settled(quiet.front.engineWanted), false);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(await settled(quiet.front.engineWanted), true);
    await quiet.front.close();
  });

  it('after a failed open answers every held and later call with the error, and the handshake still from the catalog', async () => {
    const w = wire();
    w.send(INIT);
    w.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await w.written(1);
    w.front.fail('baton: /x/baton.db is not a readable Baton database');
    await w.written(2);
    assert.deepEqual(w.out[1], { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'baton: /x/baton.db is not a readable Baton database' }], isError: true } });
    w.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    w.send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    w.send({ jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 'x://y' } });
    w.send({ jsonrpc: '2.0', id: 6, method: 'prompts/list' });
    await w.written(6);
    assert.equal(w.out[2]!.result.isError, true);
    assert.deepEqual(w.out[3]!.result, { tools: [CATALOG.groups[0]!.tools[0]] });
    assert.deepEqual(w.out[4]!.error, { code: -32603, message: 'baton: /x/baton.db is not a readable Baton database' });
    assert.deepEqual(w.out[5]!.result, { prompts: [] });
    await w.front.close();
  });

  it('failed before the client speaks: the failure is the instructions of its initialize; a later fail rewords it', async () => {
    const w = wire();
    w.front.fail('first words');
    w.send(INIT);
    await w.written(1);
    assert.equal(w.out[0]!.result.instructions, 'first words');
    assert.equal(w.out[0]!.result.protocolVersion, '2025-03-26');
    assert.equal(w.front.unattached, true);
    w.front.fail('second words');
    w.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    await w.written(2);
    assert.deepEqual(w.out[1]!.result, { content: [{ type: 'text', text: 'second words' }], isError: true });
    await w.front.close();
    assert.equal(w.front.unattached, false);
  });

  it('answers a line it cannot take with the error that names what is wrong, and never a malformed notification or answer', async () => {
    const { w, s } = await initialized();
    w.line('{"jsonrpc": "2.0", "id": 2, "method": "ping"');
    w.send(42);
    w.send({ id: 3, method: 'ping' });
    w.send({ jsonrpc: '2.0', id: null, method: 'ping' });
    w.send({ jsonrpc: '2.0', id: 1.5, method: 'ping' });
    w.send({ jsonrpc: '2.0', id: 4, method: 'ping', params: [1] });
    w.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: 'x' });
    w.send({ jsonrpc: '2.0', id: 5, result: 'x', error: {} });
    w.send({ jsonrpc: '2.0', id: 7, method: 'ping', extra: 1 });
    w.send({ jsonrpc: '2.0', id: 6, method: 'ping' });
    await w.written(9);
    const [parse, ...rest] = w.out.slice(1);
    assert.equal(parse!.error?.code, -32700);
    assert.match(parse!.error!.message, /^Parse error: .*Send one JSON-RPC message per line\.$/);
    assert.equal('id' in parse!, false, 'no id to answer to (MCP allows no null id)');
    assert.deepEqual(rest, [
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: each message must be a JSON object' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' } },
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: id must be a string or an integer (MCP allows no null id)' } },
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: id must be a string or an integer' } },
      { jsonrpc: '2.0', id: 4, error: { code: -32600, message: 'Invalid Request: params must be an object' } },
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Invalid Request: unknown member "extra"; a message has only jsonrpc, id, method and params (or result or error): put request fields in params' } },
      { jsonrpc: '2.0', id: 6, result: {} },
    ], 'the malformed notification and answer get nothing; the next request is answered');
    await s.mcp.close();
  });

  it('reads lines however the bytes arrive: a line in many pieces, several lines in one piece, CRLF endings', async () => {
    const { w, s } = await initialized();
    const text = JSON.stringify({ jsonrpc: '2.0', id: 'split', method: 'tools/call', params: { name: 'echo', arguments: { pad: 'é'.repeat(5000) } } }) + '\n';
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += 7) w.front['ondata'](bytes.subarray(i, i + 7)); // pieces that split a UTF-8 character too
    w.front['ondata'](Buffer.from('{"jsonrpc":"2.0","id":"a","method":"ping"}\r\n{"jsonrpc":"2.0","id":"b","method":"ping"}\n{"jsonrpc":"2.0",'));
    w.front['ondata'](Buffer.from('"id":"c","method":"ping"}\n'));
    w.front['ondata'](Buffer.from('\n\r\n   \t\n{"jsonrpc":"2.0","id":"d","method":"ping"}\n')); // blank lines are no messages
    await w.written(6);
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(w.out.slice(1).map((m) => m.id).sort(), ['a', 'b', 'c', 'd', 'split'], 'each line answered once (a tool call may answer after a ping), a blank one not at all');
    assert.equal(w.out.find((m) => m.id === 'split').result.content[0].text, 'client c');
    await s.mcp.close();
  });

  it('answers a line over 10 MiB with an error carrying its id (found at its start or its end), skips it whole, and reads on', async () => {
    const { w, s } = await initialized();
    const big = 'x'.repeat(10 * 1024 * 1024);
    const sdkOrder = JSON.stringify({ method: 'tools/call', params: { name: 'echo', arguments: { big } }, jsonrpc: '2.0', id: 41 }); // the SDK's client puts the id last
    const idFirst = JSON.stringify({ jsonrpc: '2.0', id: 'up-front', method: 'tools/call', params: { name: 'echo', arguments: { big } } });
    const noId = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { big } });
    for (const line of [sdkOrder, idFirst, noId]) {
      const bytes = Buffer.from(line + '\n');
      for (let i = 0; i < bytes.length; i += 65536) w.front['ondata'](bytes.subarray(i, i + 65536));
    }
    w.send({ jsonrpc: '2.0', id: 'after', method: 'ping' });
    await w.written(5);
    const said = (n: number) => `Invalid Request: the message is ${n} bytes, over the 10 MiB one message may be; split large content over several calls, or keep it in a file and pass its path`;
    assert.deepEqual(w.out.slice(1), [
      { jsonrpc: '2.0', id: 41, error: { code: -32600, message: said(sdkOrder.length) } },
      { jsonrpc: '2.0', id: 'up-front', error: { code: -32600, message: said(idFirst.length) } },
      { jsonrpc: '2.0', error: { code: -32600, message: said(noId.length) } },
      { jsonrpc: '2.0', id: 'after', result: {} },
    ]);
    assert.deepEqual(s.calls, [], 'no part of a skipped line reached the server');
    await s.mcp.close();
  });

  it('finds an oversize line\'s id only where the top level holds it', () => {
    assert.equal(oversizeId('{"method":"tools/call","params":{"a":"', '…","b":1}},"jsonrpc":"2.0","id":7}'), 7);
    assert.equal(oversizeId('{"jsonrpc": "2.0", "id": "r-1", "method": "tools/call"', '…"}}'), 'r-1');
    assert.equal(oversizeId('{"id":"q\\"x","jsonrpc":"2.0"', '…}}'), 'q"x');
    assert.equal(oversizeId('{"method":"x","params":{"id":3,', '…,"inner":{"id":4}}}'), undefined, 'a nested id is not the request\'s');
    assert.equal(oversizeId('{"method":"x"', '…"id":1.5}'), undefined, 'not an id MCP allows');
    assert.equal(oversizeId('{"method":"x"', '…"id":null}'), undefined);
  });

  it('answers a JSON-RPC batch with one array: each request answered, a bad member as its error, notifications not at all', async () => {
    const { w, s } = await initialized();
    w.send([
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'echo', arguments: {} } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'b', method: 'ping', params: 7 },
      { jsonrpc: '2.0', id: 'c', method: 'ping' },
    ]);
    w.send([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
    w.send([]);
    w.send({ jsonrpc: '2.0', id: 'd', method: 'ping' });
    await w.written(4);
    // The empty batch's error goes out at once, the answers when the server has them.
    const later = w.out.slice(1);
    const batch = later.find((m) => Array.isArray(m));
    const empty = later.find((m) => !Array.isArray(m) && m.error);
    const single = later.find((m) => !Array.isArray(m) && m.id === 'd');
    assert.ok(batch, 'the batch is answered with one array');
    assert.equal(later.length, 3);
    const byId = new Map((batch as Array<{ id: string; result?: unknown; error?: unknown }>).map((m) => [m.id, m]));
    assert.deepEqual([...byId.keys()].sort(), ['a', 'b', 'c']);
    assert.deepEqual(byId.get('a')?.result, { content: [{ type: 'text', text: 'client c' }] });
    assert.deepEqual(byId.get('b')?.error, { code: -32600, message: 'Invalid Request: params must be an object' });
    assert.deepEqual(byId.get('c')?.result, {});
    assert.deepEqual(empty, { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: an empty batch' } }, 'a batch of notifications is not answered');
    assert.deepEqual(single, { jsonrpc: '2.0', id: 'd', result: {} }, 'a lone request after the batches is answered alone');
    assert.deepEqual(s.calls, ['echo']);
    await s.mcp.close();
  });

  it('refuses a batch as one error when the client speaks MCP 2025-06-18 or later, which removed batches', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      const { w, s } = await initialized(version);
      w.send([{ jsonrpc: '2.0', id: 'a', method: 'ping' }, { jsonrpc: '2.0', id: 'b', method: 'ping' }]);
      w.send({ jsonrpc: '2.0', id: 'c', method: 'ping' });
      await w.written(3);
      assert.deepEqual(w.out.slice(1), [
        { jsonrpc: '2.0', error: { code: -32600, message: `Invalid Request: MCP ${version} takes one JSON-RPC message at a time, not a batch (only 2025-03-26 had batches); send the messages one by one` } },
        { jsonrpc: '2.0', id: 'c', result: {} },
      ], version);
      await s.mcp.close();
    }
  });
});
