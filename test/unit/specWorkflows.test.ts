// Rule: a spec workflow runs its tasks.md as gated phases on the one engine: phases are steps of the execution, a
// later phase is locked, evidence is checked per gate item (missing ones named), signed-off gates wait for a person,
// the parsed source is a snapshot (an edit of the file changes nothing, but shows as drift), rendered content is
// cached per execution and dropped at its end, every result form stays within 4 KB, and bad input gets the spec's
// errors with the data to recover (source_not_found, outside the workspace, template_not_found, out of range).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { resultText } from '../../src/core/broker/stepText.js';
import { BatonError } from '../../src/core/errors.js';
import { resolveInWorkspace } from '../../src/core/specs/workspacePath.js';
import type { ModelOutput, NextStepResponse } from '../../src/core/types.js';
import { makeBaton, makeWorkspace } from '../helpers/coreHarness.js';

const fixtures = join(__dirname, '..', 'fixtures', 'specs');
const out: ModelOutput = { summary: 'done', artifacts: [], references: [], confidence: 0.9 };
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
const evidenceFor = (r: NextStepResponse) => Object.fromEntries(r.context!.spec!.validation_gate.map((_, i) => [String(i + 1), `shown ${i + 1}`]));

/** A workspace with `files` (relative path → text). */
function workspaceWith(files: Record<string, string>): string {
  const ws = makeWorkspace();
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(ws, rel, '..'), { recursive: true });
    writeFileSync(join(ws, rel), text);
  }
  return ws;
}

async function rejects(p: Promise<unknown> | (() => unknown), reason: string): Promise<BatonError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (ex) {
    assert.ok(BatonError.is(ex), String(ex));
    assert.equal(ex.reason, reason, ex.message);
    return ex;
  }
  assert.fail(`expected ${reason}`);
}

/** Submits every phase of a way-1 run (approving signed-off ones) and returns each ok result. */
async function runAll(baton: Awaited<ReturnType<typeof makeBaton>>['baton'], source: string, submit: ModelOutput = out): Promise<NextStepResponse[]> {
  const seen: NextStepResponse[] = [];
  let r = await baton.nextStep({ template_name: 'spec_execution_v1', source });
  for (let i = 0; i < 60 && r.status !== 'task_closed'; i++) {
    if (r.status === 'awaiting_approval') {
      await baton.decide({ execution_id: r.execution_id!, decision: 'approve' });
      r = await baton.nextStep({ step_token: r.new_step_token! });
      continue;
    }
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    seen.push(r);
    r = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: submit, evidence: evidenceFor(r) });
  }
  assert.equal(r.status, 'task_closed');
  return seen;
}

describe('spec workflow through workflow_next_step (way in 1)', () => {
  it('runs every fixture to the end; each phase is a step with its tasks inline and both forms within 4 KB', async () => {
    for (const file of ['auth-service.tasks.md', 'payments-crlf.tasks.md', 'kiro.tasks.md', 'spec-kit.tasks.md', 'spec-workflow-mcp.tasks.md', 'task-master.tasks.md', 'unicode-tabs.tasks.md', 'plain-checklist.tasks.md']) {
      const { baton } = await makeBaton({ workspacePath: workspaceWith({ 'specs/x/tasks.md': readFileSync(join(fixtures, file), 'utf8') }) });
      const results = await runAll(baton, 'specs/x/tasks.md');
      const status = await baton.specs.status(results[0]!.execution_id);
      assert.equal(results.length, status.total_phases, file);
      assert.deepEqual(results.map((r) => r.next_step_contract!.step_name), status.phases.map((p) => p.step_name));
      for (const r of results) {
        assert.ok(bytes(JSON.stringify(r)) <= 4096, `${file} ${r.next_step_contract!.step_name}: JSON ${bytes(JSON.stringify(r))}`);
        assert.ok(bytes(resultText(r)) <= 4096, `${file} ${r.next_step_contract!.step_name}: text ${bytes(resultText(r))}`);
        const spec = r.context!.spec!;
        if (spec.phase > 0) {
          assert.match(r.context!.step_description, new RegExp(`^# Phase ${spec.phase} of ${status.total_phases - 1}: `));
          assert.match(r.context!.step_description, /🛑 Work on this phase only/);
          assert.ok(spec.tasks.length > 0, `${file} phase ${spec.phase}: tasks inline (${bytes(JSON.stringify(r))} bytes)`);
          assert.ok(resultText(r).includes(spec.tasks[0]!.name), 'the text carries the tasks too');
        }
        assert.ok(resultText(r).includes('"evidence":{"1":'), 'the next call shows evidence');
      }
      assert.equal(status.status, 'completed');
      assert.ok(!baton.specs.cache.has(status.execution_id), 'the rendered content is dropped when the workflow ends');
    }
  });

  it('with a 30 KB artifact from every phase, each phase still fits 4 KB with the artifact cut and its tasks listed', async () => {
    const content = `# Notes\n\n${'A "quoted" line\twith C:\\path, é and 🙂.\n'.repeat(800)}`;
    const big: ModelOutput = { ...out, artifacts: [{ type: 'markdown', title: 'Phase notes', content }] };
    const { baton } = await makeBaton({ workspacePath: workspaceWith({ 'tasks.md': readFileSync(join(fixtures, 'auth-service.tasks.md'), 'utf8') }) });
    const results = await runAll(baton, 'tasks.md', big);
    for (const r of results.slice(1)) {
      assert.ok(bytes(JSON.stringify(r)) <= 4096 && bytes(resultText(r)) <= 4096, `${r.next_step_contract!.step_name}: ${bytes(JSON.stringify(r))} / ${bytes(resultText(r))}`);
      assert.equal(r.context!.dependency_artifacts.length, 1);
      assert.equal(r.context!.dependency_artifacts[0]!.truncated, true);
      assert.ok(r.context!.spec!.tasks.length >= 1);
    }
  });

  it("Phase 0's outline counts each phase's tasks in words: '1 task', '2 tasks'", async () => {
    const tasks = '- [ ] 1. Schema\n  - [ ] 1.1 Users table\n  - [ ] 1.2 Index\n- [ ] 2. API\n  - [ ] 2.1 Login\n';
    const { baton } = await makeBaton({ workspacePath: workspaceWith({ 'tasks.md': tasks }) });
    const r = await baton.nextStep({ template_name: 'spec_execution_v1', source: 'tasks.md' });
    assert.deepEqual(r.context!.spec!.outline, ['Phase 1: Schema (2 tasks)', 'Phase 2: API (1 task)']);
    assert.match(resultText(r), /\nPhase 2: API \(1 task\)\n/);
  });

  it('a 200-task phase lists what fits within 4 KB and get_task reads the rest with the same token', async () => {
    const tasks = Array.from({ length: 200 }, (_, i) => `- [ ] **Task 1.${i + 1}**: Implement endpoint number ${i + 1} of the API\n  - **Estimated Time**: 1h\n  - **Acceptance Criteria**:\n    - [ ] Endpoint ${i + 1} returns 200\n    - [ ] It has a test`).join('\n');
    const { baton } = await makeBaton({ workspacePath: workspaceWith({ 'tasks.md': `### Phase 1: Everything\n${tasks}\n**Validation Gate:**\n- [ ] All 200 endpoints pass their tests\n` }) });
    let r = await baton.nextStep({ template_name: 'spec_execution_v1', source: 'tasks.md' });
    r = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: out, evidence: evidenceFor(r) });
    const spec = r.context!.spec!;
    assert.equal(spec.task_count, 200);
    assert.ok(spec.tasks.length >= 3 && spec.tasks.length < 200, `${spec.tasks.length} tasks inline`);
    assert.match(spec.more_tasks!, /get_task/);
    assert.ok(bytes(JSON.stringify(r)) <= 4096 && bytes(resultText(r)) <= 4096);
    const t = await baton.nextStep({ request: 'get_task', step_token: r.new_step_token!, task_number: 150 });
    assert.equal(t.status, 'ok');
    assert.equal(t.spec_task!.task_id, '1.150');
    assert.match(t.spec_task!.task_content, /# Task 1\.150: Implement endpoint number 150/);
    assert.match(t.spec_task!.task_content, /- \[ \] Endpoint 150 returns 200/);
    const far = await baton.nextStep({ request: 'get_task', step_token: r.new_step_token!, task_number: 201 });
    assert.equal(far.error?.code, 'task_out_of_range');
    assert.match(far.error!.message, /tasks 1 to 200/);
    // The token still holds the phase after reading tasks.
    const done = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: out, evidence: ['all pass'] });
    assert.equal(done.status, 'task_closed');
  });

  it('refuses a phase without evidence for every gate item, names the missing ones, and keeps the phase open', async () => {
    const { baton } = await makeBaton({ workspacePath: workspaceWith({ 'tasks.md': readFileSync(join(fixtures, 'auth-service.tasks.md'), 'utf8') }) });
    const r0 = await baton.nextStep({ template_name: 'spec_execution_v1', source: 'tasks.md' });
    const bad = await baton.nextStep({ step_token: r0.new_step_token!, model_output_so_far: out, evidence: { 1: 'read spec.md', 3: '  ' } });
    assert.equal(bad.error?.code, 'evidence_incomplete');
    assert.match(bad.error!.message, /"Scope confirmed: what the phases deliver and what is out of scope"; "Risks named, each with how you will handle it"; "The build and the existing tests run/);
    const status = await baton.specs.status(r0.execution_id);
    assert.equal(status.phases[0]!.status, 'running');
    assert.equal(status.phases[0]!.last_refusal?.missing.length, 3);
    const none = await baton.nextStep({ step_token: r0.new_step_token!, model_output_so_far: out });
    assert.equal(none.error?.code, 'evidence_incomplete', 'no evidence at all is refused too');
    // The same token still submits; keys may be the items' text.
    const gate = r0.context!.spec!.validation_gate;
    const r1 = await baton.nextStep({ step_token: r0.new_step_token!, model_output_so_far: out, evidence: Object.fromEntries(gate.map((g) => [g, 'ok'])) });
    assert.equal(r1.next_step_contract?.step_name, 'phase-1');
    const after = await baton.specs.status(r0.execution_id);
    assert.equal(after.phases[0]!.last_refusal, null);
    assert.deepEqual(after.phases[0]!.gate.map((g) => g.evidence), ['ok', 'ok', 'ok', 'ok']);
  });

  it('a gate a person must sign off waits in awaiting_approval; approval moves on and ticks the boxes', async () => {
    const ws = workspaceWith({ 'tasks.md': readFileSync(join(fixtures, 'auth-service.tasks.md'), 'utf8') });
    const { baton } = await makeBaton({ workspacePath: ws });
    let r = await baton.nextStep({ template_name: 'spec_execution_v1', source: 'tasks.md' });
    r = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: out, evidence: evidenceFor(r) });
    r = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: out, evidence: evidenceFor(r) });
    assert.equal(r.next_step_contract?.step_name, 'phase-2');
    assert.equal(r.next_step_contract?.human_gate_required, true, '"signed off by the tech lead"');
    assert.match(r.context!.step_description, /A person signs this phase off/);
    const waiting = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: out, evidence: evidenceFor(r) });
    assert.equal(waiting.status, 'awaiting_approval');
    assert.ok(!readFileSync(join(ws, 'tasks.md'), 'utf8').includes('- [x] **Task 2.1**'), 'not ticked before the sign-off');
    await baton.decide({ execution_id: waiting.execution_id!, decision: 'approve' });
    assert.ok(readFileSync(join(ws, 'tasks.md'), 'utf8').includes('- [x] **Task 2.1**'), 'ticked once approved');
    const next = await baton.nextStep({ step_token: waiting.new_step_token! });
    assert.equal(next.next_step_contract?.step_name, 'phase-3');
  });

  it('snapshots the source: an edit of tasks.md changes no phase, shows as drift, and the write-back still finds its boxes', async () => {
    const ws = workspaceWith({ 'tasks.md': readFileSync(join(fixtures, 'kiro.tasks.md'), 'utf8') });
    const { baton } = await makeBaton({ workspacePath: ws });
    let r = await baton.nextStep({ template_name: 'spec_execution_v1', source: 'tasks.md' });
    const edited = `# Notes from the review\n\n${readFileSync(join(ws, 'tasks.md'), 'utf8').replace('Create storage mechanism', 'Create storage layer').replace('- [ ] 3.2 Implement repository pattern for data access', '- [ ] 3.2 Implement repository pattern for data access\n- [ ] 3.4 A task added later')}`;
    writeFileSync(join(ws, 'tasks.md'), edited);
    const drift = await baton.specs.drift(r.execution_id!);
    assert.equal(drift.state, 'drifted');
    assert.equal(drift.first_difference?.line, 1);
    r = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: out, evidence: evidenceFor(r) });
    r = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: out, evidence: evidenceFor(r) });
    r = await baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: out, evidence: evidenceFor(r) });
    assert.equal(r.context!.spec!.phase_name, 'Create storage mechanism', 'the snapshot, not the edited file');
    assert.equal(r.context!.spec!.task_count, 3, 'its three tasks, not the one added later');
    const text = readFileSync(join(ws, 'tasks.md'), 'utf8');
    assert.ok(text.includes('- [x] 2.2 Implement User model') && text.startsWith('# Notes from the review'), 'boxes ticked where they moved to');
    const status = await baton.specs.status(r.execution_id);
    assert.equal(status.write_backs.length, 2);
    assert.equal(status.write_backs[0]!.ticked, 1, 'phase 1 is one item: its box, once');
  });

  it('the rendered content is recoverable from the database: a new core on the same store serves the same phase', async () => {
    const ws = workspaceWith({ 'tasks.md': readFileSync(join(fixtures, 'auth-service.tasks.md'), 'utf8') });
    const first = await makeBaton({ workspacePath: ws });
    let r = await first.baton.nextStep({ template_name: 'spec_execution_v1', source: 'tasks.md' });
    r = await first.baton.nextStep({ step_token: r.new_step_token!, model_output_so_far: out, evidence: evidenceFor(r) });
    const before = r.context!.step_description;
    writeFileSync(join(ws, 'tasks.md'), 'garbage now');
    const second = await makeBaton({ workspacePath: ws, store: first.store });
    assert.ok(!second.baton.specs.cache.has(r.execution_id!));
    const again = await second.baton.nextStep({ request: 'refresh_token', step_token: r.new_step_token! });
    assert.equal(again.context!.step_description, before);
    const cur = await second.baton.specs.currentPhase(r.execution_id!);
    assert.equal(cur.current_phase, 1);
    // The specs tools' overview is the same rendering with the gate written out.
    assert.equal(cur.phase_content!.phase_overview.split('Validation gate:')[0], before.split('Validation gate:')[0]);
    assert.match(cur.phase_content!.phase_overview, /Validation gate:\n1\. All migrations run up and down on a fresh database\n2\./);
  });
});

describe('spec workflow through baton.specs (way in 2)', () => {
  it('start, get_task, phase_locked, complete_phase with evidence, to the end', async () => {
    const ws = workspaceWith({ 'specs/pay/tasks.md': readFileSync(join(fixtures, 'payments-crlf.tasks.md'), 'utf8') });
    const { baton } = await makeBaton({ workspacePath: ws });
    const s = baton.specs;
    const started = await s.start({ source: 'specs/pay/tasks.md', claim: true });
    assert.equal(started.current_phase, 0);
    assert.equal(started.total_phases, 3);
    assert.equal(started.phase_content!.validation_gate.length, 4);
    assert.match(started.human_message, /Work on Phase 0 only: it lists no tasks; complete_phase with evidence for each of its 4 gate items\.$/);
    const id = started.session_id;
    const locked = await rejects(async () => s.getTask(id, 1, 1), 'phase_locked');
    assert.match(locked.message, /Phase 0 is the current phase and must pass its gate first. Phase 0 still needs to be completed with evidence for its 4 gate items/);
    assert.equal(locked.details.current_phase, 0);
    await rejects(s.completePhase(id, 2, {}), 'phase_locked');
    const missing = await rejects(s.completePhase(id, 0, { 1: 'spec.md' }), 'evidence_incomplete');
    assert.deepEqual((missing.details.missing as string[]).length, 3);
    const p1 = await s.completePhase(id, 0, ['a', 'b', 'c', 'd']);
    assert.equal(p1.completed_phase, 0);
    assert.equal(p1.current_phase, 1);
    assert.equal(p1.phase_content!.human_signoff, true, '"Product owner signs off"');
    assert.match(p1.phase_content!.phase_overview, /^# Phase 1 of 2: Provider integration/);
    const task = s.getTask(id, 1, 2);
    assert.equal(task.task_id, '1.2');
    assert.match(task.task_content, /Verifies the signature header before parsing/);
    assert.equal(s.getTask(id, 1, 2).task_content, task.task_content, 'cached');
    const oor = await rejects(async () => s.getTask(id, 1, 3), 'task_out_of_range');
    assert.deepEqual({ count: oor.details.task_count }, { count: 2 });
    const por = await rejects(async () => s.getTask(id, 7, 1), 'phase_out_of_range');
    assert.equal(por.details.total_phases, 3);
    await rejects(async () => s.getTask(id, 0, 1), 'task_out_of_range');
    const waiting = await s.completePhase(id, 1, { 1: 'sandbox green', 2: 'PO ok' });
    assert.equal(waiting.status, 'awaiting_approval');
    assert.match(waiting.approve_command!, /^baton approve /);
    await rejects(s.completePhase(id, 2, ['x']), 'phase_locked');
    await baton.decide({ execution_id: id, decision: 'approve' });
    const p2 = await s.currentPhase(id);
    assert.equal(p2.current_phase, 2);
    assert.match(p2.human_message, /Work on Phase 2 only: do its \d+ tasks? \(get_task .*\), then complete_phase with evidence for its one gate item\.$/);
    assert.equal(p2.status, 'running');
    await rejects(s.completePhase(id, 1, ['x', 'y']), 'invalid_state');
    const done = await s.completePhase(id, 2, ['refunds pass']);
    assert.equal(done.status, 'completed');
    assert.equal(done.phase_content, null);
    const text = readFileSync(join(ws, 'specs/pay/tasks.md'), 'utf8');
    assert.equal((text.match(/- \[x\]/g) ?? []).length, 8, 'the 2 ticked before, and every task and gate box (6), criteria untouched');
    assert.ok(text.startsWith('\uFEFF') && !/[^\r]\n/.test(text), 'BOM and CRLF kept');
    assert.deepEqual(s.list().map((x) => x.execution_id), [id]);
  });
});

describe('spec workflow metadata', () => {
  it("start_workflow's metadata is kept, and its spec_path (the template's source_path_key) names the source", async () => {
    const ws = workspaceWith({ 'specs/real/tasks.md': readFileSync(join(fixtures, 'kiro.tasks.md'), 'utf8') });
    const { baton, store } = await makeBaton({ workspacePath: ws });
    const r = await baton.specs.start({ source: 'ignored.md', metadata: { spec_path: 'specs/real/tasks.md', ticket: 'K-1' } });
    const meta = JSON.parse(store.get<{ metadata: string }>('SELECT metadata FROM executions WHERE execution_id = ?', [r.session_id])!.metadata);
    assert.deepEqual(meta.start_metadata, { spec_path: 'specs/real/tasks.md', ticket: 'K-1' });
    assert.equal(r.source, 'specs/real/tasks.md');
    assert.equal(r.status, 'running');
    assert.equal(r.current_phase, 0);
    const row = baton.listExecutions()[0]!;
    assert.equal(row.kind, 'spec');
    assert.deepEqual(row.steps.map((x) => x.status), ['ready', 'pending', 'pending', 'pending'], 'started for an agent to claim');
  });
});

describe('spec workflow errors', () => {
  const ws = workspaceWith({ 'specs/a/tasks.md': readFileSync(join(fixtures, 'auth-service.tasks.md'), 'utf8'), 'specs/empty.md': readFileSync(join(fixtures, 'empty-phase.tasks.md'), 'utf8') });

  it('source_not_found names the path tried relative to the workspace', async () => {
    const { baton } = await makeBaton({ workspacePath: ws });
    const r = await baton.nextStep({ template_name: 'spec_execution_v1', source: 'specs/b/tasks.md' });
    assert.equal(r.error?.code, 'source_not_found');
    assert.match(r.error!.message, /No file "specs\/b\/tasks\.md" in the workspace/);
    const e = await rejects(baton.specs.start({ source: 'specs/b/tasks.md' }), 'source_not_found');
    assert.equal(e.details.path, 'specs/b/tasks.md');
    // It names the tasks.md files that are there, for the agent's next try.
    assert.match(r.error!.message, /tasks\.md files in the workspace: specs\/a\/tasks\.md\.$/);
    assert.deepEqual(e.details.sources, ['specs/a/tasks.md']);
  });

  it('a folder given as the source is named as one, with the tasks.md in it to pass instead', async () => {
    const { baton } = await makeBaton({ workspacePath: ws });
    for (const source of ['specs/a', 'specs/a/', 'specs']) {
      const r = await baton.nextStep({ template_name: 'spec_execution_v1', source });
      assert.equal(r.error?.code, 'source_not_found', source);
      const shown = source.replace(/\/$/, '');
      assert.match(r.error!.message, new RegExp(`^"${shown}/?" is a folder, not a file: pass the tasks\\.md in it, relative to the workspace \\(such as "specs/a/tasks\\.md"\\)\\. tasks\\.md files in the workspace: specs/a/tasks\\.md\\.$`));
      const e = await rejects(baton.specs.start({ source }), 'source_not_found');
      assert.deepEqual(e.details.sources, ['specs/a/tasks.md']);
    }
  });

  it('sources(): the root tasks.md, then the spec tools\' folders, then earlier sources that still exist', async () => {
    const task = readFileSync(join(fixtures, 'auth-service.tasks.md'), 'utf8');
    const w = workspaceWith({
      'tasks.md': task,
      'specs/auth/tasks.md': task,
      'specs/auth/plan.md': '# not a task list',
      'specs/deep/er/tasks.md': task,
      '.kiro/specs/search/tasks.md': task,
      '.spec-workflow/specs/billing/tasks.md': task,
      '.agent-os/specs/2026-01-01-login/tasks.md': task,
      'agent-os/specs/profile/tasks.md': task,
      'node_modules/lib/specs/tasks.md': task,
      'docs/plan/tasks.md': task,
      'docs/old/tasks.md': task,
    });
    const { baton } = await makeBaton({ workspacePath: w });
    const expected = [
      'tasks.md', 'specs/auth/tasks.md', 'specs/deep/er/tasks.md', '.kiro/specs/search/tasks.md', '.spec-workflow/specs/billing/tasks.md',
      '.agent-os/specs/2026-01-01-login/tasks.md', 'agent-os/specs/profile/tasks.md',
    ];
    assert.deepEqual(await baton.specs.sources(), expected);
    // A file outside those folders counts once a spec workflow ran on it, while it exists.
    await baton.specs.start({ source: 'docs/plan/tasks.md' });
    await baton.specs.start({ source: 'docs/old/tasks.md' });
    rmSync(join(w, 'docs/old'), { recursive: true });
    assert.deepEqual(await baton.specs.sources(), [...expected, 'docs/plan/tasks.md']);
    // An empty workspace has none, and the error for a missing source says where it looked.
    const { baton: bare } = await makeBaton({ workspacePath: makeWorkspace() });
    assert.deepEqual(await bare.specs.sources(), []);
    const none = await bare.nextStep({ template_name: 'spec_execution_v1', source: 'tasks.md' });
    assert.match(none.error!.message, /No tasks\.md was found in the workspace root or its spec folders \(specs\/, \.kiro\/specs\//);
  });

  it('a missing source names at most ten of the tasks.md files found', async () => {
    const files = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`specs/f${String(i).padStart(2, '0')}/tasks.md`, '- [ ] 1. x\n']));
    const { baton } = await makeBaton({ workspacePath: workspaceWith(files) });
    const e = await rejects(baton.specs.start({ source: 'specs/nope/tasks.md' }), 'source_not_found');
    assert.match(e.message, /specs\/f00\/tasks\.md, .*specs\/f09\/tasks\.md and 2 more\.$/);
    assert.equal((e.details.sources as string[]).length, 10);
    const empty = await baton.nextStep({ template_name: 'spec_execution_v1' });
    assert.match(empty.error!.message, /such as "specs\/f00\/tasks\.md"\)\. tasks\.md files in the workspace: specs\/f00/);
  });

  it('paths outside the workspace are refused: "..", absolute, and a symlink that leads out', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'baton-out-'));
    writeFileSync(join(outside, 'tasks.md'), readFileSync(join(fixtures, 'auth-service.tasks.md'), 'utf8'));
    symlinkSync(join(outside, 'tasks.md'), join(ws, 'link.md'));
    const { baton } = await makeBaton({ workspacePath: ws });
    for (const source of ['../tasks.md', 'specs/../../x.md', join(outside, 'tasks.md'), 'C:\\specs\\tasks.md', 'link.md']) {
      const r = await baton.nextStep({ template_name: 'spec_execution_v1', source });
      assert.equal(r.error?.code, 'source_outside_workspace', source);
    }
    // An absolute path inside the workspace is fine.
    const ok = await baton.nextStep({ template_name: 'spec_execution_v1', source: join(ws, 'specs/a/tasks.md') });
    assert.equal(ok.status, 'ok');
    assert.deepEqual(resolveInWorkspace('/w', './specs//a/tasks.md'), { relative: 'specs/a/tasks.md', absolute: '/w/specs/a/tasks.md' });
  });

  it('source_parse_failed carries the file, line, what was expected and an example; nothing is created', async () => {
    const { baton } = await makeBaton({ workspacePath: ws });
    const r = await baton.nextStep({ template_name: 'spec_execution_v1', source: 'specs/empty.md' });
    assert.equal(r.error?.code, 'source_parse_failed');
    assert.match(r.error!.message, /specs\/empty\.md, line 8: Phase 2 "Ranking" has no tasks/);
    const e = await rejects(baton.specs.start({ source: 'specs/empty.md' }), 'source_parse_failed');
    assert.deepEqual([e.details.file, e.details.line], ['specs/empty.md', 8]);
    assert.equal(baton.listExecutions().length, 0);
  });

  it('template_not_found lists the workflows, or the spec templates that exist', async () => {
    const custom = `name: my-spec
description: A spec run with a template file that is not there
type: sequential
dynamic_phases: true
dynamic_config:
  source_type: spec_tasks_md
  templates:
    phase: spec-templates/missing-phase.md
    task: spec-templates/task-template.md
  parser: auto
steps:
  - name: phase-0
    agent: architect
    description: Read the spec
`;
    const w = workspaceWith({ 'specs/a/tasks.md': readFileSync(join(fixtures, 'auth-service.tasks.md'), 'utf8'), '.baton/workflows/my-spec.yaml': custom });
    const { baton } = await makeBaton({ workspacePath: w });
    const r = await baton.nextStep({ template_name: 'spec_execution_v2', source: 'specs/a/tasks.md' });
    assert.equal(r.error?.code, 'template_not_found');
    assert.match(r.error!.message, /spec_execution_v1/);
    const e = await rejects(baton.specs.start({ source: 'specs/a/tasks.md', template_name: 'my-spec' }), 'template_not_found');
    assert.deepEqual(e.details.templates, ['spec-templates/phase-template.md', 'spec-templates/task-template.md']);
    await rejects(baton.specs.start({ source: 'specs/a/tasks.md', template_name: 'bug-fix' }), 'invalid_input');
    const noSource = await baton.nextStep({ template_name: 'spec_execution_v1' });
    assert.match(noSource.error!.message, /needs a source/);
    const staticWithSource = await baton.nextStep({ template_name: 'bug-fix', source: 'specs/a/tasks.md' });
    assert.equal(staticWithSource.error?.code, 'invalid_input');
  });

  it('a folder in a spec template\'s place is template_not_found naming it (it was an internal error)', async () => {
    const w = workspaceWith({ 'specs/a/tasks.md': readFileSync(join(fixtures, 'auth-service.tasks.md'), 'utf8') });
    mkdirSync(join(w, '.baton', 'spec-templates', 'task-template.md'), { recursive: true });
    const { baton } = await makeBaton({ workspacePath: w });
    const e = await rejects(baton.specs.start({ source: 'specs/a/tasks.md' }), 'template_not_found');
    assert.match(e.message, /^The spec template .*\.baton\/spec-templates\/task-template\.md cannot be read \(EISDIR.*\); make it a markdown file, or remove it to use the bundled one\.$/);
  });

  it('an unknown session is execution_not_found; a static execution is not a spec session', async () => {
    const { baton } = await makeBaton({ workspacePath: ws });
    await rejects(baton.specs.currentPhase('nope'), 'execution_not_found');
    const r = await baton.nextStep({ template_name: 'bug-fix' });
    await rejects(baton.specs.currentPhase(r.execution_id!), 'execution_not_found');
    const t = await baton.nextStep({ request: 'get_task', step_token: r.new_step_token!, task_number: 1 });
    assert.equal(t.error?.code, 'invalid_input');
  });
});
