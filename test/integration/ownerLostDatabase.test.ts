// Rule: a `baton mcp` owner that finds another process took its database (its lock file deleted meanwhile) stops
// answering its agent from its copy in memory, which no longer matches the disk: its agent's session goes on, reads
// and writes, against the database's owner now (another live process, or this one again, reading the file afresh),
// and so does a forwarding `baton mcp` whose owner that was; a `baton serve` owner, which has no session of its own
// to carry on, exits 1 saying why. Real CLI processes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync, unlinkSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { readDiscovery } from '../../src/host/discovery.js';
import { lockPathOf } from '../../src/store/lock.js';
import { settlesAfter, until } from '../helpers/until.js';
import { CLI, ensureBuilt, killAll, startMcp, tempSetup, waitFor, type CliSession } from '../fixtures/mcp/cliHarness.js';

type Started = { status: string; task_id?: string; execution_id?: string };

const start = async (client: Client, task: string): Promise<Started> => {
  const r = await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: task } });
  return (r.structuredContent ?? { status: `error: ${JSON.stringify(r.content)}` }) as Started;
};
/** Waits for `client` to read `taskId`'s execution as `expected`; on a time-out, says what it read and `stderr`. */
const readsAs = async (client: Client, taskId: string, expected: string | undefined, stderr: () => string): Promise<void> => {
  let last = '';
  await until('the read', async () => (last = await statusOf(client, taskId)) === expected, 20_000).catch((ex: Error) => {
    throw new Error(`${ex.message}: read ${last}, not ${expected}; its stderr:\n${stderr()}`);
  });
};
/** The execution of `taskId` as `client`'s server reads it: its id, or the error it answers. */
const statusOf = async (client: Client, taskId: string): Promise<string> => {
  try {
    const r = await client.readResource({ uri: `workflow-status://${taskId}` });
    return (JSON.parse(String((r.contents[0] as { text: string }).text)) as { execution_id: string }).execution_id;
  } catch (ex) {
    return `error: ${(ex as Error).message}`;
  }
};

describe('an owner whose database another process took', { skip: process.platform === 'win32' }, () => {
  const pids: number[] = [];
  const dirs: string[] = [];
  after(() => {
    killAll(pids);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const setup = () => {
    const t = tempSetup('baton-lost-db-');
    dirs.push(t.dir);
    return { ...t, args: ['--db', t.db, '--workspace', t.workspace, '--rate-limits', 'off'] };
  };
  const mcp = async (args: string[]): Promise<CliSession> => {
    const s = await startMcp(args);
    pids.push(s.pid!);
    return s;
  };
  /**
   * Stopped while its lock file is deleted and `take` runs, so that it cannot make the lock again first (it looks at
   * it once a second), then continued: as an owner whose lock a clean-up script deleted while another Baton started.
   */
  const takenWhileStopped = async (owner: CliSession, db: string, take: () => Promise<void>) => {
    process.kill(owner.pid!, 'SIGSTOP');
    try {
      unlinkSync(lockPathOf(db));
      await take();
    } finally {
      process.kill(owner.pid!, 'SIGCONT');
    }
  };

  it('a baton mcp owner forwards its agent to the process that took it, and its reads see that database', { timeout: 60_000 }, async () => {
    ensureBuilt();
    const t = setup();
    const a = await mcp(t.args);
    const before = await start(a.client, 'before');
    assert.equal(before.status, 'ok', JSON.stringify(before));
    await waitFor(() => readDiscovery(t.db)?.pid === a.pid, 10_000, "the first owner's discovery file");
    // Another agent's baton mcp, forwarding to the first owner.
    const c = await mcp(t.args);
    assert.equal(await statusOf(c.client, before.task_id!), before.execution_id);
    let b!: CliSession;
    await takenWhileStopped(a, t.db, async () => {
      b = await mcp(t.args);
      await waitFor(() => readDiscovery(t.db)?.pid === b.pid, 10_000, "the second owner's discovery file");
    });
    const theirs = await start(b.client, 'written by the new owner');
    assert.equal(theirs.status, 'ok', JSON.stringify(theirs));
    await waitFor(() => /stops answering from its copy in memory/.test(a.stderr()), 10_000, `the first owner's report; stderr:\n${a.stderr()}`);
    // Its copy in memory lacks the new owner's execution, and refuses writes: the database on disk has both.
    await readsAs(a.client, theirs.task_id!, theirs.execution_id, a.stderr);
    assert.equal(await statusOf(a.client, theirs.task_id!), theirs.execution_id, `stderr:\n${a.stderr()}`);
    assert.equal(await statusOf(a.client, before.task_id!), before.execution_id, 'what it wrote before is there too');
    const later = await start(a.client, 'after the loss');
    assert.equal(later.status, 'ok', JSON.stringify(later));
    assert.equal(await statusOf(b.client, later.task_id!), later.execution_id, 'written in the database the new owner holds');
    assert.equal(readDiscovery(t.db)?.pid, b.pid, "the new owner's discovery file is left alone");
    // The agent that forwarded to the first owner goes on to the new one (its old endpoint refuses the connection).
    await readsAs(c.client, theirs.task_id!, theirs.execution_id, c.stderr);
    await a.client.close();
    await b.client.close();
    await c.client.close();
  });

  it('a baton mcp owner whose database another process wrote and closed owns it again, read afresh from disk', { timeout: 60_000 }, async () => {
    ensureBuilt();
    const t = setup();
    const a = await mcp(t.args);
    const before = await start(a.client, 'before');
    assert.equal(before.status, 'ok', JSON.stringify(before));
    let theirs!: Started;
    await takenWhileStopped(a, t.db, async () => {
      const b = await mcp(t.args);
      theirs = await start(b.client, 'written by a process gone since');
      assert.equal(theirs.status, 'ok', JSON.stringify(theirs));
      await b.client.close();
      await waitFor(() => !readDiscovery(t.db) || readDiscovery(t.db)?.pid === a.pid, 10_000, 'the second owner gone');
    });
    await waitFor(() => /stops answering from its copy in memory/.test(a.stderr()), 10_000, `the first owner's report; stderr:\n${a.stderr()}`);
    await readsAs(a.client, theirs.task_id!, theirs.execution_id, a.stderr);
    const later = await start(a.client, 'after the loss');
    assert.equal(later.status, 'ok', JSON.stringify(later));
    await waitFor(() => readDiscovery(t.db)?.pid === a.pid, 10_000, 'it publishes its endpoint again');
    await a.client.close();
  });

  it('baton serve exits 1, saying another process took the database, and leaves that one\'s lock alone', { timeout: 60_000 }, async () => {
    ensureBuilt();
    const t = setup();
    const serve = spawn(process.execPath, [CLI, 'serve', ...t.args], { stdio: ['ignore', 'ignore', 'pipe'] });
    pids.push(serve.pid!);
    let stderr = '';
    serve.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => serve.once('exit', (code) => resolve(code)));
    await waitFor(() => readDiscovery(t.db)?.pid === serve.pid, 15_000, `the serve's discovery file; stderr:\n${stderr}`);
    let b!: CliSession;
    await takenWhileStopped({ pid: serve.pid } as CliSession, t.db, async () => {
      b = await mcp(t.args);
      await waitFor(() => readDiscovery(t.db)?.pid === b.pid, 10_000, "the second owner's discovery file");
    });
    const code = await Promise.race([exited, settlesAfter(15_000, 'still running')]);
    assert.equal(code, 1, `stderr:\n${stderr}`);
    assert.match(stderr, /baton serve stops \(exit 1\): another process took .*Serve it again once that process stops/s);
    assert.equal(readDiscovery(t.db)?.pid, b.pid, "the new owner's discovery file is left alone");
    assert.equal((await start(b.client, 'the new owner goes on')).status, 'ok');
    await b.client.close();
  });
});
