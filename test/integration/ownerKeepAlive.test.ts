// Rule: a call a client sends on a kept-alive connection while the owner is busy for longer than Node's keep-alive time
// (5 s; a big checkpoint or compaction) is read and answered once the owner is done, never reset unread: a change (a
// start, a cancel) is carried out once, and its client is told so. A forwarding `baton mcp` that first reaches the
// owner during such a spell waits for it (it gave up and exited). The owner still frees the connections of clients
// that went away.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ExecutionSummary } from '../../src/core/api.js';
import { callControl } from '../../src/host/controlClient.js';
import { readDiscovery, type DiscoveryInfo } from '../../src/host/discovery.js';
import { CLI, ROOT, ensureBuilt, killAll, startMcp, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { startNode, type Started } from '../helpers/processes.js';
import { until } from '../helpers/until.js';

const BUSY_ON_SIGNAL = join(ROOT, 'test', 'fixtures', 'owner', 'busyOnSignal.cjs');
/** Past Node's default keep-alive time (5 s), as the finding that a request sent meanwhile was reset. */
const BUSY_MS = 6000;

describe('an owner busy past the keep-alive time of its idle connections', { skip: process.platform !== 'linux' && 'needs /proc' }, () => {
  const setup = tempSetup('baton-keep-alive-');
  let serve: Started;
  let owner: DiscoveryInfo;
  before(async () => {
    ensureBuilt();
    serve = startNode(['-r', BUSY_ON_SIGNAL, CLI, 'serve', '--db', setup.db, '--workspace', setup.workspace], {
      BATON_TEST_BUSY_MS: String(BUSY_MS),
      BATON_TEST_BUSY_IDLE: '1', // blocked, not spinning: 30 s of a core the other tests of the suite can use
    });
    owner = await until('baton serve to publish its endpoint', () => readDiscovery(setup.db));
  });
  after(() => {
    killAll([serve.child.pid!]);
    rmSync(setup.dir, { recursive: true, force: true });
  });

  const runs = async () => ((await callControl(owner, { op: 'executions' })) as { executions: ExecutionSummary[] }).executions;

  /** Makes the owner busy for BUSY_MS and waits until it is (its stderr says so). */
  const makeBusy = async () => {
    const said = serve.err().split('busy\n').length;
    process.kill(serve.child.pid!, 'SIGUSR2');
    await until('baton serve to be busy', () => serve.err().split('busy\n').length > said);
  };

  it('a control write (a start, then a cancel) sent on an idle kept-alive connection meanwhile is carried out once and answered', { timeout: 60_000 }, async () => {
    const before = (await runs()).length;
    // The call above left its connection idle in fetch's pool; the start below goes out on it while the owner is busy.
    await makeBusy();
    const started = (await callControl(owner, { op: 'start_workflow', template_name: 'bug-fix', task_description: 'sent while busy' })) as { result: ExecutionSummary };
    assert.equal(started.result.status, 'running');
    assert.equal((await runs()).length, before + 1);

    await makeBusy();
    const cancelled = (await callControl(owner, { op: 'cancel', execution_id: started.result.execution_id, by: 'test' })) as { result: ExecutionSummary };
    assert.equal(cancelled.result.status, 'failed');
    const all = await runs();
    assert.equal(all.length, before + 1);
    assert.equal(all.find((r) => r.execution_id === started.result.execution_id)?.status, 'failed');
  });

  it('an MCP client (Streamable HTTP) gets its start answered, and one run started', { timeout: 60_000 }, async () => {
    const client = new Client({ name: 'keep-alive-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(owner.url), { requestInit: { headers: { authorization: `Bearer ${owner.token}` } } }));
    try {
      await client.listTools();
      const before = (await runs()).length;
      await makeBusy();
      // No request key: a start an agent's client sends once, and that the owner must not lose unread.
      const res = await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'sent while busy' } });
      assert.equal((res.structuredContent as { status: string }).status, 'ok', JSON.stringify(res));
      assert.equal((await runs()).length, before + 1);
    } finally {
      await client.close();
    }
  });

  it("a forwarding baton mcp gets the owner's answer to a call it may not send again", { timeout: 60_000 }, async () => {
    const proxy = await startMcp(['--db', setup.db, '--workspace', setup.workspace], 'keep-alive-proxy');
    // Reclaiming a step carries no step_token: the proxy sends it once only (it could hand a step over twice).
    const reclaim = (taskId: string) => proxy.client.callTool({ name: 'workflow_next_step', arguments: { request: 'reclaim', task_id: taskId } });
    try {
      // Its first call sets the forwarding up (the handshake was answered by the proxy itself).
      await reclaim('warm-up');
      await makeBusy();
      const res = await reclaim('sent-while-busy');
      assert.equal(res.isError, true);
      assert.match(JSON.stringify(res.content), /execution_not_found: No execution or task \\"sent-while-busy\\"/);
    } finally {
      await proxy.client.close();
    }
  });

  it('a forwarding baton mcp started while the owner is busy waits for it, and its first call is answered', { timeout: 60_000 }, async () => {
    await makeBusy();
    // Its handshake is answered by the process itself; the first call finds the owner busy for seconds.
    const proxy = await startMcp(['--db', setup.db, '--workspace', setup.workspace], 'busy-at-start-proxy');
    try {
      const res = await proxy.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'first call while busy' } });
      assert.equal((res.structuredContent as { status: string }).status, 'ok', JSON.stringify(res));
      assert.match(proxy.stderr(), /does not answer yet \(busy\?\); waiting for it/);
      const again = await proxy.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } });
      assert.equal((again.structuredContent as { status: string }).status, 'ok', 'the forwarding process lives on');
    } finally {
      await proxy.client.close();
    }
  });

  it('frees the kept-alive connections of a client process that exits', { timeout: 60_000 }, async () => {
    const port = Number(new URL(owner.url).port);
    // The owner's connections (open, or closed by the client and not yet by the owner), from the system's table: its
    // listening socket and those it closed (TIME_WAIT) are not counted.
    const connections = () => readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1).filter((line) => {
      const [, local, , state] = line.trim().split(/\s+/);
      return local !== undefined && parseInt(local.split(':')[1]!, 16) === port && state !== '0A' && state !== '06';
    }).length;
    await until("the test process's own idle connections to close", () => connections() === 0);
    // 200 calls at once (fetch opens a connection for each), kept alive while the process lives on.
    const script = `const o = JSON.parse(process.argv[1]);
      const call = () => fetch(new URL('/control', o.url), { method: 'POST', headers: { authorization: 'Bearer ' + o.token,
        'content-type': 'application/json' }, body: JSON.stringify({ op: 'executions' }) }).then((r) => r.json());
      Promise.all(Array.from({ length: 200 }, call)).then(() => process.stdout.write('done\\n'));
      setInterval(() => undefined, 60_000);`;
    const client = startNode(['-e', script, JSON.stringify(owner)]);
    await until('the 200 calls to be answered', () => client.out().includes('done'));
    const kept = connections();
    assert.ok(kept >= 100, `${kept} connections kept while the client lives`);
    client.child.kill('SIGKILL');
    await client.exited;
    await until('the owner to close the connections of the client that exited', () => connections() === 0, 10_000);
  });
});
