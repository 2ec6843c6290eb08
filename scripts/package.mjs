// `npm run package` (after the build): makes baton-<version>.vsix with @vscode/vsce and checks it — at most 3 MB,
// holding the bundle, the wasm, the migrations, the webview, the codicons, the bundled content, media and docs,
// and none of the sources, tests, benchmarks, editor host, node_modules or source maps.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(new URL('.', import.meta.url).pathname, '..');
const MAX_BYTES = 3 * 1024 * 1024;
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = join(root, `${manifest.name}-${manifest.version}.vsix`);

const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
const result = spawnSync(
  process.execPath,
  // Dependencies are bundled into dist/ by esbuild; relative README links stay relative (no repository URL here).
  [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', out],
  { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
);
if (result.status !== 0) fail(`vsce package failed (exit ${result.status})`);

const entries = listZip(readFileSync(out)).filter((n) => n.startsWith('extension/')).map((n) => n.slice('extension/'.length));
const problems = [];
const size = statSync(out).size;
if (size > MAX_BYTES) problems.push(`${relative(root, out)} is ${(size / 1048576).toFixed(2)} MB; the limit is 3 MB`);

const required = [
  'package.json', /^readme\.md$/i, /^changelog\.md$/i, /^LICENSE(\.txt|\.md)?$/,
  'dist/extension.js', 'dist/cli.js', 'dist/engine.js', 'dist/mcp-catalog.json', 'dist/sql-wasm.wasm', /^dist\/migrations\/\d+_\w+\.sql$/,
  'dist/webview/main.js', 'dist/codicons/codicon.css', 'dist/codicons/codicon.ttf',
  ...readdirSync(join(root, 'content'), { recursive: true })
    .map(String)
    .filter((f) => statSync(join(root, 'content', f)).isFile())
    .map((f) => `content/${f}`),
  ...(existsSync(join(root, 'media'))
    ? readdirSync(join(root, 'media'), { recursive: true })
        .map(String)
        .filter((f) => statSync(join(root, 'media', f)).isFile())
        .map((f) => `media/${f}`)
    : []),
];
for (const want of required) {
  const found = typeof want === 'string' ? entries.includes(want) : entries.some((e) => want.test(e));
  if (!found) problems.push(`missing from the vsix: ${want}`);
}
const forbidden = [/^src\//, /^test\//, /^bench\//, /^scripts\//, /^webview\//, /^editor-host\//, /node_modules\//, /\.map$/, /^\.baton/, /\.vsix$/, /^tsconfig/];
for (const entry of entries) {
  const rule = forbidden.find((re) => re.test(entry));
  if (rule) problems.push(`must not be in the vsix: ${entry} (matches ${rule})`);
}
if (problems.length) fail(problems.join('\n'));
console.log(`${relative(root, out)}: ${(size / 1024).toFixed(0)} KB, ${entries.length} files, checked`);

function fail(message) {
  console.error(`npm run package: ${message}`);
  process.exit(1);
}

// File names from a zip's central directory (the vsix is a plain zip).
function listZip(buf) {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) fail('the vsix is not a zip file');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const names = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) fail('the vsix has a damaged central directory');
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    names.push(buf.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}
