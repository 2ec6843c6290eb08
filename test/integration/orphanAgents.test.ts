// Rule: an agent that a SIGKILLed `baton pipeline run` left running (in its own process group) is never joined by a
// second agent on its step: `baton pipeline list` shows it left running, and `baton pipeline resume` stops its whole
// group, and waits until it is gone, before the step starts again (and removes its scratch folder). A team's agent left running by a SIGKILLed
// `baton start` is stopped when the next team starts (which ends the team run no process serves any more), when the
// next owner opens the database (`baton serve`, the editor), and by `baton stop @instance` with no owner running,
// which `baton status` and `baton list` name meanwhile. Each of those also removes the scratch folder of the agent's
// turn (its HOME, with the run's token), which the killed process could not.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CLI, ensureBuilt, killAll, pipelineSetup, ROOT, runCli, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { alive, readPid } from '../helpers/processes.js';
import { until } from '../helpers/until.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'pipelines', 'orphanAgent.js');
const TEAM_AGENT = join(ROOT, 'test', 'fixtures', 'teams', 'teamAgent.mjs');
const pids: number[] = [];

before(() => ensureBuilt());
after(() => killAll(pids));

const SYSTEM = `name: orphans
agents:
  - { id: worker, runner: command, command: [node, AGENT] }
  - { id: checker, runner: command, command: [node, AGENT] }
workflow:
  - { id: work, type: agent, agentId: worker, outputVariable: a }
  - { id: check, type: agent, agentId: checker, inputTemplate: "{{a}}" }
`;

type Listed = { runs: Array<{ runId: string; agents?: Array<{ agent: string; pid: number; state: string }> }> };

const linuxOnly = { skip: process.platform !== 'linux' && 'process identity is proved on Linux only' };

test('resume stops the agent group a SIGKILLed run left running before the step runs again', linuxOnly, async () => {
  const t = pipelineSetup('baton-orphan-', SYSTEM, AGENT);
  const orphanFile = join(t.dir, 'orphan.json');
  const temp = join(t.dir, 'temp');
  mkdirSync(temp);
  const env = { ORPHAN: orphanFile, HANG_AGENT: 'worker', BATON_LOG_LEVEL: 'error', TMPDIR: temp };
  const dbArgs = ['--db', t.db, '--workspace', t.workspace];

  const run = spawn(process.execPath, [CLI, 'pipeline', 'run', 'p', '--input', 'go', '--json', ...dbArgs], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  pids.push(run.pid!);
  let out = '';
  run.stdout.on('data', (d: Buffer) => void (out += d.toString()));
  const exited = new Promise<number | null>((r) => run.on('exit', (code) => r(code)));
  const runId = await until('run_started', () => /"type":"run_started","runId":"([^"]+)"/.exec(out)?.[1], 20_000);
  const old = await until('the worker', () => existsSync(orphanFile) && (JSON.parse(readFileSync(orphanFile, 'utf8')) as { pid: number; child: number }), 20_000);
  pids.push(old.pid, old.child);
  // The run's process has recorded the agent (the owner answers the list).
  await until('the recorded agent', async () => {
    const listed = JSON.parse((await runCli(['pipeline', 'list', '--json', ...dbArgs])).stdout) as Listed;
    return listed.runs.find((r) => r.runId === runId)?.agents?.some((a) => a.pid === old.pid && a.state === 'running');
  }, 20_000);

  run.kill('SIGKILL');
  assert.equal(await exited, null);
  assert.ok(alive(old.pid) && alive(old.child), 'the agent and its child outlive the run\'s process');
  assert.equal(readdirSync(temp).filter((n) => n.startsWith('baton-run-')).length, 1, 'the killed run left its scratch folder');
  const listed = await runCli(['pipeline', 'list', ...dbArgs]);
  assert.match(listed.stdout, new RegExp(`agent worker \\(step work\\) is still running \\(command, pid ${old.pid}\\), but the process that ran it \\(pid ${run.pid}\\) has ended; baton pipeline resume ${runId} --db \\S+ stops it`));

  const resumed = await runCli(['pipeline', 'resume', runId, '--json', ...dbArgs], env);
  assert.equal(resumed.code, 0, resumed.stderr);
  const seen = readFileSync(`${orphanFile}.seen`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { agent: string; at: number; pid: boolean; child: boolean });
  assert.deepEqual(seen.map((s) => [s.agent, s.pid, s.child]), [['worker', false, false], ['checker', false, false]], 'the old group was gone before the step started again');
  assert.match(resumed.stderr, new RegExp(`stopped the command agent worker of step work \\(pid ${old.pid}\\), left running by the run's earlier process \\(pid ${run.pid}\\)`));
  const terminated = Number(readFileSync(`${orphanFile}.term`, 'utf8').trim());
  assert.ok(terminated <= seen[0]!.at, 'SIGTERM reached the old agent before the new one started');
  const summary = resumed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; status?: string }).find((e) => e.type === 'summary');
  assert.equal(summary?.status, 'completed');
  assert.deepEqual(readdirSync(temp).filter((n) => n.startsWith('baton-run-')), [], 'resume removed the left scratch folder too');
  const status = JSON.parse((await runCli(['status', '--all', '--json', '--db', t.db])).stdout) as { executions: Array<{ execution_id: string; status: string }> };
  assert.equal(status.executions.find((e) => e.execution_id === runId)?.status, 'completed');
  const after = JSON.parse((await runCli(['pipeline', 'list', '--json', ...dbArgs])).stdout) as Listed;
  assert.equal(after.runs.find((r) => r.runId === runId)?.agents, undefined, 'no agent is recorded once the run is over');
});

test('a team agent left running by a SIGKILLed baton start is stopped when the next team starts', linuxOnly, async () => {
  const { t, flags, sleeper, ownerPid, scratch } = await killedTeam('baton-orphan-team-');
  writeFileSync(join(t.workspace, 'quiet.yaml'), `agents:\n  q: { backend: command, command: [node, ${JSON.stringify(TEAM_AGENT)}], system_prompt: x }\nkickoff: "@q hi"\n`);
  const next = await runCli(['run', 'quiet.yaml', ...flags], { ROLE_q: 'silent', BATON_LOG_LEVEL: 'warn' }, t.workspace);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, new RegExp(`stopped the command agent s \\(pid ${sleeper}\\), left running by the run's earlier process \\(pid ${ownerPid}\\)`));
  assert.ok(!alive(sleeper), 'stopped before the next team ran');
  assert.equal(existsSync(scratch), false, 'its scratch folder is removed');
});

/**
 * A `baton start` of one sleeping agent, SIGKILLed once the agent runs; the agent's pid, the dead owner's, and the
 * turn's scratch folder (under a temp folder of the test's own), which the dead owner could not remove.
 */
async function killedTeam(prefix: string): Promise<{ t: ReturnType<typeof tempSetup>; flags: string[]; sleeper: number; ownerPid: number; scratch: string }> {
  const t = tempSetup(prefix);
  writeFileSync(join(t.workspace, 'team.yaml'), `agents:\n  s: { backend: command, command: [node, ${JSON.stringify(TEAM_AGENT)}], system_prompt: x }\nkickoff: "@s work"\n`);
  const sleepPid = join(t.dir, 'sleep.pid');
  const flags = ['--db', t.db, '--workspace', t.workspace];
  const temp = join(t.dir, 'temp');
  mkdirSync(temp);
  const owner = spawn(process.execPath, [CLI, 'start', 'team.yaml', ...flags], {
    cwd: t.workspace, env: { ...process.env, SLEEP_PID: sleepPid, ROLE_s: 'sleeper', BATON_LOG_LEVEL: 'error', TMPDIR: temp }, stdio: 'ignore',
  });
  pids.push(owner.pid!);
  const exited = new Promise<number | null>((r) => owner.on('exit', (code) => r(code)));
  const sleeper = await until('the sleeping agent', () => readPid(sleepPid), 20_000);
  pids.push(sleeper);
  // Recorded as it was spawned, well before it got to write its pid (it read its prompt and loaded its modules).
  await new Promise((r) => setTimeout(r, 300));
  owner.kill('SIGKILL');
  assert.equal(await exited, null);
  assert.ok(alive(sleeper), 'the agent outlives the team\'s process');
  const scratch = readdirSync(temp).filter((n) => n.startsWith('baton-run-'));
  assert.equal(scratch.length, 1, `one scratch folder: ${scratch.join(', ')}`);
  return { t, flags, sleeper, ownerPid: owner.pid!, scratch: join(temp, scratch[0]!) };
}

test('baton stop @instance with no owner stops the agent a SIGKILLed baton start left running, and ends the run', linuxOnly, async () => {
  const { t, flags, sleeper, ownerPid, scratch } = await killedTeam('baton-orphan-stop-');
  // Before: status and list say the run's process ended, and name the stop that ends it.
  const before = await runCli(['status', ...flags], {}, t.workspace);
  assert.match(before.stdout, /team@default {2}running {2}team run\n {2}→ the Baton process that ran it has ended; baton stop @default --db \S+ stops any agent it left running/);
  const listed = await runCli(['list', ...flags], {}, t.workspace);
  assert.match(listed.stdout, /\(@default: the Baton process that ran it has ended, and its agents may still run; baton stop @default --db \S+ stops them\)/);
  const stopped = await runCli(['stop', '@default', ...flags], { BATON_LOG_LEVEL: 'warn' }, t.workspace);
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.equal(stopped.stdout, 'stopped @default\n');
  assert.match(stopped.stderr, new RegExp(`stopped the command agent s \\(pid ${sleeper}\\), left running by the run's earlier process \\(pid ${ownerPid}\\); removed its scratch folder ${scratch}`));
  assert.ok(!alive(sleeper), 'the agent is stopped');
  assert.equal(existsSync(scratch), false, 'its scratch folder (the CLI\'s HOME, with the run\'s token) is removed');
  const status = await runCli(['status', '--all', ...flags], {}, t.workspace);
  assert.match(status.stdout, /team@default {2}cancelled \(stopped by baton stop @default \(the Baton process that ran it had ended\)\) {2}team run/);
  const again = await runCli(['stop', '@default', ...flags], {}, t.workspace);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /no team is running/);
});

test('the next owner (baton serve) stops the agent a SIGKILLed baton start left running, without a team start', linuxOnly, async () => {
  const { t, flags, sleeper, ownerPid, scratch } = await killedTeam('baton-orphan-serve-');
  const serve = spawn(process.execPath, [CLI, 'serve', ...flags], { cwd: t.workspace, env: { ...process.env, BATON_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'] });
  pids.push(serve.pid!);
  let err = '';
  serve.stderr.on('data', (d: Buffer) => void (err += d.toString()));
  await until('the agent stopped', () => !alive(sleeper), 20_000);
  await until('the warning', () => new RegExp(`stopped the command agent s \\(pid ${sleeper}\\), left running by the run's earlier process \\(pid ${ownerPid}\\)`).test(err), 5_000);
  const status = await runCli(['status', '--all', '--json', ...flags], {}, t.workspace);
  const runs = (JSON.parse(status.stdout) as { executions: Array<{ status: string }> }).executions;
  assert.deepEqual(runs.map((e) => e.status), ['failed'], 'the dead run is ended, not left running');
  assert.equal(existsSync(scratch), false, 'its scratch folder is removed');
  serve.kill('SIGTERM');
});
