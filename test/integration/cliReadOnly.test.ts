// Rule: `baton status`, `approve` and `reject` never create a database: with none they say where they looked and how
// to start one, and exit 1; `status` on an existing database (closed, crashed or of an older schema) reads it and
// leaves every file byte-identical with the same mtime and no file added; its approve hint is a command that works
// as printed, naming the database with --db whenever the plain command would look elsewhere.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isPidAlive } from '../../src/store/lock.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { validOutput } from '../fixtures/mcp/badInput.js';
import { assertUnchanged, filesOf } from '../fixtures/store/helpers.js';
import { CLI, ensureBuilt, runCli, startMcp, waitFor, type CliSession } from '../fixtures/mcp/cliHarness.js';

const NO_ENV_DB = { BATON_DB_PATH: '' };
type Structured = { status: string; execution_id?: string; new_step_token?: string };

/** Runs bug-fix through `session` to its gate; returns the execution id. */
async function runToGate(session: CliSession): Promise<string> {
  const call = async (args: Record<string, unknown>) =>
    (await session.client.callTool({ name: 'workflow_next_step', arguments: args })).structuredContent as Structured;
  let sc = await call({ template_name: 'bug-fix', task_description: 'the login page returns 500' });
  const id = sc.execution_id!;
  while (sc.status === 'ok') sc = await call({ step_token: sc.new_step_token, model_output_so_far: validOutput });
  assert.equal(sc.status, 'awaiting_approval');
  return id;
}

/** Runs a shell command line the way a person pastes it, with `baton` meaning the built CLI. */
function sh(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('/bin/sh', ['-c', `baton() { "${process.execPath}" "${CLI}" "$@"; }; ${line}`], { env: { ...process.env, ...NO_ENV_DB } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('read-only commands with no database', () => {
  let dir: string;
  before(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'baton-nodb-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('status in an empty folder exits 1, names the path and how to start one, and creates nothing', async () => {
    const empty = mkdtempSync(join(dir, 'empty-'));
    const r = await runCli(['status'], NO_ENV_DB, empty);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    const tried = join(empty, '.baton', 'baton.db');
    assert.ok(r.stderr.startsWith(`baton: no Baton database at ${tried} (the default for the current folder; the folder ${join(empty, '.baton')} does not exist either)`), r.stderr);
    assert.match(r.stderr, /does not exist either\)\. Status only reads, so nothing was created\.\n/);
    assert.match(r.stderr, /run "baton mcp" or "baton serve" in the workspace folder, or open that folder in the editor/);
    assert.deepEqual(readdirSync(empty), [], 'no .baton/ was created');
  });

  it('status with a mistyped --db exits 1 and creates no folder or file anywhere', async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const typo = join(dir, 'no', 'such', 'dir', 'x.db');
    const r = await runCli(['status', '--db', typo], NO_ENV_DB, cwd);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^baton: no Baton database at ${typo.replace(/[.]/g, '\\.')} \\(given by --db; the folder .* does not exist either\\)`));
    assert.equal(existsSync(join(dir, 'no')), false);
    assert.deepEqual(readdirSync(cwd), []);

    const existedBefore = existsSync('/no');
    try {
      const abs = await runCli(['status', '--db', '/no/such/dir/x.db'], NO_ENV_DB, cwd);
      assert.equal(abs.code, 1, abs.stderr);
      assert.match(abs.stderr, /^baton: no Baton database at \/no\/such\/dir\/x\.db/);
      assert.equal(existsSync('/no/such/dir'), false, 'the mistyped folder was not created');
    } finally {
      if (!existedBefore) rmSync('/no', { recursive: true, force: true });
    }
  });

  it('status with BATON_DB_PATH naming a missing file says where the path came from', async () => {
    const r = await runCli(['status'], { BATON_DB_PATH: join(dir, 'env.db') }, dir);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^baton: no Baton database at .*env\.db \(from BATON_DB_PATH; the folder exists, the file does not\)/);
    assert.equal(existsSync(join(dir, 'env.db')), false);
  });

  it('approve and reject on a missing database exit 1 and create nothing', async () => {
    const cwd = mkdtempSync(join(dir, 'decide-'));
    const db = join(cwd, 'state', 'baton.db');
    for (const args of [['approve', 'some-exec', '--db', db], ['reject', 'some-exec', '--feedback', 'redo it', '--db', db], ['approve', 'some-exec']]) {
      const r = await runCli(args, NO_ENV_DB, cwd);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^baton: no Baton database at .*baton\\.db .*There is no execution to ${args[0]}, and nothing was created\\.`));
      // The way to start it makes the database the command looked for: its --db, when it had one.
      const flag = args.includes('--db') ? ` --db ${db}` : '';
      assert.ok(r.stderr.includes(`"baton mcp${flag}" or "baton serve${flag}"`), r.stderr);
    }
    assert.deepEqual(readdirSync(cwd), [], 'neither state/ nor .baton/ was created');
  });

  it('every command that finds no database goes on, after the full stop, with a sentence that starts with a capital', async () => {
    const cwd = mkdtempSync(join(dir, 'sentences-'));
    const db = join(cwd, 'state', 'baton.db');
    const commands = [
      ['status'], ['spec', 'status'], ['pipeline', 'resume', 'abc'], ['pipeline', 'cancel', 'abc'], ['approve', 'abc'],
      ['reject', 'abc', '--feedback', 'no'], ['prune'],
    ];
    for (const args of commands) {
      const r = await runCli([...args, '--db', db], NO_ENV_DB, cwd);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      // "…does not exist either). there is no run abc to resume." read as two sentences, the second one lower case.
      assert.match(r.stderr, /^baton: no Baton database at .* does not exist either\)\. [A-Z][^\n]*\.\n/, args.join(' '));
    }
    assert.deepEqual(readdirSync(cwd), [], 'nothing was created');
  });
});

describe('status on an existing database writes nothing', () => {
  let dir: string;
  let workspace: string;
  let db: string;
  let executionId: string;

  before(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'baton ro-')); // a space, so the hint must quote the path
    workspace = join(dir, 'ws');
    mkdirSync(workspace);
    db = join(workspace, '.baton', 'baton.db');
    const session = await startMcp(['--workspace', workspace, '--rate-limits', 'off'], 'ro-test', NO_ENV_DB);
    executionId = await runToGate(session);
    await session.client.close();
    await waitFor(() => !existsSync(`${db}.lock`), 10_000, 'the owner to release the database');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('lists the gated execution and leaves every file byte-identical with the same mtime', async () => {
    const before = filesOf(dir);
    for (const [args, cwd] of [[['status', '--db', db], tmpdir()], [['status', '--all', '--json'], workspace], [['status', '--workspace', workspace], tmpdir()]] as const) {
      const r = await runCli([...args], NO_ENV_DB, cwd);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(executionId));
      assertUnchanged(dir, before);
    }
  });

  it('the approve hint has no --db where the plain command finds the database, and an exact --db elsewhere', async () => {
    const here = await runCli(['status'], NO_ENV_DB, workspace);
    assert.equal(here.code, 0, here.stderr);
    assert.ok(here.stdout.includes(`  → baton approve ${executionId}   or   baton reject ${executionId} --feedback TEXT`), here.stdout);

    const quoted = `'${db}'`;
    for (const [args, env] of [[['status', '--db', db], NO_ENV_DB], [['status', '--workspace', workspace], NO_ENV_DB], [['status'], { BATON_DB_PATH: db }]] as const) {
      const r = await runCli([...args], env, tmpdir());
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.includes(`  → baton approve ${executionId} --db ${quoted}   or   baton reject ${executionId} --db ${quoted} --feedback TEXT`), r.stdout);
    }
    // As printed, pasted into a shell in another folder, the approve command finds the execution.
    const hint = (await runCli(['status', '--db', db], NO_ENV_DB, tmpdir())).stdout.match(/→ (baton approve .*?)   or/)![1]!;
    const approved = await sh(`cd /tmp && ${hint}`);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, new RegExp(`Approved review-code of ${executionId}`));
  });
});

describe('status on a crashed or older database', () => {
  let dir: string;
  before(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'baton-ro-crash-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('after kill -9 of the owner: reads the journal, leaves the journal, stale lock and server.json untouched', async () => {
    const db = join(dir, 'crash', 'baton.db');
    const session = await startMcp(['--db', db, '--workspace', dir, '--rate-limits', 'off'], 'crash-test', NO_ENV_DB);
    const pid = session.pid!;
    const executionId = await runToGate(session);
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !isPidAlive(pid), 10_000, 'the owner to die');
    await session.client.close().catch(() => undefined);
    const folder = join(dir, 'crash');
    const before = filesOf(folder);
    assert.ok(before.has('baton.db.lock') && before.has('server.json'), 'the dead owner left its lock and discovery file');
    assert.ok(before.get('baton.journal')!.bytes.length > 0, 'the workflow is only in the journal');

    const r = await runCli(['status', '--db', db], NO_ENV_DB, dir);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`${executionId}  bug-fix  awaiting_approval`));
    assertUnchanged(folder, before);
  });

  it('an older-schema database is read and left unmigrated on disk', async () => {
    const v1 = mkdtempSync(join(dir, 'v1-'));
    copyFileSync(join(__dirname, '..', '..', 'src', 'store', 'migrations', '001_init.sql'), join(v1, '001_init.sql'));
    const folder = mkdtempSync(join(dir, 'old-'));
    const db = join(folder, 'baton.db');
    const old = await openStore({ path: db, migrationsDir: v1, durability: 'write' });
    const t = '2025-12-01T00:00:00.000Z';
    await old.transaction(() => {
      old.run("INSERT INTO projects (name, path, created_at, updated_at) VALUES ('legacy', '/legacy', ?, ?)", [t, t]);
      old.run("INSERT INTO executions (execution_id, kind, template_name, project_id, status, started_at, updated_at) VALUES ('old-exec', 'template', 'bug-fix', 1, 'running', ?, ?)", [t, t]);
      old.run("INSERT INTO steps (execution_id, step_name, agent_name, position, dependencies, status) VALUES ('old-exec', 'a', 'debugger', 0, '[]', 'running')");
    });
    await old.close();
    const before = filesOf(folder);

    const r = await runCli(['status', '--db', db, '--json'], NO_ENV_DB, dir);
    assert.equal(r.code, 0, r.stderr);
    const listed = JSON.parse(r.stdout) as { executions: Array<{ execution_id: string; steps: Array<{ step_name: string }> }> };
    assert.deepEqual(listed.executions.map((e) => [e.execution_id, e.steps.map((s) => s.step_name)]), [['old-exec', ['a']]]);
    assertUnchanged(folder, before);
    const check = await openStore({ path: db, access: 'read', migrationsDir: v1 });
    assert.equal(check.get<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")!.value, '1', 'still v1 on disk');
    await check.close();
  });
});
