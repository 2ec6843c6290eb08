// Rule: every command's --help (on stdout, exit 0) says what each of its flags does, with the defaults, the
// database resolution order and BATON_DB_PATH; every error goes to stderr with the `baton:` prefix, usage errors
// exiting 2 and nothing on stdout.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ensureBuilt, runCli } from '../fixtures/mcp/cliHarness.js';

/** The flags each command's parser accepts. */
const FLAGS: Record<string, string[]> = {
  mcp: ['db', 'workspace', 'content', 'tools', 'rate-limits', 'token-ttl', 'stall-minutes', 'retention-days', 'retention-runs', 'retention-idle-days', 'help'],
  serve: ['db', 'workspace', 'content', 'port', 'tools', 'rate-limits', 'token-ttl', 'stall-minutes', 'retention-days', 'retention-runs', 'retention-idle-days', 'help'],
  prune: ['days', 'keep', 'idle-days', 'dry-run', 'compact', 'json', 'db', 'workspace', 'help'],
  status: ['all', 'json', 'db', 'workspace', 'help'],
  approve: ['step', 'feedback', 'by', 'json', 'db', 'workspace', 'content', 'help'],
  reject: ['step', 'feedback', 'by', 'json', 'db', 'workspace', 'content', 'help'],
};

const RESOLUTION = 'The database is --db, else $BATON_DB_PATH, else .baton/baton.db under --workspace (default: the project folder).\n' +
  'The project folder: the current one, or, when neither --db nor $BATON_DB_PATH is given, the nearest folder above\n' +
  'it holding a .baton (as git finds .git; the search ends at the top of a git repository, and below your home\n' +
  'folder, the temp folder and /).';

describe('baton help texts', () => {
  before(() => ensureBuilt());

  for (const [command, flags] of Object.entries(FLAGS)) {
    it(`${command} --help describes each flag, the database resolution and BATON_DB_PATH, on stdout with exit 0`, async () => {
      const r = await runCli([command, '--help']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
      assert.match(r.stdout, /^Usage: baton /);
      const synopsis = r.stdout.slice(0, r.stdout.indexOf('\n\n'));
      assert.ok(synopsis.includes(`baton ${command} `), synopsis);
      const described = new Map<string, string>();
      // A flag too long for the column has its description on the next line.
      for (const m of r.stdout.matchAll(/^ {2}(?:-\w, )?--([a-z-]+)(?: [A-Z]+)?(?: {2,}|\n {26})(\S.*)$/gm)) described.set(m[1]!, m[2]!);
      assert.deepEqual([...described.keys()].sort(), [...flags].sort(), 'one description line per accepted flag');
      for (const m of synopsis.matchAll(/--([a-z-]+)/g)) assert.ok(described.has(m[1]!), `--${m[1]} of the synopsis is described`);
      for (const flag of ['db', 'workspace', 'content'].filter((f) => flags.includes(f))) {
        const text = r.stdout.slice(r.stdout.indexOf(`  --${flag} `)).split(/\n {2}-/)[0]!;
        assert.match(text, /\(default: /, `--${flag} names its default`);
      }
      assert.ok(r.stdout.includes(RESOLUTION), 'the resolution order');
      assert.match(r.stdout, /Environment: BATON_DB_PATH \(the database when --db is not given\)/);
      assert.match(r.stdout, /Exit codes: 0 done; 1 failed .*; 2 usage error\./);
      assert.equal((await runCli(['help', command])).stdout, r.stdout, 'baton help COMMAND prints the same');
      assert.equal((await runCli([command, '-h'])).stdout, r.stdout, '-h prints the same');
    });
  }

  it('approve and reject say the default of --by as the code takes it: cli:$USER, else the OS user\'s name', async () => {
    for (const command of ['approve', 'reject']) {
      const r = await runCli([command, '--help']);
      assert.match(r.stdout.replace(/\s+/g, ' '), /--by NAME who decides, recorded with the decision \(default: cli:\$USER, or cli: and the OS user's name when USER is not set\)/);
    }
  });

  it('baton --help lists the commands in two columns: each name, then its description at one column', async () => {
    const r = await runCli(['--help']);
    const list = r.stdout.slice(r.stdout.indexOf('Commands:\n') + 'Commands:\n'.length, r.stdout.indexOf('\n\nOptions:'));
    const rows = list.split('\n').map((line) => /^ {2}([a-z]+) {2,}(\S)/.exec(line));
    assert.ok(rows.every(Boolean), `a name, two spaces at least, a description:\n${list}`);
    assert.equal(new Set(rows.map((m) => m!.index + m![0].length)).size, 1, `one description column:\n${list}`);
  });

  it('start and new, which hold the terminal when they own the database, say until when', async () => {
    const help = async (command: string) => (await runCli([command, '--help'])).stdout.replace(/\s+/g, ' ');
    assert.match(await help('start'), /keeps it running until it is stopped \(baton stop @instance, or Ctrl-C\)/);
    assert.match(await help('new'), new RegExp('When no other Baton process owns the database, this one runs the agent '
      + 'and keeps running until it is stopped \\(baton stop NAME, or Ctrl-C\\)'));
  });

  it('every other command\'s help names its exit codes; blueprint, which opens no database, has no database footer', async () => {
    for (const command of ['pipeline', 'blueprint', 'spec', 'run', 'start', 'stop', 'list', 'send', 'peek', 'new']) {
      const r = await runCli([command, '--help']);
      assert.equal(r.code, 0, `${command}: ${r.stderr}`);
      assert.match(r.stdout, /\nExit codes: 0 [^\n]*; 2 usage error/, `${command} names its exit codes`);
      assert.equal(r.stdout.includes(RESOLUTION), command !== 'blueprint', `${command}: the database resolution only where there is a database`);
    }
  });

  /** The flags each team command's parser accepts: --content only where the command may open the database itself. */
  const TEAM_FLAGS: Record<string, string[]> = {
    run: ['instance', 'verbose', 'json', 'max-invocations', 'db', 'workspace', 'content', 'help'],
    start: ['instance', 'background', 'verbose', 'max-invocations', 'db', 'workspace', 'content', 'help'],
    new: ['backend', 'model', 'system-prompt', 'context', 'db', 'workspace', 'content', 'help'],
    stop: ['all', 'json', 'db', 'workspace', 'help'],
    list: ['json', 'db', 'workspace', 'help'],
    send: ['to', 'json', 'db', 'workspace', 'help'],
    peek: ['json', 'db', 'workspace', 'help'],
  };
  for (const [command, flags] of Object.entries(TEAM_FLAGS)) {
    it(`${command} --help describes exactly the flags it accepts, and its synopsis names only those`, async () => {
      const r = await runCli([command, '--help']);
      assert.equal(r.code, 0, r.stderr);
      const described = [...r.stdout.matchAll(/^ {2}(?:-\w, )?--([a-z-]+)(?: \S+)? {2,}\S/gm)].map((m) => m[1]!);
      assert.deepEqual(described.sort(), [...flags].sort());
      const synopsis = r.stdout.slice(0, r.stdout.indexOf('\n\n'));
      for (const m of synopsis.matchAll(/--([a-z-]+)/g)) assert.ok(flags.includes(m[1]!), `--${m[1]} of the synopsis is accepted`);
      for (const flag of flags.filter((f) => f !== 'help')) assert.ok(synopsis.includes(`--${flag}`), `--${flag} is in the synopsis`);
      // Otherwise well-formed, so that only --content can make it a usage error.
      const rest: Record<string, string[]> = { stop: ['@x'], send: ['hi', '--to', '@x'] };
      if (!flags.includes('content')) assert.equal((await runCli([command, ...(rest[command] ?? []), '--content', '.'])).code, 2, `${command} refuses --content`);
    });
  }

  it('status --help counts cancelled runs among the finished ones --all adds, as prune --help does', async () => {
    assert.match((await runCli(['status', '--help'])).stdout, /--all +also list finished \(completed, failed or cancelled\) executions/);
  });

  it('reject --help says what a rejection does: a workflow step is redone, a pipeline\'s review fails the run or not', async () => {
    const text = (await runCli(['reject', '--help'])).stdout.replace(/\s+/g, ' ');
    assert.match(text, /for a workflow's step, what the agent must change \(it redoes the step with these words\)/);
    assert.match(text, /for a pipeline's human_review step, why you reject it \(recorded with the run, which then fails, or goes on with the review not approved when the step says onReject: continue\)/);
  });

  it('run and start name an invalid workflow file among the reasons for exit 1', async () => {
    for (const command of ['run', 'start']) {
      assert.match((await runCli([command, '--help'])).stdout, /\nExit codes: [^\n]*1 [^\n]*a missing or invalid workflow file/, command);
    }
  });

  it('baton --help / help / -h print the general usage on stdout with exit 0, naming BATON_DB_PATH and the exit codes', async () => {
    for (const args of [['--help'], ['help'], ['-h'], ['help', 'help'], ['help', '--help']]) {
      const r = await runCli(args);
      assert.equal(r.code, 0);
      assert.equal(r.stderr, '');
      assert.match(r.stdout, /^Usage: baton <command> \[options\]/);
      assert.ok(r.stdout.includes(RESOLUTION));
      assert.match(r.stdout, /status {2,}list executions and their steps \(reads only; never creates a database\)/);
      assert.match(r.stdout, /Exit codes: 0 done; 1 failed/);
    }
  });

  it('a command\'s -h or --help wins over a mistake on the same line, but not after --, where it is the program\'s', async () => {
    const statusHelp = (await runCli(['status', '--help'])).stdout;
    for (const args of [['status', '--bogus', '--help'], ['status', 'extra', '-h'], ['status', '--db', '--help']]) {
      const r = await runCli(args);
      assert.deepEqual([r.code, r.stderr, r.stdout], [0, '', statusHelp], `baton ${args.join(' ')}`);
    }
    const r = await runCli(['new', 'x', '--backend', 'nope', '--', 'prog', '--help']);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^baton: --backend "nope" is not a backend: use one of /);
  });

  it('the general usage names what each command takes, as its own help does: every subcommand, every stop and send target', async () => {
    const general = (await runCli(['--help'])).stdout;
    const line = (command: string) => general.split('\n').find((l) => l.startsWith(`  ${command} `)) ?? '';
    for (const command of ['pipeline', 'blueprint', 'spec']) {
      const own = (await runCli([command, '--help'])).stdout;
      const subcommands = [...own.matchAll(new RegExp(`^(?:Usage: | {7})baton ${command} (\\w+)`, 'gm'))].map((m) => m[1]!);
      assert.ok(subcommands.length >= 2, `${command} --help has its subcommands`);
      for (const sub of subcommands) assert.match(line(command), new RegExp(`\\b${sub}\\b`), `${command}: ${sub} in "${line(command)}"`);
    }
    for (const [command, pattern] of [['stop', /^Usage: baton stop \(([^)]+)\)/], ['send', /^Usage: baton send MESSAGE --to \(([^)]+)\)/]] as const) {
      const targets = pattern.exec((await runCli([command, '--help'])).stdout)?.[1]?.split(' | ') ?? [];
      assert.ok(targets.length >= 3, `${command} --help names its targets`);
      for (const target of targets) assert.ok(line(command).includes(target), `${command}: ${target} in "${line(command)}"`);
    }
  });
});

describe('baton errors', () => {
  before(() => ensureBuilt());

  const usageErrors: Array<[string[], RegExp]> = [
    [[], /^baton: missing command\n\nUsage: baton <command>/],
    [['frobnicate'], /^baton: unknown command "frobnicate"\n\nUsage: baton <command>/],
    [['help', 'frobnicate'], /^baton: no help for unknown command "frobnicate"\n\nUsage: baton <command>/],
    [['statsu'], /^baton: unknown command "statsu" \(did you mean status\?\); see baton --help\n$/],
    [['version'], /^baton: unknown command "version": for Baton's version, baton --version\n$/],
    [['help', 'version'], /^baton: no help for unknown command "version": for Baton's version, baton --version\n$/],
    [['help', 'statsu'], /^baton: no help for unknown command "statsu" \(did you mean status\?\); see baton --help\n$/],
    [['--verison'], /^baton: unknown option --verison \(did you mean --version\?\); baton itself takes only -h, --help and -v, --version; a command's options come after the command \(see baton --help\)\n$/],
    [['--verbose'], /^baton: unknown option --verbose; it is an option of baton run and baton start: write it after the command \(see baton run --help\)\n$/],
    [['--db', 'my db', 'status', '--all'], /^baton: unknown option --db; options come after the command: baton status --db 'my db' --all\n$/],
    [['--json'], /^baton: unknown option --json; options come after the command \(e\.g\. baton status --json; see baton --help\)\n$/],
    [['--version=2'], /^baton: --version takes no value: write --version\n$/],
    [['status', '--db'], /^baton: --db needs a value: --db PATH; see baton status --help\n$/],
    [['status', '--all=yes'], /^baton: --all takes no value: write --all; see baton status --help\n$/],
    [['status', '--db', '--all'], /^baton: --db needs a value: --db PATH \(--all is an option, not its value\); see baton status --help\n$/],
    [['send', 'hi', '--to', '-x'], /^baton: --to needs a value: --to TARGET \(a value that starts with "-" is written --to=-x\); see baton send --help\n$/],
    [['pipeline', 'run', 'x', '--input'], /^baton: --input needs a value: --input TEXT; see baton pipeline --help\n$/],
    [['status', '--bogus'], /^baton: unknown option --bogus for baton status; see baton status --help\n$/],
    [['status', '--jsno'], /^baton: unknown option --jsno for baton status \(did you mean --json\?\); see baton status --help\n$/],
    [['reject', 'x', '--jsno'], /^baton: unknown option --jsno for baton reject \(did you mean --json\?\); see baton reject --help\n$/],
    [['approve', 'x', '--jsno'], /^baton: unknown option --jsno for baton approve \(did you mean --json\?\); see baton approve --help\n$/],
    [['pipeline', 'list', '--workspce=.'], /^baton: unknown option --workspce for baton pipeline \(did you mean --workspace\?\); see baton pipeline --help\n$/],
    [['run', 'team.yaml', '-x'], /^baton: unknown option -x for baton run; see baton run --help\n$/],
    [['status', 'extra'], /^baton: status takes no arguments \(got "extra"\)\n\nUsage: baton status/],
    [['mcp', 'extra'], /^baton: mcp takes no arguments \(got "extra"\)\n\nUsage: baton mcp/],
    [['serve', '--port', 'x'], /^baton: --port must be a whole number from 0 to 65535 \(0: a free one\), e\.g\. --port 8080 \(got "x"\)/],
    [['approve'], /^baton: approve needs exactly one EXECUTION \(an execution or task id; baton status lists them\)\n\nUsage: baton approve /],
    [['mcp', '--retention-days', 'soon'], /^baton: --retention-days must be a whole number of days, 0 or more, e\.g\. --retention-days 30 or --retention-days 0 \(got "soon"\)\n\nUsage: baton mcp/],
    [['serve', '--retention-runs=-5'], /^baton: --retention-runs must be a whole number of runs, 0 or more, .* \(got "-5"\)\n\nUsage: baton serve/],
    [['mcp', '--retention-idle-days', '1e3'], /^baton: --retention-idle-days must be a whole number of days, 0 or more, .* \(got "1e3"\)\n\nUsage: baton mcp/],
    [['reject', 'some-execution'], /^baton: reject needs --feedback TEXT: tell the agent what to change/],
    [['mcp', '--tools', 'brokr'], /^baton: unknown tool group "brokr"/],
    [['mcp', '--tools', 'all,brokr'], /^baton: unknown tool group "brokr"/],
    [['mcp', '--token-ttl', '1e12'], /^baton: --token-ttl must be a number of minutes from 1 to 525600 \(a year\), e\.g\. --token-ttl 10 or --token-ttl 1\.5 \(got "1e12"\)/],
    [['serve', '--port', '-1'], /^baton: --port must be a whole number from 0 to 65535 .* \(got "-1"\)/],
    [['new', 'x', '--backend', 'bogus'], /^baton: --backend "bogus" is not a backend: use one of /],
  ];
  const commands = [['mcp'], ['serve'], ['status'], ['approve'], ['reject'], ['prune'], ['pipeline', 'list'], ['pipeline', 'run'], ['pipeline', 'resume'],
    ['pipeline', 'cancel'], ['blueprint', 'list'], ['blueprint', 'new'], ['spec', 'start'], ['spec', 'status'], ['run'], ['start'], ['stop'], ['list'],
    ['send'], ['peek'], ['new'], ['cancel']];
  it('every command words a missing option value, or a value given to a flag, in its own terms, naming how to write it', async () => {
    for (const command of commands) {
      const help = command[0];
      const missing = await runCli([...command, '--workspace']);
      assert.equal(missing.code, 2, missing.stderr);
      assert.equal(missing.stderr, `baton: --workspace needs a value: --workspace DIR; see baton ${help} --help\n`, command.join(' '));
      const flag = await runCli([...command, '--help=yes']);
      assert.equal(flag.code, 2, flag.stderr);
      assert.equal(flag.stderr, `baton: --help takes no value: write --help; see baton ${help} --help\n`, command.join(' '));
    }
  });

  // mcp's stdout is its client's JSON-RPC channel: a {"error": ...} object there is a malformed message to the client.
  const noJson: Array<[string[], string]> = [
    [['mcp'], 'stdout carries JSON-RPC only, so a refusal, as every log line, goes to stderr as text'],
    [['mcp', '--tools', 'all'], 'stdout carries JSON-RPC only, so a refusal, as every log line, goes to stderr as text'],
    [['serve', '--port', '0'], 'it says where it serves on stderr as text; a script reads the endpoint, token and pid from server.json'],
    [['start', 'team.yaml'], 'it prints the team\'s agents and how to reach them as text; baton list --json lists them for a script'],
    [['new', 'x', '--backend', 'claude'], 'it prints where the agent runs as text; baton list --json lists it for a script'],
  ];
  for (const [args, why] of noJson) {
    it(`"baton ${args.join(' ')} --json" is refused on stderr alone, saying why; its --help says so too`, async () => {
      const command = args[0]!;
      const r = await runCli([...args, '--json']);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, '', 'nothing on stdout');
      assert.equal(r.stderr, `baton: baton ${command} takes no --json: ${why} (see baton ${command} --help)\n`);
      assert.ok((await runCli([command, '--help'])).stdout.includes(`\nNo --json: ${why}.\n`), `${command} --help says it has no --json`);
    });
  }

  it('a refusal of a command without --json is not JSON either when --json is not what was refused', async () => {
    for (const args of [['mcp', '--db', '--json'], ['serve', 'extra', '--json'], ['start', '--instance', '--json']]) {
      const r = await runCli(args);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, '', `${args.join(' ')}: nothing on stdout`);
      assert.match(r.stderr, /^baton: /);
    }
    const general = (await runCli(['--help'])).stdout;
    assert.match(general.replace(/\s+/g, ' '), /mcp, serve, start and new have none: given --json they refuse it on stderr \(exit 2\) and write nothing to stdout/);
  });

  for (const [args, expected] of usageErrors) {
    it(`"baton ${args.join(' ')}" is a usage error: exit 2, the baton: prefix, stderr only`, async () => {
      const r = await runCli(args);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, expected);
      assert.equal(r.stdout, '');
    });
  }
});
