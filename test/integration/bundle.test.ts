// Rule: dist/cli.js, which every `baton` command starts with, loads nothing but Node's own modules (the engine,
// dist/engine.js, comes later); the CLI's bundles are ASCII (V8 keeps them as one byte per character) and the engine
// does not load esprima (which js-yaml would load from node_modules for a type Baton never uses). No bundle reads the
// navigator global: VS Code's extension host logs a PendingMigrationError for each extension that does. A command that
// serves no MCP client does not run the MCP layer's top-level code (zod and the SDK's schemas: a third of its start),
// and one that answers and exits runs sql.js on V8's baseline WebAssembly compiler alone, the others optimize it on one
// background thread (see src/cli/wasmTiers.ts). A forwarding `baton mcp` loads dist/forward.js, the proxy's modules,
// not the engine, until it must own the database; it reaches the owner without fetch (undici) and builds no zod
// schemas for plain messages.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { before, describe, it } from 'node:test';
import { CLI, ROOT, ensureBuilt, startMcp, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { validOutput } from '../fixtures/mcp/badInput.js';

const ENGINE = join(ROOT, 'dist', 'engine.js');
const FORWARD = join(ROOT, 'dist', 'forward.js');

/**
 * Runs node with `args` and a preloaded hook (`prelude`, then an exit handler that writes `expression` as JSON):
 * what the expression was when the process exited, its exit status, and the hook's path.
 */
function exitReport<T>(expression: string, args: string[], prelude = '', env = process.env, input?: string): { value: T; status: number | null; hook: string; stderr: string } {
  const dir = tempSetup('baton-bundle-').dir;
  const report = join(dir, 'report.json');
  const hook = join(dir, 'hook.js');
  writeFileSync(hook, `${prelude}process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(${expression})));\n`);
  try {
    const stdio = [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] as const;
    const { status, stderr } = spawnSync(process.execPath, ['--require', hook, ...args], { stdio: [...stdio], input, encoding: 'utf8', env, timeout: 30_000 });
    return { value: JSON.parse(readFileSync(report, 'utf8')) as T, status, hook, stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The files a node process loaded through require() before it exited (it must exit 0). */
function loadedFiles(args: string[]): string[] {
  const { value, status, hook } = exitReport<string[]>('Object.keys(require.cache)', args);
  assert.equal(status, 0, `node ${args.join(' ')}`);
  return value.filter((f) => f !== hook);
}

describe('the CLI bundles', () => {
  before(() => ensureBuilt());

  it('dist/cli.js alone loads no other file, nor for a command\'s help', () => {
    assert.deepEqual(loadedFiles([CLI, '--version']), [CLI]);
    for (const args of [['status', '--help'], ['serve', '-h'], ['pipeline', 'run', '--help'], ['new', 'x', '--bogus', '--help']]) {
      assert.deepEqual(loadedFiles([CLI, ...args]), [CLI], `baton ${args.join(' ')}`);
    }
  });

  it('are ASCII', () => {
    for (const file of [CLI, ENGINE, FORWARD]) {
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

/**
 * Whether a node process built zod's schemas before it exited: zod's core sets globalThis.__zod_globalConfig when its
 * module runs, and the MCP layer (Baton's tool schemas, the SDK's protocol types) is all that uses zod.
 */
function ranZod(args: string[]): boolean {
  return exitReport<boolean>(`'__zod_globalConfig' in globalThis`, args).value;
}

/**
 * The V8 flags a run of dist/cli.js set at run time (node:v8's setFlagsFromString, recorded by the hook), and its
 * stderr; with BATON_WASM_TIERS as `tiers` (unset when not given: the test runner sets it for the suite).
 */
function flagsAndStderr(args: string[], tiers?: string): { flags: string[]; stderr: string } {
  const record = `const v8 = require('node:v8'); const set = v8.setFlagsFromString; const flags = [];
v8.setFlagsFromString = (f) => (flags.push(f), set(f));\n`;
  const env = { ...process.env };
  delete env.BATON_WASM_TIERS;
  if (tiers !== undefined) env.BATON_WASM_TIERS = tiers;
  const { value, stderr } = exitReport<string[]>('flags', [CLI, ...args], record, env);
  return { flags: value, stderr };
}

/** The V8 flags a run of dist/cli.js set at run time, BATON_WASM_TIERS unset. */
function flagsSet(args: string[]): string[] {
  return flagsAndStderr(args).flags;
}

describe('the engine runs the modules of the command given', () => {
  before(() => ensureBuilt());

  it('commands that serve no MCP client build no MCP schemas (the catalog does), and those that exit skip V8\'s optimizing wasm tier', async () => {
    const t = tempSetup('baton-lazy-');
    try {
      const session = await startMcp(['--db', t.db, '--workspace', t.workspace], 'lazy-test');
      try {
        const first = (await session.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } })).structuredContent as { status: string };
        assert.equal(first.status, 'ok');
      } finally {
        await session.client.close();
      }
      const db = ['--db', t.db, '--workspace', t.workspace];
      for (const args of [['status', ...db], ['list', ...db], ['pipeline', 'list', ...db], ['status', '--help'], ['start', 'team.yaml', '--max-invocations', 'x']]) {
        assert.equal(ranZod([CLI, ...args]), false, `baton ${args.join(' ')}`);
      }
      // The probe sees zod where it runs.
      assert.equal(ranZod(['-e', `require(${JSON.stringify(ENGINE)}).buildCatalog('t').then(() => undefined)`]), true);
      // Commands that answer and exit run sql.js on V8's baseline compiler alone (pipeline's subcommands say so once
      // they are known); the servers and the commands that hold a run keep the optimizing one, on one background
      // thread (checked where they stop early: a usage error, mcp's help).
      for (const args of [['status', ...db], ['list', ...db], ['approve', 'x', ...db], ['spec', 'status', ...db]]) {
        assert.deepEqual(flagsSet(args), ['--liftoff-only'], `baton ${args.join(' ')}`);
      }
      assert.deepEqual(flagsSet(['pipeline', 'list', ...db]), ['--wasm-num-compilation-tasks=1', '--liftoff-only']);
      for (const args of [['serve', '--port', 'x'], ['mcp', '--help'], ['run', '--bogus'], ['start', 'team.yaml', '--max-invocations', 'x'], ['pipeline', 'run', ...db]]) {
        assert.deepEqual(flagsSet(args), ['--wasm-num-compilation-tasks=1'], `baton ${args.join(' ')}`);
      }
      // BATON_WASM_TIERS=baseline puts the servers on the baseline compiler too; `both` (any case) and empty are the
      // default; another value is the default, said once on stderr with the choices.
      for (const args of [['serve', '--port', 'x'], ['mcp', '--help'], ['status', ...db]]) {
        assert.deepEqual(flagsAndStderr(args, ' Baseline ').flags, ['--liftoff-only'], `baton ${args.join(' ')}`);
      }
      for (const tiers of ['both', 'BOTH', '']) {
        assert.deepEqual(flagsAndStderr(['mcp', '--help'], tiers), { flags: ['--wasm-num-compilation-tasks=1'], stderr: '' }, tiers);
      }
      const typo = flagsAndStderr(['mcp', '--help'], 'liftoff');
      assert.deepEqual(typo.flags, ['--wasm-num-compilation-tasks=1']);
      assert.equal(typo.stderr, 'baton: warning: BATON_WASM_TIERS="liftoff" is not a choice; using both tiers (choices: baseline, both)\n');
    } finally {
      rmSync(t.dir, { recursive: true, force: true });
    }
  });
});

describe('a forwarding baton mcp', () => {
  before(() => ensureBuilt());

  it("imports the proxy's modules, not the owner's (the store, the core, the MCP server); no fetch, no zod for plain messages", async () => {
    // The modules src/cli/forward.ts (dist/forward.js) imports before it must own the database (then the engine).
    const { metafile } = await build({ entryPoints: [join(ROOT, 'src', 'cli', 'forward.ts')], bundle: true, platform: 'node', write: false, metafile: true, logLevel: 'silent' });
    const inputs = metafile.inputs;
    const reached = new Set<string>(['src/cli/forward.ts']);
    for (const stack = ['src/cli/forward.ts']; stack.length > 0; ) {
      for (const i of inputs[stack.pop()!]!.imports) if (i.kind !== 'dynamic-import' && !i.external && !reached.has(i.path)) stack.push((reached.add(i.path), i.path));
    }
    for (const owners of ['src/cli/mcpEngine.ts', 'src/host/owner.ts', 'src/core/baton.ts', 'src/store/sqlJsStore.ts', 'src/mcp/createMcpServer.ts']) {
      assert.equal(reached.has(owners), false, `forward.ts imports ${owners}`);
    }
    assert.ok(reached.has('src/host/proxy.ts'));
    // Run: it forwards a call to the owner and exits when its client closes stdin, having loaded no undici.
    const t = tempSetup('baton-forwarding-');
    const owner = await startMcp(['--db', t.db, '--workspace', t.workspace], 'forwarding-owner');
    try {
      const discovery = join(dirname(t.db), 'server.json');
      for (const deadline = Date.now() + 10_000; !existsSync(discovery); await new Promise((r) => setTimeout(r, 50))) {
        assert.ok(Date.now() < deadline, 'the owner published no endpoint');
      }
      const lines = [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'forwarding-test', version: '1' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'workflow_next_step', arguments: { template_name: 'bug-fix' } } },
      ].map((m) => `${JSON.stringify(m)}\n`).join('');
      // The step result is written to the client as the owner wrote it: never serialized in this process (jsonText.ts,
      // across its two bundles: the owner's transport in forward.js keeps the text, the stdio front in cli.js writes it).
      const report = exitReport<{ files: string[]; undici: boolean; zod: boolean; forwarded: boolean; answersSerialized: number }>(
        `{ files: Object.keys(require.cache).filter((f) => f.startsWith(${JSON.stringify(join(ROOT, 'dist'))})), undici: process.moduleLoadList.some((m) => m.includes('undici')), zod: '__zod_globalConfig' in globalThis, forwarded: globalThis.__forwarded === true, answersSerialized: globalThis.__answersSerialized }`,
        [CLI, 'mcp', '--db', t.db, '--workspace', t.workspace],
        `const stringify = JSON.stringify;
globalThis.__answersSerialized = 0;
JSON.stringify = function (...args) {
  const text = stringify.apply(this, args);
  if (typeof text === 'string' && text.includes('"structuredContent"')) globalThis.__answersSerialized++;
  return text;
};
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  for (const line of String(chunk).split('\\n')) {
    try { const m = JSON.parse(line); if (m.id === 2 && m.result?.structuredContent?.status === 'ok') globalThis.__forwarded = true; } catch {}
  }
  return write(chunk, ...rest);
};\n`,
        process.env, lines,
      );
      assert.equal(report.status, 0, report.stderr);
      assert.match(report.stderr, /forwarding stdio to http/);
      assert.deepEqual(report.value, { files: [CLI, FORWARD], undici: false, zod: false, forwarded: true, answersSerialized: 0 });
    } finally {
      await owner.client.close();
      rmSync(t.dir, { recursive: true, force: true });
    }
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
