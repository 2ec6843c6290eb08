// Rule: exactly one process owns a database; a second `baton mcp` on it forwards to the owner, so both agents see
// one live state (same executions, resource-updated notifications through the proxy), and an owner that does not
// answer is reported with its pid instead of a hang, while one that exits before answering (it closed its endpoint
// but still held the lock) leaves the database to the newcomer. When the owner exits mid-session, the forwarding
// process takes over the database and its client's session goes on. A start the owner did not answer before it died
// is sent again (with its request key) to the next owner: the agent gets its step, in words true for its one call,
// and one run exists; a start_workflow cut short after creating its workflow is finished by the next owner. A
// forwarding process serves the owner's tool groups, and a call of another group says to ask the owner for it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InitializeResultSchema, LATEST_PROTOCOL_VERSION, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { discoveryPath, readDiscovery, writeDiscovery } from '../../src/host/discovery.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { validOutput } from '../fixtures/mcp/badInput.js';
import { ensureBuilt, runCli, startMcp, tempSetup, waitFor, type CliSession } from '../fixtures/mcp/cliHarness.js';
import { spawnTs, waitForLine } from '../fixtures/store/helpers.js';

type Structured = {
  status: string; execution_id?: string; task_id?: string; new_step_token?: string; next_step_contract?: { step_name: string }; human_message?: string;
};

describe('second baton mcp on the same --db proxies to the owner', () => {
  const setup = tempSetup('baton-proxy-');
  let owner: CliSession;
  let proxied: CliSession;

  before(async () => {
    ensureBuilt();
    const args = ['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off'];
    owner = await startMcp(args, 'agent-a');
    await waitFor(() => readDiscovery(setup.db), 10_000, 'discovery file');
    proxied = await startMcp(args, 'agent-b');
  });
  after(async () => {
    await proxied?.client.close().catch(() => undefined);
    await owner?.client.close().catch(() => undefined);
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it('the second process forwards instead of opening the database', async () => {
    await waitFor(() => /forwarding stdio to http:\/\/127\.0\.0\.1/.test(proxied.stderr()), 20_000, 'proxy log line');
    await waitFor(() => /--rate-limits is ignored here: this process forwards to the one that owns the database/.test(proxied.stderr()), 20_000, 'the flag it ignores');
    assert.equal(readDiscovery(setup.db)?.pid, owner.pid);
    const { tools } = await proxied.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['workflow_next_step']);
  });

  it('one given --tools all serves the owner\'s groups; a call of another group says to ask the owner for it', async () => {
    const wider = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--tools', 'all'], 'agent-c');
    try {
      await waitFor(() => /--tools is ignored here/.test(wider.stderr()), 20_000, 'the flag it ignores');
      assert.deepEqual((await wider.client.listTools()).tools.map((t) => t.name), ['workflow_next_step']);
      await assert.rejects(wider.client.callTool({ name: 'start_execution', arguments: { workflowName: 'bug-fix' } }), (ex: Error) => {
        assert.match(ex.message, /Ask for it with `--tools broker,lifecycle` on the Baton that owns the database \(baton mcp, baton serve; /);
        assert.match(ex.message, /a baton mcp that forwards to it serves its groups, whatever its own --tools\)/);
        return true;
      });
    } finally {
      await wider.client.close();
    }
  });

  it('a client on the proxy sees the execution the owner created and hears about its steps', async () => {
    const a = (args: Record<string, unknown>) => owner.client.callTool({ name: 'workflow_next_step', arguments: args }).then((r) => r.structuredContent as Structured);
    const first = await a({ template_name: 'bug-fix', task_description: 'shared state' });
    const status = await proxied.client.readResource({ uri: `workflow-status://${first.task_id}` });
    const parsed = JSON.parse(String((status.contents[0] as { text: string }).text)) as { execution_id: string; current_step: string };
    assert.equal(parsed.execution_id, first.execution_id);
    assert.equal(parsed.current_step, 'analyze-root-cause');

    const updates: string[] = [];
    proxied.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    await proxied.client.subscribeResource({ uri: `current-step://${first.task_id}` });
    await a({ step_token: first.new_step_token, model_output_so_far: validOutput });
    await waitFor(() => updates.includes(`current-step://${first.task_id}`), 20_000, 'resources/updated through the proxy');

    // And the proxied agent can drive the same execution.
    const current = JSON.parse(String(((await proxied.client.readResource({ uri: `current-step://${first.task_id}` })).contents[0] as { text: string }).text)) as { current_step: string };
    assert.equal(current.current_step, 'implement-fix');
    assert.deepEqual(proxied.protocolErrors.map((e) => e.message), []);
  });

  it('a message as large as a stdio line may be (8 MiB) goes through the proxy; a larger one is refused at once with its id', async () => {
    const b = (args: Record<string, unknown>) => proxied.client.callTool({ name: 'workflow_next_step', arguments: args });
    const started = (await b({ template_name: 'bug-fix', task_description: 'a large artifact' })).structuredContent as Structured;
    const artifact = (mib: number) => ({ ...validOutput, artifacts: [{ type: 'markdown', title: 'log', content: 'a'.repeat(mib * 1024 * 1024) }] });
    const stored = await b({ step_token: started.new_step_token, model_output_so_far: artifact(8) });
    assert.equal((stored.structuredContent as Structured).status, 'ok', JSON.stringify(stored.content).slice(0, 300));
    const next = stored.structuredContent as Structured;
    await assert.rejects(b({ step_token: next.new_step_token, model_output_so_far: artifact(11) }), /-32600: Invalid Request: the message is \d+ bytes, over the 10 MiB one message may be; split large content/);
    const after = await b({ step_token: next.new_step_token, model_output_so_far: validOutput });
    assert.equal((after.structuredContent as Structured).status, 'ok', 'the session goes on');
  });

  it("a request the owner refuses gets the owner's own error through the proxy, not \"did not answer\"", async () => {
    // A second initialize: the owner's endpoint answers 400 with Invalid Request.
    const again = proxied.client.request({ method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'again', version: '1' } } }, InitializeResultSchema);
    await assert.rejects(again, (ex: Error & { code?: number }) => {
      assert.equal(ex.code, -32600, ex.message);
      assert.match(ex.message, /Invalid Request: Server already initialized$/);
      return true;
    });
    assert.deepEqual((await proxied.client.listTools()).tools.map((t) => t.name), ['workflow_next_step'], 'the session goes on');
  });

  it('an owner stopped (SIGSTOP) that does not answer: mcp and status exit 1 naming its pid and URL, and resuming it first', { skip: process.platform === 'win32' }, async () => {
    const info = readDiscovery(setup.db)!;
    process.kill(info.pid, 'SIGSTOP');
    try {
      // Linux's /proc tells a stopped process; elsewhere it may be stopped or hung.
      const state = process.platform === 'linux' ? 'stopped by Ctrl-Z or SIGSTOP. Resume it' : 'stopped or hung. Resume it if it was stopped (Ctrl-Z:';
      const words = `database ${setup.db} is owned by Baton process ${info.pid} but its endpoint ${info.url} does not answer, and it lives on, ${state}` +
        `${process.platform === 'linux' ? ' (' : ' '}fg in its terminal, or kill -CONT ${info.pid}), or end it (kill -9 ${info.pid}, or restart the editor if it is the editor's), ` +
        'then run this command again; or use --db elsewhere.';
      const r = await runCli(['mcp', '--db', setup.db, '--workspace', setup.workspace]);
      assert.equal(r.code, 1);
      assert.ok(r.stderr.includes(words), r.stderr);
      assert.doesNotMatch(r.stderr, /forwarding stdio/, 'it never forwarded');
      const status = await runCli(['status', '--db', setup.db]);
      assert.equal(status.code, 1);
      assert.ok(status.stderr.includes(words), status.stderr);
    } finally {
      process.kill(info.pid, 'SIGCONT');
    }
  });
});

describe('an owner that exits before it answers', () => {
  const setup = tempSetup('baton-gone-');
  before(() => ensureBuilt());
  after(() => rmSync(setup.dir, { recursive: true, force: true }));

  it('the newcomer waits for that process to go and owns the database', async () => {
    // A stopping owner: its lock and discovery file are still there, and the first request to its endpoint finds
    // it exiting (the connection drops, unanswered).
    const script = "const s = require('node:http').createServer(() => process.exit(0)); s.listen(0, '127.0.0.1', () => console.log(s.address().port));";
    const stopping = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    const exited = new Promise((resolve) => stopping.once('exit', resolve));
    const port = await new Promise<number>((resolve) => stopping.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
    mkdirSync(dirname(setup.db), { recursive: true });
    writeFileSync(`${setup.db}.lock`, `${stopping.pid}\n`);
    writeDiscovery(setup.db, { url: `http://127.0.0.1:${port}/mcp`, token: 'gone', pid: stopping.pid! });
    const session = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off'], 'newcomer');
    try {
      await exited;
      const r = await session.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } });
      assert.equal((r.structuredContent as Structured).status, 'ok', JSON.stringify(r.structuredContent));
      await waitFor(() => readDiscovery(setup.db)?.pid === session.pid, 10_000, 'the newcomer owning the database');
      assert.match(session.stderr(), new RegExp(`process ${stopping.pid} exited before it answered`));
    } finally {
      await session.client.close();
    }
  });
});

describe('a new baton mcp while the owner is exiting', () => {
  const setup = tempSetup('baton-handover-');
  before(() => ensureBuilt());
  after(() => rmSync(setup.dir, { recursive: true, force: true }));

  it('waits for the lock to be released and becomes the owner', async () => {
    const args = ['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off'];
    const first = await startMcp(args, 'first');
    await waitFor(() => readDiscovery(setup.db), 10_000, 'first discovery file');
    const closing = first.client.close();
    const second = await startMcp(args, 'second');
    try {
      await closing;
      const { tools } = await second.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ['workflow_next_step']);
      await waitFor(() => readDiscovery(setup.db)?.pid === second.pid, 10_000, 'second process owning the database');
    } finally {
      await second.client.close();
    }
  });
});

describe('the owner exits while a proxied agent works: the proxy takes over', () => {
  before(() => ensureBuilt());
  const call = (s: CliSession, args: Record<string, unknown>) =>
    s.client.callTool({ name: 'workflow_next_step', arguments: args }).then((r) => r.structuredContent as Structured);

  for (const [how, signal] of [['killed', 'SIGKILL'], ['stopped in order', 'SIGTERM']] as const) {
    it(`owner ${how}: the same session goes on, with its subscriptions, and the proxy now owns the database`, async () => {
      const setup = tempSetup('baton-takeover-');
      const args = ['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off'];
      const owner = await startMcp(args, 'editor');
      let proxied: CliSession | undefined;
      let third: CliSession | undefined;
      try {
        await waitFor(() => readDiscovery(setup.db), 10_000, 'discovery file');
        proxied = await startMcp(args, 'terminal-agent');
        const first = await call(proxied, { template_name: 'bug-fix', task_description: 'survive the owner' });
        assert.equal(first.status, 'ok');
        const updates: string[] = [];
        proxied.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
        await proxied.client.subscribeResource({ uri: `current-step://${first.task_id}` });

        process.kill(owner.pid!, signal);
        await waitFor(() => readDiscovery(setup.db)?.pid === proxied!.pid, 15_000, 'the proxy owning the database');
        assert.match(proxied.stderr(), /taking over the database/);

        // The acknowledged step survived, the session (no new initialize) goes on, and the subscription was carried over.
        const second = await call(proxied, { step_token: first.new_step_token, model_output_so_far: validOutput });
        assert.equal(second.status, 'ok', JSON.stringify(second));
        assert.equal(second.next_step_contract?.step_name, 'implement-fix');
        await waitFor(() => updates.includes(`current-step://${first.task_id}`), 20_000, 'resources/updated after the takeover');
        assert.deepEqual(proxied.protocolErrors.map((e) => e.message), []);

        // A newcomer finds the new owner and shares its state.
        third = await startMcp(args, 'newcomer');
        await waitFor(() => /forwarding stdio to http:\/\/127\.0\.0\.1/.test(third!.stderr()), 20_000, 'newcomer forwarding');
        const status = await third.client.readResource({ uri: `workflow-status://${first.task_id}` });
        assert.match(String((status.contents[0] as { text: string }).text), /"current_step":\s*"implement-fix"/);

        // When its own client leaves, the process that took over closes the database in order.
        await third.client.close();
        third = undefined;
        await proxied.client.close();
        await waitFor(() => !existsSync(discoveryPath(setup.db)), 10_000, 'the discovery file removed on close');
      } finally {
        await third?.client.close().catch(() => undefined);
        await proxied?.client.close().catch(() => undefined);
        await owner.client.close().catch(() => undefined);
        rmSync(setup.dir, { recursive: true, force: true });
      }
    });
  }

  it('two forwarding processes: one takes over, the other forwards to it, and both sessions go on', async () => {
    const setup = tempSetup('baton-takeover-two-');
    const args = ['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off'];
    const owner = await startMcp(args, 'editor');
    const sessions: CliSession[] = [];
    try {
      await waitFor(() => readDiscovery(setup.db), 10_000, 'discovery file');
      sessions.push(await startMcp(args, 'agent-a'), await startMcp(args, 'agent-b'));
      const [a, b] = sessions as [CliSession, CliSession];
      const first = await call(a, { template_name: 'bug-fix', task_description: 'two survivors' });
      process.kill(owner.pid!, 'SIGKILL');
      const newOwner = await waitFor(() => {
        const pid = readDiscovery(setup.db)?.pid;
        return pid === a.pid || pid === b.pid ? pid : null;
      }, 15_000, 'one of the two owning the database');
      const second = await call(b, { step_token: first.new_step_token, model_output_so_far: validOutput });
      assert.equal(second.next_step_contract?.step_name, 'implement-fix', JSON.stringify(second));
      const status = await a.client.readResource({ uri: `workflow-status://${first.task_id}` });
      assert.match(String((status.contents[0] as { text: string }).text), /"current_step":\s*"implement-fix"/);
      const follower = newOwner === a.pid ? b : a;
      // It took over from the old owner (its proxy ran), or, having answered its client's handshake itself while its
      // engine loaded (a forwarder's front), found the new owner when it started forwarding: either way, the new one.
      const url = readDiscovery(setup.db)!.url.replace(/[.?*+^$()[\]{}|\\]/g, '\\$&');
      const forwards = new RegExp(`took over: now forwarding to Baton process ${newOwner}\\b|forwarding stdio to ${url}`);
      await waitFor(() => forwards.test(follower.stderr()), 20_000, 'the other one forwarding to the new owner');
    } finally {
      for (const s of sessions) await s.client.close().catch(() => undefined);
      await owner.client.close().catch(() => undefined);
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  /** An owner and a forwarding process on a fresh database, for `fn`; both stopped and the files removed after. */
  async function ownerAndProxy(
    prefix: string, fn: (owner: CliSession, proxied: CliSession, db: string) => Promise<void>, extraArgs: string[] = [],
  ): Promise<void> {
    const setup = tempSetup(prefix);
    const args = ['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off', ...extraArgs];
    const owner = await startMcp(args, 'editor');
    let proxied: CliSession | undefined;
    try {
      await waitFor(() => readDiscovery(setup.db), 10_000, 'discovery file');
      proxied = await startMcp(args, 'terminal-agent');
      await fn(owner, proxied, setup.db);
    } finally {
      await proxied?.client.close().catch(() => undefined);
      await owner.client.close().catch(() => undefined);
      rmSync(setup.dir, { recursive: true, force: true });
    }
  }

  it('gate waits in flight when the owner stops in order go on waiting at the next owner (plain and streaming progress)', () =>
    ownerAndProxy('baton-takeover-wait-', async (owner, proxied, db) => {
      let r = await call(proxied, { template_name: 'bug-fix', task_description: 'wait through a stop' });
      while (r.status === 'ok') r = await call(proxied, { step_token: r.new_step_token, model_output_so_far: validOutput });
      assert.equal(r.status, 'awaiting_approval');
      const wait = { name: 'workflow_next_step', arguments: { step_token: r.new_step_token } };
      const plain = proxied.client.callTool(wait);
      const streaming = proxied.client.callTool(wait, undefined, { onprogress: () => undefined });
      await new Promise((resolve) => setTimeout(resolve, 500));
      process.kill(owner.pid!, 'SIGTERM');
      await waitFor(() => readDiscovery(db)?.pid === proxied.pid, 15_000, 'the proxy owning the database');
      await waitFor(() => /sending tools\/call workflow_next_step \(id \d+\) again: Baton process \d+ stopped before answering it/.test(proxied.stderr()), 20_000, 'the waits sent again');
      // The person decides at the new owner: both waits, sent on there, get the decision (the gate is bug-fix's last
      // step, so the workflow closes).
      const approved = await runCli(['approve', r.execution_id!, '--db', db]);
      assert.equal(approved.code, 0, approved.stderr);
      for (const waiting of [plain, streaming]) {
        const answer = (await waiting).structuredContent as Structured;
        assert.equal(answer.status, 'task_closed', JSON.stringify(answer).slice(0, 300));
        assert.equal(answer.execution_id, r.execution_id);
      }
    }));

  it('calls in flight when the owner stops in order are answered, and calls sent meanwhile go to the next owner: no error', () =>
    ownerAndProxy('baton-takeover-drain-', async (owner, proxied, db) => {
      const acked: string[] = [];
      const failed: string[] = [];
      let stop = false;
      const lane = async () => {
        while (!stop) {
          try {
            const r = await call(proxied, { template_name: 'bug-fix', task_description: `lane call ${acked.length}` });
            acked.push(r.task_id!);
          } catch (ex) {
            failed.push((ex as Error).message);
          }
        }
      };
      const lanes = [lane(), lane(), lane(), lane()];
      await waitFor(() => acked.length >= 20, 10_000, 'calls going through the owner');
      process.kill(owner.pid!, 'SIGTERM');
      await waitFor(() => readDiscovery(db)?.pid === proxied.pid, 15_000, 'the proxy owning the database');
      const atTakeover = acked.length;
      await waitFor(() => acked.length >= atTakeover + 20, 10_000, 'calls going on after the takeover');
      stop = true;
      await Promise.all(lanes);
      assert.deepEqual(failed, []);
      for (const taskId of acked) {
        const status = await proxied.client.readResource({ uri: `workflow-status://${taskId}` });
        assert.match(String((status.contents[0] as { text: string }).text), /"current_step":\s*"analyze-root-cause"/, taskId);
      }
    }));

  it('calls in flight when the owner dies: a start is sent again to the next owner (one run); another write is said to need a check first', { skip: process.platform === 'win32' }, () =>
    ownerAndProxy('baton-takeover-create-', async (owner, proxied, db) => {
      const lifecycle = await proxied.client.callTool({ name: 'start_execution', arguments: { workflowName: 'bug-fix' } });
      const executionId = (lifecycle.structuredContent as { id: string }).id;
      process.kill(owner.pid!, 'SIGSTOP');
      const start = call(proxied, { template_name: 'bug-fix', task_description: 'started twice?' });
      const move = proxied.client.callTool({ name: 'transition_workflow_state', arguments: { executionId, newState: 'running' } });
      await new Promise((r) => setTimeout(r, 300));
      process.kill(owner.pid!, 'SIGKILL');
      await assert.rejects(move, /stopped before answering this call\. Baton is taking over; the call may have taken effect already: check before you call again/);
      const started = await start;
      assert.equal(started.status, 'ok', JSON.stringify(started));
      assert.equal(started.next_step_contract?.step_name, 'analyze-root-cause');
      await proxied.client.close();
      await waitFor(() => !existsSync(discoveryPath(db)), 10_000, 'the discovery file removed on close');
      assert.equal(await runsIn(db), 2, 'the lifecycle execution and one bug-fix run');
    }, ['--tools', 'broker,lifecycle']));

  it('a submission in flight when the owner dies is sent again to the next owner: the agent gets its next step', { skip: process.platform === 'win32' }, () =>
    ownerAndProxy('baton-takeover-inflight-', async (owner, proxied) => {
      const first = await call(proxied, { template_name: 'bug-fix', task_description: 'in flight' });
      // A stopped owner accepts the connection but never answers: the call is in flight when it dies.
      process.kill(owner.pid!, 'SIGSTOP');
      const inFlight = call(proxied, { step_token: first.new_step_token, model_output_so_far: validOutput });
      await new Promise((r) => setTimeout(r, 300));
      process.kill(owner.pid!, 'SIGKILL');
      const answer = await inFlight;
      assert.equal(answer.status, 'ok', JSON.stringify(answer));
      assert.equal(answer.next_step_contract?.step_name, 'implement-fix');
      // Sent once more by the agent, it is answered again: the same step and token, nothing moved twice.
      const again = await call(proxied, { step_token: first.new_step_token, model_output_so_far: validOutput });
      assert.equal(again.new_step_token, answer.new_step_token);
    }));

  it('a call on a connection the owner reset after a stall (past its keep-alive time) is sent again on a new one', { skip: process.platform === 'win32' }, () =>
    ownerAndProxy('baton-stall-', async (owner, proxied) => {
      const first = await call(proxied, { template_name: 'bug-fix', task_description: 'stalled owner' });
      // Stopped longer than the owner's keep-alive time (5 s): when it goes on, it resets the idle connection the next
      // call went out on before it reads the call.
      process.kill(owner.pid!, 'SIGSTOP');
      const stalled = call(proxied, { step_token: first.new_step_token, model_output_so_far: validOutput });
      await new Promise((r) => setTimeout(r, 6500));
      process.kill(owner.pid!, 'SIGCONT');
      const answer = await stalled;
      assert.equal(answer.status, 'ok', JSON.stringify(answer));
      assert.equal(answer.next_step_contract?.step_name, 'implement-fix');
    }));
});

/** How many runs the database at `db` holds (no process may own it). */
async function runsIn(db: string): Promise<number> {
  const store = await openStore({ path: db });
  try {
    return store.get<{ n: number }>('SELECT COUNT(*) AS n FROM executions')!.n;
  } finally {
    await store.close();
  }
}

describe('a start whose owner dies before answering it is sent again to the next owner', { skip: process.platform === 'win32' }, () => {
  before(() => ensureBuilt());
  const dyingOwner = join(__dirname, '..', 'fixtures', 'owner', 'dyingOwner.ts');
  const call = (s: CliSession, args: Record<string, unknown>) =>
    s.client.callTool({ name: 'workflow_next_step', arguments: args }).then((r) => r.structuredContent as Structured);
  /** Runs `fn` with a dying owner in `mode` and a `baton mcp` forwarding to it (`said`: what the owner printed). */
  async function withDyingOwner(
    mode: string, setup: ReturnType<typeof tempSetup>, args: string[],
    fn: (t: { proxied: CliSession; died: Promise<unknown>; said: () => string }) => Promise<void>,
  ): Promise<void> {
    const owner = spawnTs(dyingOwner, [mode, setup.db, setup.workspace]);
    const died = new Promise((resolve) => owner.once('exit', resolve));
    let said = '';
    owner.stdout!.on('data', (d: Buffer) => void (said += d.toString()));
    let proxied: CliSession | undefined;
    try {
      await waitForLine(owner, /^ready$/);
      proxied = await startMcp(args, 'terminal-agent');
      await waitFor(() => /forwarding stdio to http:\/\/127\.0\.0\.1/.test(proxied!.stderr()), 20_000, 'the proxy forwarding to the dying owner');
      await fn({ proxied, died, said: () => said });
      assert.deepEqual(proxied.protocolErrors.map((e) => e.message), []);
      await proxied.client.close();
      proxied = undefined;
      await waitFor(() => !existsSync(discoveryPath(setup.db)), 10_000, 'the discovery file removed on close');
    } finally {
      await proxied?.client.close().catch(() => undefined);
      owner.kill('SIGKILL');
    }
  }

  for (const mode of ['after', 'before'] as const) {
    const what = mode === 'after' ? 'ran the start (its run is durable), then died' : 'died before running the start';
    it(`the owner ${what}: the agent gets a normal answer with a token that works, and one run exists`, async () => {
      const setup = tempSetup(`baton-resend-${mode}-`);
      const args = ['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off'];
      try {
        await withDyingOwner(mode, setup, args, async ({ proxied, died, said }) => {
          const first = await proxied.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'start once' } });
          await died;
          const r = first.structuredContent as Structured;
          assert.equal(r.status, 'ok', JSON.stringify(first.content).slice(0, 400));
          assert.equal(r.next_step_contract?.step_name, 'analyze-root-cause');
          assert.match(proxied.stderr(), /sending tools\/call workflow_next_step \(id \d+\) again: Baton process \d+ stopped before answering it/);
          if (mode === 'after') {
            const [, executionId, key] = /started (\S+) (\S+)/.exec(said()) ?? [];
            assert.equal(r.execution_id, executionId, 'the run the dead owner started');
            assert.match(key!, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'the key the proxy attached');
            // The agent made one call: what it reads must not speak of an earlier one of its own.
            assert.ok(r.human_message!.startsWith(`This start's request key (${key}) had already started this workflow, so no second run was started; here is that start's answer. `), r.human_message);
            assert.doesNotMatch(r.human_message!, /earlier|[Yy]our .*call/);
          } else {
            assert.equal(said().includes('started'), false);
          }
          const next = await call(proxied, { step_token: r.new_step_token, model_output_so_far: validOutput });
          assert.equal(next.next_step_contract?.step_name, 'implement-fix', JSON.stringify(next));
        });
        assert.equal(await runsIn(setup.db), 1, 'exactly one run');
      } finally {
        rmSync(setup.dir, { recursive: true, force: true });
      }
    });
  }

  it('start_workflow, the owner dead between creating the spec workflow and claiming Phase 0: the next owner finishes that start', async () => {
    const setup = tempSetup('baton-resend-spec-');
    const source = join(setup.workspace, 'specs', 'auth', 'tasks.md');
    mkdirSync(dirname(source), { recursive: true });
    writeFileSync(source, readFileSync(join(__dirname, '..', 'fixtures', 'specs', 'auth-service.tasks.md'), 'utf8'));
    const args = ['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off', '--tools', 'broker,specs'];
    try {
      await withDyingOwner('spec', setup, args, async ({ proxied, died, said }) => {
        const started = await proxied.client.callTool({ name: 'start_workflow', arguments: { workflow_type: 'spec_execution_v1', target_file: 'specs/auth/tasks.md' } });
        await died;
        assert.equal(started.isError, undefined, JSON.stringify(started.content).slice(0, 400));
        const r = started.structuredContent as { session_id: string; status: string; current_phase: number; already_started?: boolean; phase_content: { validation_gate: string[] } };
        const [, executionId, key] = /started (\S+) (\S+)/.exec(said()) ?? [];
        assert.equal(r.session_id, executionId, 'the workflow the dead owner created');
        assert.match(key!, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'the key the proxy attached');
        assert.equal(r.already_started, true);
        assert.deepEqual([r.status, r.current_phase], ['running', 0]);
        assert.match(proxied.stderr(), /sending tools\/call start_workflow \(id \d+\) again: Baton process \d+ stopped before answering it/);
        // Phase 0 is the caller's now: it completes with its evidence.
        const evidence = Object.fromEntries(r.phase_content.validation_gate.map((_, i) => [String(i + 1), `shown ${i + 1}`]));
        const done = await proxied.client.callTool({ name: 'complete_phase', arguments: { session_id: r.session_id, phase: 0, evidence } });
        assert.equal((done.structuredContent as { completed_phase?: number }).completed_phase, 0, JSON.stringify(done.content).slice(0, 400));
      });
      assert.equal(await runsIn(setup.db), 1, 'exactly one workflow');
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });
});
