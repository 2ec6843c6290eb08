// Builds dist/cli.js and dist/extension.js with esbuild and copies sql.js's wasm and the migrations beside them.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, chmodSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

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
};

await Promise.all([
  build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } }),
  build({ ...common, entryPoints: ['src/vscode/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] }),
]);
chmodSync(join(dist, 'cli.js'), 0o755);
copyFileSync(join(dirname(require.resolve('sql.js')), 'sql-wasm.wasm'), join(dist, 'sql-wasm.wasm'));
mkdirSync(join(dist, 'migrations'), { recursive: true });
for (const f of readdirSync(join(root, 'src', 'store', 'migrations'))) {
  if (f.endsWith('.sql')) copyFileSync(join(root, 'src', 'store', 'migrations', f), join(dist, 'migrations', f));
}
