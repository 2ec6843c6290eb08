// Rule: `baton status` lists at most the 50 newest executions; when it left older ones out it says so (a line under
// the text, `more: true` in the JSON), and when it did not, it says nothing of the kind (`more: false`).
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { moreText, STATUS_LISTED } from '../../src/cli/statusCommand.js';
import { silentLog } from '../../src/core/ports.js';
import { openBaton } from '../../src/host/openBaton.js';
import { ensureBuilt, runCli, tempSetup } from '../fixtures/mcp/cliHarness.js';

describe('baton status past the newest 50', () => {
  const setup = tempSetup('baton-status-more-');
  ensureBuilt();
  after(() => rmSync(setup.dir, { recursive: true, force: true }));

  /** Adds `count` running executions to the database. */
  async function addRunning(count: number): Promise<void> {
    const opened = await openBaton({ dbPath: setup.db, log: silentLog, timeoutSweepMs: 0 });
    for (let i = 0; i < count; i++) {
      const e = await opened.baton.lifecycle.startExecution({ workflowName: 'bug-fix' });
      await opened.baton.lifecycle.transition(e.id, 'running');
    }
    await opened.close();
  }

  it('says nothing of older ones when all are listed', async () => {
    await addRunning(STATUS_LISTED);
    const text = await runCli(['status', '--db', setup.db]);
    assert.equal(text.code, 0, text.stderr);
    assert.doesNotMatch(text.stdout, /are listed; older ones are left out/);
    const json = JSON.parse((await runCli(['status', '--json', '--db', setup.db])).stdout) as { executions: unknown[]; more: boolean };
    assert.equal(json.executions.length, STATUS_LISTED);
    assert.equal(json.more, false);
  });

  it('says that older ones were left out once there are more', async () => {
    await addRunning(1);
    const text = await runCli(['status', '--db', setup.db]);
    assert.equal(text.code, 0, text.stderr);
    assert.ok(text.stdout.endsWith(`\n\n${moreText(true)}\n`), text.stdout.slice(-300));
    assert.equal(text.stdout.match(/ {2}bug-fix {2}running /g)?.length, STATUS_LISTED);
    const all = await runCli(['status', '--all', '--db', setup.db]);
    assert.ok(all.stdout.endsWith(`\n\n${moreText(false)}\n`), all.stdout.slice(-300));
    const json = JSON.parse((await runCli(['status', '--json', '--db', setup.db])).stdout) as { executions: unknown[]; more: boolean };
    assert.equal(json.executions.length, STATUS_LISTED);
    assert.equal(json.more, true);
  });
});
