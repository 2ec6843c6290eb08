// Rule: a completed phase's boxes are ticked with one-character edits that leave every other byte of tasks.md as it
// was (BOM, CRLF, tabs, unicode), found again after lines moved and never guessed; the file write is atomic and
// refuses when the file changed under it; drift ignores ticks and line endings but reports any other change.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compareSource } from '../../src/core/specs/drift.js';
import { parseSource } from '../../src/core/specs/sourceParser.js';
import { SPEC_PARSERS } from '../../src/core/specs/specWorkflows.js';
import { applyEdits, phaseCheckboxes, planTicks } from '../../src/core/specs/writeBack.js';
import type { BatonError } from '../../src/core/errors.js';
import { fileSpecSource, readIfThere } from '../../src/host/specSourceFile.js';

const fixtures = join(__dirname, '..', 'fixtures', 'specs');
const read = (name: string) => readFileSync(join(fixtures, name), 'utf8');
const parse = (text: string) => parseSource(SPEC_PARSERS, 'auto', text, 'tasks.md');

/** The bytes of `a` and `b` that differ, as [offset, before, after]. */
function byteDiff(a: string, b: string): Array<[number, string, string]> {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  assert.equal(x.length, y.length, 'the same number of bytes');
  const out: Array<[number, string, string]> = [];
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) out.push([i, String.fromCharCode(x[i]!), String.fromCharCode(y[i]!)]);
  return out;
}

describe('spec write-back: the edits', () => {
  for (const file of ['auth-service.tasks.md', 'payments-crlf.tasks.md', 'unicode-tabs.tasks.md', 'kiro.tasks.md', 'spec-kit.tasks.md', 'task-master.tasks.md']) {
    it(`${file}: ticking phase 1 changes only its open boxes' marks`, () => {
      const text = read(file);
      const phase = parse(text).phases[0]!;
      const refs = phaseCheckboxes(phase);
      const plan = planTicks(text, refs);
      assert.deepEqual(plan.refused, []);
      const open = new Set(refs.filter((r) => r.mark === ' ').map((r) => r.line));
      assert.equal(plan.edits.length, open.size, 'one edit per open box');
      assert.ok(plan.edits.every((e) => e.length === 1 && e.text === 'x'));
      const after = applyEdits(text, plan.edits);
      const diff = byteDiff(text, after);
      assert.equal(diff.length, open.size);
      assert.ok(diff.every(([, before, now]) => before === ' ' && now === 'x'));
      if (file === 'payments-crlf.tasks.md') {
        assert.ok(after.startsWith('\uFEFF') && after.split('\r\n').length === text.split('\r\n').length, 'BOM and CRLF kept');
      }
      // Ticked again: nothing left to do.
      const again = planTicks(after, refs);
      assert.deepEqual(again.edits, []);
      assert.equal(again.already, new Set(refs.map((r) => r.line)).size, 'every box (a line counted once) is ticked');
    });
  }

  it('finds a box whose line moved, and refuses one that is gone or ambiguous', () => {
    const text = read('auth-service.tasks.md');
    const phase = parse(text).phases[1]!;
    const moved = `# A note added on top\n\n${text}`;
    const plan = planTicks(moved, phaseCheckboxes(phase));
    assert.deepEqual(plan.refused, []);
    assert.ok(plan.edits.length > 0);
    assert.ok(applyEdits(moved, plan.edits).includes('- [x] **Task 2.1**: POST /login endpoint'));
    const gone = text.replace('- [ ] **Task 2.2**: Session cookie middleware\n', '');
    const refusedGone = planTicks(gone, phaseCheckboxes(phase)).refused;
    assert.equal(refusedGone.length, 1);
    assert.match(refusedGone[0]!.reason, /no longer in the file/);
    const twice = text.replace('- [ ] Integration tests for login pass', '- [ ] Integration tests for login pass\n- [ ] Integration tests for login pass\n');
    const shifted = `\n${twice}`;
    assert.match(planTicks(shifted, phaseCheckboxes(phase)).refused[0]!.reason, /appears 2 times/);
  });
});

describe('spec write-back: the file', () => {
  const tmp = () => mkdtempSync(join(tmpdir(), 'baton-wb-'));

  it('writes atomically, byte for byte, and leaves no temp file', async () => {
    const dir = tmp();
    const path = join(dir, 'tasks.md');
    const text = read('payments-crlf.tasks.md');
    writeFileSync(path, text);
    const plan = planTicks(text, phaseCheckboxes(parse(text).phases[0]!));
    assert.deepEqual(await fileSpecSource.apply(path, text, plan.edits), { applied: true });
    const after = readFileSync(path, 'utf8');
    assert.equal(byteDiff(text, after).length, plan.edits.length);
    assert.deepEqual(readdirSync(dir), ['tasks.md']);
  });

  it('refuses when the file changed since it was read, and writes nothing', async () => {
    const dir = tmp();
    const path = join(dir, 'tasks.md');
    const text = read('auth-service.tasks.md');
    writeFileSync(path, text);
    const plan = planTicks(text, phaseCheckboxes(parse(text).phases[0]!));
    const edited = text.replace('# Auth Service', '# Auth Service (edited)');
    writeFileSync(path, edited);
    const outcome = await fileSpecSource.apply(path, text, plan.edits);
    assert.equal(outcome.applied, false);
    assert.match((outcome as { reason: string }).reason, /changed since it was read/);
    assert.equal(readFileSync(path, 'utf8'), edited);
  });

  it('refuses a file that is not UTF-8, naming the line, and never rewrites its bytes', async () => {
    const dir = tmp();
    const path = join(dir, 'tasks.md');
    const text = '## Phase 1: Setup\n- [ ] T001 Café\n';
    const latin1 = Buffer.concat([Buffer.from('## Phase 1: Setup\n- [ ] T001 Caf'), Buffer.from([0xe9, 0x20, 0xff, 0xfe]), Buffer.from('\n')]);
    writeFileSync(path, latin1);
    await assert.rejects(fileSpecSource.read(path), (ex: BatonError) => {
      assert.equal(ex.reason, 'source_parse_failed');
      assert.equal(ex.message, `${path} is not UTF-8 text (line 2 has bytes that are not UTF-8); save it as UTF-8 and try again: Baton ticks its boxes by editing its text, which would change those bytes.`);
      assert.equal(ex.details.line, 2);
      return true;
    });
    const plan = planTicks(text, phaseCheckboxes(parse(text).phases[0]!));
    const outcome = await fileSpecSource.apply(path, text, plan.edits);
    assert.equal(outcome.applied, false);
    assert.match((outcome as { reason: string }).reason, /is not UTF-8 text \(line 2 .* Nothing was written\.$/);
    assert.deepEqual(readFileSync(path), latin1, 'every byte as it was');
    // A byte-order mark is text (kept, or dropped for an editor's buffer), and UTF-8 across lines is fine.
    writeFileSync(path, `\uFEFF${text}`);
    assert.equal(await fileSpecSource.read(path), `\uFEFF${text}`);
    assert.equal(await readIfThere(path, true), text);
  });

  it('refuses a file that is gone', async () => {
    const outcome = await fileSpecSource.apply(join(tmp(), 'missing.md'), 'x', []);
    assert.equal(outcome.applied, false);
  });
});

describe('spec drift', () => {
  const text = read('payments-crlf.tasks.md');
  it('ticked boxes and other line endings are not drift', () => {
    assert.equal(compareSource('t.md', text, text).state, 'in_sync');
    assert.equal(compareSource('t.md', text, text.replace(/- \[ \]/g, '- [x]')).state, 'in_sync');
    assert.equal(compareSource('t.md', text, text.replace(/\r\n/g, '\n')).state, 'in_sync');
  });
  it('an edited line is drift, named by its line; a missing file is missing', () => {
    const d = compareSource('t.md', text, text.replace('Refund endpoint', 'Refund API'));
    assert.equal(d.state, 'drifted');
    assert.equal(d.first_difference?.line, 26);
    assert.match(d.first_difference!.current, /Refund API/);
    assert.equal(compareSource('t.md', text, undefined).state, 'missing');
  });
});
