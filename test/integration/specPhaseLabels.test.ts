// Rule: a phase that tasks.md numbers otherwise than its place in the workflow (spec-kit's first template: `## Phase
// 3.1: Setup` is Phase 1) keeps the file's number in view, so a person or an agent can find it there: in `baton spec
// status` (the real CLI) and in the phase text an agent is handed.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { ensureBuilt, runCli, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { makeBaton } from '../helpers/coreHarness.js';

const fixture = join(__dirname, '..', 'fixtures', 'specs', 'others', 'speckit-template-v0.tasks.md');

before(() => ensureBuilt());

describe('spec-kit phases numbered 3.1 to 3.5', () => {
  it('`baton spec status` names each phase with the file\'s number beside its place', async () => {
    const setup = tempSetup('baton-spec-labels-');
    try {
      mkdirSync(join(setup.workspace, 'specs', '001-users'), { recursive: true });
      copyFileSync(fixture, join(setup.workspace, 'specs', '001-users', 'tasks.md'));
      const started = await runCli(['spec', 'start', 'specs/001-users/tasks.md', '--db', setup.db], {}, setup.workspace);
      assert.equal(started.code, 0, started.stderr);
      const st = await runCli(['spec', 'status', '--db', setup.db], {}, setup.workspace);
      assert.equal(st.code, 0, st.stderr);
      assert.deepEqual(st.stdout.split('\n').filter((l) => /^\S+ Phase \d/.test(l)), [
        '○ Phase 0: Read the spec and confirm scope (ready)',
        '· Phase 1: Setup (Phase 3.1 in the file) (pending)',
        '· Phase 2: Tests First (TDD) ⚠️ MUST COMPLETE BEFORE 3.3 (Phase 3.2 in the file) (pending)',
        '· Phase 3: Core Implementation (ONLY after tests are failing) (Phase 3.3 in the file) (pending)',
        '· Phase 4: Integration (Phase 3.4 in the file) (pending)',
        '· Phase 5: Polish (Phase 3.5 in the file) (pending)',
      ]);
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('the agent\'s outline and phase text say which phase of the file it is', async () => {
    const { baton, workspace } = await makeBaton();
    mkdirSync(join(workspace, 'specs', '001-users'), { recursive: true });
    copyFileSync(fixture, join(workspace, 'specs', '001-users', 'tasks.md'));
    type Spec = { outline?: string[]; validation_gate: string[] };
    const r = await baton.nextStep({ template_name: 'spec_execution_v1', source: 'specs/001-users/tasks.md' }) as { execution_id: string; context?: { spec?: Spec } };
    const spec = r.context!.spec!;
    assert.deepEqual(spec.outline?.slice(0, 2), ['Phase 1: Setup (Phase 3.1 in the file) (3 tasks)', 'Phase 2: Tests First (TDD) ⚠️ MUST COMPLETE BEFORE 3.3 (Phase 3.2 in the file) (4 tasks)']);
    const evidence = Object.fromEntries(spec.validation_gate.map((_, i) => [String(i + 1), 'read']));
    const next = await baton.specs.completePhase(r.execution_id, 0, evidence);
    assert.match(next.phase_content!.phase_overview, /^# Phase 1 of 5: Setup \(Phase 3\.1 in the file\)$/m);
  });
});
