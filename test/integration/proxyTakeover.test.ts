// Rule: a forwarding `baton mcp` whose owner died takes over even when the next owner it finds is stopping as well
// (another agent's `baton mcp` that took over first, then closed): that owner refuses the replayed session (503), and
// the proxy tries again once it is gone, instead of closing the agent's session for good. Seen with two real agent
// CLIs on one database whose owner was killed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { OwnerHttpError } from '../../src/host/ownerHttpTransport.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Log } from '../../src/core/ports.js';
import { readDiscovery } from '../../src/host/discovery.js';
import { httpUpstream, runProxy, type Upstream } from '../../src/host/proxy.js';
import { ensureBuilt, startMcp, tempSetup, waitFor, type CliSession } from '../fixtures/mcp/cliHarness.js';

type Structured = { status: string; next_step_contract?: { step_name: string } };

/** An owner that is stopping: alive a moment longer, it refuses every request with 503, as Baton's endpoint does. */
function stoppingOwner(): { upstream: Upstream; sent: string[] } {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 400)'], { stdio: 'ignore' });
  const sent: string[] = [];
  const transport: Transport = {
    start: async () => undefined,
    send: async (message) => {
      sent.push((message as { method?: string }).method ?? '?');
      throw new OwnerHttpError(503, 'Error POSTing to endpoint: {"jsonrpc":"2.0","error":{"code":-32001,"message":"Baton is stopping"},"id":null}');
    },
    close: async () => undefined,
  };
  return { upstream: { transport, name: `Baton process ${child.pid}`, pid: child.pid!, close: async () => undefined }, sent };
}

describe('a takeover that first meets an owner that is stopping', { skip: process.platform === 'win32' }, () => {
  const first = tempSetup('baton-takeover-first-');
  const next = tempSetup('baton-takeover-next-');
  let owner: CliSession;
  let nextOwner: CliSession;
  before(async () => {
    ensureBuilt();
    owner = await startMcp(['--db', first.db, '--workspace', first.workspace, '--rate-limits', 'off'], 'editor');
    nextOwner = await startMcp(['--db', next.db, '--workspace', next.workspace, '--rate-limits', 'off'], 'editor');
    await waitFor(() => readDiscovery(first.db) && readDiscovery(next.db), 10_000, 'discovery files');
  });
  after(async () => {
    await owner.client.close().catch(() => undefined);
    await nextOwner.client.close().catch(() => undefined);
    rmSync(first.dir, { recursive: true, force: true });
    rmSync(next.dir, { recursive: true, force: true });
  });

  it('tries again once that owner is gone, and the session goes on', { timeout: 30_000 }, async () => {
    const lines: string[] = [];
    const note = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
    const log: Log = { debug: note('debug'), info: note('info'), warn: note('warn'), error: note('error') };
    const stopping = stoppingOwner();
    const found = [stopping.upstream, httpUpstream(readDiscovery(next.db)!)];
    const [clientSide, proxySide] = InMemoryTransport.createLinkedPair();
    const running = runProxy({ owner: readDiscovery(first.db)!, log, downstream: proxySide, watchMs: 50, takeOver: async () => found.shift()! });
    const client = new Client({ name: 'takeover-test', version: '1' });
    const clientErrors: string[] = [];
    client.onerror = (ex) => void clientErrors.push(ex.message);
    const call = (args: Record<string, unknown>) =>
      client.callTool({ name: 'workflow_next_step', arguments: args }).then((r) => r.structuredContent as Structured);
    try {
      await client.connect(clientSide);
      assert.equal((await call({ template_name: 'bug-fix', task_description: 'before' })).status, 'ok');
      process.kill(owner.pid!, 'SIGKILL');
      await waitFor(() => lines.some((l) => l.startsWith('info: took over: now forwarding to')), 20_000, `the takeover; log:\n${lines.join('\n')}`);
      assert.deepEqual(stopping.sent, ['initialize'], 'the stopping owner was asked for the session once');
      assert.ok(lines.some((l) => l.startsWith(`warn: taking over: ${stopping.upstream.name} refused the session`)), lines.join('\n'));
      const after = await call({ template_name: 'bug-fix', task_description: 'after' });
      assert.equal(after.status, 'ok', JSON.stringify(after));
      assert.equal(after.next_step_contract?.step_name, 'analyze-root-cause');
      assert.deepEqual(clientErrors, []);
    } finally {
      await client.close().catch(() => undefined);
      await running;
    }
  });
});
