// Rule: the project's own test command installs what the chosen tests need before any of them runs — the editor host
// for the editor tests, Chromium alone for a browser test among the others, the real agent CLIs for a test that drives
// them, nothing for the rest — and a failed install
// stops it with the install's message before any test runs; every group runs, and any failure fails the run.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findTests, main, needsAgentClis, testEnv, testNeeds, type TestNeed } from '../../scripts/test.mjs';

/** Runs main() with recording fakes: the calls in order, and the exit status. */
async function record(folders: string[], installError?: Error, groupStatus = 0): Promise<{ calls: string[]; status: number }> {
  const calls: string[] = [];
  const status = await main(folders, {
    say: (line: string) => void calls.push(`say ${line}`),
    scratch: {
      make: () => {
        calls.push('make scratch');
        return '/scratch';
      },
      remove: (dir: string) => void calls.push(`remove ${dir}`),
    },
    install: async (need: TestNeed) => {
      calls.push(`install ${need}`);
      if (installError) throw installError;
    },
    installAgentClis: async () => {
      calls.push('install agent-clis');
    },
    run: (files, concurrency, tmp) => {
      calls.push(`run ${files.length} files × ${concurrency}${files.some((f) => f.endsWith('webviewPanel.test.ts')) ? ' with webviewPanel' : ''} in ${tmp}`);
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

  it('takes a test file for itself, and a missing one for nothing', () => {
    assert.deepEqual(findTests(['test/unit/testRunner.test.ts']), [join('test', 'unit', 'testRunner.test.ts')]);
    assert.deepEqual(findTests(['test/unit/no-such.test.ts']), []);
    assert.equal(testNeeds(findTests(['test/e2e/inHost.test.ts'])), 'editor-host');
  });

  it('installs the editor host before the first test of a whole run, whose unit group has the browser test', async () => {
    const { calls, status } = await record([]);
    assert.equal(status, 0);
    assert.equal(calls[0], 'install editor-host');
    assert.equal(calls[1], 'install agent-clis');
    assert.equal(calls[2], 'make scratch');
    assert.match(calls[3]!, /^run \d+ files × 2 with webviewPanel in \/scratch$/);
    assert.match(calls[4]!, /^run \d+ files × 1 in \/scratch$/);
    assert.equal(calls[5], 'remove /scratch', 'a passing run leaves no temporary files behind');
    assert.equal(calls.length, 6);
  });

  it('installs only Chromium for the unit tests, and the agent CLIs (no editor) for the integration tests', async () => {
    const unit = (await record(['test/unit'])).calls;
    assert.equal(unit[0], 'install chromium');
    assert.ok(!unit.includes('install agent-clis'), unit.join('; '));
    assert.deepEqual((await record(['test/integration'])).calls.slice(0, 2), ['install nothing', 'install agent-clis']);
  });

  it('finds the tests that drive the real agent CLIs by their import of scripts/agentClis.mjs', () => {
    assert.equal(needsAgentClis(findTests(['test/integration'])), true);
    assert.equal(needsAgentClis(findTests(['test/unit'])), false);
    assert.equal(needsAgentClis(['test/integration/a.test.ts'], () => `import { ensureAgentClis } from '../../scripts/${'agentClis'}.mjs';`), true);
    assert.equal(needsAgentClis(['test/integration/a.test.ts'], () => 'no agent CLIs here'), false);
  });

  it('runs the editor tests even when an earlier group failed, reports the failure and keeps its temporary files', async () => {
    const { calls, status } = await record([], undefined, 1);
    assert.equal(status, 1);
    assert.equal(calls.length, 6, calls.join('; '));
    assert.ok(!calls.some((c) => c.startsWith('remove')), 'a failed run keeps its workspaces and screenshots to look at');
    assert.equal(calls.at(-1), 'say the tests\' temporary files (workspaces, databases, screenshots) are kept in /scratch');
  });

  it('passes when the tests passed though their temporary folder could not be removed (a child still writing there)', async () => {
    const said: string[] = [];
    const status = await main(['test/unit/testRunner.test.ts'], {
      install: async () => {},
      run: () => 0,
      say: (line: string) => void said.push(line),
      scratch: {
        make: () => '/scratch',
        remove: () => {
          throw new Error('ENOTEMPTY: directory not empty');
        },
      },
    });
    assert.equal(status, 0);
    assert.deepEqual(said, ['the tests passed; their temporary folder /scratch could not be removed whole (ENOTEMPTY: directory not empty)']);
  });

  it('gives the tests and their child processes the run\'s scratch folder as their temporary folder', () => {
    const env = testEnv('/scratch', { PATH: '/usr/bin', TMPDIR: '/tmp' });
    assert.deepEqual(env, { PATH: '/usr/bin', TMPDIR: '/scratch', BATON_TEST_BUILT: '1' });
  });

  it('stops before any test when the agent CLIs cannot be installed', async () => {
    const calls: string[] = [];
    const status = await main(['test/integration'], {
      install: async () => void calls.push('install'),
      installAgentClis: async () => {
        calls.push('install agent-clis');
        throw new Error('agent CLIs: `npm install` failed (exit 1)');
      },
      run: () => {
        calls.push('run');
        return 0;
      },
    });
    assert.equal(status, 1);
    assert.deepEqual(calls, ['install', 'install agent-clis']);
  });

  it('stops before any test when the install fails, with a non-zero status', async () => {
    const { calls, status } = await record(['test/unit'], new Error('Chromium is missing: sudo apt-get install -y chromium'));
    assert.equal(status, 1);
    assert.deepEqual(calls, ['install chromium', 'say Chromium is missing: sudo apt-get install -y chromium']);
  });
});
