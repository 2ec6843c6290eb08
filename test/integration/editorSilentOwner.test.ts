// Rule: the editor does not take a stopped owner's endpoint for a live one. With `baton serve` stopped (Ctrl-Z,
// SIGSTOP), the window waits, saying which process holds the database, that it is stopped, and how to resume or end
// it; resumed, the owner is followed by itself (no reload), and once it exits the window owns the database.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { readDiscovery } from '../../src/host/discovery.js';
import type { BatonLog } from '../../src/vscode/log.js';
import { BatonConnection } from '../../src/vscode/ownership.js';
import { CLI, ensureBuilt, killAll, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';
import { startNode } from '../helpers/processes.js';
import { until } from '../helpers/until.js';

const log = { debug() {}, info() {}, warn() {}, error() {}, channel: { show() {} } } as unknown as BatonLog;
const setup = tempSetup('baton-editor-silent-');
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
});

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
