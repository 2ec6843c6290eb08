// Builds dist/cli.js (lean: argument parsing and the stdio front of `baton mcp`), dist/engine.js (the rest of the CLI,
// loaded by dist/cli.js when needed), dist/forward.js (a forwarding `baton mcp`'s proxy) and dist/extension.js with
// esbuild; copies sql.js's wasm and the migrations beside
// them; and writes dist/mcp-catalog.json, the initialize and tools/list answers `baton mcp` gives before its engine loads.
import { build as esbuild } from 'esbuild';
import { copyFileSync, mkdirSync, chmodSync, readdirSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { sqlJsPatchPlugin } from './sqljsPatch.mjs';

const require = createRequire(import.meta.url);
const root = join(dirname(new URL(import.meta.url).pathname), '..');
const dist = join(root, 'dist');
mkdirSync(dist, { recursive: true });

/** Writes `path` by rename, so a process loading dist/ meanwhile (a test's child) reads the old file or the new one, never half. */
function writeAtomic(path, data) {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

/** esbuild's build, its output files written with writeAtomic. */
async function build(options) {
  const { outputFiles } = await esbuild({ ...options, write: false });
  for (const f of outputFiles) writeAtomic(f.path, f.contents);
}

/**
 * A require() of the MCP SDK (src/mcp/sdkTypes.ts loads its schemas on first use that way) bundles the same ES module
 * the imports do: by its "require" condition esbuild would take the SDK's CommonJS copy, and with it a second zod.
 */
const sdkRequireAsImport = {
  name: 'baton-sdk-require-as-import',
  setup(b) {
    b.onResolve({ filter: /^@modelcontextprotocol\/sdk\// }, (args) =>
      args.kind === 'require-call' ? b.resolve(args.path, { kind: 'import-statement', resolveDir: args.resolveDir }) : undefined);
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  absWorkingDir: root,
  plugins: [sqlJsPatchPlugin(), sdkRequireAsImport],
  // Node 21+ has a navigator global, and VS Code's extension host logs a PendingMigrationError when code reads it
  // (https://aka.ms/vscode-extensions/navigator): zod looks for Cloudflare in its userAgent, sql.js for a language.
  // These bundles run in Node only, where neither applies.
  define: { navigator: 'undefined', 'globalThis.navigator': 'undefined' },
};

/**
 * dist/cli.js loads the engine with require('./engine.js'), a file of its own, when it needs it, and a forwarding
 * `baton mcp` its proxy with require('./forward.js'), which loads the engine only to own the database itself.
 */
const engineApart = {
  name: 'baton-engine-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/(engine|forward)\.js$/ }, (args) => ({ path: args.path, external: true }));
  },
};

/**
 * js-yaml 3 (front-matter's parser) loads esprima at start with a require that bundlers cannot see, for its
 * !!js/function type, which only its unsafe full schema uses (front-matter uses the safe one). From a checkout or an
 * npm install that found esprima in node_modules, that was half a megabyte of source parsed and kept in memory.
 */
const noEsprima = {
  name: 'baton-no-esprima',
  setup(b) {
    b.onLoad({ filter: /[\\/]js-yaml[\\/]lib[\\/]js-yaml[\\/]type[\\/]js[\\/]function\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const load = "esprima = _require('esprima');";
      if (!source.includes(load)) return { contents: source, loader: 'js', warnings: [{ text: `${args.path} no longer loads esprima as scripts/build.mjs expects; check the noEsprima plugin` }] };
      return { contents: source.replace(load, 'esprima = undefined;'), loader: 'js' };
    });
  },
};

// The CLI's bundles without comments and indentation: V8 keeps a script's source for as long as the process lives
// (it compiles functions when first called), and one non-Latin-1 character in a comment (esbuild escapes them
// everywhere else) doubles it, to two bytes per character. Names stay, so stack traces still name the functions.
const cli = { ...common, minifyWhitespace: true, plugins: [...common.plugins, noEsprima] };

await Promise.all([
  build({
    ...cli, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' },
    plugins: [...cli.plugins, engineApart],
    // import('./engine.js') becomes require('./engine.js'): no ESM loader on the way.
    supported: { 'dynamic-import': false },
  }),
  build({ ...cli, entryPoints: ['src/cli/engine.ts'], outfile: 'dist/engine.js' }),
  build({ ...cli, entryPoints: ['src/cli/forward.ts'], outfile: 'dist/forward.js', plugins: [...cli.plugins, engineApart], supported: { 'dynamic-import': false } }),
  build({ ...common, entryPoints: ['src/vscode/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] }),
  // The panel's browser code: one self-contained script loaded by the webview under a strict CSP.
  build({
    bundle: true, platform: 'browser', target: 'es2022', format: 'iife', sourcemap: true, logLevel: 'warning', absWorkingDir: root,
    entryPoints: ['webview/main.ts'], outfile: 'dist/webview/main.js', loader: { '.css': 'text' },
  }),
]);
chmodSync(join(dist, 'cli.js'), 0o755);
const { buildCatalog, buildContentCache, buildSchemaImage } = require(join(dist, 'engine.js'));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
writeAtomic(join(dist, 'mcp-catalog.json'), JSON.stringify(await buildCatalog(version)) + '\n');
// The bundled content's parses: loading them at start-up parses only what differs (see CachedParse in loadContent.ts).
writeAtomic(join(dist, 'content-cache.json'), await buildContentCache(join(root, 'content')));
copyFileSync(join(dirname(require.resolve('sql.js')), 'sql-wasm.wasm'), join(dist, 'sql-wasm.wasm'));
mkdirSync(join(dist, 'migrations'), { recursive: true });
for (const f of readdirSync(join(root, 'src', 'store', 'migrations'))) {
  if (f.endsWith('.sql')) copyFileSync(join(root, 'src', 'store', 'migrations', f), join(dist, 'migrations', f));
}
// A database every migration was applied to: a new database starts as a copy of it (see SCHEMA_IMAGE in migrate.ts).
writeAtomic(join(dist, 'migrations', 'schema.db'), await buildSchemaImage(join(dist, 'migrations'), join(dist, 'sql-wasm.wasm')));
// Codicons for the panel (the font is loaded by the webview from dist/codicons).
const codicons = join(dirname(require.resolve('@vscode/codicons/package.json')), 'dist');
mkdirSync(join(dist, 'codicons'), { recursive: true });
for (const f of ['codicon.css', 'codicon.ttf']) if (existsSync(join(codicons, f))) copyFileSync(join(codicons, f), join(dist, 'codicons', f));
