// Rule: an editor that is a client of a terminal owner sees the same state as the owner's core — every /control read
// op answers what the core answers, calls go through with the owner's errors, /events streams every core event as
// Server-Sent Events behind the bearer token, and the stream's end tells the client that the owner has gone. The
// editor prunes the same way through either source, in process or through the owner, and hears the 'pruned' event.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { silentLog } from '../../src/core/ports.js';
import type { BatonEvent } from '../../src/core/types.js';
import type { OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer, type OwnerServer } from '../../src/host/ownerServer.js';
import { closeOwnerEndpoint, openOwnerEndpoint } from '../helpers/ownerEndpoint.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { LocalSource, type BatonSource } from '../../src/vscode/batonSource.js';
import { parseSse, RemoteSource } from '../../src/vscode/remoteSource.js';
import { validOutput } from '../fixtures/mcp/badInput.js';

/** Status of a raw request (so the test controls the headers). */
function statusOf(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'GET', path, headers }, (res) => {
      resolve(res.statusCode ?? 0);
      res.destroy();
    });
    req.on('error', reject);
    req.end();
  });
}

/** Waits until `pred` holds for the events collected so far. */
async function until(events: BatonEvent[], pred: (e: BatonEvent[]) => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pred(events)) {
    if (Date.now() > deadline) throw new Error(`timed out; events so far: ${JSON.stringify(events)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('owner /control read ops and /events for editor clients', () => {
  let workspace: string;
  let opened: OpenedBaton;
  let owner: OwnerServer;
  let remote: RemoteSource;
  const seen: BatonEvent[] = [];

  before(async () => {
    ({ workspace, opened, owner } = await openOwnerEndpoint('baton-events-', { approvalWaitMs: 0 }));
    remote = new RemoteSource({ url: owner.url, token: owner.token, pid: process.pid });
    remote.onEvent((e) => seen.push(e));
    // The stream is open once the server has a listener; a core event proves it.
    await new Promise((r) => setTimeout(r, 100));
  });
  after(async () => {
    remote.dispose();
    await closeOwnerEndpoint({ workspace, opened, owner });
  });

  it('refuses /events without the token or from a foreign Host', async () => {
    const host = `127.0.0.1:${owner.port}`;
    assert.equal(await statusOf(owner.port, '/events', { host }), 401);
    assert.equal(await statusOf(owner.port, '/events', { host, authorization: `Bearer ${'0'.repeat(64)}` }), 401);
    assert.equal(await statusOf(owner.port, '/events', { host: 'evil.example', authorization: `Bearer ${owner.token}` }), 403);
    assert.equal(await statusOf(owner.port, '/events', { host, authorization: `Bearer ${owner.token}` }), 200);
  });

  it('starts a workflow through next_step and streams its events live', async () => {
    const started = await remote.nextStep({ template_name: 'bug-fix', task_description: 'remote start' });
    assert.equal(started.status, 'ok', JSON.stringify(started.error));
    const id = started.execution_id!;
    await until(seen, (es) => es.some((e) => e.type === 'step' && e.execution_id === id && e.status === 'running'));
    assert.ok(seen.some((e) => e.type === 'execution' && e.execution_id === id && e.status === 'running'));
  });

  it('answers every read op exactly as the core does', async () => {
    const core = opened.baton;
    const [exec] = core.listExecutions();
    assert.ok(exec);
    const id = exec.execution_id;
    assert.deepEqual(await remote.listExecutions(), core.listExecutions());
    assert.deepEqual(await remote.listExecutions({ active_only: true, limit: 1 }), core.listExecutions({ active_only: true, limit: 1 }));
    assert.deepEqual(await remote.workflowStatus(id), core.workflowStatus(id));
    assert.deepEqual(await remote.currentStep(id), core.currentStep(id));
    assert.deepEqual(await remote.events(id), core.events(id));
    assert.deepEqual(await remote.availableWorkflows(), core.availableWorkflows());
    assert.deepEqual(await remote.templates(), core.templates());
    assert.equal(await remote.guardrails(), core.guardrails());
    assert.deepEqual(await remote.artifacts({ type: 'recent', limit: 5 }), core.artifacts({ type: 'recent', limit: 5 }));
  });

  it('submits a step, finds its artifact by id, and passes domain errors through with their reason', async () => {
    const [exec] = opened.baton.listExecutions();
    const claimedToken = (await remote.nextStep({ task_id: exec!.execution_id })).status;
    assert.equal(claimedToken, 'no_op', 'the running step is not handed out twice');
    const first = await opened.baton.nextStep({ template_name: 'bug-fix' });
    const done = await remote.nextStep({ step_token: first.new_step_token, model_output_so_far: {
      ...validOutput,
      artifacts: [{ type: 'markdown' as const, title: 'remote', content: 'from the client' }],
      findings: [{ severity: 'high' as const, category: 'bug', description: 'off by one', recommendation: 'count from zero', location: 'src/a.ts:3' }],
    } });
    assert.notEqual(done.status, 'error', JSON.stringify(done.error));
    const [art] = (await remote.artifacts({ type: 'execution', execution_id: first.execution_id!, limit: 10 })).artifacts;
    assert.ok(art, 'the submitted artifact is stored');
    assert.equal((await remote.artifact(art.artifact_id))?.content, art.content);
    assert.equal((await remote.artifact(art.artifact_id))?.artifact_id, art.artifact_id);
    assert.equal(await remote.artifact('no-such-artifact'), undefined);
    const found = await remote.findings(first.execution_id!);
    assert.equal(found.length, 1);
    assert.equal(found[0]!.description, 'off by one');
    assert.deepEqual(found, opened.baton.lifecycle.queryFindings({ executionId: first.execution_id!, limit: 500 }).findings);
    await assert.rejects(remote.decide({ execution_id: first.execution_id!, decision: 'approve' }), (ex) => BatonError.is(ex, 'invalid_state'));
    await assert.rejects(remote.workflowStatus('missing'), (ex) => BatonError.is(ex) && ex.reason.endsWith('not_found'));
  });

  it('releases a running step through the owner, recording the editor as who released it, and streams it ready', async () => {
    const started = await opened.baton.nextStep({ template_name: 'bug-fix' }, { client_name: 'gone-agent' });
    const released = await remote.release(started.execution_id!, 'analyze-root-cause');
    assert.deepEqual([released.step_name, released.held_by], ['analyze-root-cause', 'gone-agent']);
    await until(seen, (es) => es.some((e) => e.type === 'step' && e.execution_id === started.execution_id && e.status === 'ready'));
    const by = opened.baton.events(started.execution_id!).find((e) => e.event_type === 'step_released')?.event_data as { by: string };
    assert.match(by.by, /^vscode:/);
    await assert.rejects(remote.release(started.execution_id!, 'analyze-root-cause'), (ex) => BatonError.is(ex, 'invalid_state'));
  });

  it('cancels an execution through the owner and streams the failure', async () => {
    const [exec] = opened.baton.listExecutions({ active_only: true });
    const summary = await remote.cancel(exec!.execution_id, 'not needed');
    assert.equal(summary.status, 'failed');
    await until(seen, (es) => es.some((e) => e.type === 'execution' && e.execution_id === exec!.execution_id && e.status === 'failed'));
  });

  it('refuses an unknown op and malformed fields with 400 invalid_input', async () => {
    for (const body of [{ op: 'drop_tables' }, { op: 'events' }, { op: 'artifacts', query: { type: 'all' } }, { op: 'next_step', request: 'x' }]) {
      const res = await fetch(new URL('/control', owner.url), {
        method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
      });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(((await res.json()) as { error: { reason: string } }).error.reason, 'invalid_input');
    }
  });

  /** Three finished runs (oldest first) and one still running. */
  async function runs(source: BatonSource): Promise<{ finished: string[]; running: string }> {
    const finished: string[] = [];
    for (let i = 0; i < 3; i++) {
      const e = await source.startWorkflow('bug-fix', `finished ${i}`);
      await source.cancel(e.execution_id, 'done with it');
      finished.push(e.execution_id);
    }
    const running = (await source.startWorkflow('bug-fix', 'still going')).execution_id;
    return { finished, running };
  }

  for (const which of ['local', 'remote'] as const) {
    it(`prunes through the ${which} source: a dry run counts, the prune deletes the oldest finished runs past max_runs, running ones stay`, async () => {
      const source: BatonSource = which === 'local' ? new LocalSource(opened.baton, { url: owner.url, token: owner.token }) : remote;
      const { finished, running } = await runs(source);
      const before = (await source.listExecutions({ limit: 500 })).map((e) => e.execution_id);
      // Keep the newest finished run of all (this test's last, as the other case's ran earlier).
      const dry = await source.prune({ days: 0, max_runs: 1, dry_run: true });
      assert.equal(dry.dry_run, true);
      assert.deepEqual(dry.policy, { days: 0, maxRuns: 1, idleDays: 30 }, "the owner's idle days, as none were given");
      assert.equal(dry.cancelled, 0, 'the running one is recent');
      assert.deepEqual((await source.prune({ idle_days: 7, dry_run: true })).policy.idleDays, 7, 'idle_days reaches the owner');
      assert.ok(dry.execution_ids.includes(finished[0]!) && dry.execution_ids.includes(finished[1]!), JSON.stringify(dry.execution_ids));
      assert.ok(!dry.execution_ids.includes(finished[2]!) && !dry.execution_ids.includes(running));
      assert.deepEqual((await source.listExecutions({ limit: 500 })).map((e) => e.execution_id), before, 'a dry run deletes nothing');

      const done = await source.prune({ days: 0, max_runs: 1 });
      assert.equal(done.dry_run, false);
      assert.equal(done.pruned, dry.pruned);
      assert.equal(done.kept, 1);
      const after = new Set((await source.listExecutions({ limit: 500 })).map((e) => e.execution_id));
      assert.ok(!after.has(finished[0]!) && !after.has(finished[1]!));
      assert.ok(after.has(finished[2]!) && after.has(running));
      const deadline = Date.now() + 3000;
      while (!seen.some((e) => e.type === 'pruned' && e.execution_ids.includes(finished[0]!))) {
        assert.ok(Date.now() < deadline, `no 'pruned' event over /events; got ${JSON.stringify(seen.map((e) => e.type))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
  }

  it('a bad prune limit comes back through the owner as invalid_input', async () => {
    await assert.rejects(remote.prune({ days: -1 }), (ex: Error & { reason?: string }) => ex.reason === 'invalid_input' && /days/.test(ex.message));
    await assert.rejects(remote.prune({ idle_days: 1.5 }), (ex: Error & { reason?: string }) => ex.reason === 'invalid_input' && /idle_days/.test(ex.message));
  });

  it('ends the event stream when the owner stops, so the client can take over', async () => {
    const other = await startOwnerServer({
      baton: opened.baton,
      createServer: () => createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog }),
      log: silentLog,
    });
    const client = new RemoteSource({ url: other.url, token: other.token, pid: process.pid });
    await new Promise((r) => setTimeout(r, 100));
    let ended = false;
    void client.closed.then(() => (ended = true));
    assert.equal(ended, false);
    await other.close();
    await Promise.race([client.closed, new Promise((_, reject) => setTimeout(() => reject(new Error('stream did not end')), 3000).unref())]);
    client.dispose();
  });
});

describe('parseSse', () => {
  it('keeps an unfinished block for the next chunk and ignores comments', () => {
    const a = parseSse(': hello\n\ndata: {"a":1}\n\ndata: {"b"');
    assert.deepEqual(a.data, ['{"a":1}']);
    const b = parseSse(a.rest + ':2}\n\n: ping\n\n');
    assert.deepEqual(b.data, ['{"b":2}']);
    assert.equal(b.rest, '');
  });
});
