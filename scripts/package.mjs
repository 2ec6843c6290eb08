// `npm run package` (after the build): makes baton-<version>.vsix with @vscode/vsce and checks it — at most 3 MB,
// holding the bundle, the wasm, the migrations, the webview, the codicons, the bundled content, media and docs, and
// none of the sources, tests, benchmarks, editor host, node_modules or source maps; a manifest ready for the
// Marketplace (a 128×128 PNG icon, valid categories, keywords, a gallery banner, no placeholder links, nothing of the
// tests, no `onCommand:` events); and a README whose images are in the package. Prints one line with the file count.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { checkManifest, checkReadme, listZip, readZipEntry } from './vsixChecks.mjs';

const root = join(new URL('.', import.meta.url).pathname, '..');
const MAX_BYTES = 3 * 1024 * 1024;
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = join(root, `${manifest.name}-${manifest.version}.vsix`);

const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
const result = spawnSync(
  process.execPath,
  // Dependencies are bundled into dist/ by esbuild. There is no public repository: --allow-missing-repository keeps vsce
  // from asking about it (CI has no stdin), and relative README links stay relative (vsce can only rewrite them to a
  // repository's URL); the README's images are in the package, where the editor's extension page finds them.
  [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', out],
  { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' },
);
const vsceOutput = `${result.stdout ?? ''}${result.stderr ?? ''}`;
if (result.status !== 0) fail(`vsce package failed (exit ${result.status}):\n${vsceOutput}`);
for (const line of vsceOutput.split('\n').filter((l) => /WARNING/.test(l))) process.stderr.write(`${line}\n`);

const zip = readFileSync(out);
let all = [];
try {
  all = listZip(zip);
} catch (err) {
  fail(err.message);
}
const entries = all.filter((n) => n.startsWith('extension/')).map((n) => n.slice('extension/'.length));
const problems = [];
const size = statSync(out).size;
if (size > MAX_BYTES) problems.push(`${relative(root, out)} is ${(size / 1048576).toFixed(2)} MB; the limit is 3 MB`);
// vsce counts every entry of the zip, its own [Content_Types].xml and extension.vsixmanifest included.
const vsceCount = Number(/Packaged: .*\((\d+) files?,/.exec(vsceOutput)?.[1]);
if (vsceCount !== all.length) problems.push(`vsce reported ${vsceCount} files but the vsix holds ${all.length}`);

const required = [
  'package.json', /^readme\.md$/i, /^changelog\.md$/i, /^LICENSE(\.txt|\.md)?$/,
  'dist/extension.js', 'dist/cli.js', 'dist/engine.js', 'dist/forward.js', 'dist/mcp-catalog.json', 'dist/content-cache.json', 'dist/sql-wasm.wasm', /^dist\/migrations\/\d+_\w+\.sql$/, 'dist/migrations/schema.db',
  'dist/webview/main.js', 'dist/codicons/codicon.css', 'dist/codicons/codicon.ttf',
  ...filesUnder('content'),
  ...filesUnder('media'),
];
for (const want of required) {
  const found = typeof want === 'string' ? entries.includes(want) : entries.some((e) => want.test(e));
  if (!found) problems.push(`missing from the vsix: ${want}`);
}
const forbidden = [/^src\//, /^test\//, /^bench\//, /^scripts\//, /^webview\//, /^editor-host\//, /^agent-clis\//, /node_modules\//, /\.map$/, /^\.baton/, /\.vsix$/, /^tsconfig/];
for (const entry of entries) {
  const rule = forbidden.find((re) => re.test(entry));
  if (rule) problems.push(`must not be in the vsix: ${entry} (matches ${rule})`);
}
const readFile = (path) => readZipEntry(zip, `extension/${path}`);
try {
  problems.push(...checkManifest(JSON.parse(readFile('package.json').toString('utf8')), entries, readFile));
  problems.push(...checkReadme(readFile(entries.find((n) => /^readme\.md$/i.test(n)) ?? 'readme.md').toString('utf8'), entries));
} catch (err) {
  problems.push(err.message);
}
if (problems.length) fail(problems.join('\n'));
console.log(`${relative(root, out)}: ${all.length} files, ${(size / 1048576).toFixed(2)} MB, checked`);
if (!manifest.repository) {
  // The Marketplace page and the editor's extension page show README images only from https addresses.
  process.stderr.write('note: no public repository in package.json, so the README screenshots show as their alt text on the Marketplace and in the editor\'s extension page\n');
}

function filesUnder(dir) {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { recursive: true })
    .map(String)
    .filter((f) => statSync(join(root, dir, f)).isFile())
    .map((f) => `${dir}/${f}`);
}

function fail(message) {
  console.error(`npm run package: ${message}`);
  process.exit(1);
}

