// Rule: on a Node too old for Baton's CLI (its journal needs node:zlib's crc32, in Node 20.15 and 22.2 on), `baton
// mcp` answers its client's handshake and then every call with the Node it needs and how to get it, says so on stderr
// and exits 1 when its client leaves, instead of dying at its first write; every other command refuses with the same
// words (exit 1, and as JSON with --json); none of them leaves a database behind. A preload makes the child's
// process.versions.node read old, as an old Node's does.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI, ensureBuilt, runCli, waitFor } from '../fixtures/mcp/cliHarness.js';

const TOO_OLD = /this Node\.js \((\d+\.\d+\.\d+), [^)]+\) is too old for Baton, which needs Node\.js 20\.15 or newer \(on the 22 line, 22\.2 or newer\): install a newer Node \(nodejs\.org, or nvm install 22\)/;

let dir: string;
let preload: string;

/** The environment of a child whose Node says it is `version`. */
function oldNode(version: string): Record<string, string> {
  return { NODE_OPTIONS: `--require ${preload}`, BATON_TEST_NODE_VERSION: version };
}

describe('Baton on a Node too old for it', () => {
  before(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'baton-old-node-'));
    preload = join(dir, 'oldNode.cjs');
    writeFileSync(preload, "Object.defineProperty(process.versions, 'node', { value: process.env.BATON_TEST_NODE_VERSION });\n");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('baton mcp answers the handshake, then each call with the Node it needs; exit 1, no database', async () => {
    const workspace = mkdtempSync(join(dir, 'ws-'));
    const child = spawn(process.execPath, [CLI, 'mcp'], { cwd: workspace, env: { ...process.env, ...oldNode('18.20.8') }, stdio: ['pipe', 'pipe', 'pipe'] });
    const answers = new Map<number, { result?: Record<string, unknown>; error?: unknown }>();
    let out = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      for (let end = out.indexOf('\n'); end !== -1; end = out.indexOf('\n')) {
        const m = JSON.parse(out.slice(0, end)) as { id: number; result?: Record<string, unknown>; error?: unknown };
        out = out.slice(end + 1);
        answers.set(m.id, m);
      }
    });
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    const send = (m: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    const exited = once(child, 'exit') as Promise<[number | null]>;
    try {
      send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/list', params: {} });
      send({ id: 3, method: 'tools/call', params: { name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'x' } } });
      const init = await waitFor(() => answers.get(1), 10_000, 'initialize');
      assert.equal((init.result?.serverInfo as { name: string }).name, 'baton');
      const tools = await waitFor(() => answers.get(2), 10_000, 'tools/list');
      assert.ok((tools.result?.tools as Array<{ name: string }>).some((t) => t.name === 'workflow_next_step'));
      const call = await waitFor(() => answers.get(3), 10_000, 'tools/call');
      assert.equal(call.result?.isError, true);
      const text = (call.result?.content as Array<{ text: string }>)[0]!.text;
      assert.match(text, TOO_OLD);
      assert.equal(TOO_OLD.exec(text)![1], '18.20.8');
      assert.match(stderr, TOO_OLD);
      assert.doesNotMatch(stderr, /TypeError|at sealed/);
      child.stdin.end();
      const [code] = await exited;
      assert.equal(code, 1, stderr);
    } finally {
      child.kill('SIGKILL'); // a no-op once it exited; else a failed assertion would leave it running
    }
    assert.equal(existsSync(join(workspace, '.baton')), false, 'no database or lock left behind');
  });

  it('every other command refuses with the same words and exit 1, as JSON with --json, and writes nothing', async () => {
    const workspace = mkdtempSync(join(dir, 'ws-'));
    for (const args of [['serve', '--port', '0'], ['status'], ['approve', 'x']]) {
      const r = await runCli([...args, '--workspace', workspace], oldNode('20.14.0'));
      assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^baton: ${TOO_OLD.source}`));
    }
    const json = await runCli(['status', '--json', '--workspace', workspace], oldNode('22.1.0'));
    assert.equal(json.code, 1);
    const error = (JSON.parse(json.stdout) as { error: { reason: string; message: string } }).error;
    assert.equal(error.reason, 'failed');
    assert.match(error.message, TOO_OLD);
    assert.equal(existsSync(join(workspace, '.baton')), false);
  });

  it('a Node that is new enough is not refused (20.15, 22.2, 24)', async () => {
    const workspace = mkdtempSync(join(dir, 'ws-'));
    for (const version of ['20.15.0', '22.2.0', '24.9.0']) {
      const r = await runCli(['status', '--workspace', workspace], oldNode(version));
      assert.doesNotMatch(r.stderr, /too old/, version);
      assert.match(r.stderr, /no Baton database/i, version);
    }
  });
});
