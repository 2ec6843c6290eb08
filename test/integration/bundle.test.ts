// Rule: dist/cli.js, which every `baton` command starts with, loads nothing but Node's own modules (the engine,
// dist/engine.js, comes later); the CLI's bundles are ASCII (V8 keeps them as one byte per character) and the engine
// does not load esprima (which js-yaml would load from node_modules for a type Baton never uses). No bundle reads the
// navigator global: VS Code's extension host logs a PendingMigrationError for each extension that does.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { CLI, ROOT, ensureBuilt, startMcp, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { validOutput } from '../fixtures/mcp/badInput.js';

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

describe('the bundles in a Node with a navigator global', () => {
  before(() => ensureBuilt());

  it('never read it, through a start and a continue (zod parses, sql.js opens the database)', async () => {
    const t = tempSetup('baton-navigator-');
    const reads = join(t.dir, 'navigator-reads');
    const hook = join(t.dir, 'navigator.js');
    // As VS Code's extension host does, but recording instead of logging.
    writeFileSync(hook, `Object.defineProperty(globalThis, 'navigator', { configurable: true, get() {
      require('node:fs').appendFileSync(${JSON.stringify(reads)}, new Error('navigator read').stack + '\\n');
      return { userAgent: 'Node.js', language: 'en-US' };
    } });\n`);
    const session = await startMcp(['--db', t.db, '--workspace', t.workspace], 'navigator-test', { NODE_OPTIONS: `--require ${hook}` });
    try {
      const first = (await session.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'x' } }))
        .structuredContent as { status: string; new_step_token: string };
      assert.equal(first.status, 'ok');
      const next = (await session.client.callTool({ name: 'workflow_next_step', arguments: { step_token: first.new_step_token, model_output_so_far: validOutput } }))
        .structuredContent as { status: string };
      assert.equal(next.status, 'ok');
    } finally {
      await session.client.close();
    }
    assert.equal(existsSync(reads) ? readFileSync(reads, 'utf8') : '', '');
    rmSync(t.dir, { recursive: true, force: true });
  });
});
