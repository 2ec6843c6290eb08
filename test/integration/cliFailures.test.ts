// Rule: every refusal of a command line names the command that was typed and what to type instead; a refused
// command leaves no database behind; --json prints the failure as one {"error": {...}} object on stdout.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { before, describe, it } from 'node:test';
import { discoveryPath, readDiscovery } from '../../src/host/discovery.js';
import { CLI, ensureBuilt, runCli, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';

describe('baton refusals of a command line', () => {
  before(() => ensureBuilt());

  it('start refuses a bad --max-invocations with its own usage, not run\'s', async () => {
    const r = await runCli(['start', 'team.yaml', '--max-invocations', 'x']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^baton: --max-invocations must be a whole number of agent turns, 1 or more, e\.g\. --max-invocations 50 \(got "x"\)\n\nUsage: baton start FILE/);
  });

  it('pipeline and blueprint take their options before the subcommand too, as spec does', async () => {
    const setup = tempSetup('baton-sub-');
    try {
      const pipelines = await runCli(['pipeline', '--json', '--workspace', setup.workspace, 'list', '--db', setup.db]);
      assert.equal(pipelines.code, 0, pipelines.stderr);
      assert.deepEqual(JSON.parse(pipelines.stdout), { systems: [], runs: [] });
      const blueprints = await runCli(['blueprint', '--json', 'list']);
      assert.equal(blueprints.code, 0, blueprints.stderr);
      assert.ok((JSON.parse(blueprints.stdout) as { blueprints: unknown[] }).blueprints.length > 0);
      for (const command of ['pipeline', 'blueprint']) {
        const none = await runCli([command, '--json']);
        assert.equal(none.code, 2);
        assert.match(JSON.parse(none.stdout).error.message, new RegExp(`^${command} needs a subcommand: .*\\(e\\.g\\. baton ${command} list\\)$`));
      }
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('blueprint list refuses words after it, as pipeline list does, where it listed and exited 0', async () => {
    const r = await runCli(['blueprint', 'list', 'extra']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^baton: blueprint list takes no arguments \(got "extra"\)\n\nUsage: baton blueprint list/);
    assert.equal(r.stdout, '');
  });

  it('approve and reject without one EXECUTION say what one is and where to find it, with the --db given, as cancel does', async () => {
    const setup = tempSetup('baton-one-');
    try {
      const none = await runCli(['approve', '--json', '--db', setup.db]);
      assert.equal(none.code, 2);
      assert.equal(JSON.parse(none.stdout).error.message, `approve needs exactly one EXECUTION (an execution or task id; baton status --db ${setup.db} lists them)`);
      const two = await runCli(['reject', 'a', 'b', '--feedback', 'x']);
      assert.equal(two.code, 2);
      assert.match(two.stderr, /^baton: reject needs exactly one EXECUTION \(an execution or task id; baton status lists them\); got "a b"\n\nUsage: baton reject /);
      const release = await runCli(['release', 'a', 'b']);
      assert.match(release.stderr, /^baton: release needs exactly one EXECUTION \(an execution or task id; baton status lists them\); got "a b"\n/);
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('an empty name given to --by, --step, --instance or --tools is refused before anything opens, as an empty --db is', async () => {
    const setup = tempSetup('baton-empty-');
    try {
      const cases: Array<[string[], string]> = [
        [['approve', 'x', '--by', ''], '--by needs a value (got an empty one): --by NAME; or leave --by out for the default'],
        [['release', 'x', '--step', ''], '--step needs a value (got an empty one): --step NAME; or leave --step out for the default'],
        [['run', 'team.yaml', '--instance', ''], '--instance needs a value (got an empty one): --instance NAME; or leave --instance out for the default'],
        [['mcp', '--tools', ''], '--tools needs a value (got an empty one): --tools GROUPS; or leave --tools out for the default'],
      ];
      for (const [args, said] of cases) {
        const r = await runCli([...args, '--db', setup.db], {}, setup.workspace);
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.ok(r.stderr.startsWith(`baton: ${said}\n\nUsage: baton ${args[0]} `), r.stderr);
      }
      assert.equal(existsSync(dirname(setup.db)), false, 'no database was made');
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('new --context @instance with no Baton process on the database refuses without making one', async () => {
    const setup = tempSetup('baton-join-');
    try {
      const r = await runCli(['new', 'helper', '--backend', 'claude', '--context', '@nope', '--db', setup.db], {}, setup.workspace);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stderr, `baton: no team instance @nope is running (no Baton process owns the database); start it with baton start FILE --instance nope --db ${setup.db}\n`);
      assert.equal(existsSync(dirname(setup.db)), false, 'no database, no folder for it');
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('serve on a --port in use fails leaving no database it made, nor the folders it made for one', async () => {
    const setup = tempSetup('baton-port-');
    // A program that is not Baton: it takes the connection serve opens to ask whether it is one, and answers nothing.
    const connections: Socket[] = [];
    const taken = createServer((c) => void connections.push(c));
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const r = await runCli(['serve', '--port', String(port), '--db', setup.db]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`baton: port ${port} on 127\\.0\\.0\\.1 is in use by another program; pass another --port`));
      assert.equal(existsSync(dirname(setup.db)), false, 'no database, no folder for it');
    } finally {
      for (const c of connections) c.destroy();
      await new Promise((resolve) => taken.close(resolve));
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('serve on a --port another baton serve holds names that Baton and the database it serves, and the ways on', { timeout: 60_000 }, async () => {
    const first = tempSetup('baton-port-first-');
    const second = tempSetup('baton-port-second-');
    const serve = spawn(process.execPath, [CLI, 'serve', '--db', first.db, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    serve.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    try {
      const url = await waitFor(() => readDiscovery(first.db)?.url, 15_000, `the first serve's endpoint; stderr:\n${stderr}`);
      const port = new URL(url).port;
      const r = await runCli(['serve', '--port', port, '--db', second.db]);
      assert.equal(r.code, 1, r.stderr);
      assert.ok(r.stderr.startsWith(`baton: port ${port} on 127.0.0.1 is in use by another Baton: process ${serve.pid}, which serves ${first.db} (endpoint http://127.0.0.1:${port}/mcp). Either\n`), r.stderr);
      const lines = r.stderr.split('\n');
      assert.equal(lines[1], `  - serve ${second.db} on another port: baton serve --db ${second.db} --port ${Number(port) + 1} (or leave --port out for a free one);`);
      assert.equal(lines[2], `  - or, to work on ${first.db}: it serves it already; agents connect to ${url} (the bearer token is in ${discoveryPath(first.db)}), or run baton mcp --db ${first.db}, which forwards to it;`);
      assert.match(lines[3]!, new RegExp(`^  - or stop process ${serve.pid} \\(kill ${serve.pid};.*then run baton serve again\\.$`));
      assert.equal(existsSync(dirname(second.db)), false, 'no database, no folder for it');
      assert.equal(readDiscovery(first.db)?.pid, serve.pid, 'the first serve goes on');
    } finally {
      // Waits for it to go: it writes its state folder on the way out, which would race the removal (ENOTEMPTY).
      const exited = serve.exitCode === null && serve.signalCode === null ? once(serve, 'exit') : Promise.resolve();
      serve.kill();
      await exited;
      rmSync(first.dir, { recursive: true, force: true });
      rmSync(second.dir, { recursive: true, force: true });
    }
  });

  it('--json prints a failure as the owner\'s endpoint answers one, {error: {reason, message, details}}, with the exit code', async () => {
    const setup = tempSetup('baton-shape-');
    try {
      writeFileSync(join(setup.workspace, 'team.yaml'), 'name: t\n');
      const r = await runCli(['run', 'team.yaml', '--workspace', 'ws', '--db', setup.db, '--json'], {}, setup.dir);
      assert.equal(r.code, 1, r.stderr);
      const said = JSON.parse(r.stdout) as { error: Record<string, unknown> };
      assert.deepEqual(Object.keys(said.error), ['reason', 'message', 'exit_code', 'details']);
      assert.equal(said.error.reason, 'not_found');
      assert.equal(said.error.exit_code, 1);
      assert.deepEqual(said.error.details, { path: join(setup.dir, 'team.yaml'), workspace_path: join(setup.workspace, 'team.yaml') });
      const usage = JSON.parse((await runCli(['status', '--bogus', '--json'])).stdout) as { error: Record<string, unknown> };
      assert.deepEqual(usage, { error: { reason: 'usage', message: 'unknown option --bogus for baton status; see baton status --help', exit_code: 2 } });
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('a --json after -- is the program\'s argument (baton new NAME --backend command -- PROGRAM --json): no JSON on stdout', async () => {
    const r = await runCli(['new', 'x', '--backend', 'claude', '--', 'prog', '--json']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^baton: only the command backend takes a program after --/);
    assert.equal(r.stdout, '');
  });

  it('a number flag takes decimal digits only: an empty --port, --budget-tokens or --budget-usd is not 0, nor 0x10 sixteen', async () => {
    const setup = tempSetup('baton-numbers-');
    try {
      const port = (got: string) => `--port must be a whole number from 0 to 65535 (0: a free one), e.g. --port 8080 (got "${got}")`;
      const tokens = (got: string) => `--budget-tokens must be a whole number of tokens, 0 or more, e.g. --budget-tokens 200000 (got "${got}")`;
      const usd = (got: string) => `--budget-usd must be a number of US dollars, 0 or more, e.g. --budget-usd 2.50 (got "${got}")`;
      const turns = (got: string) => `--max-invocations must be a whole number of agent turns, 1 or more, e.g. --max-invocations 50 (got "${got}")`;
      const days = (got: string) => `--days must be a whole number of days, 0 or more, e.g. --days 30 (got "${got}")`;
      const minutes = (flag: string, example: string, got: string) =>
        `--${flag} must be a number of minutes from 1 to 525600 (a year), e.g. ${example} (got "${got}")`;
      const cases: Array<[string[], string]> = [
        [['serve', '--port', ''], `${port('')}\n\nUsage: baton serve `],
        [['serve', '--port', '1e3'], port('1e3')],
        [['serve', '--port', ' 80'], port(' 80')],
        [['serve', '--port', '65536'], port('65536')],
        [['pipeline', 'run', 'p', '--input', 'x', '--budget-tokens', ''], tokens('')],
        [['pipeline', 'run', 'p', '--input', 'x', '--budget-tokens', '1e5'], tokens('1e5')],
        [['pipeline', 'run', 'p', '--input', 'x', '--budget-usd', '0x10'], usd('0x10')],
        [['pipeline', 'run', 'p', '--input', 'x', '--budget-usd', 'Infinity'], usd('Infinity')],
        [['run', 'team.yaml', '--max-invocations', '1e1'], turns('1e1')],
        [['run', 'team.yaml', '--max-invocations', '0'], turns('0')],
        [['prune', '--days', ' 12 '], days(' 12 ')],
        [['mcp', '--token-ttl', '0x10'], minutes('token-ttl', '--token-ttl 10 or --token-ttl 1.5', '0x10')],
        [['serve', '--token-ttl', '1e3'], minutes('token-ttl', '--token-ttl 10 or --token-ttl 1.5', '1e3')],
        [['mcp', '--stall-minutes', '  12 '], minutes('stall-minutes', '--stall-minutes 30', '  12 ')],
        [['serve', '--stall-minutes', 'Infinity'], minutes('stall-minutes', '--stall-minutes 30', 'Infinity')],
      ];
      for (const [args, said] of cases) {
        const r = await runCli([...args, '--db', setup.db], {}, setup.workspace, 10_000);
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.ok(r.stderr.startsWith(`baton: ${said}`), `${args.join(' ')}: ${r.stderr}`);
        assert.equal(r.stdout, '');
        // --json gets the same words as the usage errors of other flags: {"error": {"reason": "usage", ...}}.
        const json = await runCli([...args, '--db', setup.db, '--json'], {}, setup.workspace, 10_000);
        if (!['mcp', 'serve', 'start', 'new'].includes(args[0]!)) {
          assert.equal(json.code, 2, json.stderr);
          assert.equal(JSON.parse(json.stdout).error.reason, 'usage');
          assert.ok(JSON.parse(json.stdout).error.message.startsWith(said.split('\n')[0]!), json.stdout);
        }
      }
      const fine = await runCli(['pipeline', 'run', 'p', '--input', 'x', '--budget-usd', '.5', '--budget-tokens', '100', '--db', setup.db], {}, setup.workspace);
      assert.match(fine.stderr, /^baton: No pipeline "p"/, 'decimal budgets pass to the next check');
      assert.equal(existsSync(dirname(setup.db)), false, 'no database was made');
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('run and start refuse a bad --instance before they make a database; peek refuses a bare @', async () => {
    const setup = tempSetup('baton-instance-');
    try {
      writeFileSync(join(setup.workspace, 'team.yaml'), 'name: t\nagents:\n  a: { backend: command, command: ["true"], system_prompt: x }\nkickoff: "@a hi"\n');
      for (const command of ['run', 'start']) {
        const r = await runCli([command, 'team.yaml', '--instance', 'a b', '--db', setup.db], {}, setup.workspace);
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, /^baton: instance name "a b" is not valid: use letters, digits/);
        assert.equal(existsSync(dirname(setup.db)), false, `${command}: no database was made`);
      }
      const peek = await runCli(['peek', '@', '--json']);
      assert.equal(peek.code, 2);
      assert.equal(JSON.parse(peek.stdout).error.message, 'peek takes @instance (e.g. @pr-123), got "@"');
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('stop and send name the words they got that make the target or the MESSAGE wrong, and what to type', async () => {
    const both = await runCli(['stop', '@x', '--all']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /^baton: stop needs one target \(agent@instance, @instance or a standalone NAME\) or --all; got "@x" and --all: leave one out\n/);
    const two = await runCli(['stop', 'a', 'b', '--json']);
    assert.equal(JSON.parse(two.stdout).error.message, 'stop needs one target (agent@instance, @instance or a standalone NAME) or --all; got "a b"');
    const split = await runCli(['send', 'fix', 'the', 'tests', '--to', '@pr-1', '--db', 'my db.db']);
    assert.equal(split.code, 2);
    assert.match(split.stderr, /^baton: send needs exactly one MESSAGE \(quote it\): baton send 'fix the tests' --to @pr-1 --db '[^']*my db\.db'\n/);
  });

  it('help with a command and more says the help to type', async () => {
    const r = await runCli(['help', 'status', '--json']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'baton: help takes one command and no options (got "status --json"): baton help status\n');
    assert.equal(JSON.parse(r.stdout).error.reason, 'usage');
  });

  it('the CLI\'s own failures carry details for a script too: the database it looked for', async () => {
    const setup = tempSetup('baton-details-');
    try {
      for (const args of [['status'], ['peek']]) {
        const r = await runCli([...args, '--json', '--db', setup.db]);
        assert.equal(r.code, 1, r.stderr);
        const said = JSON.parse(r.stdout) as { error: { reason: string; exit_code: number; details: unknown } };
        assert.equal(said.error.reason, 'failed', 'the reason scripts already test');
        assert.deepEqual(said.error.details, { db_path: setup.db }, args[0]);
      }
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('a ${workspaceFolder} its MCP client left unfilled is named, not made a folder of (--db, --workspace, BATON_DB_PATH)', async () => {
    const setup = tempSetup('baton-unfilled-');
    try {
      const unfilled = /^baton: --(db|workspace|content) \$\{workspaceFolder\}\S*: \$\{workspaceFolder\} is a variable the program that started Baton did not fill in \(VS Code's mcp\.json fills \$\{workspaceFolder\}; most agent CLIs' configs do not\): give the absolute path instead\n\nUsage: baton (mcp|status)/;
      for (const args of [['mcp', '--db', '${workspaceFolder}/.baton/baton.db'], ['mcp', '--workspace', '${workspaceFolder}'], ['status', '--db', '${workspaceFolder}/b.db']]) {
        const r = await runCli(args, {}, setup.workspace);
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, unfilled, args.join(' '));
      }
      const env = await runCli(['mcp'], { BATON_DB_PATH: '${workspaceFolder}/.baton/baton.db' }, setup.workspace);
      assert.equal(env.code, 2, env.stderr);
      assert.match(env.stderr, /^baton: BATON_DB_PATH=\$\{workspaceFolder\}\/\.baton\/baton\.db: \$\{workspaceFolder\} is a variable the program that started Baton did not fill in: give the absolute path instead\n$/);
      assert.deepEqual(readdirSync(setup.workspace), [], 'no ${workspaceFolder} folder, no database');
      // A folder really named so is a folder like any other.
      mkdirSync(join(setup.workspace, '${x}'));
      const real = await runCli(['status', '--workspace', '${x}'], {}, setup.workspace);
      assert.doesNotMatch(real.stderr, /did not fill in/);
      assert.match(real.stderr, /no Baton database/i);
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });
});
