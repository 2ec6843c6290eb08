// Builds dist/cli.js and dist/extension.js with esbuild and copies sql.js's wasm beside them.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, chmodSync } from 'node:fs';
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
