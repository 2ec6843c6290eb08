// Rule: an agent process is recorded while it runs and forgotten once it ends; a recorded process is proved to be the
// one it was (Linux: boot id and start time) and told apart from an unused pid, a zombie and a reused pid.
// Real processes throughout: nothing about killing is faked.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { System } from '../../src/core/pipelines/types.js';
import { processControl, processIdentity } from '../../src/host/runners/processControl.js';
import { loadMigrations } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { makeBaton } from '../helpers/coreHarness.js';
import { until } from '../helpers/until.js';

const MIGRATIONS = join(__dirname, '..', '..', 'src', 'store', 'migrations');
const linuxOnly = { skip: process.platform !== 'linux' && 'process identity is proved on Linux only' };
const started: ChildProcess[] = [];
after(() => {
  for (const pid of started.map((c) => c.pid!)) {
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

test('a process recorded while it runs is forgotten once it ends (track → ended)', async () => {
  const { baton } = await makeBaton();
  baton.agentProcesses.setControl(processControl);
  const runId = await baton.pipelines.start(SYSTEM, { input: 'x', cwd: '/tmp' });
  const track = baton.agentProcesses.track(runId, 'work', 'worker', 'command')!;
  track.onProcess({ pid: process.pid, pgid: process.pid, identity: processIdentity(process.pid), command: 'node' });
  await until('the record', () => baton.agentProcesses.records(runId).length === 1);
  await track.ended();
  assert.deepEqual(baton.agentProcesses.records(runId), []);
});

test('a v8 database with an interrupted pipeline run opens at v9; the run resumes and its agents are recorded', async () => {
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
      assert.equal(store.get<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")!.value, '9');
      baton.agentProcesses.setControl(processControl);
      assert.deepEqual(baton.agentProcesses.records(runId), [], 'no agent was recorded before the upgrade');
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
