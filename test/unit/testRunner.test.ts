// Rule: the project's own test command installs what the chosen tests need before any of them runs — the editor host
// for the editor tests, Chromium alone for a browser test among the others, nothing for the rest — and a failed install
// stops it with the install's message before any test runs; every group runs, and any failure fails the run.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findTests, main, testNeeds, type TestNeed } from '../../scripts/test.mjs';

/** Runs main() with recording fakes: the calls in order, and the exit status. */
async function record(folders: string[], installError?: Error, groupStatus = 0): Promise<{ calls: string[]; status: number }> {
  const calls: string[] = [];
  const status = await main(folders, {
    install: async (need: TestNeed) => {
      calls.push(`install ${need}`);
      if (installError) throw installError;
    },
    run: (files, concurrency) => {
      calls.push(`run ${files.length} files × ${concurrency}${files.some((f) => f.endsWith('webviewPanel.test.ts')) ? ' with webviewPanel' : ''}`);
      return groupStatus;
    },
  });
  return { calls, status };
}

describe('npm test', () => {
  it('finds the browser test among the unit tests and the editor tests under test/e2e', () => {
    const unit = findTests(['test/unit']);
    assert.ok(unit.includes(join('test', 'unit', 'webviewPanel.test.ts')));
    assert.equal(testNeeds(unit), 'chromium');
    assert.equal(testNeeds(findTests(['test/integration'])), 'nothing');
    assert.equal(testNeeds(findTests(['test/e2e'])), 'editor-host');
    assert.equal(testNeeds(findTests(['test/unit', 'test/integration', 'test/e2e'])), 'editor-host');
    assert.equal(testNeeds(['test/unit/a.test.ts'], () => 'launch Chromium'), 'chromium');
    assert.equal(testNeeds(['test/unit/a.test.ts'], () => 'no browser here'), 'nothing');
  });

  it('installs the editor host before the first test of a whole run, whose unit group has the browser test', async () => {
    const { calls, status } = await record([]);
    assert.equal(status, 0);
    assert.equal(calls[0], 'install editor-host');
    assert.match(calls[1]!, /^run \d+ files × 2 with webviewPanel$/);
    assert.match(calls[2]!, /^run \d+ files × 1$/);
    assert.equal(calls.length, 3);
  });

  it('installs only Chromium for the unit tests, and nothing for the integration tests', async () => {
    assert.deepEqual((await record(['test/unit'])).calls.slice(0, 1), ['install chromium']);
    assert.deepEqual((await record(['test/integration'])).calls[0], 'install nothing');
  });

  it('runs the editor tests even when an earlier group failed, and reports the failure', async () => {
    const { calls, status } = await record([], undefined, 1);
    assert.equal(status, 1);
    assert.equal(calls.length, 3, calls.join('; '));
  });

  it('stops before any test when the install fails, with a non-zero status', async () => {
    const { calls, status } = await record(['test/unit'], new Error('Chromium is missing: sudo apt-get install -y chromium'));
    assert.equal(status, 1);
    assert.deepEqual(calls, ['install chromium']);
  });
});
