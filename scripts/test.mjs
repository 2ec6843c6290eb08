// Runs the test files under test/ (or the folders given) with node's test runner and a TypeScript loader
// (typeScriptLoader). It installs what the chosen tests need: Chromium before a browser test among them
// (test/unit/webviewPanel.test.ts), and while the other tests run the editor host (Chromium, Node 24, code-server) for
// the editor tests and the real agent CLIs from npm (agent-clis/) for a test that drives them; with everything present
// that is a few file checks. Node 20's `--test` does not expand globs, so the files are listed here.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
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

/**
 * How many of the other tests' files run at a time: one more than the machine's cores. They wait part of the time
 * (on their servers' timers, children and sockets): two at a time on two cores kept the machine busy 80% of the run
 * (482 s), three at a time 93% (431 s).
 */
export function othersConcurrency(cores = availableParallelism()) {
  return cores + 1;
}

/** The run's scratch folder, which the tests see as their temporary folder (TMPDIR), and its removal. */
const realScratch = {
  make: () => mkdtempSync(join(tmpdir(), 'baton-test-')),
  remove: (dir) => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }),
};

/**
 * Installs what the tests need, then runs them in two groups (the rest othersConcurrency() at a time, then the editor
 * tests one at a time, whose editor host installs while the rest run, as the agent CLIs do), with a scratch folder of
 * the run's own as their temporary folder: the workspaces, databases, editors' profiles and screenshots the tests and
 * their child processes make there are removed when every test passed, and kept (the run says where) when one failed,
 * after the list of the failed tests (scripts/failedTests.mjs's lines), so that the end of the output names them.
 * `install`, `installAgentClis`, `run`, `scratch`, `failed` and `say` (stderr) are the real ones unless a test passes
 * its own. Returns the exit status.
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
  const editorFiles = files.filter(isEditorTest);
  const otherFiles = files.filter((f) => !isEditorTest(f));
  // The editor host (code-server on Node 24: minutes on a fresh machine) installs while the other tests run, which
  // need at most Chromium; the editor tests wait for it. Chromium's install failing stops the run before any test,
  // the editor host's before the editor tests (the run fails, saying why). The agent CLIs (npm, half a minute on a
  // fresh machine) install meanwhile too: the tests that drive them wait for that install in their own set-up
  // (scripts/agentClis.mjs, one installer at a time), and one that failed fails the run, saying why, once the tests
  // that did not need them have run.
  let editorHost = Promise.resolve(null);
  let agentClis = Promise.resolve(null);
  try {
    await install(otherFiles.length ? testNeeds(otherFiles) : 'editor-host');
    if (otherFiles.length && editorFiles.length) editorHost = install('editor-host').then(() => null, (err) => err);
    if (needsAgentClis(files)) agentClis = installAgentClis().then(() => null, (err) => err);
  } catch (err) {
    say(err.message);
    await editorHost; // not left half done by this process's exit
    return 1;
  }
  const tmp = scratch.make();
  let status = 0;
  if (otherFiles.length) status = await run(otherFiles, othersConcurrency(), tmp);
  const clisFailed = await agentClis;
  if (clisFailed) {
    say(`the agent CLIs' install failed (the tests that drive them tried again themselves): ${clisFailed.message}`);
    status ||= 1;
  }
  const hostFailed = await editorHost;
  if (hostFailed) {
    say(`the editor tests were not run: ${hostFailed.message}`);
    status ||= 1;
  } else if (editorFiles.length) {
    const editorStatus = await run(editorFiles, 1, tmp); // the editor tests run even when the others failed
    status ||= editorStatus;
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

/**
 * The environment of the test processes: built once (BATON_TEST_BUILT), with `tmp` as their temporary folder, and the
 * Baton commands they start on V8's baseline WebAssembly compiler alone (BATON_WASM_TIERS=baseline, unless the run
 * sets it: `BATON_WASM_TIERS=both npm test` runs the servers as shipped). The servers' optimizing compiles of their
 * first seconds were about a quarter of the CPU of the test files that start servers, for calls a test makes a few of;
 * the suite is CPU-bound on two cores. The benches run the servers as shipped.
 */
export function testEnv(tmp, env = process.env) {
  return { ...env, BATON_TEST_BUILT: '1', TMPDIR: tmp, BATON_WASM_TIERS: env.BATON_WASM_TIERS ?? 'baseline' };
}

let built = false;
let groupsRun = 0;
const FAILED_PREFIX = 'failed-tests-';
/**
 * How long one test file may run (node's --test-timeout bounds each file's process when files run in processes of
 * their own): the longest take a few minutes; the whole suite on a slow machine about twenty.
 */
const TEST_TIMEOUT_MS = 20 * 60_000;

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
async function runGroup(files, concurrency, tmp) {
  if (!built) {
    const build = await exitCode(spawn('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] }), 'npm run build');
    if (build !== 0) {
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
  // The test files' processes run sql.js on V8's baseline WebAssembly compiler alone (the runner passes its V8 flags on
  // to them): a process that opened a database otherwise spends about a second of CPU recompiling sql.js's hot
  // functions with the optimizing compiler on background threads, and waits for those compiles before it exits, for
  // code a test file would barely run. The Baton commands the tests start get the same through testEnv. Each also loads
  // scripts/testGuards.cjs: a test's process.kill of pid 0 or -1 fails that test instead of signalling the whole run.
  const guards = ['--require', join(root, 'scripts', 'testGuards.cjs')];
  // A test file that waits for something that never comes fails, named, after TEST_TIMEOUT_MS, instead of holding the
  // whole run (and CI) until something outside kills it: one that awaited a request the server had closed under it did.
  const args = ['--liftoff-only', ...typeScriptLoader(), ...guards, '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${TEST_TIMEOUT_MS}`, ...reporters, ...files];
  return exitCode(spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: testEnv(tmp) }), 'node --test');
}

/**
 * How the test files' processes load TypeScript: scripts/testLoader.cjs (a require hook: each process spends about
 * 0.35 s less CPU on its start than under tsx, whose ES module hooks start a thread of their own) where Node can
 * require the .mjs scripts the tests import, tsx otherwise (Node before 20.19 on the 20 line, or 22.12 on the 22 line).
 */
export function typeScriptLoader(features = process.features) {
  return features.require_module ? ['--require', join(root, 'scripts', 'testLoader.cjs')] : ['--import', 'tsx'];
}

/** `child`'s exit status (1 when it could not start, or was killed). Not spawnSync: an install going on meanwhile (the
 * editor host's) needs this process's event loop. */
function exitCode(child, what) {
  return new Promise((resolve) => {
    child.once('error', (err) => {
      log(`${what} could not start: ${err.message}`);
      resolve(1);
    });
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) void main(process.argv.slice(2)).then((status) => process.exit(status));
