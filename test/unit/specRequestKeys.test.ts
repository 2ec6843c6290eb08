// Rule: a spec workflow's start (start_workflow) with a request key creates at most one workflow, however often it is
// sent: the key is recorded with the execution it creates; the same key again, even after a crash between that and
// the rest of the start (Phase 0 claimed, metadata kept) and a reopened database, creates nothing, finishes what the
// start left undone and answers with that workflow (session_id, current phase) marked already_started. A key is one
// start whichever tool sent it: a spec workflow workflow_next_step started is answered; any other run is refused.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import type { Store } from '../../src/core/ports.js';
import type { SpecStartInput } from '../../src/core/specTypes.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { makeBaton, makeWorkspace } from '../helpers/coreHarness.js';

const SOURCE = 'specs/auth/tasks.md';
const START: SpecStartInput = { source: SOURCE, template_name: 'spec_execution_v1', claim: true, metadata: { ticket: 'AUTH-1' } };

/** A workspace holding one tasks.md at SOURCE. */
function specWorkspace(): string {
  const ws = makeWorkspace();
  mkdirSync(join(ws, 'specs', 'auth'), { recursive: true });
  writeFileSync(join(ws, SOURCE), readFileSync(join(__dirname, '..', 'fixtures', 'specs', 'auth-service.tasks.md'), 'utf8'));
  return ws;
}

/** Runs `fn` with a Baton on a fresh spec workspace, which is removed after. */
async function onSpecWorkspace(fn: (t: Awaited<ReturnType<typeof makeBaton>> & { workspace: string }) => Promise<void>): Promise<void> {
  const workspace = specWorkspace();
  try {
    await fn({ ...(await makeBaton({ workspacePath: workspace })), workspace });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

const runs = (store: Store) => store.get<{ n: number }>('SELECT COUNT(*) AS n FROM executions')!.n;
const keys = (store: Store) =>
  Object.fromEntries(store.all<{ request_key: string; execution_id: string }>('SELECT request_key, execution_id FROM request_keys').map((r) => [r.request_key, r.execution_id]));
const stepStatus = (store: Store, id: string, step: string) =>
  store.get<{ status: string }>('SELECT status FROM steps WHERE execution_id = ? AND step_name = ?', [id, step])?.status;
const startMetadata = (store: Store, id: string) =>
  (JSON.parse(store.get<{ metadata: string }>('SELECT metadata FROM executions WHERE execution_id = ?', [id])!.metadata) as { start_metadata?: unknown }).start_metadata;

async function rejects(p: Promise<unknown>, reason: string): Promise<BatonError> {
  try {
    await p;
  } catch (ex) {
    assert.ok(BatonError.is(ex), String(ex));
    assert.equal(ex.reason, reason, ex.message);
    return ex;
  }
  assert.fail(`expected ${reason}`);
}

describe('start_workflow with a request key', () => {
  it('the same key twice: one workflow, answered again with its session and current phase, the source not read again', () => onSpecWorkspace(async ({ baton, store, workspace }) => {
    const first = await baton.specs.start(START, { request_key: 'k-spec' });
    assert.equal(first.already_started, undefined);
    assert.equal(stepStatus(store, first.session_id, 'phase-0'), 'running', 'Phase 0 is the caller\'s');
    // Gone since: a start sent again answers from its key, and neither reads nor parses the source.
    rmSync(join(workspace, SOURCE));
    const again = await baton.specs.start(START, { request_key: 'k-spec' });
    assert.equal(runs(store), 1, 'the key was sent twice; one workflow');
    assert.equal(again.session_id, first.session_id);
    assert.equal(again.already_started, true);
    assert.equal(again.status, 'running');
    assert.equal(again.current_phase, 0);
    assert.deepEqual(again.phase_content, first.phase_content);
    assert.match(again.human_message, /^This start's request key \(.+\) had already started this workflow, so no second one was started; here it is as it stands\. Work on Phase 0 only/);
    assert.deepEqual(keys(store), { 'k-spec': first.session_id });
    assert.deepEqual(startMetadata(store, first.session_id), { ticket: 'AUTH-1' });
  }));

  it('a crash after the workflow was created: the same key, on the database reopened, finishes that start and creates none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-spec-keys-'));
    const workspace = specWorkspace();
    const path = join(dir, 'baton.db');
    try {
      const s1 = await openStore({ path });
      const one = await makeBaton({ store: s1, workspacePath: workspace });
      // The process dies once the creating transaction is durable, before the claim of Phase 0 and the metadata.
      const broker = (one.baton.specs as unknown as { deps: { broker: { nextStep: () => Promise<never> } } }).deps.broker;
      broker.nextStep = () => Promise.reject(new Error('killed'));
      await assert.rejects(one.baton.specs.start(START, { request_key: 'k-crash' }), /killed/);
      const [created] = Object.values(keys(s1));
      assert.ok(created, 'the key was recorded with the execution');
      assert.equal(stepStatus(s1, created, 'phase-0'), 'ready', 'Phase 0 not claimed');
      assert.equal(startMetadata(s1, created), undefined, 'the metadata not kept');
      await one.baton.close();
      await s1.close();

      const s2 = await openStore({ path });
      const two = await makeBaton({ store: s2, workspacePath: workspace });
      try {
        const again = await two.baton.specs.start(START, { request_key: 'k-crash' });
        assert.equal(runs(s2), 1, 'no second workflow');
        assert.equal(again.session_id, created);
        assert.equal(again.already_started, true);
        assert.equal(again.current_phase, 0);
        assert.equal(stepStatus(s2, created, 'phase-0'), 'running', 'Phase 0 claimed now');
        assert.deepEqual(startMetadata(s2, created), { ticket: 'AUTH-1' }, 'the metadata kept now');
        // And once more: all done already, nothing else changes.
        const third = await two.baton.specs.start(START, { request_key: 'k-crash' });
        assert.deepEqual({ ...third, human_message: '' }, { ...again, human_message: '' });
        assert.equal(runs(s2), 1);
      } finally {
        await two.baton.close();
        await s2.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('the same key twice at once: one workflow, both answered with it', () => onSpecWorkspace(async ({ baton, store }) => {
    const [a, b] = await Promise.all([baton.specs.start(START, { request_key: 'k-twice' }), baton.specs.start(START, { request_key: 'k-twice' })]);
    assert.equal(runs(store), 1);
    assert.equal(a.session_id, b.session_id);
    // Which of the two runs first is the scheduler's call: one started it, the other is answered with it.
    assert.deepEqual([a, b].map((r) => r.already_started ?? false).sort(), [false, true]);
    assert.deepEqual([a.current_phase, b.current_phase], [0, 0]);
    assert.equal(stepStatus(store, a.session_id, 'phase-0'), 'running');
  }));

  it('a key workflow_next_step started a spec workflow with: start_workflow answers with it in its own shape', () => onSpecWorkspace(async ({ baton, store }) => {
    const started = await baton.nextStep({ template_name: 'spec_execution_v1', source: SOURCE }, { request_key: 'k-both' });
    assert.equal(started.next_step_contract?.step_name, 'phase-0');
    const again = await baton.specs.start(START, { request_key: 'k-both' });
    assert.equal(runs(store), 1);
    assert.equal(again.session_id, started.execution_id);
    assert.equal(again.already_started, true);
    assert.equal(again.current_phase, 0);
    // Phase 0 stays with the token workflow_next_step handed out: it still moves the workflow on.
    const refreshed = await baton.nextStep({ request: 'refresh_token', step_token: started.new_step_token });
    assert.equal(refreshed.status, 'ok', JSON.stringify(refreshed.error));
    assert.equal(refreshed.next_step_contract?.step_name, 'phase-0');
  }));

  it('a key start_workflow used, sent with workflow_next_step: that workflow again, no second one', () => onSpecWorkspace(async ({ baton, store }) => {
    const first = await baton.specs.start(START, { request_key: 'k-spec-first' });
    const again = await baton.nextStep({ template_name: 'spec_execution_v1', source: SOURCE }, { request_key: 'k-spec-first' });
    assert.equal(runs(store), 1);
    assert.equal(again.execution_id, first.session_id);
    assert.equal(again.new_step_token, undefined, 'Phase 0 is held by the start_workflow caller; nothing is handed out again');
    assert.equal(again.status, 'no_op');
    assert.match(again.human_message!, new RegExp(`no second run was started.*current-step://${first.session_id}`));
  }));

  it('a key that started another kind of run is refused, naming it; nothing is started', () => onSpecWorkspace(async ({ baton, store }) => {
    const bug = await baton.nextStep({ template_name: 'bug-fix', task_description: 'not a spec' }, { request_key: 'k-bug' });
    const lc = await baton.lifecycle.startExecution({ workflowName: 'bug-fix' }, 'k-lc');
    const refused = await rejects(baton.specs.start(START, { request_key: 'k-bug' }), 'invalid_input');
    assert.match(refused.message, new RegExp(`^The request key "k-bug" was used by an earlier start, of execution ${bug.execution_id} \\(bug-fix\\), which is not a spec workflow: a key names one start\\. Start the spec workflow with a new key`));
    assert.equal(refused.details.execution_id, bug.execution_id);
    await rejects(baton.specs.start(START, { request_key: 'k-lc' }), 'invalid_input');
    assert.equal(runs(store), 2, 'no spec workflow was started');
    assert.deepEqual(keys(store), { 'k-bug': bug.execution_id, 'k-lc': lc.id });
  }));

  it('the same key again answers with the spec\'s warnings too, as the first answer had them (a proxy resends a lost one)', () =>
    onSpecWorkspace(async ({ baton, workspace }) => {
      // spec-kit's template as one version shipped it: task ids T005–T023 on two lines each.
      writeFileSync(join(workspace, SOURCE), readFileSync(join(__dirname, '..', 'fixtures', 'specs', 'others', 'speckit-template-duplicated.tasks.md'), 'utf8'));
      const first = await baton.specs.start(START, { request_key: 'k-warn' });
      assert.equal(first.warnings?.length, 19);
      const again = await baton.specs.start(START, { request_key: 'k-warn' });
      assert.equal(again.already_started, true);
      assert.deepEqual(again.warnings, first.warnings);
    }));

  it('without a key, or with another key: a workflow each', () => onSpecWorkspace(async ({ baton, store }) => {
    const a = await baton.specs.start(START, { request_key: 'k-a' });
    const b = await baton.specs.start(START, { request_key: 'k-b' });
    const none = await baton.specs.start(START);
    const none2 = await baton.specs.start(START);
    assert.equal(new Set([a.session_id, b.session_id, none.session_id, none2.session_id]).size, 4);
    assert.deepEqual(keys(store), { 'k-a': a.session_id, 'k-b': b.session_id });
  }));
});
