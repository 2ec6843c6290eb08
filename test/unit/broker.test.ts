// Rule: the broker moves a workflow only through valid, single-use tokens, in the spec's dependency and
// scoring order, stops at human gates until a person decides, and closes with final artifacts and a synthesis. What a
// gated step submitted is readable at the gate; a cancelled execution is marked as such; listings carry the task.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_RATE_LIMITS } from '../../src/core/broker/rateLimiter.js';
import { resultText } from '../../src/core/broker/stepText.js';
import { executionFacts, submittedOutput } from '../../src/core/broker/submittedOutput.js';
import { makeBaton, makeWorkspace, okStep, output, runToGate, SPEC_EXAMPLE_YAML, tamperedToken } from '../helpers/coreHarness.js';

describe('broker: the bug-fix workflow end to end', () => {
  it('runs every step with artifacts, stops at the gate, and closes with final artifacts and a synthesis', async () => {
    const { baton } = await makeBaton();
    const events: string[] = [];
    baton.onEvent((e) => events.push(e.type));
    const first = await baton.nextStep({ template_name: 'bug-fix', task_description: 'Login fails with 500' });
    let { step, token } = okStep(first);
    assert.equal(step, 'analyze-root-cause');
    assert.match(resultText(first), /^# Step "analyze-root-cause" of bug-fix, for the debugger agent\n/);
    assert.equal(first.context?.task_description, 'Login fails with 500');
    assert.match(first.context!.step_description, /^Find out why the reported failure happens/);
    assert.ok(first.context?.persona_summary.length);
    assert.equal(first.next_step_contract?.forbidden_actions.length, 5);
    const executionId = first.execution_id!;
    const order = [step];
    let r = first;
    for (;;) {
      r = await baton.nextStep({ step_token: token, model_output_so_far: output(`did ${step}`) });
      if (r.status !== 'ok') break;
      ({ step, token } = okStep(r));
      order.push(step);
      // Every later step sees its dependencies' artifacts inline.
      assert.ok(r.context!.dependency_artifacts.length >= 1, `${step} has dependency artifacts inline`);
    }
    assert.deepEqual(order, ['analyze-root-cause', 'implement-fix', 'write-tests', 'review-code']);
    assert.equal(r.status, 'awaiting_approval');
    assert.equal(baton.currentStep(executionId).status, 'awaiting_approval');
    assert.equal(baton.workflowStatus(executionId).cancelled, false);
    assert.equal(baton.workflowStatus(executionId).task_description, 'Login fails with 500');
    assert.equal(baton.listExecutions().find((e) => e.execution_id === executionId)?.task_description, 'Login fails with 500');
    const gate = baton.currentStep(executionId).active_steps.find((a) => a.step_name === 'review-code')!;
    assert.equal(gate.submitted?.summary, 'did review-code', 'what the agent submitted is readable at the gate');
    assert.deepEqual(gate.submitted?.artifacts, [{ type: 'markdown', title: 'did review-code artifact' }], 'artifact titles, not contents');
    assert.equal(gate.submitted?.confidence, 0.8);
    await baton.decide({ execution_id: executionId, decision: 'approve', by: 'test' });
    const closed = await baton.nextStep({ step_token: r.new_step_token! });
    assert.equal(closed.status, 'task_closed');
    assert.ok(closed.synthesis?.outcome_summary?.includes('# Workflow Synthesis: bug-fix'));
    const finals = baton.artifacts({ type: 'execution', execution_id: executionId, is_final: true, limit: 100 });
    assert.equal(finals.total, 5, 'four step artifacts plus the synthesis');
    assert.ok(finals.artifacts.every((a) => a.is_final));
    assert.equal(finals.artifacts.at(-1)!.title, 'Workflow Synthesis');
    assert.equal(baton.workflowStatus(executionId).status, 'completed');
    assert.equal(baton.workflowStatus(executionId).progress, 100);
    assert.ok(events.includes('artifact') && events.includes('step') && events.includes('execution'));
    const timeline = baton.events(executionId).map((e) => e.event_type);
    assert.deepEqual(timeline.slice(0, 2), ['workflow_started', 'step_started']);
    assert.ok(timeline.includes('gate_approved') && timeline.at(-1) === 'workflow_completed');
  });

  it("keeps each artifact's content once, in the artifacts table: a step's output names its artifacts by id and size", async () => {
    const { baton, store } = await makeBaton();
    const notes = `# Notes\n\n${'é'.repeat(3000)}`;
    const first = await baton.nextStep({ template_name: 'bug-fix', task_description: 'Login fails with 500' });
    const executionId = first.execution_id!;
    const sent = output('found it', 'root cause', { artifacts: [{ type: 'markdown', title: 'root cause', content: notes, description: 'why', metadata: { lines: 3 } }] });
    const second = await baton.nextStep({ step_token: okStep(first).token, model_output_so_far: sent });
    const row = store.get<{ output: string }>('SELECT output FROM steps WHERE execution_id = ? AND step_name = ?', [executionId, 'analyze-root-cause'])!;
    const stored = JSON.parse(row.output) as { summary: string; artifacts: Array<Record<string, unknown>> };
    const [artifact] = baton.artifacts({ type: 'execution', execution_id: executionId, limit: 10 }).artifacts;
    assert.equal(stored.summary, 'found it');
    assert.deepEqual(stored.artifacts, [
      { artifact_id: artifact!.artifact_id, type: 'markdown', title: 'root cause', description: 'why', metadata: { lines: 3 }, content_size_bytes: Buffer.byteLength(notes) },
    ]);
    assert.ok(row.output.length < 400, `the row holds no content (${row.output.length} characters)`);
    assert.equal(artifact!.content, notes, 'the artifact keeps the content whole');
    assert.equal(second.context!.dependency_artifacts[0]!.artifact_id, artifact!.artifact_id, 'the next step still gets it inline');
    const details = baton.lifecycle.details({ executionId });
    const shown = details.steps!.find((st) => st.stepName === 'analyze-root-cause')!.output as typeof stored;
    assert.equal(shown.artifacts[0]!.artifact_id, artifact!.artifact_id, "get_execution_details names the artifact; its artifacts list has the content");
  });

  it("keeps a content SQLite would not give back as it is (a lone surrogate) in the step's output too, whole", async () => {
    for (const content of ['lone \ud800 half', 'half \udc00 alone']) {
      const { baton, store } = await makeBaton();
      const first = await baton.nextStep({ template_name: 'bug-fix' });
      await baton.nextStep({ step_token: okStep(first).token, model_output_so_far: output('found it', 'odd', { artifacts: [{ type: 'markdown', title: 'odd', content }] }) });
      const row = store.get<{ output: string }>('SELECT output FROM steps WHERE execution_id = ? AND step_name = ?', [first.execution_id!, 'analyze-root-cause'])!;
      const [ref] = (JSON.parse(row.output) as { artifacts: Array<Record<string, unknown>> }).artifacts;
      assert.equal(ref!.content, content, JSON.stringify(content));
      assert.equal(ref!.content_size_bytes, Buffer.byteLength(content));
      const shown = baton.lifecycle.details({ executionId: first.execution_id! }).steps!.find((st) => st.stepName === 'analyze-root-cause')!;
      assert.equal((shown.output as { artifacts: Array<{ content?: string }> }).artifacts[0]!.content, content);
    }
  });

  it('shows a content with a NUL whole wherever a head of it is read (SQLite\'s substr stops at a NUL; a column read does not)', async () => {
    for (const content of ['before\0after', `${'x'.repeat(5000)}\0${'y'.repeat(100)}`, `\0${'z'.repeat(6000)}`]) {
      const label = `${content.length} characters, a NUL at ${content.indexOf('\0')}`;
      const { baton } = await makeBaton();
      const first = await baton.nextStep({ template_name: 'bug-fix' });
      const executionId = first.execution_id!;
      const second = await baton.nextStep({ step_token: okStep(first).token, model_output_so_far: output('found it', 'odd', { artifacts: [{ type: 'markdown', title: 'odd', content }] }) });
      // The next step's inline copy: the whole content when it fits the budget, else as long a head as fits, NUL or not.
      const inline = second.context!.dependency_artifacts[0]!;
      assert.equal(inline.content, content.slice(0, inline.content.length), `${label}: the head is the content's own`);
      assert.ok(inline.content.length >= Math.min(content.length, 500), `${label}: the head is as long as the budget lets it be, NUL or not (${inline.content.length} characters)`);
      assert.equal(inline.truncated, inline.content.length < content.length, `${label}: truncated says whether it was cut`);
      // get_execution_details: a content over 4 KB is read by its head (substr) too.
      const [shown] = baton.lifecycle.details({ executionId, includeArtifacts: true }).artifacts!;
      assert.equal(shown!.content, content, `${label}: get_execution_details shows it whole`);
      assert.equal('truncated' in shown!, false, label);
      // SQLite gives it back whole, so the step's output names it without keeping it a second time.
      const step = baton.lifecycle.details({ executionId }).steps!.find((st) => st.stepName === 'analyze-root-cause')!;
      assert.deepEqual((step.output as { artifacts: Array<Record<string, unknown>> }).artifacts.map((a) => [a.artifact_id, 'content' in a]), [[shown!.id, false]], label);
    }
  });

  it('reads a step output stored with its artifacts inline (written by an earlier version) at the gate and in the synthesis', async () => {
    const { baton, store } = await makeBaton();
    const r = await runToGate(baton);
    const executionId = r.execution_id!;
    const inline = JSON.stringify({ ...output('reviewed', 'review notes'), findings: [] });
    await store.transaction(() => store.run('UPDATE steps SET output = ? WHERE execution_id = ? AND step_name = ?', [inline, executionId, 'review-code']));
    const gate = baton.currentStep(executionId).active_steps.find((a) => a.step_name === 'review-code')!;
    assert.deepEqual(gate.submitted?.artifacts, [{ type: 'markdown', title: 'review notes' }]);
    assert.equal(gate.submitted?.summary, 'reviewed');
    await baton.decide({ execution_id: executionId, decision: 'approve', by: 'test' });
    const closed = await baton.nextStep({ step_token: r.new_step_token! });
    assert.equal(closed.status, 'task_closed');
    assert.match(closed.synthesis!.outcome_summary!, /\n\nreviewed\n/);
  });

  it('loads a workflow file linked into .baton/workflows (a link to a file is that file; a broken link is skipped)', async () => {
    const workspace = makeWorkspace();
    mkdirSync(join(workspace, 'shared'));
    writeFileSync(join(workspace, 'shared', 'linked.yaml'), SPEC_EXAMPLE_YAML.replace(/^name: .*$/m, 'name: linked'));
    symlinkSync(join('..', '..', 'shared', 'linked.yaml'), join(workspace, '.baton', 'workflows', 'linked.yaml'));
    symlinkSync(join(workspace, 'nowhere.yaml'), join(workspace, '.baton', 'workflows', 'broken.yaml'));
    const { baton } = await makeBaton({ workspacePath: workspace });
    assert.equal(okStep(await baton.nextStep({ template_name: 'linked' })).step, 'analyze-root-cause');
  });

  it('answers an unknown template with the available names', async () => {
    const { baton } = await makeBaton();
    const r = await baton.nextStep({ template_name: 'nope' });
    assert.equal(r.status, 'error');
    assert.equal(r.error?.code, 'template_not_found');
    assert.match(r.error!.message, /bug-fix/);
  });

  it('echoes a long template name or task id in its error cut short, with its length', async () => {
    const { baton } = await makeBaton();
    const long = 'x'.repeat(50_000);
    for (const req of [{ template_name: long }, { task_id: long }]) {
      const r = await baton.nextStep(req);
      assert.equal(r.status, 'error');
      assert.ok(r.error!.message.length < 600, `a message of ${r.error!.message.length} characters`);
      assert.match(r.error!.message, /"x{120}\u2026" \(50000 characters\)/);
      assert.ok(resultText(r).length < 1500, `a result text of ${resultText(r).length} characters`);
    }
    assert.match((await baton.nextStep({ template_name: 'nope' })).error!.message, /No workflow template "nope"\./);
  });

  it('starts from the template as the last content sync left it (templates are read once by name, until a sync changes them)', async () => {
    const { baton, workspace } = await makeBaton();
    const firstStep = async (name: string) => okStep(await baton.nextStep({ template_name: name })).step;
    assert.equal(await firstStep('bug-fix'), 'analyze-root-cause');
    assert.equal(await firstStep('bug-fix'), 'analyze-root-cause');
    assert.equal((await baton.nextStep({ template_name: 'late' })).error?.code, 'template_not_found');
    const yaml = (name: string, step: string) =>
      `name: ${name}\ndescription: d\ntype: hybrid\nsteps:\n  - name: ${step}\n    agent: debugger\n    description: t\n`;
    writeFileSync(join(workspace, '.baton', 'workflows', 'bug-fix.yaml'), yaml('bug-fix', 'triage'));
    writeFileSync(join(workspace, '.baton', 'workflows', 'late.yaml'), yaml('late', 'first'));
    await baton.syncContent();
    assert.equal(await firstStep('bug-fix'), 'triage', 'the override the sync brought, not the cached bundled template');
    assert.equal(await firstStep('late'), 'first', 'a name not found before is looked up again');
    rmSync(join(workspace, '.baton', 'workflows', 'bug-fix.yaml'));
    await baton.syncContent();
    assert.equal(await firstStep('bug-fix'), 'analyze-root-cause');
  });

  it('refuses a request that asks for nothing, naming the three ways in', async () => {
    const { baton } = await makeBaton();
    const r = await baton.nextStep({});
    assert.equal(r.error?.code, 'invalid_input');
    assert.match(r.error!.message, /template_name.*step_token.*task_id/s);
  });
});

describe('broker: the spec ready-set example', () => {
  it('comes out as written: analyze, design-refactor (alphabetical), implement-fix, review-code, complete', async () => {
    const { baton } = await makeBaton({ workflows: { 'spec-example': SPEC_EXAMPLE_YAML } });
    let r = await baton.nextStep({ template_name: 'spec-example' });
    const order: string[] = [];
    const ties: string[] = [];
    while (r.status === 'ok') {
      const { step, token } = okStep(r);
      order.push(step);
      ties.push(r.selection!.tie_broken_by);
      if (step === 'design-refactor') assert.deepEqual([...r.selection!.parallel_opportunities].sort(), ['design-refactor', 'implement-fix']);
      r = await baton.nextStep({ step_token: token, model_output_so_far: output(step) });
    }
    assert.deepEqual(order, ['analyze-root-cause', 'design-refactor', 'implement-fix', 'review-code']);
    assert.deepEqual(ties, ['none', 'alphabetical', 'none', 'none']);
    assert.equal(r.status, 'task_closed');
  });

  it('lets an explicit requested_step_name beat the alphabetical choice', async () => {
    const { baton } = await makeBaton({ workflows: { 'spec-example': SPEC_EXAMPLE_YAML } });
    const first = okStep(await baton.nextStep({ template_name: 'spec-example' }));
    const r = await baton.nextStep({ step_token: first.token, model_output_so_far: output('a'), requested_step_name: 'implement-fix' });
    assert.equal(okStep(r).step, 'implement-fix');
    assert.equal(r.selection!.scores['implement-fix'], 999 + 0);
  });
});

describe('broker: tokens', () => {
  it('refuses a replayed token once the answer it got was used, and says how to recover', async () => {
    const { baton } = await makeBaton();
    const { token } = okStep(await baton.nextStep({ template_name: 'bug-fix' }));
    const next = okStep(await baton.nextStep({ step_token: token, model_output_so_far: output('x') }));
    okStep(await baton.nextStep({ step_token: next.token, model_output_so_far: output('y') }));
    const again = await baton.nextStep({ step_token: token, model_output_so_far: output('x') });
    assert.equal(again.error?.code, 'token_replayed');
    assert.match(again.error!.message, /single-use/);
    assert.match(again.error!.recovery, /current-step/);
  });

  it('a call whose answer was lost, made again with its token, gets the same answer (same step, same token); nothing moves twice', async () => {
    const { baton, clock } = await makeBaton();
    const first = await baton.nextStep({ template_name: 'bug-fix' });
    const used = okStep(first).token;
    const lost = await baton.nextStep({ step_token: used, model_output_so_far: output('root cause') });
    const again = await baton.nextStep({ step_token: used, model_output_so_far: output('root cause') });
    assert.equal(okStep(again).step, 'implement-fix');
    assert.equal(okStep(again).token, okStep(lost).token, 'the same token: the same answer');
    assert.equal(again.token_expires_at, lost.token_expires_at);
    assert.match(again.human_message!, /^This step_token was used already, by a call that was recorded; here is that call's answer\. The step keeps the output of the call that used the token first; the output of this call was not taken\. /);
    assert.equal(baton.artifacts({ type: 'execution', execution_id: first.execution_id!, limit: 100 }).total, 1, 'the output sent again was not stored twice');
    assert.equal(baton.events(first.execution_id!).filter((e) => e.event_type === 'step_completed').length, 1);
    // Twice lost: still the same answer; and an expired one comes with a new token that replaces it.
    assert.equal(okStep(await baton.nextStep({ step_token: used })).token, okStep(lost).token);
    clock.advance(11 * 60_000);
    const expired = await baton.nextStep({ step_token: used });
    assert.equal(expired.error?.code, 'token_expired');
    assert.deepEqual(expired.error?.next_call, { request: 'refresh_token', step_token: used });
    // The refresh answers the next step, not this token's own: the message must not promise "the same step" alone.
    assert.match(expired.error!.message, /for a token that was already used, whose answer was lost: that call's answer again/);
    assert.match(expired.error!.recovery, /for a token already used: that call's answer again/);
    const renewed = okStep(await baton.nextStep({ request: 'refresh_token', step_token: used }));
    assert.notEqual(renewed.token, okStep(lost).token);
    assert.equal(okStep(await baton.nextStep({ request: 'refresh_token', step_token: used })).token, renewed.token, 'that answer lost too: the renewed token again');
    assert.equal((await baton.nextStep({ step_token: okStep(lost).token, model_output_so_far: output('late') })).error?.code, 'token_expired');
    const moved = okStep(await baton.nextStep({ step_token: renewed.token, model_output_so_far: output('fixed') }));
    assert.equal(moved.step, 'write-tests');
    assert.equal((await baton.nextStep({ request: 'refresh_token', step_token: used })).error?.code, 'token_replayed', 'its answer was used');
  });

  it('a lost answer at a gate: the submit and the wait after approval are answered again; a closed workflow answers task_closed again', async () => {
    const { baton } = await makeBaton();
    let r = await baton.nextStep({ template_name: 'bug-fix' });
    while (okStep(r).step !== 'review-code') r = await baton.nextStep({ step_token: okStep(r).token, model_output_so_far: output('step') });
    const submitToken = okStep(r).token;
    const waiting = await baton.nextStep({ step_token: submitToken, model_output_so_far: output('reviewed') });
    assert.equal(waiting.status, 'awaiting_approval');
    const again = await baton.nextStep({ step_token: submitToken, model_output_so_far: output('reviewed') });
    assert.equal(again.status, 'awaiting_approval');
    assert.equal(again.new_step_token, waiting.new_step_token);
    await baton.decide({ execution_id: r.execution_id!, decision: 'approve', by: 'test' });
    const closed = await baton.nextStep({ step_token: waiting.new_step_token! });
    assert.equal(closed.status, 'task_closed');
    assert.equal((await baton.nextStep({ step_token: waiting.new_step_token! })).status, 'task_closed', 'the wait token again');
  });

  it('refuses a tampered, a malformed and a foreign-secret token', async () => {
    const { baton } = await makeBaton();
    const { token } = okStep(await baton.nextStep({ template_name: 'bug-fix' }));
    assert.match(token, /^btk1[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/, 'Baton issues its tokens in the compact form');
    const tampered = tamperedToken(token, { step_name: 'review-code' });
    assert.equal((await baton.nextStep({ step_token: tampered, model_output_so_far: output('x') })).error?.code, 'token_forged');
    assert.equal((await baton.nextStep({ step_token: 'not-a-token', model_output_so_far: output('x') })).error?.code, 'token_malformed');
    const other = await makeBaton();
    const foreign = okStep(await other.baton.nextStep({ template_name: 'bug-fix' })).token;
    const fromElsewhere = await baton.nextStep({ step_token: foreign, model_output_so_far: output('x') });
    assert.equal(fromElsewhere.error?.code, 'token_forged');
    assert.match(fromElsewhere.error!.message, /^This step_token is not from this Baton database: its execution \S+ is not here\. It came from another database or server \(check which --db or server this client uses\)/);
    assert.equal(fromElsewhere.execution_id, undefined, 'no execution of this database is named');
    // A tampered token of an execution that is here keeps the usual words.
    assert.match((await baton.nextStep({ step_token: tampered })).error!.message, /signature does not match: it was altered/);
    // The real token still works after all that.
    okStep(await baton.nextStep({ step_token: token, model_output_so_far: output('x') }));
  });

  it('expires tokens, and refresh_token re-issues one for a step that is still running', async () => {
    const { baton, clock } = await makeBaton({ tokenTtlMs: 60_000 });
    const { token } = okStep(await baton.nextStep({ template_name: 'bug-fix' }));
    clock.advance(60_000);
    const expired = await baton.nextStep({ step_token: token, model_output_so_far: output('late') });
    assert.equal(expired.error?.code, 'token_expired');
    assert.match(expired.error!.recovery, /refresh_token/);
    const refreshed = await baton.nextStep({ request: 'refresh_token', step_token: token });
    const fresh = okStep(refreshed);
    assert.equal(fresh.step, 'analyze-root-cause');
    // The old token is superseded: a submission with it is refused; the refresh made again (its answer lost) gets the
    // same answer, while the token it handed out is unused.
    assert.equal((await baton.nextStep({ step_token: token, model_output_so_far: output('late') })).error?.code, 'token_expired');
    const again = okStep(await baton.nextStep({ request: 'refresh_token', step_token: token }));
    assert.equal(again.token, fresh.token);
    okStep(await baton.nextStep({ step_token: fresh.token, model_output_so_far: output('done') }));
    assert.equal((await baton.nextStep({ request: 'refresh_token', step_token: token })).error?.code, 'token_out_of_order', 'not once that token is used');
  });

  it('a wait on a gate made again after a reject gets the same step back with the same token (two waiters, or a lost answer)', async () => {
    const yaml = 'name: gated\ndescription: g\ntype: sequential\nsteps:\n  - name: g\n    agent: implementer\n    description: Do it\n    human_gate: true\n  - name: after\n    agent: reviewer\n    description: Then\n    dependencies: [g]\n';
    const { baton } = await makeBaton({ workflows: { gated: yaml } });
    const first = okStep(await baton.nextStep({ template_name: 'gated' }));
    const waiting = await baton.nextStep({ step_token: first.token, model_output_so_far: output('g') });
    assert.equal(waiting.status, 'awaiting_approval');
    await baton.decide({ execution_id: waiting.execution_id!, decision: 'reject', feedback: 'redo it' });
    const one = okStep(await baton.nextStep({ step_token: waiting.new_step_token! }));
    const two = okStep(await baton.nextStep({ step_token: waiting.new_step_token! }));
    assert.deepEqual([one.step, two.step], ['g', 'g']);
    assert.equal(two.token, one.token, 'the same answer, not token_out_of_order');
    assert.equal((await baton.nextStep({ step_token: one.token, model_output_so_far: output('g again') })).status, 'awaiting_approval');
  });

  it('a step whose token expired unused stallMinutes ago is handed to the next caller; a slow agent back before that keeps it', async () => {
    const { baton, clock, store } = await makeBaton({ tokenTtlMs: 60_000, stallMinutes: 5 });
    const first = await baton.nextStep({ template_name: 'bug-fix' }, { client_name: 'gone-agent' });
    const old = okStep(first).token;
    // While the token is valid the step stays with its agent, and the answer says until when.
    const busy = await baton.nextStep({ task_id: first.execution_id! }, { client_name: 'other' });
    assert.equal(busy.status, 'no_op');
    assert.match(busy.human_message!, /analyze-root-cause \(being worked on by debugger; if its agent neither submits nor refreshes its token by 2026-01-01T00:06:00\.000Z, the step is handed to the next caller\)/);
    // Expired, but not for long: a slow agent is still coming back to it, so it stays held.
    clock.advance(4 * 60_000);
    assert.equal((await baton.nextStep({ task_id: first.execution_id! }, { client_name: 'other' })).status, 'no_op');
    clock.advance(2 * 60_000 + 1);
    const taken = okStep(await baton.nextStep({ task_id: first.execution_id! }, { client_name: 'other' }));
    assert.equal(taken.step, 'analyze-root-cause');
    assert.notEqual(taken.token, old);
    const reclaimed = baton.events(first.execution_id!).filter((e) => e.event_type === 'step_reclaimed');
    assert.equal(reclaimed.length, 1);
    assert.deepEqual(reclaimed[0]!.event_data, { step_name: 'analyze-root-cause', from: 'gone-agent', claimed_by: 'other', reason: 'token_expired' });
    assert.equal(store.get<{ claimed_by: string }>("SELECT claimed_by FROM steps WHERE execution_id = ? AND step_name = 'analyze-root-cause'", [first.execution_id!])?.claimed_by, 'other');
    // The first agent comes back: neither a refresh nor a submit with its token takes the step back.
    assert.equal((await baton.nextStep({ request: 'refresh_token', step_token: old })).status, 'error');
    assert.equal((await baton.nextStep({ step_token: old, model_output_so_far: output('late') })).status, 'error');
    assert.equal(okStep(await baton.nextStep({ step_token: taken.token, model_output_so_far: output('done') })).step, 'implement-fix');
  });

  it('refuses a token presented for another execution', async () => {
    const { baton } = await makeBaton();
    const a = await baton.nextStep({ template_name: 'bug-fix' });
    const b = await baton.nextStep({ template_name: 'bug-fix' });
    const r = await baton.nextStep({ step_token: a.new_step_token!, task_id: b.execution_id!, model_output_so_far: output('x') });
    assert.equal(r.error?.code, 'token_wrong_execution');
    assert.match(r.error!.message, new RegExp(a.execution_id!));
  });

  it('refuses a token for a finished step (out of order) after the workflow moved on', async () => {
    const { baton } = await makeBaton({ workflows: { 'spec-example': SPEC_EXAMPLE_YAML } });
    const first = okStep(await baton.nextStep({ template_name: 'spec-example' }));
    const second = okStep(await baton.nextStep({ step_token: first.token, model_output_so_far: output('a') }));
    // Re-deliver the running step: the earlier token for it is superseded.
    const again = okStep(await baton.nextStep({ step_token: second.token }));
    const stale = await baton.nextStep({ step_token: second.token, model_output_so_far: output('b') });
    assert.equal(stale.error?.code, 'token_out_of_order');
    okStep(await baton.nextStep({ step_token: again.token, model_output_so_far: output('b') }));
  });
});

describe('broker: parallel claims', () => {
  it('hands parallel ready steps to different agents, never one step twice', async () => {
    const { baton } = await makeBaton({ workflows: { 'spec-example': SPEC_EXAMPLE_YAML } });
    const first = await baton.nextStep({ template_name: 'spec-example' });
    const exec = first.execution_id!;
    const a = okStep(await baton.nextStep({ step_token: first.new_step_token!, model_output_so_far: output('root') }, { agent_name: 'agent-a' }));
    const claims = await Promise.all([
      baton.nextStep({ task_id: exec }, { agent_name: 'agent-b' }),
      baton.nextStep({ task_id: exec }, { agent_name: 'agent-c' }),
    ]);
    const b = okStep(claims[0]!);
    assert.equal(claims[1]!.status, 'no_op', 'only two steps are ready and both are now taken');
    assert.notEqual(a.step, b.step);
    assert.deepEqual([a.step, b.step].sort(), ['design-refactor', 'implement-fix']);
    // Finishing one while the other still runs: nothing ready yet.
    const wait = await baton.nextStep({ step_token: a.token, model_output_so_far: output('a') });
    assert.equal(wait.status, 'no_op');
    assert.match(wait.human_message!, new RegExp(b.step));
    const last = okStep(await baton.nextStep({ step_token: b.token, model_output_so_far: output('b') }));
    assert.equal(last.step, 'review-code');
  });
});

describe('broker: human gates', () => {
  async function toGate() {
    const h = await makeBaton();
    const r = await runToGate(h.baton);
    assert.equal(r.status, 'awaiting_approval');
    return { ...h, waitToken: r.new_step_token!, exec: r.execution_id! };
  }

  it('keeps a gated step waiting until a person decides; polling does not consume the token', async () => {
    const { baton, waitToken } = await toGate();
    const poll = await baton.nextStep({ step_token: waitToken });
    assert.equal(poll.status, 'awaiting_approval');
    assert.equal(poll.new_step_token, waitToken);
    const resubmit = await baton.nextStep({ step_token: waitToken, model_output_so_far: output('again') });
    assert.equal(resubmit.error?.code, 'invalid_state');
  });

  it('sends a rejected step back to the agent with the feedback, then closes after approval', async () => {
    const { baton, waitToken, exec } = await toGate();
    const noFeedback = await baton.decide({ execution_id: exec, decision: 'reject', feedback: '  ' }).catch((e: Error) => e);
    assert.match(String(noFeedback), /feedback/);
    const rejected = await baton.decide({ execution_id: exec, decision: 'reject', feedback: 'Add a test for the null session case.' });
    assert.equal(rejected.step_status, 'running');
    const redo = await baton.nextStep({ step_token: waitToken });
    const { step, token } = okStep(redo);
    assert.equal(step, 'review-code');
    assert.equal(redo.context!.feedback, 'Add a test for the null session case.');
    assert.equal(redo.context!.attempt, 2);
    assert.match(resultText(redo), /> Add a test for the null session case\./);
    const again = await baton.nextStep({ step_token: token, model_output_so_far: output('reviewed again') });
    assert.equal(again.status, 'awaiting_approval');
    await baton.decide({ execution_id: exec, decision: 'approve' });
    assert.equal((await baton.nextStep({ step_token: again.new_step_token! })).status, 'task_closed');
    assert.equal(baton.workflowStatus(exec).steps.find((s) => s.step_name === 'review-code')!.attempt, 2);
  });

  it('wakes a waiting call as soon as the person approves', async () => {
    const h = await makeBaton({ approvalWaitMs: 10_000 });
    let r = await h.baton.nextStep({ template_name: 'bug-fix' });
    while (r.status === 'ok') r = await h.baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: output('s') });
    const started = Date.now();
    const waiting = h.baton.nextStep({ step_token: r.new_step_token! });
    setTimeout(() => void h.baton.decide({ execution_id: r.execution_id!, decision: 'approve' }), 50);
    assert.equal((await waiting).status, 'task_closed');
    assert.ok(Date.now() - started < 5_000);
  });

  it('tells the caller that it waits, and ends the wait when the caller gives up', async () => {
    const h = await makeBaton({ approvalWaitMs: 10_000 });
    let r = await h.baton.nextStep({ template_name: 'bug-fix' });
    const heard: unknown[] = [];
    const onWait = (w: unknown) => heard.push(w);
    // A call that does not wait (a submit) says nothing.
    while (r.status === 'ok') r = await h.baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: output('s') }, {}, { onWait });
    assert.equal(r.status, 'awaiting_approval');
    assert.deepEqual(heard, []);
    const giveUp = new AbortController();
    const started = Date.now();
    const waiting = h.baton.nextStep({ step_token: r.new_step_token! }, {}, { signal: giveUp.signal, onWait });
    setTimeout(() => giveUp.abort(), 50);
    const answer = await waiting;
    assert.ok(Date.now() - started < 5_000, 'the aborted wait ended early');
    assert.equal(answer.status, 'awaiting_approval');
    assert.deepEqual(heard, [{ execution_id: r.execution_id, step_name: 'review-code', wait_ms: 10_000 }]);
    // Already aborted: no wait at all, and nothing heard.
    const again = await h.baton.nextStep({ step_token: r.new_step_token! }, {}, { signal: giveUp.signal, onWait });
    assert.equal(again.status, 'awaiting_approval');
    assert.equal(heard.length, 1);
    // The person still decides the step, and the agent's next poll gets the outcome.
    await h.baton.decide({ execution_id: r.execution_id!, decision: 'approve' });
    assert.equal((await h.baton.nextStep({ step_token: r.new_step_token! })).status, 'task_closed');
  });

  it('refuses to approve a step that is not waiting', async () => {
    const { baton } = await makeBaton();
    const r = await baton.nextStep({ template_name: 'bug-fix' });
    await assert.rejects(baton.decide({ execution_id: r.execution_id!, decision: 'approve' }), /No step .* is waiting for approval/);
    await assert.rejects(baton.decide({ execution_id: 'missing', decision: 'approve' }), /No execution or task "missing"/);
    const bare = await baton.lifecycle.startExecution({ workflowName: 'bug-fix' });
    await assert.rejects(baton.decide({ execution_id: bare.id, decision: 'approve' }),
      { message: `No step of execution ${bare.id} is waiting for approval: it has no steps.` });
    // A run that ended says so, and where the runs that wait are.
    await baton.cancel(r.execution_id!, 'not needed');
    await assert.rejects(baton.decide({ execution_id: r.execution_id!, decision: 'approve' }), {
      message: `Execution ${r.execution_id} has ended (cancelled), so no step of it waits for approval any more (analyze-root-cause: failed, `
        + 'implement-fix: pending, write-tests: pending, review-code: pending); baton status lists the runs that wait for a decision (⏸).',
    });
  });
});

describe('broker: rate limits, stalls and the call log', () => {
  it('limits a task to the spec burst and tells when to retry', async () => {
    const { baton, clock } = await makeBaton({ rateLimits: { enabled: true, task: { steady_rps: 0.5, burst_tokens: 3 }, agent: { steady_rps: 2, burst_tokens: 10 } } });
    const first = await baton.nextStep({ template_name: 'bug-fix' });
    let token = first.new_step_token!;
    const results = [];
    for (let i = 0; i < 4; i++) {
      const r = await baton.nextStep({ step_token: token });
      results.push(r.status);
      if (r.status === 'ok') token = r.new_step_token!;
      else {
        assert.equal(r.error?.code, 'rate_limited');
        assert.equal(r.error?.retry_after_ms, 2000);
      }
    }
    assert.deepEqual(results, ['ok', 'ok', 'ok', 'error']);
    clock.advance(2000);
    assert.equal((await baton.nextStep({ step_token: token })).status, 'ok');
  });

  it('with the default limits, a fast honest agent is never limited: gate waits and token refreshes draw nothing', async () => {
    const { baton, clock } = await makeBaton({ rateLimits: DEFAULT_RATE_LIMITS });
    const refused: string[] = [];
    const call = async (req: Parameters<typeof baton.nextStep>[0]) => {
      const r = await baton.nextStep(req);
      if (r.status === 'error') refused.push(`${r.error!.code} on ${JSON.stringify(Object.keys(req))}`);
      return r;
    };
    let r = await call({ template_name: 'bug-fix', task_description: 'Login fails' });
    const exec = r.execution_id!;
    while (r.status === 'ok') {
      // Refreshing the token, many times at one instant, costs nothing.
      for (let i = 0; i < 5; i++) r = await call({ request: 'refresh_token', step_token: r.new_step_token! });
      // One second of work per step, then the submission: the 4th fits the task bucket (3, refilled 0.5/s).
      clock.advance(1_000);
      r = await call({ step_token: r.new_step_token!, model_output_so_far: output(r.next_step_contract!.step_name) });
    }
    assert.equal(r.status, 'awaiting_approval');
    // Waiting on the gate right away, again and again, is free too (the harness does not block on the wait).
    for (let i = 0; i < 10; i++) r = await call({ step_token: r.new_step_token! });
    assert.equal(r.status, 'awaiting_approval');
    await baton.decide({ execution_id: exec, decision: 'reject', feedback: 'Cover the expired cookie.' });
    r = await call({ step_token: r.new_step_token! });
    assert.equal(r.status, 'ok', 'the rejected step comes back to the waiting agent');
    clock.advance(2_000);
    r = await call({ step_token: r.new_step_token!, model_output_so_far: output('review again') });
    for (let i = 0; i < 10; i++) r = await call({ step_token: r.new_step_token! });
    await baton.decide({ execution_id: exec, decision: 'approve' });
    r = await call({ step_token: r.new_step_token! });
    assert.equal(r.status, 'task_closed');
    assert.deepEqual(refused, []);
  });

  it('still limits hammering: creates past the agent burst, submissions past the task burst, refused free calls', async () => {
    const { baton } = await makeBaton({ rateLimits: DEFAULT_RATE_LIMITS });
    const creates: string[] = [];
    for (let i = 0; i < 11; i++) creates.push((await baton.nextStep({ template_name: 'bug-fix' })).error?.code ?? 'ok');
    assert.deepEqual(creates, [...Array<string>(10).fill('ok'), 'rate_limited']);
    // Submissions of one task at one instant (another agent: its own bucket is full): the 4th is limited.
    const other = { agent_name: 'fast-agent' };
    let r = await baton.nextStep({ template_name: 'feature-implementation' }, other);
    const submits: string[] = [];
    for (let i = 0; i < 4; i++) {
      const next = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: output(`s${i}`) }, other);
      submits.push(next.error?.code ?? next.status);
      if (next.status === 'ok') r = next;
    }
    assert.deepEqual(submits, ['ok', 'ok', 'ok', 'rate_limited']);
    // A refresh or wait that is refused spends like any call: garbage tokens still run the agent's bucket dry.
    const third = { agent_name: 'hammer' };
    const garbage: string[] = [];
    for (let i = 0; i < 11; i++) garbage.push((await baton.nextStep({ request: 'refresh_token', step_token: 'garbage' }, third)).error!.code);
    assert.deepEqual(garbage, [...Array<string>(10).fill('token_malformed'), 'rate_limited']);
  });

  it('a call refused inside its transaction (an old token) undoes nothing there: its batch is not rolled back and redone', async () => {
    const { baton, store } = await makeBaton({ rateLimits: DEFAULT_RATE_LIMITS });
    const r = await baton.nextStep({ template_name: 'bug-fix' });
    const step = r.next_step_contract!.step_name;
    const refreshed = await baton.nextStep({ request: 'refresh_token', step_token: r.new_step_token! });
    // Both in one turn: the call with the old token is refused in the batch the other one wrote into.
    const [submitted, refused] = await Promise.all([
      baton.nextStep({ step_token: refreshed.new_step_token!, model_output_so_far: output(step) }),
      baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: output(`${step}, again`) }),
    ]);
    assert.equal(submitted.status, 'ok');
    assert.equal(refused.error?.code, 'token_out_of_order');
    assert.equal(store.stats().batchRedos, 0, 'the refusal came before any write (the rate buckets are saved after the step)');
  });

  it('reports a stalled workflow once per threshold, as an informational event', async () => {
    const { baton, clock } = await makeBaton({ stallMinutes: 30 });
    const r = await baton.nextStep({ template_name: 'bug-fix' });
    const stalls: number[] = [];
    baton.onEvent((e) => e.type === 'stall' && stalls.push(e.elapsed_minutes));
    clock.advance(29 * 60_000);
    await baton.tick();
    assert.deepEqual(stalls, []);
    clock.advance(6 * 60_000);
    await baton.tick();
    await baton.tick();
    assert.deepEqual(stalls, [35]);
    clock.advance(31 * 60_000);
    await baton.tick();
    assert.deepEqual(stalls, [35, 66]);
    const stallEvents = baton.events(r.execution_id!).filter((e) => e.event_type === 'error_occurred');
    assert.equal(stallEvents.length, 2);
    assert.match(JSON.stringify(stallEvents[0]!.event_data), /appears stalled/);
    assert.equal(baton.workflowStatus(r.execution_id!).status, 'running', 'informational only');
  });

  it('stores calls with secrets redacted', async () => {
    const { baton } = await makeBaton();
    const r = await baton.nextStep({ template_name: 'bug-fix' });
    baton.logCall({ call_type: 'tool', name: 'workflow_next_step', request: { step_token: r.new_step_token }, response: r, duration_ms: 1.2, success: true });
    await baton.flushCalls();
    const [row] = baton.recentCalls(1);
    assert.ok(row);
    assert.ok(!String(row.request_full).includes(r.new_step_token!));
    assert.ok(!String(row.response_full).includes(r.new_step_token!));
    assert.match(String(row.request_full), /REDACTED/);
  });
});

describe('broker: resources', () => {
  it('resolves active, clears a finished active task, and lists workflows', async () => {
    const { baton } = await makeBaton();
    assert.throws(() => baton.currentStep(), /No workflow has run/);
    const names = baton.availableWorkflows().workflows.map((w) => w.name);
    assert.deepEqual(names, ['bug-fix', 'feature-implementation', 'security-audit', 'spec_execution_v1']);
    const r = await baton.nextStep({ template_name: 'bug-fix' });
    assert.equal(baton.currentStep('active').execution_id, r.execution_id);
    assert.equal(baton.currentStep(r.task_id!).execution_id, r.execution_id);
    const ctx = await baton.projectContext('current');
    assert.equal(ctx.active_task?.execution_id, r.execution_id);
    assert.equal(ctx.active_task?.status, 'active');
    assert.match(baton.persona('default'), /Supervisor/);
    assert.match(baton.guardrails(), /^# Active Guardrails/);
  });
});

describe('broker: auto-cleanup of the active task', () => {
  it('clears a finished task and a dangling one from project-context', async () => {
    const { baton, store } = await makeBaton({ workflows: { 'spec-example': SPEC_EXAMPLE_YAML } });
    let r = await baton.nextStep({ template_name: 'spec-example' });
    while (r.status === 'ok') r = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: output('s') });
    assert.equal(r.status, 'task_closed');
    const active = () => store.get<{ active_task_id: string | null }>('SELECT active_task_id FROM projects')!.active_task_id;
    assert.equal(active(), r.task_id, 'still pointed at until someone reads the context');
    assert.equal((await baton.projectContext('current')).active_task, null);
    assert.equal(active(), null, 'finished task cleared');
    // A task whose execution is gone (e.g. a database edited by hand) is dangling.
    await store.transaction(() => store.run("UPDATE projects SET active_task_id = 'no-such-task'"));
    assert.equal((await baton.projectContext('current')).active_task, null);
    assert.equal(active(), null, 'dangling task cleared');
    // current-step://active still answers with the latest execution after cleanup.
    assert.equal(baton.currentStep('active').execution_id, r.execution_id);
    await assert.rejects(baton.projectContext('999'), /No project "999"/);
  });
});

describe('broker: cancelling an execution', () => {
  it('fails the execution, stops its tokens and wakes a waiting agent', async () => {
    const { baton } = await makeBaton({ approvalWaitMs: 10_000 });
    const r = await baton.nextStep({ template_name: 'bug-fix' });
    const summary = await baton.cancel(r.execution_id!, 'not needed', 'tester');
    assert.equal(summary.status, 'failed');
    assert.equal(summary.steps.find((s) => s.step_name === 'analyze-root-cause')!.status, 'failed');
    const late = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: output('late') });
    assert.equal(late.status, 'error');
    // The agent is told what became of the run, not to use a newer token or to refresh this one.
    assert.match(late.error!.message, /^Execution \S+ was cancelled at \S+ by tester \(not needed\); its steps no longer move/);
    assert.match(late.error!.recovery, /start a new workflow with template_name/);
    assert.equal(late.error!.next_call, undefined);
    const refresh = await baton.nextStep({ step_token: r.new_step_token!, request: 'refresh_token' });
    assert.equal(refresh.error!.message, late.error!.message);
    assert.equal(baton.events(r.execution_id!).at(-1)!.event_type, 'workflow_cancelled');
    assert.equal(summary.cancelled, true, 'the views say "cancelled", not "failed"');
    assert.equal(baton.workflowStatus(r.execution_id!).cancelled, true);
    await assert.rejects(baton.cancel(r.execution_id!), /is already cancelled; only an unfinished execution can be cancelled/);
    await assert.rejects(baton.cancel('nope'), /No execution or task "nope"/);
  });
});

describe('broker: a workflow a person starts', () => {
  it('starts without claiming; an agent picks up the first step with task_id or a bare call', async () => {
    const { baton } = await makeBaton();
    const started = await baton.startWorkflow('bug-fix', 'Login fails');
    assert.equal(started.status, 'running');
    assert.deepEqual(started.steps.map((s) => s.status), ['ready', 'pending', 'pending', 'pending']);
    const bare = await baton.nextStep({});
    assert.equal(okStep(bare).step, 'analyze-root-cause');
    assert.equal(bare.execution_id, started.execution_id);
    // Nothing else is ready: a second bare call waits.
    assert.equal((await baton.nextStep({})).status, 'no_op');
    await assert.rejects(baton.startWorkflow('nope'), /No workflow template "nope"/);
  });

  it('still refuses a bare call when no workflow is active', async () => {
    const { baton } = await makeBaton();
    assert.equal((await baton.nextStep({})).error?.code, 'invalid_input');
  });
});

describe('broker: cancelling an old execution', () => {
  it('returns its summary even when many newer executions exist', async () => {
    const { baton, clock } = await makeBaton();
    const old = await baton.startWorkflow('bug-fix', 'the old one');
    for (let i = 0; i < 501; i++) {
      clock.advance(1000);
      await baton.startWorkflow('bug-fix', `newer ${i}`);
    }
    const summary = await baton.cancel(old.execution_id);
    assert.equal(summary.execution_id, old.execution_id);
    assert.equal(summary.status, 'failed');
  });
});

describe('broker: what a gate shows of a submission', () => {
  it('keeps findings, blockers, decisions, confidence, references and next steps; drops artifact contents and malformed entries', () => {
    const sub = submittedOutput({
      summary: 'done', confidence: 0.2, references: ['a.ts', 7], blockers: ['needs a fixture'], next_steps: ['ship'],
      findings: [{ severity: 'critical', category: 'security', description: 'SQL injection', recommendation: 'bind' }, { severity: 'low' }],
      decisions: [{ decision: 'Keep v1', rationale: 'compat', alternatives_rejected: [], trade_offs: '' }, 'nonsense'],
      artifacts: [{ type: 'code', title: 'patch', content: 'x'.repeat(100_000) }],
    })!;
    assert.equal(sub.findings.length, 1);
    assert.deepEqual(sub.blockers, ['needs a fixture']);
    assert.deepEqual(sub.references, ['a.ts']);
    assert.equal(sub.decisions.length, 1);
    assert.deepEqual(sub.artifacts, [{ type: 'code', title: 'patch' }]);
    assert.equal(submittedOutput(null), null);
    assert.equal(submittedOutput({})?.confidence, null);
    assert.deepEqual(executionFacts({ metadata: { task_description: '  ' } }), { task_description: null, cancelled: false });
  });
});
