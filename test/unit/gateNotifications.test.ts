// Rule: the editor notifies of each gate (Approve / Reject… / Show) while gates come slowly; when agents bring five
// runs to their gates at once, the first three get a notification each and, when the minute has room again, one more
// counts the others and how many wait in all (Approve… opens the picker of waiting steps, Show the Baton view); one
// that would count gates all decided meanwhile is not shown. A real core behind the editor's connection.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { registerApprovalNotifications } from '../../src/vscode/approvals.js';
import { LocalSource } from '../../src/vscode/batonSource.js';
import type { Services } from '../../src/vscode/services.js';
import { SharedRunListing } from '../../src/vscode/sharedRunListing.js';
import { makeBaton, runToGate } from '../helpers/coreHarness.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';

async function editor() {
  const { baton } = await makeBaton();
  const local = new LocalSource(baton, { url: 'http://127.0.0.1:1/mcp', token: 't' } as never);
  // Not a pipeline run: its view is not found, and a rejection has the step redone.
  const connection = Object.assign(local, {
    pipelineView: async () => {
      throw new BatonError('execution_not_found', 'not a pipeline run');
    },
    onDidChange: () => ({ dispose: () => undefined }),
  });
  const errors: unknown[] = [];
  const runs = new SharedRunListing(connection);
  const s = { connection, runs, log: { error: (_m: string, ex: unknown) => void errors.push(ex) } } as unknown as Services;
  return { baton, s, runs, errors };
}

/** Lets the notifications' reads and awaits run (setImmediate is not mocked). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

describe('gate notifications in the editor', () => {
  beforeEach(() => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.parse('2026-01-01T00:00:00Z') });
    fakeWindow.shown = [];
    fakeWindow.answer = () => undefined;
    fakeVscode.commands.executed = [];
  });
  afterEach(() => mock.timers.reset());

  it('five gates at once: three notifications, then one counting the other two and all that wait', async () => {
    const { baton, s, runs, errors } = await editor();
    const sub = registerApprovalNotifications(s);
    for (let i = 0; i < 5; i++) await runToGate(baton, `task ${i}`);
    await settle();
    assert.deepEqual(fakeWindow.shown.map((m) => m.items), [['Approve', 'Reject…', 'Show'], ['Approve', 'Reject…', 'Show'], ['Approve', 'Reject…', 'Show']]);
    assert.match(fakeWindow.shown[0]!.message, /^Baton: review-code of bug-fix “task 0” awaits your approval/);
    fakeWindow.answer = (m) => (m.items.includes('Approve…') ? 'Approve…' : undefined);
    mock.timers.tick(60_000);
    await settle();
    assert.deepEqual(fakeWindow.shown.slice(3).map((m) => [m.message, m.items]), [
      ['Baton: 2 more steps reached their gates; 5 await your approval in all.', ['Approve…', 'Show']],
    ]);
    assert.deepEqual(fakeVscode.commands.executed, [['baton.approveStep']], 'Approve… opens the picker of waiting steps');
    assert.deepEqual(errors, []);
    sub.dispose();
    runs.dispose();
  });

  it('gates that come slowly are notified one by one; a count of gates all decided meanwhile is not shown', async () => {
    const { baton, s, runs } = await editor();
    const sub = registerApprovalNotifications(s);
    for (let i = 0; i < 4; i++) {
      await runToGate(baton, `slow ${i}`);
      await settle();
      mock.timers.tick(30_000);
    }
    assert.equal(fakeWindow.shown.length, 4, 'one each');
    // Four more at once, one slow one still in the last minute: two notified, two held...
    for (let i = 0; i < 4; i++) await runToGate(baton, `fast ${i}`);
    await settle();
    const held = fakeWindow.shown.length;
    assert.equal(held, 6);
    // ...and every gate decided before the count would go out.
    const waiting = (await s.runs.unfinished()).filter((e) => e.status === 'awaiting_approval').map((e) => e.execution_id);
    for (const id of waiting) await baton.decide({ execution_id: id, decision: 'approve', by: 'test' });
    runs.refresh();
    mock.timers.tick(60_000);
    await settle();
    assert.equal(fakeWindow.shown.length, held, 'nothing left to count');
    assert.ok(fakeWindow.shown.every((m) => !/more step/.test(m.message)));
    sub.dispose();
    runs.dispose();
  });
});
