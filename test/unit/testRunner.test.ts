// Rule: the project's own test command installs what the chosen tests need before they run — Chromium for a browser
// test, the real agent CLIs for a test that drives them, nothing for the rest, and the editor host for the editor
// tests while the others run — and a failed install stops it with the install's message before the tests that need
// it; every group runs, and any failure fails the run.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import failedTests from '../../scripts/failedTests.mjs';
import {
  findTests,
  main,
  needsAgentClis,
  othersConcurrency,
  testEnv,
  testNeeds,
  typeScriptLoader,
  type TestNeed,
} from '../../scripts/test.mjs';

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

  it('runs the other tests one file more at a time than the machine has cores', () => {
    assert.equal(othersConcurrency(2), 3);
    assert.equal(othersConcurrency(1), 2);
    assert.equal(othersConcurrency(), availableParallelism() + 1);
  });

  it('takes a test file for itself, and a missing one for nothing', () => {
    assert.deepEqual(findTests(['test/unit/testRunner.test.ts']), [join('test', 'unit', 'testRunner.test.ts')]);
    assert.deepEqual(findTests(['test/unit/no-such.test.ts']), []);
    assert.equal(testNeeds(findTests(['test/e2e/inHost.test.ts'])), 'editor-host');
  });

  it('installs Chromium before the first test of a whole run, the editor host and the agent CLIs meanwhile', async () => {
    const { calls, status } = await record([]);
    assert.equal(status, 0);
    assert.deepEqual(calls.slice(0, 4), ['install chromium', 'install editor-host', 'install agent-clis', 'make scratch']);
    assert.match(calls[4]!, new RegExp(`^run \\d+ files × ${othersConcurrency()} with webviewPanel in /scratch$`));
    assert.match(calls[5]!, /^run \d+ files × 1 in \/scratch$/);
    assert.equal(calls[6], 'remove /scratch', 'a passing run leaves no temporary files behind');
    assert.equal(calls.length, 7);
  });

  it('runs the tests while the agent CLIs install, and waits for that install before it ends', async () => {
    const calls: string[] = [];
    let installed!: () => void;
    const status = await main(['test/integration'], {
      install: async () => void calls.push('install'),
      installAgentClis: () => {
        calls.push('install agent-clis: started');
        return new Promise<void>((resolve) => (installed = () => {
          calls.push('install agent-clis: done');
          resolve();
        }));
      },
      scratch: { make: () => '/scratch', remove: () => undefined },
      run: () => {
        calls.push('run');
        setTimeout(() => installed(), 10); // the install ends while the tests run
        return 0;
      },
    });
    assert.equal(status, 0);
    assert.deepEqual(calls, ['install', 'install agent-clis: started', 'run', 'install agent-clis: done']);
  });

  it('installs the editor host while the other tests run, and runs the editor tests once it is installed', async () => {
    const calls: string[] = [];
    let othersRan: () => void = () => undefined;
    const othersDone = new Promise<void>((resolve) => (othersRan = resolve));
    const status = await main([], {
      say: (line: string) => void calls.push(`say ${line}`),
      scratch: { make: () => '/scratch', remove: () => undefined },
      install: async (need: TestNeed) => {
        calls.push(`install ${need}`);
        if (need !== 'editor-host') return;
        await othersDone; // still installing while the other tests run
        calls.push('installed editor-host');
      },
      installAgentClis: async () => void calls.push('install agent-clis'),
      run: async (files, concurrency) => {
        calls.push(`run ${concurrency === 1 ? 'editor' : 'others'}`);
        if (concurrency !== 1) setTimeout(othersRan, 10);
        return 0;
      },
    });
    assert.equal(status, 0);
    assert.deepEqual(calls, ['install chromium', 'install editor-host', 'install agent-clis', 'run others', 'installed editor-host', 'run editor']);
  });

  it('runs the other tests when the editor host cannot be installed, then fails saying why, without the editor tests', async () => {
    const calls: string[] = [];
    const status = await main([], {
      say: (line: string) => void calls.push(`say ${line}`),
      scratch: { make: () => '/scratch', remove: () => assert.fail('a failed run keeps its files') },
      failed: () => [],
      install: async (need: TestNeed) => {
        calls.push(`install ${need}`);
        if (need === 'editor-host') throw new Error('editor host: npm install code-server failed (exit 1); see editor-host/install.log');
      },
      installAgentClis: async () => void calls.push('install agent-clis'),
      run: async (files, concurrency) => {
        calls.push(`run ${concurrency === 1 ? 'editor' : 'others'}`);
        return 0;
      },
    });
    assert.equal(status, 1);
    assert.deepEqual(calls, [
      'install chromium', 'install editor-host', 'install agent-clis', 'run others',
      'say the editor tests were not run: editor host: npm install code-server failed (exit 1); see editor-host/install.log',
      'say the tests\' temporary files (workspaces, databases, screenshots) are kept in /scratch',
    ]);
  });

  it('installs the editor host first when only editor tests are chosen', async () => {
    const { calls, status } = await record(['test/e2e']);
    assert.equal(status, 0);
    assert.deepEqual(calls.slice(0, 2), ['install editor-host', 'make scratch']);
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
    assert.equal(calls.filter((c) => c.startsWith('run ')).length, 2, calls.join('; '));
    assert.ok(!calls.some((c) => c.startsWith('remove')), 'a failed run keeps its workspaces and screenshots to look at');
    assert.equal(calls.at(-1), 'say the tests\' temporary files (workspaces, databases, screenshots) are kept in /scratch');
  });

  it('names the failed tests again at the very end of a failed run, after the editor tests\' long output', async () => {
    const said: string[] = [];
    const groups: string[] = [];
    const status = await main([], {
      install: async () => {},
      installAgentClis: async () => {},
      run: (files) => {
        groups.push(files.some((f) => f.includes('e2e')) ? 'editor' : 'rest');
        return groups.length === 1 ? 1 : 0;
      },
      scratch: { make: () => '/scratch', remove: () => assert.fail('a failed run keeps its files') },
      failed: (tmp) => (tmp === '/scratch' ? ['test/unit/a.test.ts  outer > adds: AssertionError: 2 !== 3'] : []),
      say: (line: string) => void said.push(line),
    });
    assert.equal(status, 1);
    assert.deepEqual(groups, ['rest', 'editor']);
    assert.deepEqual(said, [
      'failed (1):\n  test/unit/a.test.ts  outer > adds: AssertionError: 2 !== 3',
      'the tests\' temporary files (workspaces, databases, screenshots) are kept in /scratch',
    ]);
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
    assert.deepEqual(env, { PATH: '/usr/bin', TMPDIR: '/scratch', BATON_TEST_BUILT: '1', BATON_WASM_TIERS: 'baseline' });
  });

  it('starts the Baton commands on the baseline wasm compiler unless the run says otherwise', () => {
    assert.equal(testEnv('/scratch', {}).BATON_WASM_TIERS, 'baseline');
    assert.equal(testEnv('/scratch', { BATON_WASM_TIERS: 'both' }).BATON_WASM_TIERS, 'both');
    assert.equal(testEnv('/scratch', { BATON_WASM_TIERS: '' }).BATON_WASM_TIERS, '');
  });

  it("loads TypeScript with the project's require hook where Node can require the .mjs scripts, with tsx otherwise", () => {
    assert.deepEqual(typeScriptLoader({ require_module: true }), ['--require', join(__dirname, '..', '..', 'scripts', 'testLoader.cjs')]);
    assert.deepEqual(typeScriptLoader({}), ['--import', 'tsx']);
  });

  it("makes a test file's process.kill of pid 0 or -1 throw, naming it, and still signals a child by its pid", async () => {
    // In a process of its own group: were the guard to fail, its SIGKILL to group 0 would end that process only.
    const script = `
      const out = [];
      for (const pid of [0, -1, '0']) {
        try { process.kill(pid, 'SIGKILL'); out.push('signalled ' + pid); } catch (e) { out.push(e.message); }
      }
      const child = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
      child.on('exit', (code, signal) => { out.push('child ' + signal); console.log(JSON.stringify(out)); });
      process.kill(child.pid, 'SIGTERM');`;
    const guard = spawn(process.execPath, ['--require', join(__dirname, '..', '..', 'scripts', 'testGuards.cjs'), '-e', script], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    guard.stdout.on('data', (d: Buffer) => void (out += d.toString()));
    const [code, signal] = await once(guard, 'close');
    assert.deepEqual([code, signal], [0, null]);
    const own = "process.kill(0) would signal this process's own group (the test runner's, and CI's); the tests signal their children by pid (scripts/testGuards.cjs)";
    assert.deepEqual(JSON.parse(out), [
      own,
      'process.kill(-1) would signal every process; the tests signal their children by pid (scripts/testGuards.cjs)',
      own,
      'child SIGTERM',
    ]);
  });

  it('runs the tests when the agent CLIs cannot be installed, then fails saying why', async () => {
    const calls: string[] = [];
    const status = await main(['test/integration'], {
      install: async () => void calls.push('install'),
      installAgentClis: async () => {
        calls.push('install agent-clis');
        throw new Error('agent CLIs: `npm install` failed (exit 1)');
      },
      scratch: { make: () => '/scratch', remove: () => undefined },
      failed: () => [],
      say: (line: string) => void calls.push(`say ${line}`),
      run: () => {
        calls.push('run');
        return 0;
      },
    });
    assert.equal(status, 1);
    assert.deepEqual(calls.slice(0, 4), [
      'install', 'install agent-clis', 'run',
      "say the agent CLIs' install failed (the tests that drive them tried again themselves): agent CLIs: `npm install` failed (exit 1)",
    ]);
  });

  it('stops before any test when the install fails, with a non-zero status', async () => {
    const { calls, status } = await record(['test/unit'], new Error('Chromium is missing: sudo apt-get install -y chromium'));
    assert.equal(status, 1);
    assert.deepEqual(calls, ['install chromium', 'say Chromium is missing: sudo apt-get install -y chromium']);
  });
});

describe('the failed tests\' reporter', () => {
  /** What the reporter writes for `events`, as node's runner would hand them over. */
  async function report(events: { type: string; data: Record<string, unknown> }[]): Promise<string[]> {
    async function* source() {
      yield* events;
    }
    const lines: string[] = [];
    for await (const line of failedTests(source())) lines.push(line);
    return lines;
  }
  const file = join(process.cwd(), 'test', 'unit', 'a.test.ts');
  const other = join(process.cwd(), 'test', 'unit', 'b.test.ts');
  const failure = (cause: unknown, failureType = 'testCodeFailure') => Object.assign(new Error('test failed'), { cause, failureType });

  it('writes a line per failed test with its file, suites and the start of its error; passes and suites none', async () => {
    const lines = await report([
      { type: 'test:start', data: { file, nesting: 0, name: 'outer' } },
      { type: 'test:start', data: { file: other, nesting: 0, name: 'elsewhere' } },
      { type: 'test:start', data: { file, nesting: 1, name: 'adds' } },
      { type: 'test:start', data: { file: other, nesting: 1, name: 'passes' } },
      { type: 'test:pass', data: { file: other, nesting: 1, name: 'passes' } },
      { type: 'test:fail', data: { file, line: 3, nesting: 1, name: 'adds', details: { error: failure(new Error('Expected values to be strictly equal:\n\n2 !== 3\n')) } } },
      { type: 'test:fail', data: { file, line: 1, nesting: 0, name: 'outer', details: { error: failure(new Error('1 subtest failed'), 'subtestsFailed') } } },
      { type: 'test:start', data: { file, nesting: 0, name: 'times out' } },
      { type: 'test:fail', data: { file, line: 9, nesting: 0, name: 'times out', details: { error: failure('test timed out after 50ms', 'testTimeoutFailure') } } },
    ]);
    assert.deepEqual(lines, [
      `${join('test', 'unit', 'a.test.ts')}  outer > adds: Error: Expected values to be strictly equal: 2 !== 3\n`,
      `${join('test', 'unit', 'a.test.ts')}  times out: test timed out after 50ms\n`,
    ]);
  });

  it('cuts a long error to 300 characters', async () => {
    const [line] = await report([
      { type: 'test:fail', data: { file, nesting: 0, name: 'long', details: { error: failure(new Error('x'.repeat(1000))) } } },
    ]);
    assert.equal(line, `${join('test', 'unit', 'a.test.ts')}  long: Error: ${'x'.repeat(293)}...\n`);
  });
});
