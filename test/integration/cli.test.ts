// Rule: `baton mcp` over real stdio speaks only JSON-RPC on stdout (logs on stderr), runs bug-fix to its human gate,
// and a person approves it with `baton approve` from another process while the agent waits; the CLI's usage errors
// exit 2; a --content folder with no content in it is warned of.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readDiscovery } from '../../src/host/discovery.js';
import { validOutput } from '../fixtures/mcp/badInput.js';
import { ensureBuilt, ROOT, runCli, startMcp, tempSetup, waitFor, type CliSession } from '../fixtures/mcp/cliHarness.js';

type Structured = { status: string; execution_id?: string; task_id?: string; new_step_token?: string; next_step_contract?: { step_name: string } };

describe('baton mcp over stdio (built dist/cli.js, real core, durable store)', () => {
  const setup = tempSetup('baton-cli-');
  let session: CliSession;
  let executionId = '';

  before(async () => {
    ensureBuilt();
    session = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off']);
  });
  after(async () => {
    await session?.client.close().catch(() => undefined);
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it('initializes and lists workflow_next_step', async () => {
    assert.equal(session.client.getServerVersion()?.name, 'baton');
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['workflow_next_step']);
  });

  it('publishes a 0600 discovery file beside the database while it owns it', async () => {
    // Once the engine has opened the database: the handshake is answered before that.
    const info = await waitFor(() => readDiscovery(setup.db), 10_000, 'discovery file');
    assert.equal(info.pid, session.pid);
    assert.match(info.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.equal(statSync(join(dirname(setup.db), 'server.json')).mode & 0o777, 0o600);
  });

  it('baton serve on the database it owns names the ways on: use its endpoint or baton mcp, stop it, or another --db', async () => {
    const info = await waitFor(() => readDiscovery(setup.db), 10_000, 'discovery file');
    const r = await runCli(['serve', '--db', setup.db]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    const text = r.stderr.replace(/\s+/g, ' ');
    assert.ok(text.startsWith(`baton: database ${setup.db} is already owned by Baton process ${info.pid} (endpoint ${info.url}). Either`), text);
    assert.ok(text.includes(`agents can connect to its endpoint (the bearer token is in ${join(dirname(setup.db), 'server.json')}), or run baton mcp --db ${setup.db}, which forwards to it`), text);
    assert.ok(text.includes(`stop process ${info.pid} (kill ${info.pid};`), text);
    assert.ok(text.includes('or serve another database: baton serve --db OTHER.db'), text);
  });

  it('runs bug-fix to the gate; `baton approve` in another process releases the waiting agent; task_closed', async () => {
    const call = async (args: Record<string, unknown>) =>
      (await session.client.callTool({ name: 'workflow_next_step', arguments: args }, undefined, { timeout: 60_000 })).structuredContent as Structured;
    let sc = await call({ template_name: 'bug-fix', task_description: 'the login page returns 500' });
    executionId = sc.execution_id!;
    const steps: string[] = [];
    while (sc.status === 'ok') {
      steps.push(sc.next_step_contract!.step_name);
      sc = await call({ step_token: sc.new_step_token, model_output_so_far: validOutput });
    }
    assert.deepEqual(steps, ['analyze-root-cause', 'implement-fix', 'write-tests', 'review-code']);
    assert.equal(sc.status, 'awaiting_approval');

    const status = await runCli(['status', '--db', setup.db, '--json']);
    assert.equal(status.code, 0, status.stderr);
    const listed = JSON.parse(status.stdout) as { executions: Array<{ execution_id: string; status: string }> };
    assert.equal(listed.executions.find((e) => e.execution_id === executionId)?.status, 'awaiting_approval');

    // The agent waits on the gate; the person approves from a terminal while it waits.
    const waiting = call({ step_token: sc.new_step_token });
    let settled = false;
    void waiting.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(settled, false, 'the agent is still waiting for the person');
    const approve = await runCli(['approve', executionId, '--db', setup.db]);
    assert.equal(approve.code, 0, approve.stderr);
    assert.match(approve.stdout, /Approved review-code of /);
    const closed = await waiting;
    assert.equal(closed.status, 'task_closed');
  });

  it('stdout carried only JSON-RPC and stderr got the logs', () => {
    assert.deepEqual(session.protocolErrors.map((e) => e.message), []);
    assert.match(session.stderr(), /\[baton\] info: .*owner endpoint listening/);
  });

  it('on stdin end it removes the discovery file and releases the database; status then opens it directly', async () => {
    await session.client.close();
    await waitFor(() => !existsSync(join(dirname(setup.db), 'server.json')), 10_000, 'discovery file removal');
    const direct = await runCli(['status', '--db', setup.db, '--all', '--workspace', setup.workspace]);
    assert.equal(direct.code, 0, direct.stderr);
    assert.match(direct.stdout, new RegExp(`${executionId}  bug-fix  completed  100%`));
  });
});

describe('two databases in one folder', () => {
  const setup = tempSetup('baton-two-');
  const sessions: CliSession[] = [];
  before(() => ensureBuilt());
  after(async () => {
    for (const s of sessions) await s.client.close().catch(() => undefined);
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it("each has its own discovery file, and a forwarding baton mcp reaches its own database's owner", async () => {
    const a = join(dirname(setup.db), 'a.db');
    const b = join(dirname(setup.db), 'b.db');
    const owner = async (db: string) => {
      const s = await startMcp(['--db', db, '--workspace', setup.workspace, '--rate-limits', 'off']);
      sessions.push(s);
      return waitFor(() => readDiscovery(db), 10_000, `the owner of ${db}`);
    };
    const ownerA = await owner(a);
    const ownerB = await owner(b);
    assert.notEqual(ownerA.pid, ownerB.pid);
    assert.ok(existsSync(join(dirname(a), 'a.server.json')) && existsSync(join(dirname(b), 'b.server.json')));
    assert.equal(existsSync(join(dirname(a), 'server.json')), false, 'no shared server.json');
    const forwarding = await startMcp(['--db', a, '--workspace', setup.workspace, '--rate-limits', 'off']);
    sessions.push(forwarding);
    const started = (await forwarding.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'for a' } })).structuredContent as Structured;
    assert.equal(started.status, 'ok');
    assert.match(forwarding.stderr(), new RegExp(`owned by process ${ownerA.pid} \\(endpoint (http://127\\.0\\.0\\.1:\\d+/mcp)\\)\\n(.*\\n)*.*forwarding stdio to \\1\\n`));
    const listed = async (db: string) => (JSON.parse((await runCli(['status', '--db', db, '--json'])).stdout) as { executions: Array<{ execution_id: string }> }).executions.map((e) => e.execution_id);
    assert.deepEqual(await listed(a), [started.execution_id]);
    assert.deepEqual(await listed(b), []);
  });
});

describe('baton command line usage', () => {
  before(() => ensureBuilt());

  it('--help and --version exit 0', async () => {
    assert.match((await runCli(['--help'])).stdout, /Usage: baton <command>/);
    const v = await runCli(['--version']);
    assert.equal(v.code, 0);
    assert.match(v.stdout, /^\d+\.\d+\.\d+/);
  });

  it('an unknown command exits 2 with usage on stderr', async () => {
    const r = await runCli(['frobnicate']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown command "frobnicate"[\s\S]*Usage: baton/);
    assert.equal(r.stdout, '');
  });

  it('reject without feedback exits 2 and says what to do', async () => {
    const r = await runCli(['reject', 'some-execution']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /reject needs --feedback TEXT: tell the agent what to change/);
  });

  it('a --content folder that is not laid out as Baton\'s content is warned of: none of the bundled workflows would load', async () => {
    const setup = tempSetup('baton-content-');
    try {
      const db = join(setup.dir, 'none.db');
      const project = await runCli(['approve', 'x', '--db', db, '--content', setup.workspace]);
      assert.equal(project.code, 1, 'it goes on (here to the missing database)');
      assert.ok(project.stderr.startsWith(`baton: warning: --content ${setup.workspace} holds none of agents/, rules/, workflows/, contracts/, blueprints/, spec-templates/, teams/: none of Baton's bundled agents, rules or workflows is loaded; leave --content out to load them\n`), project.stderr);
      const bundled = await runCli(['approve', 'x', '--db', db, '--content', join(ROOT, 'content')]);
      assert.doesNotMatch(bundled.stderr, /warning/);
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('a --workspace or --content that is not an existing folder, and a negative number, exit 2 with the flag\'s own words', async () => {
    const setup = tempSetup('baton-flags-');
    try {
      const typo = await runCli(['serve', '--workspace', join(setup.dir, 'typo')]);
      assert.equal(typo.code, 2);
      assert.match(typo.stderr, /^baton: --workspace .*typo: no such folder; name an existing folder/);
      assert.equal(existsSync(join(setup.dir, 'typo')), false, 'nothing created');
      const content = await runCli(['mcp', '--workspace', setup.workspace, '--content', join(setup.dir, 'nope')]);
      assert.equal(content.code, 2);
      assert.match(content.stderr, /^baton: --content .*nope: no such folder/);
      const negative = await runCli(['mcp', '--workspace', setup.workspace, '--token-ttl', '-5']);
      assert.equal(negative.code, 2);
      assert.match(negative.stderr, /^baton: --token-ttl must be a number of minutes from 1 to 525600 \(a year\), e\.g\. --token-ttl 10 or --token-ttl 1\.5 \(got "-5"\)/);
      // An empty --db (a script's unset variable) is refused, not read as "not given" (the default database).
      const empty = await runCli(['approve', 'x', '--db', ''], {}, setup.workspace);
      assert.equal(empty.code, 2);
      assert.match(empty.stderr, /^baton: --db needs a path \(got an empty one\); leave --db out for the default/);
      const folder = await runCli(['status', '--db', setup.workspace]);
      assert.equal(folder.code, 1);
      assert.equal(folder.stderr, `baton: ${setup.workspace} is a folder, not a database file; name a file, such as ${join(setup.workspace, 'baton.db')}.\n`);
      // A --db whose folder cannot be made (a part of it is a file; /proc refuses folders, where Node's own recursive
      // mkdir looped for ever): mcp and spec start say so and exit 1, no stack, no hang.
      const file = join(setup.dir, 'a-file');
      writeFileSync(file, 'hello\n');
      const underFile = await runCli(['mcp', '--workspace', setup.workspace, '--db', join(file, 'baton.db')], {}, undefined, 15_000);
      assert.equal(underFile.code, 1);
      assert.equal(underFile.stderr, `baton: cannot mkdir ${file}: a part of the path is a file, not a folder (ENOTDIR). Check the path (--db, --workspace, BATON_DB_PATH) and its permissions.\n`);
      if (existsSync('/proc/self')) {
        const proc = await runCli(['mcp', '--workspace', setup.workspace, '--db', '/proc/baton-nowhere/baton.db'], {}, undefined, 15_000);
        assert.equal(proc.code, 1);
        assert.match(proc.stderr, /^baton: cannot mkdir \/proc\/baton-nowhere: no such file or folder \(ENOENT\)\. Check the path/);
        writeFileSync(join(setup.workspace, 'tasks.md'), '- [ ] one\n- [ ] two\n');
        const spec = await runCli(['spec', 'start', 'tasks.md', '--db', '/proc/baton-nowhere/baton.db'], {}, setup.workspace, 15_000);
        assert.equal(spec.code, 1);
        assert.match(spec.stderr, /^baton: cannot mkdir \/proc\/baton-nowhere: no such file or folder \(ENOENT\)/);
      }
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('a --db whose folder takes no new file (/proc) is refused naming the lock file of that database, not its temp file', async (t) => {
    if (!existsSync('/proc/self')) return t.skip('needs /proc');
    for (const command of ['mcp', 'serve']) {
      const r = await runCli([command, '--db', '/proc/baton-x.db'], {}, undefined, 15_000);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stderr, 'baton: cannot create /proc/baton-x.db.lock, the lock file of the database /proc/baton-x.db: the folder /proc is not ' +
        'writable, or its file system refuses new files there (ENOENT: no such file or folder). Use another --db (or BATON_DB_PATH) in a folder you can write to.\n');
    }
  });

  it('run and start of a missing workflow file name the examples shipped with Baton by their absolute folder', async () => {
    const setup = tempSetup('baton-noteam-');
    try {
      const teams = join(ROOT, 'content', 'teams');
      const examples = readdirSync(teams).filter((f) => f.endsWith('.yaml')).sort();
      assert.ok(examples.length > 0, 'Baton ships team examples');
      for (const command of ['run', 'start']) {
        const r = await runCli([command, 'nofile.yaml'], {}, setup.workspace);
        assert.equal(r.code, 1, r.stderr);
        assert.equal(r.stderr, `baton: workflow file ${join(setup.workspace, 'nofile.yaml')} not found; check the path (it is resolved against the current ` +
          `folder), or run one of the examples in ${teams}/ (${examples.join(', ')})\n`);
      }
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('run, start and spec start read FILE from the current folder with --workspace too, and name the path to type', async () => {
    const setup = tempSetup('baton-filearg-');
    try {
      writeFileSync(join(setup.workspace, 'team.yaml'), 'agents:\n  a: { backend: command, command: [node, x.js], system_prompt: hi }\nkickoff: "@a go"\n');
      writeFileSync(join(setup.workspace, 'tasks.md'), '# Tasks\n\n## Phase 1: One\n- [ ] 1.1 Do it\n');
      for (const [args, file] of [[['run', 'team.yaml'], 'team.yaml'], [['start', 'team.yaml'], 'team.yaml'], [['spec', 'start', 'tasks.md'], 'tasks.md']] as const) {
        const r = await runCli([...args, '--workspace', 'ws'], {}, setup.dir);
        assert.equal(r.code, 1, r.stderr);
        assert.equal(r.stderr, `baton: no file ${join(setup.dir, file)} (${file} is read from the current folder, as the shell reads a path), ` +
          `but there is ${join(setup.workspace, file)} under --workspace: write ws/${file}\n`);
      }
      assert.equal(existsSync(join(setup.workspace, '.baton')), false, 'nothing was started');
      // The workspace's tasks.md files are named as they are typed from here.
      const none = await runCli(['spec', 'start', 'nope.md', '--workspace', 'ws', '--json'], {}, setup.dir);
      assert.equal(none.code, 1);
      assert.equal(none.stderr, `baton: no file ${join(setup.dir, 'nope.md')}; tasks.md files in the workspace: ws/tasks.md\n`);
      assert.equal(JSON.parse(none.stdout).error.reason, 'source_not_found', 'the reason a script tests, as the core gave it');
      const json = await runCli(['run', 'team.yaml', '--workspace', 'ws', '--json'], {}, setup.dir);
      assert.equal(JSON.parse(json.stdout).error.reason, 'not_found');
      const noFile = await runCli(['spec', 'start', '--workspace', 'ws'], {}, setup.dir);
      assert.equal(noFile.code, 2);
      assert.match(noFile.stderr, /^baton: spec start needs exactly one FILE \(a tasks\.md\); in this workspace: ws\/tasks\.md\n/);
      const typed = await runCli(['spec', 'start', join('ws', 'tasks.md'), '--workspace', 'ws', '--json'], {}, setup.dir);
      assert.equal(typed.code, 0, typed.stderr);
      assert.equal(JSON.parse(typed.stdout).source, 'tasks.md');
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('with --workspace, a hint to start something names that --workspace (a FILE is read from here; --db alone is not it)', async () => {
    const setup = tempSetup('baton-wshint-');
    try {
      writeFileSync(join(setup.workspace, 'tasks.md'), '# Tasks\n\n## Phase 1: One\n- [ ] 1.1 Do it\n');
      const ws = ` --workspace ${setup.workspace}`;
      const peek = await runCli(['peek', '--workspace', 'ws'], {}, setup.dir);
      assert.equal(peek.code, 1);
      assert.ok(peek.stderr.includes(`Start a team with baton start FILE${ws} (or baton run FILE${ws})`), peek.stderr);
      const listed = await runCli(['pipeline', 'list', '--workspace', 'ws'], {}, setup.dir);
      assert.ok(listed.stdout.includes(`make one with baton blueprint new NAME --from BLUEPRINT${ws})`), listed.stdout);
      const made = await runCli(['blueprint', 'new', 'zz', '--from', 'research-pipeline', '--input', 'topic=x', '--workspace', 'ws'], {}, setup.dir);
      assert.equal(made.code, 0, made.stderr);
      assert.match(made.stdout, new RegExp(`Run it: baton pipeline run zz --input TEXT${ws}\n$`));
      const missing = await runCli(['pipeline', 'run', 'nope', '--input', 'x', '--workspace', 'ws'], {}, setup.dir);
      assert.ok(missing.stderr.includes(`Create one with \`baton blueprint new NAME --from BLUEPRINT${ws}\``), missing.stderr);
      assert.equal((await runCli(['spec', 'start', join('ws', 'tasks.md'), '--workspace', 'ws'], {}, setup.dir)).code, 0);
      const spec = await runCli(['spec', 'status', 'nope', '--workspace', 'ws'], {}, setup.dir);
      assert.ok(spec.stderr.includes(`start one with \`baton spec start <tasks.md>${ws}\``), spec.stderr);
      assert.ok(spec.stderr.includes(`\`baton spec status --db ${join(setup.workspace, '.baton', 'baton.db')}\``), spec.stderr);
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('a command refused for a missing file leaves no database behind in a folder that had none', async () => {
    const setup = tempSetup('baton-nothing-');
    try {
      for (const args of [['spec', 'start', 'nofile.md'], ['run', 'nofile.yaml'], ['start', 'nofile.yaml'], ['pipeline', 'resume', 'nope']]) {
        const r = await runCli(args, {}, setup.workspace);
        assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, /^baton: (no file .*nofile\.md;|workflow file .*nofile\.yaml not found|no Baton database at .*\. There is no run nope to resume\.)/);
        assert.equal(existsSync(join(setup.workspace, '.baton')), false, `${args.join(' ')} left .baton/ behind`);
      }
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('run warns, by line, about what a team file ignores (a misspelt kickoff) and about a team with no kickoff', async () => {
    const setup = tempSetup('baton-teamtypo-');
    try {
      const file = join(setup.workspace, 'team.yaml');
      writeFileSync(file, ['name: t', 'agents:', '  alice:', '    backend: command', '    command: [node, -e, "0"]', '    system_prompt: hi', '    temprature: 0.2', 'kickof: "@alice go"', ''].join('\n'));
      const r = await runCli(['run', 'team.yaml', '--workspace', setup.workspace], {}, setup.workspace);
      assert.equal(r.code, 0, r.stderr);
      const warnings = r.stderr.split('\n').filter((l) => l.startsWith('baton: warning: '));
      assert.deepEqual(warnings, [
        `baton: warning: ${file}:7: agents.alice.temprature: unknown field; known fields: model, backend, system_prompt, tools, command (ignored)`,
        `baton: warning: ${file}:8: kickof: unknown field (did you mean 'kickoff'?); known fields: name, context, agents, setup, kickoff (ignored)`,
        'baton: warning: the workflow has no kickoff, so no agent wakes up and the team ends at once; add one, as in kickoff: "@alice \u2026" (or use baton start, then baton send)',
      ]);
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('run prints the document on stdout; a team that wrote none leaves stdout empty and says so, with the file, on stderr', async () => {
    const setup = tempSetup('baton-nodoc-');
    try {
      const team = (command: string) => ['name: t', 'agents:', '  alice:', '    backend: command', `    command: [node, -e, ${JSON.stringify(command)}]`,
        '    system_prompt: hi', 'kickoff: "@alice go"', ''].join('\n');
      const notes = join(setup.workspace, '.workflow', 'default', 'notes.md');
      writeFileSync(join(setup.workspace, 'silent.yaml'), team('0'));
      const silent = await runCli(['run', 'silent.yaml', '--db', setup.db], {}, setup.workspace);
      assert.equal(silent.code, 0, silent.stderr);
      assert.equal(silent.stdout, '', 'stdout is the document alone');
      assert.ok(silent.stderr.includes(`\n(no document: the team wrote none to ${notes}; its channel is ${join(dirname(notes), 'channel.md')})\n`), silent.stderr);
      const json = await runCli(['run', 'silent.yaml', '--db', setup.db, '--json'], {}, setup.workspace);
      assert.equal(json.code, 0, json.stderr);
      assert.doesNotMatch(json.stderr, /no document/, 'the JSON result carries the empty document itself');
      writeFileSync(join(setup.workspace, 'writer.yaml'), team(`require('fs').writeFileSync(${JSON.stringify(notes)}, '# done')`));
      const writer = await runCli(['run', 'writer.yaml', '--db', setup.db], {}, setup.workspace);
      assert.equal(writer.code, 0, writer.stderr);
      assert.equal(writer.stdout, '# done\n');
      assert.doesNotMatch(writer.stderr, /no document/);
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('a BATON_LOG_LEVEL that is not a level is said once, and the default level used', async () => {
    const setup = tempSetup('baton-level-');
    try {
      const r = await runCli(['status', '--db', join(setup.dir, 'none.db')], { BATON_LOG_LEVEL: 'verbose' });
      assert.equal(r.code, 1);
      assert.equal(r.stderr.match(/BATON_LOG_LEVEL="verbose" is not a level; using warn \(levels: debug, info, warn, error\)/g)?.length, 1, r.stderr);
      assert.doesNotMatch((await runCli(['status', '--db', join(setup.dir, 'none.db')], { BATON_LOG_LEVEL: 'WARN' })).stderr, /not a level/);
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('a command asked for --json that fails also prints its failure as JSON on stdout, with a reason to test', async () => {
    const missing = await runCli(['status', '--json', '--db', join(tempSetup('baton-json-').dir, 'none.db')]);
    assert.equal(missing.code, 1);
    const said = JSON.parse(missing.stdout) as { error: { reason: string; message: string } };
    assert.equal(said.error.reason, 'failed');
    assert.equal((said.error as { exit_code?: number }).exit_code, 1);
    assert.match(said.error.message, /^no Baton database at /);
    assert.match(missing.stderr, /^baton: no Baton database at /);
    const usage = await runCli(['status', '--json', 'extra']);
    assert.equal(usage.code, 2);
    assert.deepEqual(JSON.parse(usage.stdout), { error: { reason: 'usage', message: 'status takes no arguments (got "extra")', exit_code: 2 } });
  });

  it('an unknown tool group exits 2 naming the valid groups', async () => {
    const r = await runCli(['mcp', '--tools', 'brokr']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown tool group "brokr"; valid groups: broker, specs, lifecycle, content, memory, context/);
  });
});
