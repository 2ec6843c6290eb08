// Rule: the call log keeps what a successful call says, both ways (status, ids, names, the first words of each text,
// the size of each list), but not a copy of Baton's own output or of what the agent stored, which the database holds
// anyway (of a workflow_next_step answer, the step's contract, context and scoring only by what names them); both
// sides of a failed call stay as they were, redacted. Sizes are the whole JSON's, in UTF-8 bytes. Entries
// are outlined after the call's turn, and written as a background write: no disk sync of their own, on disk with the
// next call's write or when the store closes.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { knownJsonSize } from '../../src/core/jsonSize.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { journalProbe, withTempDir } from '../fixtures/store/helpers.js';
import { makeBaton, okStep, output } from '../helpers/coreHarness.js';

type Row = { request_full: string; response_full: string; request_size_bytes: number; response_size_bytes: number; success: number };

describe('call log', () => {
  it('outlines an entry after the turn of its call and writes it without a disk sync of its own', async () => {
    await withTempDir(async (t) => {
      const probe = journalProbe();
      const store = await openStore({ path: t.db, openJournalFile: probe.open, idleCheckpointMs: 60_000, checkpointRecords: 1_000_000 });
      const { baton } = await makeBaton({ store });
      const request = { template_name: 'bug-fix', note: 'kept as given' };
      baton.logCall({ call_type: 'tool', name: 'workflow_next_step', request, response: { status: 'ok' }, duration_ms: 1, success: true });
      request.note = 'changed in the same turn';
      await new Promise((r) => setImmediate(r));
      request.note = 'changed after the turn';
      probe.reset();
      await baton.flushCalls();
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(JSON.parse(String(baton.recentCalls(1)[0]!.request_full)).note, 'changed in the same turn');
      assert.deepEqual({ appends: probe.appends, syncs: probe.syncs }, { appends: 0, syncs: 0 }, 'the log write waits for a write to ride with');
      await baton.close();
      await store.close();
      const reopened = await openStore({ path: join(t.dir, 'baton.db') });
      assert.equal(reopened.get<{ n: number }>('SELECT COUNT(*) AS n FROM call_log')?.n, 1, 'closing the store wrote it');
      await reopened.close();
    });
  });

  it("keeps the outline of a successful call's request and response, with their full sizes", async () => {
    const { baton } = await makeBaton();
    const { token } = okStep(await baton.nextStep({ template_name: 'bug-fix', task_description: 'the login page returns 500' }));
    const request = { step_token: token, model_output_so_far: output('found it', 'Root cause', { summary: `long summary ${'words '.repeat(100)}` }) };
    const message = `# Workflow Step: implement-fix\n\n${'Change the code so that the session cookie survives. '.repeat(20)}`;
    const response = {
      status: 'ok', execution_id: 'exec-1', task_id: 'task-1', new_step_token: token, progress: 0.25, human_message: message,
      next_step_contract: { step_name: 'implement-fix', allowed_actions: ['a', 'b', 'c'], human_gate_required: false },
      context: { persona_uri: 'persona://implementer', guardrails: ['x', 'y'], selection: { scores: { a: 1 } } },
    };
    baton.logCall({ call_type: 'tool', name: 'workflow_status', request, response, duration_ms: 2, success: true });
    await baton.flushCalls();
    const row = baton.recentCalls(1)[0] as Row;

    assert.equal(row.response_size_bytes, JSON.stringify(response).length);
    assert.equal(row.request_size_bytes, JSON.stringify(request).length);
    assert.deepEqual(JSON.parse(row.response_full), {
      status: 'ok', execution_id: 'exec-1', task_id: 'task-1', new_step_token: '[REDACTED]', progress: 0.25,
      human_message: `${message.slice(0, 200).replace(/[A-Za-z0-9_\-+/=.]{1,256}$/, '')}... (${message.length} chars)`,
      next_step_contract: { step_name: 'implement-fix', allowed_actions: '[3 items]', human_gate_required: false },
      context: { persona_uri: 'persona://implementer', guardrails: '[2 items]', selection: '{1 fields}' },
    });

    // The request's outline: the summary's head, the lists' sizes (the step's output and artifacts hold the rest).
    const summary = request.model_output_so_far.summary;
    assert.deepEqual(JSON.parse(row.request_full), {
      step_token: '[REDACTED]',
      model_output_so_far: {
        summary: `${summary.slice(0, 200).replace(/[A-Za-z0-9_\-+/=.]{1,256}$/, '')}... (${summary.length} chars)`,
        artifacts: '[1 items]', references: '[1 items]', confidence: 0.8,
      },
    });
  });

  it('takes the size of a step result with artifacts inline from the fitting that built it: the same bytes as its JSON', async () => {
    const { baton } = await makeBaton();
    const first = await baton.nextStep({ template_name: 'bug-fix' });
    const res = await baton.nextStep({ step_token: okStep(first).token, model_output_so_far: output('root cause', 'Root cause', { artifacts: [{ type: 'markdown', title: 'Root cause "é"', content: 'The cookie parser throws on expiry 🙂.\n'.repeat(200) }] }) });
    assert.ok(res.context!.dependency_artifacts.length > 0 && knownJsonSize(res) !== undefined, 'the fitting recorded its size');
    baton.logCall({ call_type: 'tool', name: 'workflow_next_step', request: { step_token: 'x' }, response: res, duration_ms: 1, success: true });
    await baton.flushCalls();
    assert.equal((baton.recentCalls(1)[0] as Row).response_size_bytes, Buffer.byteLength(JSON.stringify(res)));
  });

  it("keeps of a workflow_next_step answer what names its step, not the contract, context and scoring Baton built", async () => {
    const { baton } = await makeBaton();
    const res = await baton.nextStep({ template_name: 'bug-fix', task_description: 'the login page returns 500' });
    const { token } = okStep(res);
    const request = { template_name: 'bug-fix', task_description: 'the login page returns 500' };
    baton.logCall({ call_type: 'tool', name: 'workflow_next_step', request, response: res, duration_ms: 1, success: true });
    await baton.flushCalls();
    const row = baton.recentCalls(1)[0] as Row;

    assert.equal(row.response_size_bytes, Buffer.byteLength(JSON.stringify(res)), "the size is the whole answer's");
    const kept = JSON.parse(row.response_full) as Record<string, unknown>;
    assert.deepEqual(
      { status: kept.status, execution_id: kept.execution_id, task_id: kept.task_id, progress: kept.progress, token_expires_at: kept.token_expires_at },
      { status: 'ok', execution_id: res.execution_id, task_id: res.task_id, progress: res.progress, token_expires_at: res.token_expires_at },
    );
    assert.equal(kept.new_step_token, '[REDACTED]');
    assert.ok(!row.response_full.includes(token), 'no token in the row');
    assert.deepEqual(kept.next_step_contract, { step_name: res.next_step_contract!.step_name, human_gate_required: res.next_step_contract!.human_gate_required });
    assert.deepEqual(kept.context, { workflow: 'bug-fix', agent_name: res.context!.agent_name, dependency_artifacts: '[0 items]' });
    assert.deepEqual(kept.selection, { reason: res.selection!.reason });
    assert.ok(row.response_full.length < 1024, `a short row (${row.response_full.length} characters)`);

    // Any other shape of answer is outlined as it is.
    const odd = [{ type: 'text', text: 'not a step result' }];
    baton.logCall({ call_type: 'tool', name: 'workflow_next_step', request: {}, response: odd, duration_ms: 1, success: true });
    await baton.flushCalls();
    assert.deepEqual(JSON.parse((baton.recentCalls(1)[0] as Row).response_full), odd);
  });

  it('redacts the outline: secret-named keys whatever they hold, and secrets inside texts', async () => {
    const { baton } = await makeBaton();
    const request = {
      api_key: 'k-123', credentials: { user: 'u', password: 'p' }, note: 'deploy with AWS key AKIAIOSFODNN7EXAMPLE today',
      uri: 'https://bob:hunter2@example.test/x', plain_uri: 'persona://implementer', list: ['ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    };
    baton.logCall({ call_type: 'tool', name: 'memory_write', request, response: { ok: true }, duration_ms: 1, success: true });
    await baton.flushCalls();
    const row = baton.recentCalls(1)[0] as Row;
    assert.deepEqual(JSON.parse(row.request_full), {
      api_key: '[REDACTED]', credentials: { user: 'u', password: '[REDACTED]' }, note: 'deploy with AWS key [REDACTED:aws_access_key_id] today',
      uri: 'https://bob:[REDACTED]@example.test/x', plain_uri: 'persona://implementer', list: ['[REDACTED:github_token]'],
    });
    // Deeper than the outline keeps, a secret-named key's object is replaced too.
    baton.logCall({ call_type: 'tool', name: 't', request: { a: { credentials: { user: 'u' } } }, response: null, duration_ms: 1, success: true });
    await baton.flushCalls();
    assert.deepEqual(JSON.parse((baton.recentCalls(1)[0] as Row).request_full), { a: { credentials: '[REDACTED]' } });
  });

  it('keeps a client\'s own "__proto__" key as a key, redacted like any other (assignment set the copy\'s prototype)', async () => {
    const { baton } = await makeBaton();
    const request = JSON.parse('{"__proto__": {"password": "p", "note": "n"}, "step": "s"}') as Record<string, unknown>;
    baton.logCall({ call_type: 'tool', name: 't', request, response: { ok: true }, duration_ms: 1, success: true });
    baton.logCall({ call_type: 'tool', name: 't', request, response: null, duration_ms: 1, success: false, error_message: 'refused' });
    await baton.flushCalls();
    const [failed, ok] = baton.recentCalls(2) as Row[];
    for (const row of [ok!, failed!]) {
      assert.equal(row.request_full, '{"__proto__":{"password":"[REDACTED]","note":"n"},"step":"s"}');
    }
  });

  it('counts sizes in UTF-8 bytes, as the columns say', async () => {
    const { baton } = await makeBaton();
    const request = { text: 'Grüße, ✓ and 🎉' };
    const response = { status: 'ok', message: `naïve ${'é'.repeat(300)}` };
    baton.logCall({ call_type: 'tool', name: 't', request, response, duration_ms: 1, success: true });
    baton.logCall({ call_type: 'tool', name: 't', request, response, duration_ms: 1, success: false, error_message: 'no' });
    await baton.flushCalls();
    for (const row of baton.recentCalls(2) as Row[]) {
      assert.equal(row.request_size_bytes, Buffer.byteLength(JSON.stringify(request)));
      assert.equal(row.response_size_bytes, Buffer.byteLength(JSON.stringify(response)));
    }
  });

  it("keeps a failed call's request whole", async () => {
    const { baton } = await makeBaton();
    const request = { template_name: 'bug-fix', task_description: `fix it ${'please '.repeat(60)}`, step_token: 'eyJhbGciOiJIUzI1NiJ9.x' };
    baton.logCall({ call_type: 'tool', name: 'workflow_next_step', request, response: { status: 'error' }, duration_ms: 1, success: false });
    await baton.flushCalls();
    assert.deepEqual(JSON.parse((baton.recentCalls(1)[0] as Row).request_full), { ...request, step_token: '[REDACTED]' });
  });

  it('writes a few entries after a quarter second, and a batch of 16 on the next turn', async () => {
    const { baton } = await makeBaton();
    const log = (i: number) => baton.logCall({ call_type: 'tool', name: `t${i}`, request: {}, response: { status: 'ok' }, duration_ms: 1, success: true });
    const logged = () => baton.recentCalls(100).length;
    // The next turns, in the order the log takes them: its outline (an immediate queued by logCall), the write it
    // schedules (a timer of 0), and that write's own turn. Not a timer of some ms: on a loaded machine such a timer can
    // come due in the same timers phase as the one before, before the outline ran.
    const turn = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setTimeout(resolve, 0));
      await new Promise((resolve) => setImmediate(resolve));
    };
    for (let i = 0; i < 3; i++) log(i);
    await turn();
    assert.equal(logged(), 0, 'three entries wait for the timer');
    for (let i = 3; i < 16; i++) log(i);
    await turn();
    assert.equal(logged(), 16, 'a full batch is written at once, with the ones that waited');
    log(16);
    await turn();
    assert.equal(logged(), 16, 'the next one waits for the timer again');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(logged(), 17);
  });

  it("keeps a failed call's response whole", async () => {
    const { baton } = await makeBaton();
    const res = await baton.nextStep({ template_name: 'no-such-workflow' });
    assert.equal(res.status, 'error');
    const response = { ...res, detail: `why: ${'because '.repeat(60)}` };
    baton.logCall({ call_type: 'tool', name: 'workflow_next_step', request: { template_name: 'no-such-workflow' }, response, duration_ms: 1, success: false });
    await baton.flushCalls();
    const row = baton.recentCalls(1)[0] as Row;
    assert.deepEqual(JSON.parse(row.response_full), JSON.parse(JSON.stringify(response)));
  });
});
