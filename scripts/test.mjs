// Runs the test files under test/ (or the folders given) with node's test runner and tsx. Before any test runs, it
// installs what the chosen tests need: the editor host (Chromium, Node 24, code-server) for the editor tests, or only
// Chromium for a browser test among the others (test/unit/webviewPanel.test.ts), and the real agent CLIs from npm
// (agent-clis/) for a test that drives them; with everything present that is a few file checks. Node 20's `--test` does not expand globs, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ensureAgentClis } from './agentClis.mjs';
import { ensureChromium, ensureEditorHost } from './editorHost.mjs';

const root = join(new URL('.', import.meta.url).pathname, '..');
const DEFAULT_FOLDERS = ['test/unit', 'test/integration', 'test/e2e'];
const log = (line) => process.stderr.write(`${line}\n`);

/** The test files under `folders` (relative to the repo; a `.test.ts` file stands for itself), fixtures and helpers left out. */
export function findTests(folders) {
  const find = (dir) => {
    if (dir.endsWith('.test.ts')) return existsSync(dir) ? [relative(root, dir)] : [];
    let entries;
    try {
      entries = readdirSync(dir);
    } catch {
      return [];
    }
    return entries.sort().flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === 'fixtures' || name === 'helpers' ? [] : find(path);
      return name.endsWith('.test.ts') ? [relative(root, path)] : [];
    });
  };
  return folders.flatMap((f) => find(join(root, f)));
}

/** Editor tests each start a real editor and browser: they run after the rest, one file at a time. */
export function isEditorTest(file) {
  return file.startsWith(join('test', 'e2e') + '/');
}

/** What must be installed before `files` run: the whole editor host, or only Chromium (a test that drives a browser). */
export function testNeeds(files, read = (f) => readFileSync(join(root, f), 'utf8')) {
  if (files.some(isEditorTest)) return 'editor-host';
  return files.some((f) => /\bchromium\b/i.test(read(f))) ? 'chromium' : 'nothing';
}

/** Whether one of `files` drives the real agent CLIs (it imports scripts/agentClis.mjs), which must be installed first. */
export function needsAgentClis(files, read = (f) => readFileSync(join(root, f), 'utf8')) {
  return files.some((f) => /from '[./]*\/scripts\/agentClis\.mjs'/.test(read(f)));
}

/** The run's scratch folder, which the tests see as their temporary folder (TMPDIR), and its removal. */
const realScratch = {
  make: () => mkdtempSync(join(tmpdir(), 'baton-test-')),
  remove: (dir) => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }),
};

/**
 * Installs what the tests need, then runs them in two groups (the rest two at a time, then the editor tests one at a
 * time), with a scratch folder of the run's own as their temporary folder: the workspaces, databases, editors'
 * profiles and screenshots the tests and their child processes make there are removed when every test passed, and
 * kept (the run says where) when one failed, after the list of the failed tests (scripts/failedTests.mjs's lines), so
 * that the end of the output names them. `install`, `run`, `scratch`, `failed` and `say` (stderr) are the real ones
 * unless a test passes its own. Returns the exit status.
 */
export async function main(
  folders,
  {
    install = installFor,
    installAgentClis = () => ensureAgentClis({ log }),
    run = runGroup,
    scratch = realScratch,
    failed = readFailed,
    say = log,
  } = {},
) {
  const files = findTests(folders.length ? folders : DEFAULT_FOLDERS);
  if (files.length === 0) {
    say(`no test files under ${folders.join(', ')}`);
    return 1;
  }
  try {
    await install(testNeeds(files));
    if (needsAgentClis(files)) await installAgentClis();
  } catch (err) {
    say(err.message);
    return 1;
  }
  const tmp = scratch.make();
  let status = 0;
  for (const [group, concurrency] of [[files.filter((f) => !isEditorTest(f)), 2], [files.filter(isEditorTest), 1]]) {
    if (group.length === 0) continue;
    const groupStatus = run(group, concurrency, tmp); // the editor tests run even when an earlier group failed
    status ||= groupStatus;
  }
  if (status !== 0) {
    const lines = failed(tmp);
    if (lines.length) say(`failed (${lines.length}):\n${lines.map((l) => `  ${l}`).join('\n')}`);
    say(`the tests' temporary files (workspaces, databases, screenshots) are kept in ${tmp}`);
    return status;
  }
  try {
    scratch.remove(tmp);
  } catch (err) {
    say(`the tests passed; their temporary folder ${tmp} could not be removed whole (${err.message})`);
  }
  return status;
}

async function installFor(need) {
  if (need === 'editor-host') await ensureEditorHost({ log });
  else if (need === 'chromium') ensureChromium({ log });
}

/** The environment of the test processes: built once (BATON_TEST_BUILT), with `tmp` as their temporary folder. */
export function testEnv(tmp, env = process.env) {
  return { ...env, BATON_TEST_BUILT: '1', TMPDIR: tmp };
}

let built = false;
let groupsRun = 0;
const FAILED_PREFIX = 'failed-tests-';

/** The lines scripts/failedTests.mjs wrote into `tmp` for the groups run, in order; none when there are none. */
function readFailed(tmp) {
  let names;
  try {
    names = readdirSync(tmp).filter((n) => n.startsWith(FAILED_PREFIX)).sort();
  } catch {
    return [];
  }
  return names.flatMap((n) => readFileSync(join(tmp, n), 'utf8').split('\n').filter(Boolean));
}

/**
 * Builds dist/ once for the whole run, then runs `files` with `tmp` as their temporary folder. The test files see
 * BATON_TEST_BUILT=1 and do not build again (a build while another file's child runs dist/cli.js could hand it a
 * half-written bundle).
 */
function runGroup(files, concurrency, tmp) {
  if (!built) {
    const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    if (build.status !== 0) {
      log('npm run build failed; no test was run');
      return 1;
    }
    built = true;
  }
  // The usual reporter (node's own choice: spec on a terminal, tap otherwise) on stdout, and the failed tests' list
  // into the scratch folder, for main() to print again at the end.
  const reporters = [
    `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(root, 'scripts', 'failedTests.mjs')}`,
    `--test-reporter-destination=${join(tmp, `${FAILED_PREFIX}${++groupsRun}.txt`)}`,
  ];
  const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...reporters, ...files];
  const result = spawnSync(process.execPath, args, {
    cwd: root,
    stdio: 'inherit',
    env: testEnv(tmp),
  });
  return result.status ?? 1;
}

if (import.meta.url === `file://${process.argv[1]}`) void main(process.argv.slice(2)).then((status) => process.exit(status));
