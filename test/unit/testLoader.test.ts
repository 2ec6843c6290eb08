// Rule: the test files' TypeScript loader (scripts/testLoader.cjs) runs a .ts file as tsx did for these tests: its
// imports of `./x.js` (or of a path to x.js) find `./x.ts`, `import()` of a .ts module works (src loads modules
// lazily), .mjs scripts load, types are erased, stack traces name the TypeScript lines, and a file changed since its
// last compile runs as it is now, never from a stale cache.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const LOADER = join(__dirname, '..', '..', 'scripts', 'testLoader.cjs');

describe('the test files\' TypeScript loader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-test-loader-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const run = (file: string) => execFileSync(process.execPath, ['--require', LOADER, join(dir, file)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  writeFileSync(join(dir, 'shape.ts'), 'export interface Shape { sides: number }\nexport const square: Shape = { sides: 4 };\n');
  writeFileSync(join(dir, 'lazy.ts'), 'export const word: string = "lazy";\n');
  writeFileSync(join(dir, 'plain.mjs'), 'export const from = "mjs";\nexport default function twice(n) { return 2 * n; }\n');

  it('resolves ./x.js (or a path to x.js) to x.ts, imports a .ts module with import(), and loads a .mjs script', () => {
    writeFileSync(join(dir, 'main.ts'), [
      "import { square, type Shape } from './shape.js';",
      `import { square as same } from ${JSON.stringify(join(dir, 'shape.js'))};`,
      "import twice, { from } from './plain.mjs';",
      'const sides = (s: Shape): number => s.sides;',
      "void import('./lazy.js').then(({ word }) => console.log(sides(square), word, from, twice(sides(square)), square === same));",
    ].join('\n'));
    assert.equal(run('main.ts').trim(), '4 lazy mjs 8 true');
  });

  it('names the TypeScript line in a stack trace', () => {
    writeFileSync(join(dir, 'throws.ts'), 'type Unused = { a: number };\n\n\nconst fail = (): never => {\n  throw new Error("here");\n};\nfail();\n');
    assert.throws(() => run('throws.ts'), (err: { stderr: string }) => {
      assert.match(err.stderr, /throws\.ts:5:9/);
      return true;
    });
  });

  it('runs a file changed since its last compile as it is now', () => {
    writeFileSync(join(dir, 'changes.ts'), 'console.log("before" as string);\n');
    assert.equal(run('changes.ts').trim(), 'before');
    writeFileSync(join(dir, 'changes.ts'), 'console.log("after" as string);\n');
    assert.equal(run('changes.ts').trim(), 'after');
  });
});
