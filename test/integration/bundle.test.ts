// Rule: dist/cli.js, which every `baton` command starts with, loads nothing but Node's own modules (the engine,
// dist/engine.js, comes later); the CLI's bundles are ASCII (V8 keeps them as one byte per character) and the engine
// does not load esprima (which js-yaml would load from node_modules for a type Baton never uses).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { CLI, ROOT, ensureBuilt, tempSetup } from '../fixtures/mcp/cliHarness.js';

const ENGINE = join(ROOT, 'dist', 'engine.js');

/** The files a node process loaded through require() before it exited. */
function loadedFiles(args: string[]): string[] {
  const dir = tempSetup('baton-bundle-').dir;
  const report = join(dir, 'loaded.json');
  const hook = join(dir, 'hook.js');
  writeFileSync(hook, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(Object.keys(require.cache))));\n`);
  try {
    execFileSync(process.execPath, ['--require', hook, ...args], { stdio: ['ignore', 'ignore', 'ignore'] });
    return (JSON.parse(readFileSync(report, 'utf8')) as string[]).filter((f) => f !== hook);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the CLI bundles', () => {
  before(() => ensureBuilt());

  it('dist/cli.js alone loads no other file', () => {
    assert.deepEqual(loadedFiles([CLI, '--version']), [CLI]);
  });

  it('are ASCII', () => {
    for (const file of [CLI, ENGINE]) {
      const bytes = readFileSync(file);
      assert.equal(bytes.findIndex((b) => b > 0x7f), -1, `${file} has a non-ASCII byte`);
    }
  });

  it('the engine loads no esprima', () => {
    const loaded = loadedFiles(['-e', `require(${JSON.stringify(ENGINE)})`]);
    assert.ok(loaded.includes(ENGINE));
    assert.deepEqual(loaded.filter((f) => /[\\/]node_modules[\\/]/.test(f)), []);
  });
});
