// Rule: the editor does not take a stopped owner's endpoint for a live one. With `baton serve` stopped (Ctrl-Z,
// SIGSTOP), the window waits, saying which process holds the database, that it is stopped, and how to resume or end
// it; resumed, the owner is followed by itself (no reload), and once it exits the window owns the database. The same
// holds for an owner stopped after the window connected to it: noticed within moments, not at each call's time limit,
// and every call waiting on it (the pipeline and team views' too) fails then, in the window's words.
// An owner busy for seconds (process state R) is not taken for stopped; one that answers nothing for long is hung.
// Where the state takes a spawn of ps (macOS, the BSDs), the watch runs ps only once a probe failed, never in its
// steady poll, and still names a stopped owner stopped.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { BatonEvent } from '../../src/core/types.js';
import { readDiscovery } from '../../src/host/discovery.js';
import { ownerState, runPs } from '../../src/host/silentOwner.js';
import type { BatonLog } from '../../src/vscode/log.js';
import { BatonConnection } from '../../src/vscode/ownership.js';
import { SharedRunListing } from '../../src/vscode/sharedRunListing.js';
import { registerStatusBar } from '../../src/vscode/statusBar.js';
import { WorkflowsTreeProvider } from '../../src/vscode/views/workflowsTreeProvider.js';
import { RemoteSource, type OwnerWatchTiming } from '../../src/vscode/remoteSource.js';
import { CLI, ROOT, ensureBuilt, killAll, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';
import { startNode } from '../helpers/processes.js';
import { until } from '../helpers/until.js';

const log = { debug() {}, info() {}, warn() {}, error() {}, channel: { show() {} } } as unknown as BatonLog;
const setup = tempSetup('baton-editor-silent-');
const later = tempSetup('baton-editor-silent-later-');
const busy = tempSetup('baton-editor-busy-');
const hung = tempSetup('baton-editor-hung-');
const psWatched = tempSetup('baton-editor-ps-');
const BUSY_ON_SIGNAL = join(ROOT, 'test', 'fixtures', 'owner', 'busyOnSignal.cjs');
const pids: number[] = [];

before(() => ensureBuilt());
after(() => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // gone already
    }
  }
  killAll(pids);
  rmSync(setup.dir, { recursive: true, force: true });
  for (const t of [later, busy, hung, psWatched]) rmSync(t.dir, { recursive: true, force: true });
});

/** A real `baton serve` on `t`'s database, busy on SIGUSR2 (see busyOnSignal.cjs), and a window following it. */
async function busyOwner(t: typeof busy, busyMs: number, watch?: OwnerWatchTiming) {
  const serve = startNode(['-r', BUSY_ON_SIGNAL, CLI, 'serve', '--db', t.db, '--workspace', t.workspace], { BATON_TEST_BUSY_MS: String(busyMs) });
  pids.push(serve.child.pid!);
  const owner = await until('baton serve to publish its endpoint', () => readDiscovery(t.db));
  fakeVscode.workspace.settings = { 'database.path': t.db };
  fakeWindow.shown = [];
  const c = new BatonConnection({ globalStorageUri: { fsPath: t.dir } } as never, log, '0.0.0-test', { takeoverMs: 500, waitingRetryMs: 100, watch });
  const states: string[] = [];
  c.onDidChange(() => states.push(c.state));
  c.start();
  await until('the window to follow baton serve', () => c.state === 'ready');
  assert.equal(c.mode, 'client');
  return { serve, owner, c, states };
}

test('a stopped baton serve: the window waits naming it, follows it once resumed, and owns the database once it exits', { skip: process.platform !== 'linux' && 'needs /proc and SIGSTOP' }, async () => {
  const serve = startNode([CLI, 'serve', '--db', setup.db, '--workspace', setup.workspace]);
  const pid = serve.child.pid!;
  pids.push(pid);
  const owner = await until('baton serve to publish its endpoint', () => readDiscovery(setup.db));
  assert.equal(owner.pid, pid);
  process.kill(pid, 'SIGSTOP');

  fakeVscode.workspace.settings = { 'database.path': setup.db };
  fakeWindow.shown = [];
  const c = new BatonConnection({ globalStorageUri: { fsPath: setup.dir } } as never, log, '0.0.0-test', { takeoverMs: 500, waitingRetryMs: 100 });
  try {
    c.start();
    await until('the window to settle', () => c.state !== 'starting');
    assert.equal(c.state, 'waiting', `${c.state}: ${c.error}`);
    assert.match(c.error!, new RegExp(`^the database ${setup.db} is owned by Baton process ${pid} \\(.*cli\\.js serve.*\\), but its endpoint ` +
      `${owner.url} does not answer, and it lives on, stopped by Ctrl-Z or SIGSTOP\\. Resume it \\(fg in its terminal, or kill -CONT ${pid}\\), ` +
      `or end it \\(kill -9 ${pid}\\)\\.`));
    assert.equal(fakeWindow.shown[0]?.message, `Baton: ${c.error}`);

    process.kill(pid, 'SIGCONT');
    await until('the window to follow the resumed owner', () => c.state === 'ready');
    assert.equal(c.mode, 'client');
    assert.equal(c.endpoint().url, owner.url);
    assert.deepEqual(await c.listExecutions(), []);

    serve.child.kill('SIGTERM');
    await until('the window to own the database', () => c.state === 'ready' && c.mode === 'owner');
    assert.notEqual(c.endpoint().url, owner.url);
    assert.deepEqual(await c.listExecutions(), []);
  } finally {
    await c.close();
    c.dispose();
    fakeVscode.workspace.settings = {};
  }
});

test('a baton serve stopped after the window connected: the window waits naming it, fails the calls waiting on it, and follows it again once resumed', { skip: process.platform !== 'linux' && 'needs /proc and SIGSTOP' }, async () => {
  const serve = startNode([CLI, 'serve', '--db', later.db, '--workspace', later.workspace]);
  const pid = serve.child.pid!;
  pids.push(pid);
  const owner = await until('baton serve to publish its endpoint', () => readDiscovery(later.db));
  assert.equal(owner.pid, pid);

  fakeVscode.workspace.settings = { 'database.path': later.db };
  fakeWindow.shown = [];
  // The watch's own timing: what a person gets.
  const c = new BatonConnection({ globalStorageUri: { fsPath: later.dir } } as never, log, '0.0.0-test', { takeoverMs: 500, waitingRetryMs: 100 });
  const events: BatonEvent[] = [];
  c.onEvent((e) => events.push(e));
  const runs = new SharedRunListing(c);
  const tree = new WorkflowsTreeProvider(c, runs);
  const bar = registerStatusBar(c, runs);
  const item = fakeWindow.statusItems.at(-1)!;
  try {
    c.start();
    await until('the window to follow baton serve', () => c.state === 'ready');
    assert.equal(c.mode, 'client');
    await c.startWorkflow('bug-fix', 'started before the stop');
    await until('the status bar to show the run', () => item.visible);
    const pipelines = await c.pipelines();
    const teams = await c.teams();

    process.kill(pid, 'SIGSTOP');
    const failed = (call: Promise<unknown>) => call.then(() => undefined, (ex: Error) => ex.message);
    const read = failed(c.listExecutions());
    const start = failed(c.startWorkflow('bug-fix', 'sent to a stopped owner'));
    // Calls of the pipeline and team views and commands, which go to the owner too.
    const pipelineRead = failed(pipelines.runs());
    const teamRead = failed(teams.runs());
    const teamStop = failed(teams.stop('@nobody'));
    // Far less than a call's own time limit (15 s), which is all there was before.
    await until('the window to notice the stopped owner', () => c.state === 'waiting', 10_000);
    const words = new RegExp(`^the database ${later.db} is owned by Baton process ${pid} \\(.*cli\\.js serve.*\\), but its endpoint ` +
      `${owner.url} does not answer, and it lives on, stopped by Ctrl-Z or SIGSTOP\\. Resume it \\(fg in its terminal, or kill -CONT ${pid}\\), ` +
      `or end it \\(kill -9 ${pid}\\)\\. This window connects, or opens the database itself, as soon as it can: no reload needed\\.$`);
    assert.match(c.error!, words);
    // The calls that were waiting fail with the same words; a change is told it may still happen.
    assert.equal(await read, c.error);
    assert.equal(await start, `${c.error} The start_workflow call reached it before it went silent, so it may ` +
      'still carry it out once it is resumed: look before doing it again.');
    assert.equal(await pipelineRead, c.error);
    assert.equal(await teamRead, c.error);
    assert.equal(await teamStop, `${c.error} The team_stop call reached it before it went silent, so it may ` +
      'still carry it out once it is resumed: look before doing it again.');
    // A command now is told at once.
    await assert.rejects(c.listExecutions(), (ex: Error) => ex.message === c.error);
    // One warning, however many calls and retries.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(c.state, 'waiting');
    assert.deepEqual(fakeWindow.shown.map((s) => [s.level, s.message]), [['warning', `Baton: ${c.error}`]]);
    // The tree leaves the view to its welcome (Show Log, Try Now); the status bar says nothing it cannot read.
    assert.deepEqual(await tree.getChildren(), []);
    assert.equal(item.visible, false);

    process.kill(pid, 'SIGCONT');
    await until('the window to follow the resumed owner', () => c.state === 'ready');
    assert.equal(c.mode, 'client');
    assert.equal(c.endpoint().url, owner.url);
    assert.equal(fakeWindow.shown.at(-1)!.message, `Baton: the database ${later.db} is usable again (through Baton process ${pid}).`);
    // The views read again; the start sent before the stop was carried out once resumed, as its error said it might.
    await until('the status bar to show the runs again', () => item.visible);
    assert.notDeepEqual(await tree.getChildren(), []);
    await until('the start sent before the stop', async () => (await c.listExecutions()).length === 2);
    // Events flow again: a run started now is heard of.
    const run = await c.startWorkflow('bug-fix', 'sent once resumed');
    await until("the new run's events", () => events.some((e) => 'execution_id' in e && e.execution_id === run.execution_id));

    serve.child.kill('SIGTERM');
    await until('the window to own the database', () => c.state === 'ready' && c.mode === 'owner');
    assert.equal((await c.listExecutions()).length, 3);
  } finally {
    bar.dispose();
    tree.dispose();
    runs.dispose();
    await c.close();
    c.dispose();
    fakeVscode.workspace.settings = {};
  }
});

test('a baton serve busy for seconds (state R) is not taken for stopped: its calls wait for it', { skip: process.platform !== 'linux' && 'needs /proc' }, async () => {
  // Past the watch's quiet time while a call waits, and a few probes (2 s, then 1 s each), short of its silent limit.
  const { serve, c, states } = await busyOwner(busy, 6000);
  try {
    states.length = 0;
    process.kill(serve.child.pid!, 'SIGUSR2');
    await until('baton serve to be busy', () => serve.err().includes('busy\n'));
    assert.equal(ownerState(serve.child.pid!), 'running');
    assert.deepEqual(await c.listExecutions(), []);
    assert.deepEqual(states, [], 'no change of state while it was busy');
    assert.equal(c.state, 'ready');
    assert.deepEqual(fakeWindow.shown, []);
  } finally {
    await c.close();
    c.dispose();
    fakeVscode.workspace.settings = {};
  }
});

test('a baton serve that answers nothing for the silent limit is hung: the window waits naming it, and owns the database once it is ended', { skip: process.platform !== 'linux' && 'needs /proc' }, async () => {
  const { serve, owner, c } = await busyOwner(hung, 0, { checkMs: 100, idleQuietMs: 300, callQuietMs: 300, probeMs: 300, silentLimitMs: 1500 });
  const pid = serve.child.pid!;
  try {
    process.kill(pid, 'SIGUSR2');
    await until('baton serve to be busy', () => serve.err().includes('busy\n'));
    const read = c.listExecutions().then(() => undefined, (ex: Error) => ex.message);
    await until('the window to give up on the hung owner', () => c.state === 'waiting');
    assert.match(c.error!, new RegExp(`^the database ${hung.db} is owned by Baton process ${pid} \\(.*busyOnSignal.*\\), but its endpoint ` +
      `${owner.url} does not answer, and it lives on, hung\\. End it \\(kill -9 ${pid}\\)\\.`));
    assert.equal(await read, c.error);
    assert.deepEqual(fakeWindow.shown.map((s) => [s.level, s.message]), [['warning', `Baton: ${c.error}`]]);

    process.kill(pid, 'SIGKILL');
    await until('the window to own the database', () => c.state === 'ready' && c.mode === 'owner');
    assert.deepEqual(await c.listExecutions(), []);
  } finally {
    await c.close();
    c.dispose();
    fakeVscode.workspace.settings = {};
  }
});

test('without /proc (darwin forced): the watch runs no ps while the owner answers, and names a stopped one stopped once a probe fails', { skip: process.platform === 'win32' && 'needs ps and SIGSTOP' }, async () => {
  const serve = startNode([CLI, 'serve', '--db', psWatched.db, '--workspace', psWatched.workspace]);
  const pid = serve.child.pid!;
  pids.push(pid);
  const owner = await until('baton serve to publish its endpoint', () => readDiscovery(psWatched.db));
  const asked: string[][] = [];
  let silent: string | undefined;
  const remote = new RemoteSource(owner, () => undefined, {
    onSilent: (state) => (silent = state),
    // Probed every 300 ms or so while quiet: each answered probe is a chance to run ps that must not be taken.
    timing: { checkMs: 100, idleQuietMs: 300, callQuietMs: 300, probeMs: 300, silentLimitMs: 60_000 },
    platform: 'darwin',
    ps: (args) => (asked.push(args), runPs(args)),
  });
  try {
    assert.deepEqual(await remote.listExecutions(), []);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(asked.length, 0, `no ps while the owner answers: ${JSON.stringify(asked)}`);
    process.kill(pid, 'SIGSTOP');
    const read = remote.listExecutions().then(() => 'answered', () => 'failed');
    await until('the watch to find the owner silent', () => silent, 10_000);
    assert.equal(silent, 'stopped', 'ps said T: stopped (resume it), not hung');
    assert.ok(asked.length >= 1 && asked.every((a) => a.join(' ') === `-o stat= -p ${pid}`), JSON.stringify(asked));
    remote.silenced('stopped');
    assert.equal(await read, 'failed');
  } finally {
    remote.dispose();
    process.kill(pid, 'SIGCONT');
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
});
