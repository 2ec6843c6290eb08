// The test files' TypeScript loader (`node --require scripts/testLoader.cjs`), which scripts/test.mjs uses in place of
// tsx where Node can require an ES module (.mjs; Node 20.19+, 22.12+). tsx registers ES module hooks too, which Node
// runs on a thread of their own, and through which every import then goes: about 0.35 s of CPU at the start of each
// test file's process alone, and the unit and integration tests took 633 s under tsx, 520 s under this loader, on two
// cores. The tests run as CommonJS (package.json has no "type"), so a require hook does: each .ts file is compiled by
// esbuild (the build's own) to CommonJS, with `import()` turned into a require as the bundle does, a specifier `./x.js`
// finds `./x.ts`, and stack traces name the TypeScript lines. Compiled files are kept in node_modules/.cache/
// baton-tests, under a hash of the loader, esbuild's version, tsconfig.json, the file's path and its text.
'use strict';
const Module = require('node:module');
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { dirname, isAbsolute, join, resolve } = require('node:path');

const root = join(__dirname, '..');
const cacheDir = join(root, 'node_modules', '.cache', 'baton-tests');
const tsconfigText = readFileSync(join(root, 'tsconfig.json'), 'utf8');
const tsconfig = JSON.parse(tsconfigText);
const esbuildVersion = require('esbuild/package.json').version;
const OPTIONS = {
  loader: 'ts',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'inline',
  sourcesContent: false,
  // import() of a .ts module (src loads some modules lazily) goes through require, which this hook serves.
  supported: { 'dynamic-import': false },
  tsconfigRaw: { compilerOptions: tsconfig.compilerOptions },
};
const salt = `${readFileSync(__filename, 'utf8')}\0${esbuildVersion}\0${tsconfigText}\0`;
let esbuild;

/** `filename`'s JavaScript: from the cache, or compiled now and kept (written whole, then renamed into place). */
function compiled(filename) {
  const source = readFileSync(filename, 'utf8');
  const cached = join(cacheDir, `${createHash('sha1').update(salt).update(filename).update('\0').update(source).digest('hex')}.js`);
  try {
    return readFileSync(cached, 'utf8');
  } catch {
    // not compiled yet
  }
  esbuild ??= require('esbuild');
  const { code } = esbuild.transformSync(source, { ...OPTIONS, sourcefile: filename });
  try {
    mkdirSync(cacheDir, { recursive: true });
    const partial = `${cached}.${process.pid}`;
    writeFileSync(partial, code);
    renameSync(partial, cached);
  } catch {
    // a cache that cannot be written costs a compile next time, nothing else
  }
  return code;
}

Module._extensions['.ts'] = (module, filename) => module._compile(compiled(filename), filename);

// TypeScript's own convention (module NodeNext): `./x.js` (or a path) in a .ts file names `./x.ts` when that exists.
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if (request.endsWith('.js') && (request.startsWith('./') || request.startsWith('../') || isAbsolute(request)) && parent?.filename?.endsWith('.ts')) {
    const ts = resolve(dirname(parent.filename), `${request.slice(0, -3)}.ts`);
    if (existsSync(ts)) return ts;
  }
  return resolveFilename.call(this, request, parent, ...rest);
};

process.setSourceMapsEnabled(true);
