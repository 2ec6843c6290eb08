// Runs the test files under test/ (or the folders given) with node's test runner and tsx. Before any test runs, it
// installs what the chosen tests need: the editor host (Chromium, Node 24, code-server) for the editor tests, or only
// Chromium for a browser test among the others (test/unit/webviewPanel.test.ts); with everything present that is a
// few file checks. Node 20's `--test` does not expand globs, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ensureChromium, ensureEditorHost } from './editorHost.mjs';

const root = join(new URL('.', import.meta.url).pathname, '..');
const DEFAULT_FOLDERS = ['test/unit', 'test/integration', 'test/e2e'];
const log = (line) => process.stderr.write(`${line}\n`);

/** The test files under `folders` (relative to the repo), fixtures and helpers left out. */
export function findTests(folders) {
  const find = (dir) => {
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

/**
 * Installs what the tests need, then runs them in two groups (the rest two at a time, then the editor tests one at a
 * time). `install` and `run` are the real ones unless a test passes its own. Returns the exit status.
 */
export async function main(folders, { install = installFor, run = runGroup } = {}) {
  const files = findTests(folders.length ? folders : DEFAULT_FOLDERS);
  if (files.length === 0) {
    log(`no test files under ${folders.join(', ')}`);
    return 1;
  }
  try {
    await install(testNeeds(files));
  } catch (err) {
    log(err.message);
    return 1;
  }
  let status = 0;
  for (const [group, concurrency] of [[files.filter((f) => !isEditorTest(f)), 2], [files.filter(isEditorTest), 1]]) {
    if (group.length === 0) continue;
    const groupStatus = run(group, concurrency); // the editor tests run even when an earlier group failed
    status ||= groupStatus;
  }
  return status;
}

async function installFor(need) {
  if (need === 'editor-host') await ensureEditorHost({ log });
  else if (need === 'chromium') ensureChromium({ log });
}

function runGroup(files, concurrency) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], {
    cwd: root,
    stdio: 'inherit',
  });
  return result.status ?? 1;
}

if (import.meta.url === `file://${process.argv[1]}`) void main(process.argv.slice(2)).then((status) => process.exit(status));
