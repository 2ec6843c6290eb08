// Builds dist/cli.js and dist/extension.js with esbuild and copies sql.js's wasm and the migrations beside them.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, chmodSync, readdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { sqlJsPatchPlugin } from './sqljsPatch.mjs';

const require = createRequire(import.meta.url);
const root = join(dirname(new URL(import.meta.url).pathname), '..');
const dist = join(root, 'dist');
mkdirSync(dist, { recursive: true });

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  absWorkingDir: root,
  plugins: [sqlJsPatchPlugin()],
};

await Promise.all([
  build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } }),
  build({ ...common, entryPoints: ['src/vscode/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] }),
  // The panel's browser code: one self-contained script loaded by the webview under a strict CSP.
  build({
    bundle: true, platform: 'browser', target: 'es2022', format: 'iife', sourcemap: true, logLevel: 'warning', absWorkingDir: root,
    entryPoints: ['webview/main.ts'], outfile: 'dist/webview/main.js', loader: { '.css': 'text' },
  }),
]);
chmodSync(join(dist, 'cli.js'), 0o755);
copyFileSync(join(dirname(require.resolve('sql.js')), 'sql-wasm.wasm'), join(dist, 'sql-wasm.wasm'));
mkdirSync(join(dist, 'migrations'), { recursive: true });
for (const f of readdirSync(join(root, 'src', 'store', 'migrations'))) {
  if (f.endsWith('.sql')) copyFileSync(join(root, 'src', 'store', 'migrations', f), join(dist, 'migrations', f));
}
// Codicons for the panel (the font is loaded by the webview from dist/codicons).
const codicons = join(dirname(require.resolve('@vscode/codicons/package.json')), 'dist');
mkdirSync(join(dist, 'codicons'), { recursive: true });
for (const f of ['codicon.css', 'codicon.ttf']) if (existsSync(join(codicons, f))) copyFileSync(join(codicons, f), join(dist, 'codicons', f));
