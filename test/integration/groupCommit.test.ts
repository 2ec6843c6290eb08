// Rule: calls in flight at once from several MCP sessions (HTTP and stdio) share disk syncs instead of waiting
// for one another's, and still no answer leaves before its record is on disk: killed (SIGKILL) right after an
// answer, the owner has that write on reopen; a failed sync fails every call whose record it carried.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { silentLog } from '../../src/core/ports.js';
import type { NextStepResponse } from '../../src/core/types.js';
import { readDiscovery } from '../../src/host/discovery.js';
import { startOwnerServer } from '../../src/host/ownerServer.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { scanJournal } from '../../src/store/journal.js';
import { isPidAlive } from '../../src/store/lock.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { journalProbe, withTempDir } from '../fixtures/store/helpers.js';
import { ensureBuilt, startMcp, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';
import { makeBaton } from '../helpers/coreHarness.js';

const SESSIONS = 6;
const out = (step: string) => ({ summary: `${step} done`, artifacts: [{ type: 'markdown', title: step, content: `# ${step}` }], references: [], confidence: 0.9 });
const noCheckpoints = { idleCheckpointMs: 60_000, checkpointRecords: 1_000_000, checkpointBytes: 1e12 };

async function httpClient(url: string, token: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

const nextStep = async (c: Client, args: Record<string, unknown>) =>
  (await c.callTool({ name: 'workflow_next_step', arguments: args })).structuredContent as unknown as NextStepResponse;

/** Submits the step a session holds; returns the next answer. */
const submit = (c: Client, r: NextStepResponse) => nextStep(c, { step_token: r.new_step_token, model_output_so_far: out(r.next_step_contract!.step_name) });

/** Journal groups (one write and one fdatasync each) and the executions whose writes each carried. */
function groupsOf(journal: string): Map<number, Set<string>> {
  const scan = scanJournal(readFileSync(journal));
  assert.ok(scan.ok, 'the journal scans clean');
  const groups = new Map<number, Set<string>>();
  for (const r of scan.records) {
    const execs = groups.get(r.group) ?? new Set<string>();
    for (const [, params] of r.statements) {
      for (const p of Array.isArray(params) ? params : []) if (typeof p === 'string' && /^[0-9a-f-]{36}$/.test(p)) execs.add(p);
    }
    groups.set(r.group, execs);
  }
  return groups;
}

describe('group commit across MCP sessions (in process, real HTTP)', () => {
  async function owner(t: { db: string }) {
    const probe = journalProbe();
    const store = await openStore({ path: t.db, openJournalFile: probe.open, ...noCheckpoints });
    const { baton } = await makeBaton({ store });
    const endpoint = await startOwnerServer({ baton, log: silentLog, createServer: () => createMcpServer(baton, { toolGroups: ['broker'], version: 't', log: silentLog }) });
    const clients = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => httpClient(endpoint.url, endpoint.token, `agent-${i}`)));
    const started = await Promise.all(clients.map((c) => nextStep(c, { template_name: 'bug-fix' })));
    assert.ok(started.every((r) => r.status === 'ok'));
    /** Holds a sync in flight (two writes of one tick), then has every session submit its step behind it. */
    const submitBehindHeldSync = async () => {
      probe.hold = true;
      const put = (k: string) => store.transaction(() => store.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [k, k]));
      const first = [put('first-a'), put('first-b')];
      first.forEach((p) => p.catch(() => undefined));
      await waitFor(() => probe.waiting === 1, 20_000, 'the first sync');
      const seq = store.stats().lastSeq;
      const answered = clients.map(() => false);
      const calls = clients.map((c, i) => submit(c, started[i]!).then((r) => ((answered[i] = true), r)));
      await waitFor(() => store.stats().lastSeq >= seq + SESSIONS, 20_000, 'every session committed its step');
      return { answered, calls };
    };
    const close = async () => {
      await Promise.all(clients.map((c) => c.close()));
      await endpoint.close();
      await baton.close();
      probe.syncError = null;
      probe.hold = false;
      probe.release();
      await store.close().catch(() => undefined);
    };
    return { probe, started, submitBehindHeldSync, close };
  }

  it(`${SESSIONS} sessions' writes share one sync and are answered only once it is done`, { timeout: 60_000 }, async () => {
    await withTempDir(async (t) => {
      const { probe, started, submitBehindHeldSync, close } = await owner(t);
      try {
        probe.reset();
        const { answered, calls } = await submitBehindHeldSync();
        assert.equal(probe.appends, 1, 'the writes behind a sync in flight are not written yet');
        probe.release();
        await waitFor(() => probe.waiting === 1, 20_000, 'the second sync');
        assert.equal(probe.appends, 2, 'every session\'s write went out in one write');
        await new Promise((r) => setTimeout(r, 100));
        assert.deepEqual(answered, started.map(() => false), 'no call is answered while the sync carrying it is in flight');
        probe.hold = false;
        probe.release();
        const results = await Promise.all(calls);
        assert.ok(results.every((r) => r.status === 'ok'), JSON.stringify(results.map((r) => r.status)));
        const groups = [...groupsOf(join(dirname(t.db), 'baton.journal')).values()];
        assert.ok(groups.some((execs) => started.every((s) => execs.has(s.execution_id!))), 'one sync carried the writes of every session');
      } finally {
        await close();
      }
    });
  });

  it('a failed sync fails every call whose write it carried, across sessions', { timeout: 60_000 }, async () => {
    await withTempDir(async (t) => {
      const { probe, submitBehindHeldSync, close } = await owner(t);
      try {
        const { calls } = await submitBehindHeldSync();
        probe.release();
        await waitFor(() => probe.waiting === 1, 20_000, "the sync of the sessions' writes");
        probe.syncError = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
        probe.release();
        const results = await Promise.all(calls);
        for (const r of results) {
          assert.equal(r.status, 'error', JSON.stringify(r).slice(0, 200));
          assert.equal(r.error?.code, 'store_failed');
        }
      } finally {
        await close();
      }
    });
  });
});

describe('group commit in the built owner (stdio + HTTP sessions), killed right after an answer', () => {
  before(() => ensureBuilt());

  it('concurrent calls share syncs, and every answered write is on disk after SIGKILL', { timeout: 120_000 }, async () => {
    const setup = tempSetup('baton-group-');
    const stdio = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off'], 'stdio-agent');
    try {
      const info = await waitFor(() => readDiscovery(setup.db), 10_000, 'discovery file');
      const http = await Promise.all(Array.from({ length: 3 }, (_, i) => httpClient(info.url, info.token, `http-agent-${i}`)));
      const lanes = [...Array.from({ length: 4 }, () => stdio.client), ...http, ...http];
      const origin = new Map<string, string>(); // execution → 'stdio' | 'http'
      const answered: Array<{ execution: string; step: string; status: string }> = [];
      let killed = false;
      // Every lane works on its own, no barrier between them, so the sessions' calls overlap; the owner is
      // killed the moment the 40th answer arrives, with other calls in flight.
      await Promise.allSettled(lanes.map(async (c) => {
        let r: NextStepResponse | null = null;
        while (!killed) {
          if (r?.status !== 'ok') {
            r = await nextStep(c, { template_name: 'bug-fix' });
            origin.set(r.execution_id!, c === stdio.client ? 'stdio' : 'http');
            continue;
          }
          const held: NextStepResponse = r;
          r = await submit(c, held);
          // Anything answered was sent by the owner: it must be on disk, even if the owner dies this instant.
          answered.push({ execution: held.execution_id!, step: held.next_step_contract!.step_name, status: r.status });
          if (answered.length >= 40 && !killed) {
            killed = true;
            process.kill(stdio.pid!, 'SIGKILL');
          }
        }
      }));
      assert.ok(killed);
      await Promise.all(http.map((c) => c.close().catch(() => undefined)));
      const groups = groupsOf(join(dirname(setup.db), 'baton.journal'));
      const mixed = [...groups.values()].filter((execs) => {
        const kinds = new Set([...execs].map((e) => origin.get(e)).filter(Boolean));
        return kinds.size === 2;
      });
      assert.ok(mixed.length > 0, 'a sync carried writes of the stdio session and of HTTP sessions together');
      // SIGKILL is asynchronous: until the killed owner is gone, its lock is still live.
      await waitFor(() => !isPidAlive(stdio.pid!), 10_000, 'the killed owner gone');
      const store = await openStore({ path: setup.db });
      try {
        for (const a of answered) {
          const step = store.get<{ status: string }>('SELECT status FROM steps WHERE execution_id = ? AND step_name = ?', [a.execution, a.step]);
          assert.ok(step && step.status !== 'running' && step.status !== 'ready', `answered submit of ${a.step} in ${a.execution} (${a.status}) is on disk, found ${step?.status}`);
        }
      } finally {
        await store.close();
      }
    } finally {
      try {
        process.kill(stdio.pid!, 'SIGKILL');
      } catch {
        // already killed by the test
      }
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });
});
