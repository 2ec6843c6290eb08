// Rule: closing the terminal (SIGHUP) stops a Baton command as Ctrl-C does: `baton pipeline run` stops the agent it
// runs in a process group of its own (left to Node's default, the command died and the agent ran on, orphaned) and
// records the run as stopped; `baton serve` closes the database and removes its discovery file.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { readDiscovery } from '../../src/host/discovery.js';
import { CLI, ensureBuilt, killAll, ROOT, runCli, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { until } from '../helpers/until.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'pipelines', 'agent.js');
const pids: number[] = [];

before(() => ensureBuilt());
after(() => killAll(pids));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('SIGHUP to `baton pipeline run` stops the running agent and records the run as stopped', async () => {
  const t = tempSetup('baton-hup-');
  mkdirSync(join(t.workspace, '.baton', 'pipelines'), { recursive: true });
  writeFileSync(join(t.workspace, '.baton', 'pipelines', 'p.yaml'), `name: one
agents:
  - { id: slow, runner: command, command: [node, ${JSON.stringify(AGENT)}] }
workflow:
  - { id: work, type: agent, agentId: slow }
`);
  const env = { COUNTER: join(t.dir, 'counter'), HANG_PID: join(t.dir, 'hang.pid'), HANG_AGENT: 'slow', BATON_LOG_LEVEL: 'error' };
  const child = spawn(process.execPath, [CLI, 'pipeline', 'run', 'p', '--input', 'x', '--json', '--db', t.db, '--workspace', t.workspace], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  pids.push(child.pid!);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    const agent = Number(await until('the agent', () => existsSync(env.HANG_PID) && readFileSync(env.HANG_PID, 'utf8'), 20_000));
    pids.push(agent);
    child.kill('SIGHUP');
    assert.equal(await exited, 1, out);
    assert.equal(alive(agent), false, 'the agent was stopped with its run');
    const summary = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { type: string; status?: string }).find((e) => e.type === 'summary');
    assert.equal(summary?.status, 'aborted', out);
    const status = await runCli(['status', '--all', '--json', '--db', t.db]);
    const exec = (JSON.parse(status.stdout) as { executions: Array<{ status: string; steps: Array<{ status: string }> }> }).executions[0]!;
    assert.notEqual(exec.steps[0]!.status, 'running', 'the step is not left running');
  } finally {
    child.kill('SIGKILL');
    rmSync(t.dir, { recursive: true, force: true });
  }
});

test('SIGHUP to `baton serve` closes the database in order: exit 0, discovery file and lock gone', async () => {
  const t = tempSetup('baton-hup-serve-');
  const child = spawn(process.execPath, [CLI, 'serve', '--db', t.db, '--workspace', t.workspace], { stdio: ['ignore', 'ignore', 'pipe'] });
  pids.push(child.pid!);
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    await until('discovery file', () => readDiscovery(t.db), 20_000);
    child.kill('SIGHUP');
    assert.equal(await exited, 0, err);
    assert.equal(readDiscovery(t.db), null);
    assert.equal(existsSync(`${t.db}.lock`), false, 'the lock is released');
  } finally {
    child.kill('SIGKILL');
    rmSync(t.dir, { recursive: true, force: true });
  }
});
