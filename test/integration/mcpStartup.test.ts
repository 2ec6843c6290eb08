// Rule: `baton mcp` answers its client's handshake (initialize, tools/list) before its engine has opened the database,
// with exactly what the server itself answers; a call made at once waits for the database instead of failing; and a
// database that cannot be opened is reported to the client on its first call (and read) and on stderr. A line it
// cannot take gets an error that names the fix, also through a second `baton mcp` that forwards to the owner.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { silentLog } from '../../src/core/ports.js';
import { discoveryPath } from '../../src/host/discovery.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { initializeResult, readCatalog, toolsListResult, type McpCatalog } from '../../src/mcp/catalog.js';
import { batonMethods } from '../../src/mcp/catalogBuilder.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { TOOL_GROUPS, type ToolGroup } from '../../src/mcp/toolGroups.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { validOutput } from '../fixtures/mcp/badInput.js';
import { CLI, ROOT, ensureBuilt, startMcp, tempSetup, waitFor, type CliSession } from '../fixtures/mcp/cliHarness.js';
import { isPidAlive } from '../../src/store/lock.js';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
type Structured = { status: string; new_step_token?: string; execution_id?: string; task_id?: string };

/** Every subset of the groups that have tools, and `all`. */
function groupSets(): ToolGroup[][] {
  const withTools: ToolGroup[] = ['broker', 'lifecycle', 'content'];
  const sets: ToolGroup[][] = [];
  for (let mask = 0; mask < 1 << withTools.length; mask++) sets.push(withTools.filter((_, i) => mask & (1 << i)));
  return [...sets, [...TOOL_GROUPS]];
}

/** The result a live server (on a real core with content, so with prompts) sends for one request, as on the wire. */
async function live(opened: OpenedBaton, toolGroups: ToolGroup[], method: string, params: Record<string, unknown>): Promise<unknown> {
  const server = createMcpServer(opened.baton, { toolGroups, version: VERSION, log: silentLog });
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const answer = new Promise<JSONRPCMessage>((resolve) => (client.onmessage = resolve));
  await server.connect(serverSide);
  await client.send({ jsonrpc: '2.0', id: 7, method, params });
  const reply = (await answer) as { result?: unknown };
  await server.close();
  return JSON.parse(JSON.stringify(reply.result)) as unknown;
}

const init = (protocolVersion: string) => ({ protocolVersion, capabilities: { elicitation: {} }, clientInfo: { name: 't', version: '1' } });

describe('the build-time catalog is what the server answers', () => {
  let catalog: McpCatalog;
  let opened: OpenedBaton;
  before(async () => {
    ensureBuilt();
    catalog = readCatalog(join(ROOT, 'dist', 'mcp-catalog.json'))!;
    assert.ok(catalog, 'npm run build writes dist/mcp-catalog.json');
    opened = await openBaton({ dbPath: null, log: silentLog, timeoutSweepMs: 0 });
    assert.ok(opened.baton.templates().length > 0, 'the live server has templates, so prompts');
  });
  after(() => opened?.close());

  it('initialize, for every protocol version the SDK knows and one it does not', async () => {
    for (const version of [...catalog.protocolVersions, '2023-01-01', 'not-a-version']) {
      assert.deepEqual(initializeResult(catalog, version), await live(opened, ['broker'], 'initialize', init(version)), version);
    }
  });

  it('the methods the server answers, which a forwarding baton mcp reads instead of building a server', () => {
    assert.deepEqual(new Set(catalog.methods), batonMethods());
    assert.ok(catalog.methods!.includes('tools/call') && !catalog.methods!.includes('server/discover'));
  });

  it('tools/list, for every combination of tool groups', async () => {
    for (const groups of groupSets()) {
      assert.deepEqual(toolsListResult(catalog, groups), await live(opened, groups, 'tools/list', {}), groups.join(',') || '(none)');
    }
  });
});

describe('baton mcp answers the handshake before the database is open', () => {
  const setup = tempSetup('baton-startup-');
  const args = (db: string) => ['--db', db, '--workspace', setup.workspace, '--rate-limits', 'off', '--tools', 'broker,content'];
  let session: CliSession | undefined;
  before(() => ensureBuilt());
  after(async () => {
    await session?.client.close().catch(() => undefined);
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it('the same initialize and tools/list as the server; a call made at once waits for the database and succeeds', async () => {
    // A real database, served through a named pipe that the test fills only after the handshake: until then the
    // engine is provably still reading it.
    const source = join(setup.dir, 'source', 'baton.db');
    const store = await openStore({ path: source });
    await store.close();
    const db = join(setup.dir, 'piped', 'baton.db');
    execFileSync('mkdir', ['-p', join(setup.dir, 'piped')]);
    execFileSync('mkfifo', [db]);

    session = await startMcp(args(db));
    const { tools } = await session.client.listTools();
    assert.equal(existsSync(discoveryPath(db)), false, 'the database is not open yet');
    const opened = await openBaton({ dbPath: null, log: silentLog, timeoutSweepMs: 0 });
    try {
      assert.deepEqual({ tools }, await live(opened, ['broker', 'content'], 'tools/list', {}));
      assert.deepEqual(session.client.getServerCapabilities(), (await live(opened, ['broker'], 'initialize', init('2025-06-18')) as { capabilities: unknown }).capabilities);
    } finally {
      await opened.close();
    }
    assert.equal(session.client.getServerVersion()?.name, 'baton');
    assert.equal(session.client.getServerVersion()?.version, VERSION);

    const first = session.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'at once' } });
    await writeFile(db, readFileSync(source));
    const sc = (await first).structuredContent as Structured;
    assert.equal(sc.status, 'ok', JSON.stringify(sc));
    const next = (await session.client.callTool({ name: 'workflow_next_step', arguments: { step_token: sc.new_step_token, model_output_so_far: validOutput } }))
      .structuredContent as Structured;
    assert.equal(next.status, 'ok', JSON.stringify(next));
    const running = await session.client.complete({ ref: { type: 'ref/resource', uri: 'current-step://{task_id}' }, argument: { name: 'task_id', value: '' } });
    assert.deepEqual(running.completion.values, ['active', sc.task_id], 'completion/complete over stdio offers the running task');
    await waitFor(() => existsSync(discoveryPath(db)), 10_000, 'the owner publishing its endpoint');
    assert.deepEqual(session.protocolErrors.map((e) => e.message), []);

    // The server got the client's handshake too: its call log names the client.
    const pid = session.pid!;
    await session.client.close();
    session = undefined;
    await waitFor(() => !isPidAlive(pid), 10_000, 'the owner exiting');
    const reopened = await openStore({ path: db });
    try {
      const clients = reopened.all<{ ide_type: string | null }>('SELECT DISTINCT ide_type FROM call_log');
      assert.deepEqual(clients, [{ ide_type: 'cli-test' }]);
    } finally {
      await reopened.close();
    }
  });
});

describe('baton mcp on a database it cannot open reports it on the first call', () => {
  const setup = tempSetup('baton-startup-fail-');
  before(() => ensureBuilt());
  after(() => rmSync(setup.dir, { recursive: true, force: true }));

  const cases: Array<[string, (db: string) => Promise<void>, RegExp]> = [
    ['a file that is not a database', async (db) => writeFileSync(db, '{"not": "a database"}\n'.repeat(20)), /is not a readable Baton database \(no SQLite header\)/],
    ['a database from a newer Baton', async (db) => {
      const s = await openStore({ path: db });
      await s.transaction(() => s.run("UPDATE meta SET value = '99' WHERE key = 'schema_version'"));
      await s.close();
    }, /was written by a newer Baton \(schema v99/],
  ];
  for (const [what, make, expected] of cases) {
    it(what, async () => {
      const db = join(setup.dir, what.replace(/\W+/g, '-'), 'baton.db');
      execFileSync('mkdir', ['-p', join(db, '..')]);
      await make(db);
      const before = readFileSync(db);
      const session = await startMcp(['--db', db, '--workspace', setup.workspace]);
      try {
        assert.deepEqual((await session.client.listTools()).tools.map((t) => t.name), ['workflow_next_step']);
        const res = await session.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } });
        assert.equal(res.isError, true);
        const text = (res.content as Array<{ text: string }>)[0]!.text;
        assert.match(text, expected);
        assert.ok(text.includes(db), text);
        await assert.rejects(session.client.readResource({ uri: 'available-workflows://all' }), (ex: Error) => expected.test(ex.message));
        assert.deepEqual((await session.client.listPrompts()).prompts, []);
        await waitFor(() => expected.test(session.stderr()), 20_000, 'the error on stderr');
        assert.match(session.stderr(), /baton: /);
        assert.deepEqual(readFileSync(db), before, 'the file is left untouched');
        assert.equal(existsSync(`${db}.lock`), false, 'the lock is released');
      } finally {
        await session.client.close();
      }
    });
  }

  it('exits 1 when its client goes', async () => {
    const db = join(setup.dir, 'exit', 'baton.db');
    execFileSync('mkdir', ['-p', join(db, '..')]);
    writeFileSync(db, 'x'.repeat(200));
    const out = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'mcp', '--db', db], { stdio: ['pipe', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code) => resolve({ code, stderr }));
      child.stdin.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'workflow_next_step', arguments: {} } }) + '\n');
    });
    assert.equal(out.code, 1, out.stderr);
    assert.match(out.stderr, /is not a readable Baton database/);
  });
});

describe('baton mcp answers what it cannot take on stdio', () => {
  const setup = tempSetup('baton-stdio-bad-');
  before(() => ensureBuilt());
  after(() => rmSync(setup.dir, { recursive: true, force: true }));

  /**
   * Sends bad lines, a batch and a good call to a raw `baton mcp` on `db`, its client speaking `version`; checks every
   * answer. The batch is answered with an array in MCP 2025-03-26, refused as one error from 2025-06-18 on.
   */
  async function refusesClearly(db: string, version: string, stderr: (text: string) => void = () => undefined): Promise<void> {
    const child = spawn(process.execPath, [CLI, 'mcp', '--db', db, '--workspace', setup.workspace], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr!.on('data', (d: Buffer) => stderr(d.toString()));
    const out: Array<Record<string, any>> = [];
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
        out.push(JSON.parse(buf.slice(0, i)) as Record<string, any>);
        buf = buf.slice(i + 1);
      }
    });
    const line = (text: string) => child.stdin!.write(`${text}\n`);
    try {
      line(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init(version) }));
      line(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      line('{"jsonrpc": "2.0", "id": 2, "method": "ping"'); // cut short
      line(JSON.stringify({ id: 3, method: 'tools/list' }));
      line(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'workflow_next_step', arguments: '{"template_name": "bug-fix"}' } }));
      line(JSON.stringify([{ jsonrpc: '2.0', id: 5, method: 'ping' }, { jsonrpc: '2.0', id: 6, method: 'ping' }]));
      line(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } } }));
      await waitFor(() => out.some((m) => m.id === 7), 20_000, 'the valid call after the bad ones');
      // Answers only: the server may also tell the client that its prompts or resources changed.
      const answers = () => out.filter((m) => Array.isArray(m) || !('method' in m));
      await waitFor(() => answers().length >= 6, 20_000, 'every answer');
      const byId = (id: number) => out.find((m) => !Array.isArray(m) && m.id === id);
      const parse = out.find((m) => m.error?.code === -32700);
      assert.match(parse?.error.message, /^Parse error: .*Send one JSON-RPC message per line\.$/);
      assert.equal('id' in parse!, false);
      assert.deepEqual(byId(3), { jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' } });
      assert.equal(byId(4)?.error.code, -32602, JSON.stringify(byId(4)));
      assert.match(byId(4)?.error.message, /^Invalid params for tools\/call: params\.arguments: .*A tool call is \{"name": "<tool>", "arguments": \{…\}\}, its arguments an object \(not a JSON string\)\.$/);
      if (version === '2025-03-26') {
        assert.deepEqual(out.find((m) => Array.isArray(m)), [{ jsonrpc: '2.0', id: 5, result: {} }, { jsonrpc: '2.0', id: 6, result: {} }]);
      } else {
        assert.deepEqual(out.find((m) => /batch/.test(m.error?.message ?? '')), {
          jsonrpc: '2.0', error: { code: -32600, message: `Invalid Request: MCP ${version} takes one JSON-RPC message at a time, not a batch (only 2025-03-26 had batches); send the messages one by one` },
        });
      }
      assert.equal(byId(7)?.result.structuredContent.status, 'ok', 'the server stays up and serves the next call');
      assert.equal(answers().length, 6, 'nothing else: the notification is not answered');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.end();
      await exited;
    }
  }

  it('a line that is not JSON, a message that is not JSON-RPC, a call whose arguments are a string and a batch (MCP 2025-06-18) each get an error that names the fix', async () => {
    await refusesClearly(setup.db, '2025-06-18');
  });

  it('the same through a second baton mcp that forwards to the owner (MCP 2025-03-26: the batch gets an array), which holds what the client sends before the answer to its initialize', async () => {
    const db = join(setup.dir, 'shared', 'baton.db');
    execFileSync('mkdir', ['-p', join(db, '..')]);
    const owner = await startMcp(['--db', db, '--workspace', setup.workspace]);
    try {
      await waitFor(() => existsSync(discoveryPath(db)), 10_000, 'the owner publishing its endpoint');
      let log = '';
      await refusesClearly(db, '2025-03-26', (text) => (log += text));
      assert.match(log, /forwarding stdio to http:\/\/127\.0\.0\.1/, 'it forwarded');
    } finally {
      await owner.client.close();
    }
  });
});
