// Rule: a real `baton mcp` answers the requests its client writes just before closing stdin (in the same write, say)
// before it exits on its own: a request there is answered and its work done (a workflow starts). The last line counts
// even with no newline after it: a request there is answered, a truncated one gets a Parse error.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ensureBuilt, rawMcp, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';

const T = { timeout: 60_000 };
const INIT = { method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('baton mcp: the last lines before stdin closes', () => {
  const setups: Array<{ dir: string }> = [];
  const kills: Array<() => void> = [];
  before(() => ensureBuilt());
  after(() => {
    for (const kill of kills) kill();
    for (const setup of setups) rmSync(setup.dir, { recursive: true, force: true });
  });

  /** A `baton mcp` with its session up and its engine loaded (a resources/list answered). */
  async function started() {
    const setup = tempSetup('baton-stdio-last-line-');
    setups.push(setup);
    const mcp = rawMcp(['--db', setup.db, '--workspace', setup.workspace]);
    kills.push(() => mcp.child.kill('SIGKILL'));
    let out = '';
    mcp.child.stdout!.on('data', (d: Buffer) => void (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => mcp.child.once('exit', (code) => resolve(code)));
    mcp.send({ id: 1, ...INIT });
    await mcp.answer(1);
    mcp.send({ method: 'notifications/initialized' });
    mcp.send({ id: 2, method: 'resources/list' });
    await mcp.answer(2);
    return { mcp, exited, out: () => out };
  }

  it('answers a request written with the end of stdin, and does its work', T, async () => {
    const { mcp, exited } = await started();
    const start = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'last line' } } };
    mcp.child.stdin!.end(JSON.stringify(start) + '\n');
    const answer = (await mcp.answer(3)).result as { structuredContent?: { status?: string } };
    assert.equal(answer.structuredContent?.status, 'ok', JSON.stringify(answer).slice(0, 300));
    assert.equal(await exited, 0);
  });

  it('answers a last request with no newline after it', T, async () => {
    const { mcp, exited } = await started();
    mcp.child.stdin!.end(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'available-workflows://all' } }));
    assert.ok((await mcp.answer(4)).result?.contents, 'the read is answered');
    assert.equal(await exited, 0);
  });

  it('answers a truncated last line with a Parse error', T, async () => {
    const { mcp, exited, out } = await started();
    mcp.child.stdin!.end('{"jsonrpc":"2.0","id":5,"method":"pi');
    assert.equal(await exited, 0);
    const refused = await waitFor(() => out().trim().split('\n').map((l) => JSON.parse(l) as { error?: { code: number } }).find((m) => m.error), 5_000, 'the Parse error');
    assert.equal(refused.error?.code, -32700);
  });
});
