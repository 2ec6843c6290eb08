// Rule: a team started with `baton start` runs in the database owner and is reached from other processes: `list` shows
// NAME SOURCE STATUS, `send` posts as the person and wakes the agent, `peek` shows the channel, `stop` stops one agent
// (its process killed), an instance, or everything; Ctrl-C of a `baton run` following a team in another owner stops it,
// said as an interruption; `start` shows a failed turn without --verbose; a `baton start` SIGKILLed while a codex and a
// cursor-agent agent run leaves their project MCP files behind, and the next start restores them byte for byte (or
// deletes them when there were none).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CLI, ensureBuilt, killAll, ROOT, runCli, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';
import { isPidAlive } from '../../src/store/lock.js';
import { readPid } from '../helpers/processes.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'teams', 'teamAgent.mjs');
const pids: number[] = [];

before(() => ensureBuilt());
after(() => killAll(pids));

function workspace(files: Record<string, string>) {
  const t = tempSetup('baton-start-');
  for (const [name, yaml] of Object.entries(files)) writeFileSync(join(t.workspace, name), yaml.replaceAll('AGENT', `[node, ${JSON.stringify(AGENT)}]`));
  const env: Record<string, string> = { TEAM_LOG: join(t.dir, 'team.log'), SLEEP_PID: join(t.dir, 'sleep.pid'), BATON_LOG_LEVEL: 'error', ROLE_s: 'sleeper', ROLE_t: 'silent', ROLE_q: 'silent', ROLE_helper: 'silent', ROLE_solo: 'silent' };
  const log = () => (existsSync(env.TEAM_LOG!) ? readFileSync(env.TEAM_LOG!, 'utf8').trim().split('\n') : []);
  const flags = ['--db', t.db, '--workspace', t.workspace];
  // Flags go before a `--` (after it, everything is the command backend's program).
  const withFlags = (args: string[]) => (args.includes('--') ? [...args.slice(0, args.indexOf('--')), ...flags, ...args.slice(args.indexOf('--'))] : [...args, ...flags]);
  const cli = (args: string[], extra: Record<string, string> = {}) => runCli(withFlags(args), { ...env, ...extra }, t.workspace);
  const start = (args: string[], extra: Record<string, string> = {}, command = 'start') => {
    const child = spawn(process.execPath, [CLI, command, ...withFlags(args)], { cwd: t.workspace, env: { ...process.env, ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    pids.push(child.pid!);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => void (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    return { child, exited, out: () => out, err: () => err };
  };
  return { ...t, env, log, cli, start };
}

const TEAM = `agents:
  s: { backend: command, command: AGENT, system_prompt: x }
  t: { backend: command, command: AGENT, system_prompt: x }
kickoff: "@s work on it"
`;

test('start, then list, send, peek and stop (an agent, then the instance) from other processes', async () => {
  const w = workspace({ 'team.yaml': TEAM });
  const owner = w.start(['team.yaml', '--instance', 'inst']);
  await waitFor(() => owner.out().includes('started @inst'), 20_000, `start (${owner.err()})`);
  const sleeper = await waitFor(() => readPid(w.env.SLEEP_PID!), 20_000, 'the sleeping agent');
  const listed = await w.cli(['list', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(JSON.parse(listed.stdout).map((a: { name: string; source: string; status: string }) => [a.name, a.source, a.status]), [['s@inst', 'team.yaml', 'running'], ['t@inst', 'team.yaml', 'idle']]);
  const table = (await w.cli(['ls'])).stdout.split('\n');
  assert.match(table[0]!, /^NAME +SOURCE +STATUS$/);
  assert.match(table[1]!, /^s@inst +team\.yaml +running$/);

  const sent = await w.cli(['send', 'please check the notes', '--to', 't@inst']);
  assert.equal(sent.code, 0, sent.stderr);
  assert.match(sent.stdout, /\[user\]\n@t please check the notes/);
  await waitFor(() => w.log().some((l) => l.startsWith('t ')), 20_000, 'the agent woken by send');
  const peek = await w.cli(['peek', '@inst']);
  assert.match(peek.stdout, /\[system\]\n@s work on it/);
  assert.match(peek.stdout, /\[user\]\n@t please check the notes/);

  const one = await w.cli(['stop', 's@inst']);
  assert.equal(one.stdout.trim(), 'stopped s@inst');
  await waitFor(() => !isPidAlive(sleeper), 10_000, 'the stopped agent\'s process to die');
  assert.match((await w.cli(['list'])).stdout, /s@inst +team\.yaml +stopped/);
  // An agent stopped mid-turn did not fail: status names no failing agent (it would have, recorded as failed).
  await new Promise((r) => setTimeout(r, 300));
  assert.doesNotMatch((await w.cli(['status'])).stdout, /✗|failed/);
  // A stopped agent takes no more turns: a message to it would wake nobody, so it is refused and not posted.
  const toStopped = await w.cli(['send', 'are you there?', '--to', 's@inst']);
  assert.equal(toStopped.code, 1);
  assert.ok(toStopped.stderr.includes('s@inst was stopped and takes no more turns, so nothing was sent; post to the whole team with --to @inst'), toStopped.stderr);
  assert.doesNotMatch((await w.cli(['peek', '@inst'])).stdout, /are you there\?/);
  assert.equal(isPidAlive(owner.child.pid!), true);
  assert.equal((await w.cli(['stop', '@inst'])).stdout.trim(), 'stopped @inst');
  assert.equal(await owner.exited, 0);
  const none = await w.cli(['stop', '@inst']);
  assert.equal(none.code, 1);
  assert.ok(none.stderr.includes(`no team is running: no Baton process owns ${w.db}. Start a team with baton start FILE --db ${w.db}`), none.stderr);
  // Stopped before its agents were done: the run reads "cancelled", not "completed".
  assert.match((await w.cli(['status', '--all'])).stdout, /^\S+ {2}team@inst {2}cancelled \(stopped by baton stop @inst\) {2}team run$/m);
  const json = JSON.parse((await w.cli(['status', '--all', '--json'])).stdout) as { executions: Array<{ cancelled?: boolean; cancel_reason?: string }> };
  assert.deepEqual([json.executions[0]!.cancelled, json.executions[0]!.cancel_reason], [true, 'stopped by baton stop @inst']);
});

test('a second start runs in the live owner; stop --all stops both; bad targets name the fix', async () => {
  const w = workspace({ 'team.yaml': TEAM.replace('@s work on it', '@t hello') });
  const owner = w.start(['team.yaml', '--instance', 'one']);
  await waitFor(() => owner.out().includes('started @one'), 20_000, `start (${owner.err()})`);
  const second = await w.cli(['start', 'team.yaml', '--instance', 'two']);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, new RegExp(`started @two in Baton process ${owner.child.pid}`));
  // Its commands name the database the start was given, so they work pasted (here, and in the owner's refusals).
  assert.ok(second.stdout.includes(`watch: baton peek @two --db ${w.db}; stop: baton stop @two --db ${w.db}\n`), second.stdout);
  const again = await w.cli(['start', 'team.yaml', '--instance', 'two']);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /@two is already running/);
  assert.ok(again.stderr.includes(`stop it with \`baton stop @two --db ${w.db}\``), again.stderr);
  const unknown = await w.cli(['peek', '@three']);
  assert.equal(unknown.stderr, `baton: no team instance @three; running: @one, @two (see \`baton list --db ${w.db}\`)\n`);
  const names = JSON.parse((await w.cli(['list', '--json'])).stdout).map((a: { name: string }) => a.name);
  assert.deepEqual(names.sort(), ['s@one', 's@two', 't@one', 't@two']);
  assert.equal((await w.cli(['stop', 'nobody@one'])).code, 1);
  // A team instance named without its @ reads as a standalone agent NAME: the refusal says which to write.
  for (const args of [['stop', 'one'], ['send', 'hi', '--to', 'one']]) {
    const bare = await w.cli(args);
    assert.equal(bare.code, 1);
    assert.match(bare.stderr, /one is a team instance, not a standalone agent: name the whole team @one, or one of its agents \(s@one, t@one\)/);
  }
  assert.equal((await w.cli(['stop'])).code, 2);
  assert.equal((await w.cli(['send', 'x'])).code, 2);
  const all = await w.cli(['stop', '--all']);
  assert.equal(all.stdout.trim(), 'stopped @one, @two');
  assert.equal(await owner.exited, 0);
});

test('SIGKILL of a baton start holding .codex/config.toml and .cursor/mcp.json: the next start restores them exactly', async () => {
  const w = workspace({
    'team.yaml': `agents:
  cx: { backend: codex, model: gpt-5, system_prompt: x }
  cu: { backend: cursor-agent, model: auto, system_prompt: x }
kickoff: "@cx and @cu go"
`,
    'quiet.yaml': `agents:\n  q: { backend: command, command: AGENT, system_prompt: x }\nkickoff: "@q hi"\n`,
  });
  // Stand-ins for the CLIs: they only need to be running while the team holds the project files.
  const bin = join(w.dir, 'bin');
  mkdirSync(bin);
  for (const name of ['codex', 'cursor-agent']) {
    writeFileSync(join(bin, name), `#!/bin/sh\necho $$ > "${w.dir}/${name}.pid"\nexec sleep 600\n`);
    chmodSync(join(bin, name), 0o755);
  }
  const original = Buffer.from('model = "o3"\n# my own settings\r\n[profiles.x]\nmodel = "gpt-5"\n');
  mkdirSync(join(w.workspace, '.codex'));
  writeFileSync(join(w.workspace, '.codex', 'config.toml'), original);
  chmodSync(join(w.workspace, '.codex', 'config.toml'), 0o640);
  const owner = w.start(['team.yaml'], { PATH: `${bin}:${process.env.PATH}` });
  const cliPids = await waitFor(() => {
    const read = ['codex', 'cursor-agent'].map((n) => readPid(join(w.dir, `${n}.pid`)));
    return read.every((pid) => pid !== undefined) && (read as number[]);
  }, 20_000, `both agents running (${owner.err()})`);
  pids.push(...cliPids);
  const codexConfig = readFileSync(join(w.workspace, '.codex', 'config.toml'), 'utf8');
  assert.ok(codexConfig.startsWith(original.toString()), 'the user\'s settings are kept');
  assert.match(codexConfig, /\[mcp_servers\.baton\]\nurl = "http:\/\/127\.0\.0\.1:\d+\/mcp"\nbearer_token_env_var = "BATON_MCP_TOKEN"/);
  const cursorConfig = JSON.parse(readFileSync(join(w.workspace, '.cursor', 'mcp.json'), 'utf8'));
  assert.deepEqual(cursorConfig.mcpServers.baton.headers, { Authorization: 'Bearer ${env:BATON_MCP_TOKEN}' });
  assert.doesNotMatch(codexConfig + JSON.stringify(cursorConfig), /[0-9a-f]{64}/, 'no token in the project files');

  process.kill(owner.child.pid!, 'SIGKILL');
  killAll(cliPids);
  await owner.exited;
  assert.notDeepEqual(readFileSync(join(w.workspace, '.codex', 'config.toml')), original);

  const next = await w.cli(['run', 'quiet.yaml'], { ROLE_q: 'silent' });
  assert.equal(next.code, 0, next.stderr);
  assert.deepEqual(readFileSync(join(w.workspace, '.codex', 'config.toml')), original);
  assert.equal(statSync(join(w.workspace, '.codex', 'config.toml')).mode & 0o777, 0o640);
  assert.equal(existsSync(join(w.workspace, '.cursor')), false, 'the folder Baton made is gone');
});

test('new: an agent joins a running team\'s channel (--context @instance); a standalone agent runs alone as NAME', async () => {
  const w = workspace({ 'team.yaml': `agents:\n  t: { backend: command, command: AGENT, system_prompt: x }\nkickoff: "@t hi"\n` });
  const owner = w.start(['team.yaml', '--instance', 'inst']);
  await waitFor(() => owner.out().includes('started @inst'), 20_000, `start (${owner.err()})`);
  const joined = await w.cli(['new', 'helper', '--backend', 'command', '--context', '@inst', '--', 'node', AGENT]);
  assert.equal(joined.code, 0, joined.stderr);
  assert.match(joined.stdout, /agent helper@inst runs in Baton process \d+/);
  assert.match((await w.cli(['list'])).stdout, /helper@inst +team\.yaml +idle/);
  await w.cli(['send', 'anything for you? @helper', '--to', '@inst']);
  await waitFor(() => w.log().some((l) => l.startsWith('helper ')), 20_000, 'the joined agent woken by its mention');
  assert.equal((await w.cli(['new', 'helper', '--backend', 'command', '--context', '@inst', '--', 'node', AGENT])).code, 1);
  assert.equal((await w.cli(['new', 'x', '--backend', 'command'])).code, 2);
  assert.equal((await w.cli(['new', 'x', '--backend', 'nope'])).code, 2);
  // A standalone name taken by a running instance, and a bare NAME that names nothing: said in terms of NAME.
  const taken = await w.cli(['new', 'inst', '--backend', 'command', '--', 'node', AGENT]);
  assert.equal(taken.code, 1);
  assert.match(taken.stderr, /'inst' is the name of a running team instance \(@inst, team\.yaml\); a standalone agent runs as an instance of its own name, so pick another NAME \(or join that team with --context @inst\)/);
  assert.doesNotMatch(taken.stderr, /--instance/);
  const ghost = await w.cli(['stop', 'ghost']);
  assert.equal(ghost.code, 1);
  assert.match(ghost.stderr, /no standalone agent ghost \(nor a team instance @ghost\); running: @inst/);
  assert.match((await w.cli(['send', 'hi', '--to', 'ghost'])).stderr, /no standalone agent ghost \(nor a team instance @ghost\)/);
  assert.match((await w.cli(['stop', 'ghost@inst'])).stderr, /no agent ghost in @inst; its agents: t, helper/);
  await w.cli(['stop', '--all']);
  assert.equal(await owner.exited, 0);

  const solo = w.start(['solo', '--backend', 'command', '--', 'node', AGENT], {}, 'new');
  await waitFor(() => solo.out().includes('standalone agent solo runs'), 20_000, `new (${solo.err()})`);
  assert.match((await w.cli(['list'])).stdout, /^solo +\(standalone\) +idle$/m);
  const twice = await w.cli(['new', 'solo', '--backend', 'command', '--', 'node', AGENT]);
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, /standalone agent solo is already running; stop it with `baton stop solo( --db [^`]+)?`, or pick another NAME/);
  const sent = await w.cli(['send', 'hello', '--to', 'solo']);
  assert.match(sent.stdout, /\[user\]\n@solo hello/);
  await waitFor(() => w.log().some((l) => l.startsWith('solo ')), 20_000, 'the standalone agent woken by send');
  assert.equal((await w.cli(['stop', 'solo'])).stdout.trim(), 'stopped solo@solo');
  assert.equal(await solo.exited, 0);
});

test('run while another process owns the database: the team runs there and run follows it to the end', async () => {
  const w = workspace({
    'team.yaml': TEAM.replace('@s work on it', '@t hello'),
    'quick.yaml': `agents:\n  q: { backend: command, command: AGENT, system_prompt: x }\nkickoff: "@q hi"\n`,
  });
  const owner = w.start(['team.yaml', '--instance', 'host']);
  await waitFor(() => owner.out().includes('started @host'), 20_000, `start (${owner.err()})`);
  const r = await w.cli(['run', 'quick.yaml', '--instance', 'q1', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  assert.deepEqual([last.type, last.reason, last.invocations], ['result', 'idle', 1]);
  assert.ok(w.log().some((l) => l.startsWith('q ')));
  assert.equal(isPidAlive(owner.child.pid!), true, 'the owner keeps running its own team');
  await w.cli(['stop', '--all']);
  assert.equal(await owner.exited, 0);
});

test('Ctrl-C of a run that follows a team in another owner stops it there, and both say it was interrupted', async () => {
  const w = workspace({ 'team.yaml': TEAM.replace('@s work on it', '@t hello'), 'sleepy.yaml': TEAM });
  const owner = w.start(['team.yaml', '--instance', 'host']);
  await waitFor(() => owner.out().includes('started @host'), 20_000, `start (${owner.err()})`);
  const follower = w.start(['sleepy.yaml', '--instance', 'f1'], {}, 'run');
  await waitFor(() => existsSync(w.env.SLEEP_PID!), 20_000, `the sleeping agent (${follower.err()})`);
  follower.child.kill('SIGINT');
  assert.equal(await follower.exited, 1);
  assert.match(follower.err(), /team ended \(stopped\): interrupted \(Ctrl-C\)/);
  assert.doesNotMatch(follower.err(), /baton stop/, 'nobody ran baton stop');
  const status = await w.cli(['status', '--all']);
  assert.match(status.stdout, /@f1 {2}cancelled \(interrupted \(Ctrl-C\)\) {2}team run/);
  await w.cli(['stop', '--all']);
  assert.equal(await owner.exited, 0);
});

test('start without --verbose shows an agent turn that failed (a command not installed), and keeps running', async () => {
  const w = workspace({ 'broken.yaml': 'agents:\n  b: { backend: command, command: [no-such-agent-cli], system_prompt: x }\nkickoff: "@b go"\n' });
  const owner = w.start(['broken.yaml']);
  await waitFor(() => owner.err().includes("b@default's turn failed"), 20_000, `the failure (${owner.out()} ${owner.err()})`);
  assert.match(owner.err(), /baton: b@default's turn failed: command: "no-such-agent-cli" was not found on PATH\. Check the agent's command/);
  assert.equal(isPidAlive(owner.child.pid!), true, 'the team keeps running');
  // list says the agent fails, and why in short (as idle, it looked fine); --json carries the whole reason.
  const listed = await w.cli(['list']);
  assert.match(listed.stdout, /^b@default +broken\.yaml +failed \(command: "no-such-agent-cli" was not found on PATH\. Check the agent's command: its first item must be a program on PATH or a path to an executable file\)$/m);
  const json = JSON.parse((await w.cli(['list', '--json'])).stdout) as Array<{ status: string; error?: string }>;
  assert.equal(json[0]!.status, 'failed');
  assert.match(json[0]!.error!, /^command: "no-such-agent-cli" was not found on PATH\. Check the agent's command/);
  // status says so under the run too, which still reads running (--json: failing_agents, with the whole reason).
  const status = await w.cli(['status']);
  assert.match(status.stdout, /^\S+ {2}broken@default {2}running {2}team run\n {2}✗ b@default: its last turn failed: command: "no-such-agent-cli" was not found on PATH\. Check the agent's command: [^\n]+ file$/m);
  const statusJson = JSON.parse((await w.cli(['status', '--json'])).stdout) as { executions: Array<{ failing_agents?: Array<{ agent: string; error: string }> }> };
  assert.equal(statusJson.executions[0]!.failing_agents?.[0]?.agent, 'b');
  assert.match(statusJson.executions[0]!.failing_agents![0]!.error, /^command: "no-such-agent-cli" was not found on PATH\. Check/);
  await w.cli(['stop', '@default']);
  assert.equal(await owner.exited, 0);
});

test('start --background: a detached baton start runs the team; stop ends it', async () => {
  const w = workspace({ 'team.yaml': TEAM.replace('@s work on it', '@t hello') });
  const r = await w.cli(['start', 'team.yaml', '--background', '--instance', 'bg']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /started @bg in Baton process (\d+)/);
  const pid = Number(/process (\d+)/.exec(r.stdout)![1]);
  pids.push(pid);
  assert.match(r.stdout, /log: .*teams\/bg\.log/);
  assert.match((await w.cli(['list'])).stdout, /t@bg +team\.yaml/);
  // The same instance again is refused, not reported as started by the process that already runs it.
  const again = await w.cli(['start', 'team.yaml', '--background', '--instance', 'bg']);
  assert.equal(again.code, 1, again.stdout);
  assert.equal(again.stdout, '');
  assert.match(again.stderr, /team instance @bg is already running \(team\.yaml\); stop it with `baton stop @bg --db .*`, or start this one with --instance NAME/);
  await w.cli(['stop', '@bg']);
  await waitFor(() => !isPidAlive(pid), 15_000, 'the background process to exit');
});
