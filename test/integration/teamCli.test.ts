// Rule: `baton run` of a team exits when every agent is idle and prints the final document; a failing setup command stops the run and shows its stderr; endless @mention ping-pong stops at the invocation limit; `baton stop` stops an agent, an instance and everything a `baton start` runs, reached from other processes (list, send, peek); a codex agent's .codex/config.toml is restored byte for byte on the next start after the `baton start` holding it was SIGKILLed.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { ensureBuilt, ROOT, runCli, tempSetup } from '../fixtures/mcp/cliHarness.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'teams', 'teamAgent.mjs');

before(() => ensureBuilt());

/** A workspace with `team.yaml`; AGENT in the text is the scripted agent's command. */
function teamWorkspace(yaml: string, prefix = 'baton-team-') {
  const t = tempSetup(prefix);
  writeFileSync(join(t.workspace, 'team.yaml'), yaml.replaceAll('AGENT', `[node, ${JSON.stringify(AGENT)}]`));
  const env: Record<string, string> = { TEAM_LOG: join(t.dir, 'team.log'), BATON_LOG_LEVEL: 'error' };
  const log = () => (existsSync(env.TEAM_LOG!) ? readFileSync(env.TEAM_LOG!, 'utf8').trim().split('\n') : []);
  const cli = (args: string[], extra: Record<string, string> = {}) => runCli([...args, '--db', t.db, '--workspace', t.workspace], { ...env, ...extra }, t.workspace);
  return { ...t, env, log, cli };
}

const REVIEW = `name: review
agents:
  reviewer: { backend: command, command: AGENT, model: scripted, system_prompt: You review code. }
  coder: { backend: command, command: AGENT, model: scripted, system_prompt: You fix code. }
setup:
  - shell: printf 'add(a, b) = a + b + 1'
    as: diff
kickoff: |
  Diff: \${{ diff }}
  @reviewer please review.
`;

test('run: the reviewer @mentions the coder through channel_send, the coder answers and edits the document, run exits with it', async () => {
  const w = teamWorkspace(REVIEW);
  const r = await w.cli(['run', 'team.yaml', '--instance', 'pr-1', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
  const result = lines.at(-1)!;
  assert.equal(result.type, 'result');
  assert.equal(result.reason, 'idle');
  assert.match(result.document, /Coder: fixed the off-by-one/);
  assert.match(result.document, /Reviewer: approved after the fix/);
  const said = lines.filter((l) => l.type === 'channel').map((l) => `${l.entry.from}: ${l.entry.message.split('\n')[0]}`);
  assert.deepEqual(said, [
    'system: Diff: add(a, b) = a + b + 1', 'reviewer: @coder please fix the off-by-one in add()',
    'coder: @reviewer fixed the off-by-one, please re-check', 'reviewer: LGTM, approved. Done.',
  ]);
  assert.deepEqual(w.log().map((l) => l.split(' ')[0]), ['reviewer', 'coder', 'reviewer']);
  // The file provider's context, readable on disk.
  const channel = readFileSync(join(w.workspace, '.workflow', 'pr-1', 'channel.md'), 'utf8');
  assert.match(channel, /### \d\d:\d\d:\d\d \[coder\][^\n]*\n@reviewer fixed the off-by-one/);
  // Without --json: the document on stdout.
  const plain = await w.cli(['run', 'team.yaml', '--instance', 'pr-2']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^# Review Notes\n\nCoder: fixed/);
});

test('run: a failing setup command stops the run and shows its stderr; no agent runs', async () => {
  const w = teamWorkspace(REVIEW.replace(`printf 'add(a, b) = a + b + 1'`, `"echo 'gh: not logged in' >&2; exit 4"`));
  const r = await w.cli(['run', 'team.yaml']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /setup\[0\] `echo 'gh: not logged in' >&2; exit 4` failed with exit code 4:\ngh: not logged in/);
  assert.deepEqual(w.log(), []);
});

test('run: agents that never ack are acked by the runner, and the team ends idle', async () => {
  const w = teamWorkspace(`agents:
  a: { backend: command, command: AGENT, system_prompt: x }
kickoff: "@a hello"
context: { provider: memory }
`);
  const r = await w.cli(['run', 'team.yaml', '--verbose'], { ROLE_a: 'silent' });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(w.log().length, 1);
  assert.match(r.stderr, /\[system\]\n@a hello/);
  assert.match(r.stderr, /team ended \(idle\)/);
});

test('run: endless ping-pong stops at --max-invocations with a message naming the fix', async () => {
  const w = teamWorkspace(`agents:
  a: { backend: command, command: AGENT, system_prompt: x }
  b: { backend: command, command: AGENT, system_prompt: x }
kickoff: "@a start"
`);
  const r = await w.cli(['run', 'team.yaml', '--max-invocations', '4'], { ROLE_a: 'pinger', ROLE_b: 'pinger', PING_TARGET: 'b', ROLE_b_TARGET: 'a' });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /stopped after 4 agent invocations .*--max-invocations N/s);
  assert.equal(w.log().length, 4);
});

test('run: usage errors exit 2; an invalid workflow names file, line and field', async () => {
  const w = teamWorkspace(`agents:\n  a: { backend: nope, system_prompt: x }\n`);
  assert.equal((await w.cli(['run'])).code, 2);
  assert.equal((await w.cli(['run', 'team.yaml', '--max-invocations', '0'])).code, 2);
  const bad = await w.cli(['run', 'team.yaml']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /team\.yaml:2: .*backend/);
});

test('run: two runs started at once on a new database both finish (one runs in the other, which waits for it)', async () => {
  const w = teamWorkspace(REVIEW);
  const [one, two] = await Promise.all([w.cli(['run', 'team.yaml', '--instance', 'one']), w.cli(['run', 'team.yaml', '--instance', 'two'])]);
  assert.deepEqual([one.code, two.code], [0, 0], `${one.stderr}\n${two.stderr}`);
  for (const r of [one, two]) assert.match(r.stdout, /^# Review Notes\n\nCoder: fixed/, 'each prints its own final document');
});

test('run: a failed agent turn is reported and the run exits 1 (the other agents still finish)', async () => {
  const w = teamWorkspace(`agents:
  a: { backend: command, command: AGENT, system_prompt: x }
  b: { backend: command, command: AGENT, system_prompt: x }
kickoff: "@a and @b go"
`);
  const r = await w.cli(['run', 'team.yaml'], { ROLE_a: 'crasher', ROLE_b: 'silent' });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /-- @a failed: .*cannot reach the model/);
  assert.match(r.stderr, /every agent is idle after 2 invocations \(1 agent turn failed; see --verbose\)/);
  // Recorded as failed too, with why (it read "completed" in `baton status` while the command exited 1).
  const status = await w.cli(['status', '--all', '--json']);
  const runs = (JSON.parse(status.stdout) as { executions: Array<{ kind: string; status: string; error?: string | null }> }).executions.filter((e) => e.kind === 'worker');
  assert.deepEqual(runs.map((e) => e.status), ['failed'], status.stdout);
});
