// Rule: a `baton` command run in a subfolder of a project that has a `.baton` (an agent started in `src/`, a client
// that spawns its servers in its own folder), with no --db, --workspace nor BATON_DB_PATH, uses the project's database
// and its `.baton/` content, as git finds `.git`, and makes no `src/.baton/`: mcp, status, list and serve alike. A
// folder with no `.baton` above it (up to the temp folder) still gets its own `./.baton/`; a `.baton` in the home
// folder is not every project's below it. Real CLI processes in nested temp folders, the SDK client over stdio.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, ensureBuilt, ROOT, runCli, waitFor } from '../fixtures/mcp/cliHarness.js';

let root: string;
const env: Record<string, string> = {};

/** Starts a workflow through `baton mcp` (no flags) run in `cwd`; returns the workflows the server offers. */
async function startThere(cwd: string, task: string): Promise<string> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], cwd, stderr: 'pipe', env: { ...(process.env as Record<string, string>), ...env } });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => void (stderr += d.toString()));
  const client = new Client({ name: 'project-folder-test', version: '1' });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: task } });
    assert.notEqual(result.isError, true, `${JSON.stringify(result).slice(0, 400)}\n${stderr}`);
    const workflows = await client.readResource({ uri: 'available-workflows://all' });
    return (workflows.contents[0] as { text: string }).text;
  } finally {
    await client.close();
  }
}

describe('baton commands in a subfolder use the project found above it', () => {
  before(() => {
    ensureBuilt();
    root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-project-cli-')));
    delete process.env.BATON_DB_PATH;
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('mcp, status and list in src/lib use the project\'s database and content; none is made there', async () => {
    const project = join(root, 'shop');
    mkdirSync(join(project, '.baton', 'workflows'), { recursive: true });
    // The project's own workflow: found only when its `.baton/` is the content folder.
    const own = readFileSync(join(ROOT, 'content', 'workflows', 'bug-fix.yaml'), 'utf8').replace(/^name: bug-fix$/m, 'name: shop-fix');
    writeFileSync(join(project, '.baton', 'workflows', 'shop-fix.yaml'), own);
    await startThere(project, 'started at the top');
    const deep = join(project, 'src', 'lib');
    mkdirSync(deep, { recursive: true });
    const offered = await startThere(deep, 'started two folders down');
    assert.match(offered, /shop-fix/, "the project's .baton/ content is loaded");
    assert.equal(existsSync(join(project, 'src', 'lib', '.baton')), false, 'no database of its own in src/lib');
    assert.equal(existsSync(join(project, 'src', '.baton')), false);

    const status = await runCli(['status', '--json'], env, deep);
    assert.equal(status.code, 0, status.stderr);
    const tasks = (JSON.parse(status.stdout) as { executions: Array<{ task_description?: string; description?: string }> }).executions
      .map((e) => JSON.stringify(e));
    assert.equal(tasks.length, 2, status.stdout);
    assert.ok(tasks.some((t) => t.includes('started at the top')) && tasks.some((t) => t.includes('started two folders down')), status.stdout);
    const list = await runCli(['list'], env, deep);
    assert.equal(list.code, 0, list.stderr);
    // A usage error names `baton status` to list executions: no --db, since the same command here finds the same one.
    const approve = await runCli(['approve'], env, deep);
    assert.equal(approve.code, 2);
    assert.match(approve.stderr, /\(an execution or task id; baton status lists them\)/);
    assert.equal(existsSync(join(project, 'src', 'lib', '.baton')), false);
  });

  it('serve in a subfolder owns the project\'s database', async () => {
    const project = join(root, 'served');
    mkdirSync(join(project, '.baton'), { recursive: true });
    const sub = join(project, 'docs');
    mkdirSync(sub);
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { cwd: sub, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    try {
      await waitFor(() => stderr.includes('Baton serving'), 20_000, 'baton serve to start');
      assert.ok(stderr.includes(`Baton serving ${join(project, '.baton', 'baton.db')}\n`), stderr);
      assert.equal(existsSync(join(sub, '.baton')), false);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('a folder with no .baton above it gets its own; a .baton in the home folder is not every project\'s', async () => {
    const fresh = join(root, 'fresh', 'sub');
    mkdirSync(fresh, { recursive: true });
    await startThere(fresh, 'a new project');
    assert.ok(existsSync(join(fresh, '.baton', 'baton.db')), 'its own ./.baton/, as before');

    const home = join(root, 'home');
    mkdirSync(join(home, '.baton'), { recursive: true });
    copyFileSync(join(fresh, '.baton', 'baton.db'), join(home, '.baton', 'baton.db'));
    const work = join(home, 'work');
    mkdirSync(work);
    const below = await runCli(['status'], { ...env, HOME: home }, work);
    assert.equal(below.code, 1);
    assert.match(below.stderr, new RegExp(`no Baton database at ${join(work, '.baton', 'baton.db')} \\(the default for the current folder`));
    const at = await runCli(['status'], { ...env, HOME: home }, home);
    assert.equal(at.code, 0, at.stderr);
    assert.match(at.stdout, /a new project/);
  });
});
