// Rule: a `baton mcp` that cannot start (a refused flag, an unfilled ${workspaceFolder}, a --content or --workspace
// that is no folder, a --db it cannot make, a .baton that is no folder, a lock file it cannot take, a database whose
// owner is stopped, a file that is no Baton database) answers its client's handshake, lists its tools, and answers
// each call with what is wrong and the fix, as the server's instructions too where it knows it before the handshake;
// stderr says the same, and the process exits with the failure's code (2 usage, 1 otherwise) once the client leaves.
// Agents show the person none of stderr: a server that just exited read to them as "connection closed". The client is
// the official SDK's, over stdio, on the built CLI.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, ensureBuilt } from '../fixtures/mcp/cliHarness.js';

const NEXT_STEP = { name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'x' } };

let dir: string;

/** What an SDK client on `baton mcp ARGS` (in `cwd`) got: instructions, tools, a call's text; then stderr, exit code. */
async function refusedStart(args: string[], cwd: string): Promise<{ instructions: string; tools: string[]; text: string; stderr: string; code: number | null }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', ...args], cwd, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => void (stderr += d.toString()));
  const client = new Client({ name: 'start-failure-test', version: '1' });
  await client.connect(transport);
  // The SDK keeps its child to itself; its exit code is the test's to read.
  const child = (transport as unknown as { _process: ChildProcess })._process;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const instructions = client.getInstructions() ?? '';
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const result = await client.callTool(NEXT_STEP);
    assert.equal(result.isError, true, JSON.stringify(result));
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(child.exitCode, null, 'it stays for its client');
    await client.close();
    return { instructions, tools, text, stderr, code: await exited };
  } finally {
    child.kill('SIGKILL');
  }
}

/** Checks the refusal: `why` in the call's answer, the instructions and on stderr; the command and folder; the code. */
function assertRefused(got: Awaited<ReturnType<typeof refusedStart>>, why: RegExp, code: number, command: string, cwd: string, early = true): void {
  assert.deepEqual(got.tools, ['workflow_next_step'], 'the tools are listed, so that the agent calls one and reads why');
  assert.match(got.text, /^Baton's MCP server could not start: /);
  assert.match(got.text, why);
  assert.ok(got.text.includes(`It ran as \`${command}\` in ${cwd}.`), got.text);
  assert.match(got.text, /restart the Baton MCP server/);
  if (early) assert.equal(got.instructions, got.text, 'the instructions carry it, for the model to read at once');
  assert.match(got.stderr, new RegExp(`^baton: ${why.source}`, 'm'));
  assert.equal(got.code, code, got.stderr);
}

describe('baton mcp that cannot start tells its agent why', () => {
  before(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'baton-start-failures-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a refused flag, a bad --tools, --content or --workspace, an unfilled ${workspaceFolder}: usage errors, exit 2', async () => {
    const cwd = mkdtempSync(join(dir, 'ws-'));
    const cases: Array<[string[], RegExp, string]> = [
      [['--dbb', 'x.db'], /unknown option --dbb for baton mcp \(did you mean --db\?\); see baton mcp --help/, 'baton mcp --dbb x.db'],
      [['--tools', 'brokr'], /unknown tool group "brokr"/, 'baton mcp --tools brokr'],
      [['--content', join(cwd, 'nope')], /--content \S+nope: no such folder; name an existing folder/, `baton mcp --content ${join(cwd, 'nope')}`],
      [['--workspace', join(cwd, 'nope')], /--workspace \S+nope: no such folder/, `baton mcp --workspace ${join(cwd, 'nope')}`],
      [['--db', '${workspaceFolder}/.baton/baton.db'], /--db \$\{workspaceFolder\}\/\.baton\/baton\.db: \$\{workspaceFolder\} is a variable the program that started Baton did not fill in/,
        "baton mcp --db '${workspaceFolder}/.baton/baton.db'"],
    ];
    for (const [args, why, command] of cases) assertRefused(await refusedStart(args, cwd), why, 2, command, cwd);
  });

  it('a --db under a file, a .baton that is a file, a lock file that is a folder: exit 1, no stack', async () => {
    const cwd = mkdtempSync(join(dir, 'ws-'));
    writeFileSync(join(cwd, 'notes'), 'a file');
    const underFile = await refusedStart(['--db', 'notes/baton.db'], cwd);
    assertRefused(underFile, /cannot mkdir \S+notes: a part of the path is a file, not a folder \(ENOTDIR\)\. Check the path/, 1, 'baton mcp --db notes/baton.db', cwd);

    const dotFile = mkdtempSync(join(dir, 'ws-'));
    writeFileSync(join(dotFile, '.baton'), 'a file');
    assertRefused(await refusedStart([], dotFile), /cannot mkdir \S+\.baton: a part of the path is a file/, 1, 'baton mcp', dotFile);

    const lockFolder = mkdtempSync(join(dir, 'ws-'));
    mkdirSync(join(lockFolder, '.baton', 'baton.db.lock'), { recursive: true });
    const locked = await refusedStart([], lockFolder);
    assertRefused(locked, /\S+baton\.db\.lock is a folder where Baton keeps a lock file; move it aside/, 1, 'baton mcp', lockFolder);
    assert.doesNotMatch(locked.stderr + locked.text, /\n\s+at /, 'no stack');
  });

  it('a database held by a stopped process that publishes no endpoint: exit 1, naming the process', { skip: process.platform === 'win32' }, async () => {
    const cwd = mkdtempSync(join(dir, 'ws-'));
    mkdirSync(join(cwd, '.baton'));
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      writeFileSync(join(cwd, '.baton', 'baton.db.lock'), `${holder.pid}\n`);
      holder.kill('SIGSTOP');
      const got = await refusedStart([], cwd);
      assertRefused(got, new RegExp(`database \\S+baton\\.db is owned by Baton process ${holder.pid} but it publishes no endpoint`), 1, 'baton mcp', cwd);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('a file that is no Baton database: each call says so (the handshake was answered before the file was read)', async () => {
    const cwd = mkdtempSync(join(dir, 'ws-'));
    writeFileSync(join(cwd, 'other.db'), 'not sqlite at all');
    const got = await refusedStart(['--db', 'other.db'], cwd);
    assert.deepEqual(got.tools, ['workflow_next_step']);
    assert.match(got.text, /other\.db is not a readable Baton database \(no SQLite header\)\. Baton left it untouched: move it aside/);
    assert.match(got.stderr, /^baton: \S+other\.db is not a readable Baton database/m);
    assert.equal(got.code, 1);
  });
});
