// Rule: a recorded agent process is signalled only when it is proved to be that process (Linux: boot id and start
// time): a proven one has its whole group stopped and waited for; one that ended, or whose pid another process holds
// now, is only forgotten; a live one nothing can prove is never signalled (resume refuses, naming the pid and the fix).
// Real processes throughout: nothing about killing is faked.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import type { System } from '../../src/core/pipelines/types.js';
import { processControl, processIdentity } from '../../src/host/runners/processControl.js';
import { loadMigrations } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { makeBaton } from '../helpers/coreHarness.js';
import { alive } from '../helpers/processes.js';
import { until } from '../helpers/until.js';

const MIGRATIONS = join(__dirname, '..', '..', 'src', 'store', 'migrations');
const linuxOnly = { skip: process.platform !== 'linux' && 'process identity is proved on Linux only' };
const started: ChildProcess[] = [];
const grandchildren: number[] = [];
after(() => {
  for (const pid of [...started.map((c) => c.pid!), ...grandchildren]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

const SYSTEM: System = {
  name: 'one', description: '', agents: [{ id: 'worker', role: 'custom', runner: 'command', command: ['x'] }],
  workflow: [{ id: 'work', type: 'agent', agentId: 'worker', inputTemplate: '{{system.input}}' }],
} as System;

/** An agent as runners start one: the leader of a new process group, with a child of its own in that group. */
async function agentGroup(): Promise<{ pid: number; child: number }> {
  const script = "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1000);";
  const proc = spawn(process.execPath, ['-e', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  started.push(proc);
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => void (out += d.toString()));
  const child = Number(await until('the child', () => out.includes('\n') && out.trim()));
  grandchildren.push(child);
  return { pid: proc.pid!, child };
}

/** A core with the host's process control, a pipeline run whose process "died", and `pid` recorded as its agent. */
async function runWithAgent(pid: number, identity: string | null) {
  const { baton } = await makeBaton();
  baton.agentProcesses.setControl(processControl);
  const runId = await baton.pipelines.start(SYSTEM, { input: 'x', cwd: '/tmp' });
  baton.agentProcesses.track(runId, 'work', 'worker', 'command')!.onProcess({ pid, pgid: pid, identity, command: 'node' });
  await until('the record', () => baton.agentProcesses.records(runId).length === 1);
  return { baton, runId };
}

const eventsOf = (baton: Awaited<ReturnType<typeof makeBaton>>['baton'], runId: string, type: string) =>
  baton.events(runId).filter((e) => e.event_type === type).map((e) => e.event_data as { pid: number; message: string });

test('processControl.check tells this process, an unused pid, a zombie and a reused pid apart', linuxOnly, async () => {
  const self = processControl.self();
  assert.equal(processControl.check(self), 'same');
  assert.equal(processControl.check({ pid: 2 ** 22 + 1, identity: self.identity }), 'gone', 'above pid_max: no such process');
  // `sleep 0` exits and stays a zombie: the exec'd `sleep 30` that is its parent never collects it.
  const sh = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  started.push(sh);
  let out = '';
  sh.stdout.on('data', (d: Buffer) => void (out += d.toString()));
  const zombie = Number(await until('the zombie', () => out.includes('\n') && out.trim()));
  await until('sleep 0 to end', () => readFileSync(`/proc/${zombie}/stat`, 'utf8').includes(') Z '));
  assert.equal(processControl.check({ pid: zombie, identity: null }), 'gone');
  const [, boot, start] = /^linux:(.+):(\d+)$/.exec(self.identity!)!;
  assert.equal(processControl.check({ pid: process.pid, identity: `linux:${boot}:${Number(start) + 1}` }), 'other', 'another start time');
  assert.equal(processControl.check({ pid: process.pid, identity: `linux:another-boot:${start}` }), 'other', 'another boot');
  assert.equal(processControl.check({ pid: process.pid, identity: null }), 'unknown', 'nothing recorded to prove it');
});

test('resume stops a proven agent\'s whole group, waits until it is gone, and records it in the run\'s events', linuxOnly, async () => {
  const agent = await agentGroup();
  const { baton, runId } = await runWithAgent(agent.pid, processIdentity(agent.pid));
  const done = await baton.pipelines.prepareResume(runId);
  assert.deepEqual(done.map((o) => o.outcome), ['stopped']);
  assert.ok(!alive(agent.pid) && !alive(agent.child), 'the leader and its child are gone when resume returns');
  assert.deepEqual(baton.agentProcesses.records(runId), []);
  const [stopped] = eventsOf(baton, runId, 'agent_stopped');
  assert.equal(stopped?.pid, agent.pid);
  assert.match(stopped!.message, new RegExp(`^stopped the command agent worker of step work \\(pid ${agent.pid}\\), left running by the run's earlier process \\(pid ${process.pid}\\)$`));
});

test('a record naming a process group other than the agent\'s own is refused and nothing is signalled', linuxOnly, async () => {
  const agent = await agentGroup();
  const other = await agentGroup();
  const record = { pid: agent.pid, pgid: other.pid, identity: processIdentity(agent.pid), command: 'node' };
  await assert.rejects(processControl.stopGroup(record), new RegExp(`^Error: its process group is recorded as ${other.pid}, not its own pid ${agent.pid}; nothing was signalled$`));
  assert.ok([agent.pid, agent.child, other.pid, other.child].every(alive), 'both groups live on');

  const { baton, runId } = await runWithAgent(agent.pid, processIdentity(agent.pid));
  baton.agentProcesses.track(runId, 'work', 'worker', 'command')!.onProcess({ ...record });
  await assert.rejects(baton.pipelines.prepareResume(runId), /could not all be stopped \(.*process group is recorded as \d+, not its own pid \d+; nothing was signalled\); stop them by hand/);
  assert.ok([agent.pid, agent.child, other.pid, other.child].every(alive), 'resume signalled neither group');
});

test('a pid that another process holds now (pid reused) is not signalled; its record is dropped', linuxOnly, async () => {
  const stranger = await agentGroup();
  const [, boot, start] = /^linux:(.+):(\d+)$/.exec(processIdentity(stranger.pid)!)!;
  // What the earlier agent with this pid was: the same pid, started at another time.
  const { baton, runId } = await runWithAgent(stranger.pid, `linux:${boot}:${Number(start) - 100}`);
  assert.deepEqual((await baton.agentProcesses.stopLeftovers(runId, 'refuse')).map((o) => o.outcome), ['ended']);
  await new Promise((r) => setTimeout(r, 200));
  assert.ok(alive(stranger.pid) && alive(stranger.child), 'the stranger and its child live on');
  assert.deepEqual(baton.agentProcesses.records(runId), []);
  assert.deepEqual(eventsOf(baton, runId, 'agent_stopped'), []);
});

test('an agent that has already ended is only forgotten', linuxOnly, async () => {
  const agent = await agentGroup();
  const identity = processIdentity(agent.pid);
  process.kill(-agent.pid, 'SIGKILL');
  await until('the agent to end', () => !alive(agent.pid));
  const { baton, runId } = await runWithAgent(agent.pid, identity);
  assert.deepEqual(await baton.pipelines.prepareResume(runId), [], 'nothing to tell');
  assert.deepEqual(baton.agentProcesses.records(runId), []);
  assert.deepEqual(eventsOf(baton, runId, 'agent_stopped'), []);
  assert.equal(baton.workflowStatus(runId).status, 'running');
});

test('a live agent nothing can prove is never signalled: resume refuses with the pid and the fix, or forgets it when told', async () => {
  const agent = await agentGroup();
  const { baton, runId } = await runWithAgent(agent.pid, null);
  await assert.rejects(baton.pipelines.prepareResume(runId), (ex: unknown) => {
    assert.ok(BatonError.is(ex, 'invalid_state'));
    assert.match(ex.message, new RegExp(`process ${agent.pid} may be the command agent worker of step work`));
    assert.match(ex.message, new RegExp(`kill -TERM -- -${agent.pid}`));
    assert.match(ex.message, new RegExp(`baton pipeline resume ${runId} --forget-agents`));
    return true;
  });
  assert.equal(baton.agentProcesses.records(runId).length, 1, 'kept for a later look');
  const done = await baton.pipelines.prepareResume(runId, undefined, { forgetAgents: true });
  assert.deepEqual(done.map((o) => o.outcome), ['forgotten']);
  await new Promise((r) => setTimeout(r, 200));
  assert.ok(alive(agent.pid) && alive(agent.child), 'left alone');
  assert.deepEqual(baton.agentProcesses.records(runId), []);
  assert.equal(eventsOf(baton, runId, 'agent_forgotten')[0]?.pid, agent.pid);
});

test('cancelling a run whose process died stops the agent it left running', linuxOnly, async () => {
  const agent = await agentGroup();
  const { baton, runId } = await runWithAgent(agent.pid, processIdentity(agent.pid));
  await baton.cancel(runId, 'no longer needed');
  await until('the agent group to be stopped', () => !alive(agent.pid) && !alive(agent.child), 10_000);
  await until('its record to go', () => baton.agentProcesses.records(runId).length === 0);
});

test('a process recorded while it runs is forgotten once it ends (track → ended)', async () => {
  const { baton } = await makeBaton();
  baton.agentProcesses.setControl(processControl);
  const runId = await baton.pipelines.start(SYSTEM, { input: 'x', cwd: '/tmp' });
  const track = baton.agentProcesses.track(runId, 'work', 'worker', 'command')!;
  track.onProcess({ pid: process.pid, pgid: process.pid, identity: processIdentity(process.pid), command: 'node' });
  await until('the record', () => baton.agentProcesses.records(runId).length === 1);
  assert.equal(baton.pipelines.list()[0]?.agents?.[0]?.state, 'running', 'its Baton process (this one) is alive');
  await track.ended();
  assert.deepEqual(baton.agentProcesses.records(runId), []);
  assert.equal(baton.pipelines.list()[0]?.agents, undefined);
});

test('a v8 database with an interrupted pipeline run opens at the latest version (v9 and on); the run resumes and its agents are recorded', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-mig9-'));
  const v8 = join(dir, 'v8');
  const db = join(dir, 'baton.db');
  try {
    mkdirSync(v8);
    for (const m of loadMigrations(MIGRATIONS).filter((m) => m.version <= 8)) copyFileSync(join(MIGRATIONS, m.name), join(v8, m.name));
    const old = await openStore({ path: db, migrationsDir: v8, durability: 'write' });
    const made = await makeBaton({ store: old });
    const runId = await made.baton.pipelines.start(SYSTEM, { input: 'x', cwd: '/tmp' });
    await made.baton.close();
    await old.close();

    const store = await openStore({ path: db, durability: 'write' });
    const { baton } = await makeBaton({ store });
    try {
      assert.equal(store.get<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")!.value, String(loadMigrations(MIGRATIONS).at(-1)!.version));
      baton.agentProcesses.setControl(processControl);
      assert.deepEqual(await baton.pipelines.prepareResume(runId), [], 'no agent was recorded before the upgrade');
      baton.agentProcesses.track(runId, 'work', 'worker', 'command')!.onProcess({ pid: process.pid, pgid: process.pid, identity: null, command: 'node' });
      await until('the record', () => baton.agentProcesses.records(runId).length === 1);
    } finally {
      await baton.close();
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('processControl.removeScratch removes only a runner\'s scratch folder: never another path, a link or a file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-scratch-test-'));
  try {
    const scratch = join(dir, 'baton-run-Ab12Cd');
    mkdirSync(join(scratch, 'home', '.claude'), { recursive: true });
    writeFileSync(join(scratch, 'home', '.claude', 'settings.json'), '{"token":"x"}');
    assert.equal(await processControl.removeScratch(scratch), true);
    assert.equal(existsSync(scratch), false);
    assert.equal(await processControl.removeScratch(scratch), false, 'one already gone: nothing to do');
    const mine = join(dir, 'project');
    mkdirSync(mine);
    await assert.rejects(processControl.removeScratch(mine), /is not a Baton run's scratch folder \(baton-run-XXXXXX\); left alone/);
    await assert.rejects(processControl.removeScratch('baton-run-Ab12Cd'), /not a Baton run's scratch folder/, 'a relative path');
    symlinkSync(mine, join(dir, 'baton-run-Link12'));
    await assert.rejects(processControl.removeScratch(join(dir, 'baton-run-Link12')), /is not a folder; left alone/);
    writeFileSync(join(dir, 'baton-run-File12'), 'x');
    await assert.rejects(processControl.removeScratch(join(dir, 'baton-run-File12')), /is not a folder; left alone/);
    assert.ok(existsSync(mine) && existsSync(join(dir, 'baton-run-File12')), 'nothing refused was removed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
