// Runs the test files under test/ (or the folders given) with node's test runner and tsx.
// Node 20's `--test` does not expand globs, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(new URL('.', import.meta.url).pathname, '..');
const folders = process.argv.slice(2).length ? process.argv.slice(2) : ['test/unit', 'test/integration', 'test/e2e'];

function find(dir) {
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
}

const files = folders.flatMap((f) => find(join(root, f)));
if (files.length === 0) {
  console.error(`no test files under ${folders.join(', ')}`);
  process.exit(1);
}
// Editor tests each start a real editor and browser: they run after the rest, one file at a time.
const isEditorTest = (f) => f.startsWith(join('test', 'e2e') + '/');
let status = 0;
for (const [group, concurrency] of [[files.filter((f) => !isEditorTest(f)), 2], [files.filter(isEditorTest), 1]]) {
  if (group.length === 0) continue;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...group], {
    cwd: root,
    stdio: 'inherit',
  });
  status ||= result.status ?? 1;
}
process.exit(status);
