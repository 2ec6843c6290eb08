// Rule: a forwarding `baton mcp` never leaves a call waiting for good on an owner that is alive but does not answer
// (stopped, hung): once a hung owner has failed its health check for the limit, or a stopped one (Ctrl-Z, SIGSTOP) for a
// third of it, each call waiting on it is answered with an error naming its pid and how to resume or end it, the
// session stays usable, and an answer the owner sends late (it went on after all) is dropped rather than sent twice. A
// call that merely waits long on an owner that answers (a gate waiting for a person) is never cut short.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Log } from '../../src/core/ports.js';
import { readDiscovery } from '../../src/host/discovery.js';
import { runProxy } from '../../src/host/proxy.js';
import type { OwnerState } from '../../src/host/silentOwner.js';
import { validOutput } from '../fixtures/mcp/badInput.js';
import { ensureBuilt, runCli, startMcp, tempSetup, waitFor, type CliSession } from '../fixtures/mcp/cliHarness.js';

type Structured = { status: string; execution_id?: string; new_step_token?: string; next_step_contract?: { step_name: string } };

/**
 * A proxy in this process (with its silence limit, and how it reads the owner's state) to the owner of `db`, and an
 * SDK client on it.
 */
async function proxyTo(db: string, silentLimitMs: number, ownerStateOf?: (pid: number) => OwnerState) {
  const lines: string[] = [];
  const note = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  const log: Log = { debug: note('debug'), info: note('info'), warn: note('warn'), error: note('error') };
  const [clientSide, proxySide] = InMemoryTransport.createLinkedPair();
  const running = runProxy({ owner: readDiscovery(db)!, log, downstream: proxySide, silentLimitMs, ownerStateOf });
  const client = new Client({ name: 'silent-owner-test', version: '1' });
  const clientErrors: string[] = [];
  client.onerror = (ex) => void clientErrors.push(ex.message);
  await client.connect(clientSide);
  const call = (args: Record<string, unknown>) =>
    client.callTool({ name: 'workflow_next_step', arguments: args }).then((r) => r.structuredContent as Structured);
  return { client, call, lines, clientErrors, stop: async () => Promise.all([client.close(), running]) };
}

describe('a forwarding baton mcp and an owner that stops answering', { skip: process.platform === 'win32' }, () => {
  const setup = tempSetup('baton-silent-owner-');
  let owner: CliSession;
  before(async () => {
    ensureBuilt();
    owner = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off'], 'editor');
    await waitFor(() => readDiscovery(setup.db), 10_000, 'discovery file');
  });
  after(async () => {
    process.kill(owner.pid!, 'SIGCONT');
    await owner.client.close().catch(() => undefined);
    rmSync(setup.dir, { recursive: true, force: true });
  });

  // SIGSTOP stands in for a hang: the owner answers nothing, and its state is read as running.
  it('hung: the waiting call gets an error naming its pid once the limit is past, not before; going on, it answers new calls and its late answer is dropped', { timeout: 30_000 }, async () => {
    const proxy = await proxyTo(setup.db, 1500, () => 'running');
    try {
      const first = await proxy.call({ template_name: 'bug-fix', task_description: 'an owner that stops' });
      process.kill(owner.pid!, 'SIGSTOP');
      const started = Date.now();
      const waiting = proxy.call({ step_token: first.new_step_token, model_output_so_far: validOutput });
      await assert.rejects(waiting, (ex: Error & { code?: number }) => {
        assert.equal(ex.code, -32603);
        assert.match(ex.message, new RegExp(`Baton process ${owner.pid} owns the database but has not answered for \\d+ s \\(it is hung\\), so this call was ` +
          `given up\\. End that process \\(kill -9 ${owner.pid}\\), or restart the editor if it is the editor's`));
        assert.match(ex.message, /Then call again with the same arguments/);
        return true;
      });
      const waited = Date.now() - started;
      // Not before the limit; how long after it depends on the machine's load (the test's timeout bounds it).
      assert.ok(waited >= 1500, `given up after ${waited} ms (limit 1500 ms)`);
      const warned = proxy.lines.find((l) => l.startsWith(`warn: Baton process ${owner.pid} has not answered for`));
      assert.ok(warned?.includes(`(hung, its pid alive): answering 1 call waiting on it with an error; end it (kill -9 ${owner.pid}) and this process takes over`), proxy.lines.join('\n'));

      process.kill(owner.pid!, 'SIGCONT');
      // The owner goes on: it runs the call it had read and answers it, late; the client, answered already, gets
      // nothing more (an SDK client reports an answer to an id it does not wait on).
      await waitFor(() => proxy.lines.some((l) => /dropped the answer .* sent late to a call \(id \d+\)/.test(l)), 20_000, 'the late answer dropped');
      const again = await proxy.call({ step_token: first.new_step_token, model_output_so_far: validOutput });
      assert.equal(again.status, 'ok', JSON.stringify(again));
      assert.equal(again.next_step_contract?.step_name, 'implement-fix');
      assert.deepEqual(proxy.clientErrors.map((e) => e.slice(0, 120)), []);
    } finally {
      process.kill(owner.pid!, 'SIGCONT');
      await proxy.stop();
    }
  });

  it('stopped (Ctrl-Z, SIGSTOP): the waiting call is told after a third of the limit, not the whole, how to resume it', { timeout: 30_000, skip: process.platform !== 'linux' && 'reads its state from /proc' }, async () => {
    const proxy = await proxyTo(setup.db, 9000);
    try {
      const first = await proxy.call({ template_name: 'bug-fix', task_description: 'an owner stopped by Ctrl-Z' });
      process.kill(owner.pid!, 'SIGSTOP');
      const started = Date.now();
      const waiting = proxy.call({ step_token: first.new_step_token, model_output_so_far: validOutput });
      await assert.rejects(waiting, (ex: Error) => {
        assert.match(ex.message, new RegExp(`Baton process ${owner.pid} owns the database but has not answered for \\d+ s \\(it is stopped by Ctrl-Z or SIGSTOP\\), ` +
          `so this call was given up\\. Resume it \\(fg in its terminal, or kill -CONT ${owner.pid}\\): it then answers again\\. Or end that process \\(kill -9 ${owner.pid}\\)`));
        return true;
      });
      const waited = Date.now() - started;
      // Told once stopped for 3 s (checks every 1.8 s), where a hang would take the limit, 9 s.
      assert.ok(waited >= 3000 && waited < 9000, `given up after ${waited} ms (stopped: 3 s; a hung owner's limit: 9 s)`);
      process.kill(owner.pid!, 'SIGCONT');
      await waitFor(() => proxy.lines.some((l) => /dropped the answer .* sent late to a call \(id \d+\)/.test(l)), 20_000, 'the late answer dropped');
    } finally {
      process.kill(owner.pid!, 'SIGCONT');
      await proxy.stop();
    }
  });

  it('a call waiting at a gate longer than the limit, on an owner that answers, is not given up', async () => {
    const proxy = await proxyTo(setup.db, 1000);
    try {
      let r = await proxy.call({ template_name: 'bug-fix', task_description: 'a long gate wait' });
      while (r.status === 'ok') r = await proxy.call({ step_token: r.new_step_token, model_output_so_far: validOutput });
      assert.equal(r.status, 'awaiting_approval');
      let settled = false;
      const wait = proxy.call({ step_token: r.new_step_token }).finally(() => void (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 3500));
      assert.equal(settled, false, 'still waiting for the person after 3.5 s (limit 1 s)');
      const approved = await runCli(['approve', r.execution_id!, '--db', setup.db]);
      assert.equal(approved.code, 0, approved.stderr);
      const answer = await wait;
      assert.equal(answer.status, 'task_closed', JSON.stringify(answer).slice(0, 300));
      assert.equal(proxy.lines.some((l) => /has not answered/.test(l)), false, proxy.lines.join('\n'));
    } finally {
      await proxy.stop();
    }
  });
});
