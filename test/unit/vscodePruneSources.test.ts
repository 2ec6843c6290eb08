// Rule: the editor prunes through either source the same way — in process (LocalSource) or through a terminal owner's
// /control (RemoteSource) — a dry run deletes nothing, the real prune takes the oldest finished run past the limits
// and leaves running ones, and the 'pruned' event reaches a client over the owner's event stream.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLog } from '../../src/core/ports.js';
import type { BatonEvent } from '../../src/core/types.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer, type OwnerServer } from '../../src/host/ownerServer.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { LocalSource, type BatonSource } from '../../src/vscode/batonSource.js';
import { RemoteSource } from '../../src/vscode/remoteSource.js';

describe('BatonSource.prune, in process and through the owner', () => {
  let workspace: string;
  let opened: OpenedBaton;
  let owner: OwnerServer;
  let remote: RemoteSource;
  let local: LocalSource;
  const streamed: BatonEvent[] = [];

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'baton-prune-src-'));
    opened = await openBaton({ dbPath: null, workspace, rateLimits: false, log: silentLog, approvalWaitMs: 0 });
    owner = await startOwnerServer({
      baton: opened.baton,
      createServer: () => createMcpServer(opened.baton, { toolGroups: ['broker'], version: 't', log: silentLog }),
      log: silentLog,
    });
    remote = new RemoteSource({ url: owner.url, token: owner.token, pid: process.pid });
    remote.onEvent((e) => streamed.push(e));
    local = new LocalSource(opened.baton, { url: owner.url, token: owner.token });
    await new Promise((r) => setTimeout(r, 100));
  });
  after(async () => {
    remote.dispose();
    await owner.close();
    await opened.close();
    rmSync(workspace, { recursive: true, force: true });
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
    it(`${which}: a dry run counts, the prune deletes the oldest finished runs past max_runs, running ones stay`, async () => {
      const source: BatonSource = which === 'local' ? local : remote;
      const { finished, running } = await runs(source);
      const before = (await source.listExecutions({ limit: 500 })).map((e) => e.execution_id);
      // Keep the newest finished run of all (this test's last, as the other case's ran earlier).
      const dry = await source.prune({ days: 0, max_runs: 1, dry_run: true });
      assert.equal(dry.dry_run, true);
      assert.deepEqual(dry.policy, { days: 0, maxRuns: 1 });
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
      while (!streamed.some((e) => e.type === 'pruned' && e.execution_ids.includes(finished[0]!))) {
        assert.ok(Date.now() < deadline, `no 'pruned' event over /events; got ${JSON.stringify(streamed.map((e) => e.type))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
  }

  it('remote: a bad limit comes back as the owner\'s invalid_input error', async () => {
    await assert.rejects(remote.prune({ days: -1 }), (ex: Error & { reason?: string }) => ex.reason === 'invalid_input' && /days/.test(ex.message));
  });
});
