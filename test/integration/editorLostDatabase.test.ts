// Rule: a window that owns the database and finds another process took it (its lock file deleted meanwhile, then a
// `baton serve` started) stops answering from its copy in memory, which no longer matches the disk: it follows the
// process that owns the database now, whose reads have what this window wrote before and what was written since, and
// leaves that process's discovery file alone. A real `baton serve`; the window is the editor's BatonConnection.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync, unlinkSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { readDiscovery } from '../../src/host/discovery.js';
import { lockPathOf } from '../../src/store/lock.js';
import type { BatonLog } from '../../src/vscode/log.js';
import { BatonConnection } from '../../src/vscode/ownership.js';
import { CLI, ensureBuilt, killAll, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';
import { until } from '../helpers/until.js';

const errors: string[] = [];
const log = { debug() {}, info() {}, warn() {}, error: (m: string) => errors.push(m), channel: { show() {} } } as unknown as BatonLog;
const setup = tempSetup('baton-editor-lost-');
const pids: number[] = [];

before(() => ensureBuilt());
after(() => {
  killAll(pids);
  rmSync(setup.dir, { recursive: true, force: true });
});

/**
 * Deletes the lock file and starts `baton serve` on the database, blocking this process (and so the window's once a
 * second look at its lock) until the serve has published its endpoint: as a clean-up script deleting the lock while
 * another Baton starts. Returns the serve's pid.
 */
function takeWhileBlocked(db: string, workspace: string): number {
  unlinkSync(lockPathOf(db));
  const script = `
    const { spawn } = require('node:child_process');
    const { readFileSync } = require('node:fs');
    const [cli, db, ws, discovery] = process.argv.slice(1);
    const c = spawn(process.execPath, [cli, 'serve', '--db', db, '--workspace', ws], { detached: true, stdio: 'ignore' });
    c.unref();
    const deadline = Date.now() + 20000;
    const poll = () => {
      try {
        if (JSON.parse(readFileSync(discovery, 'utf8')).pid === c.pid) return void console.log(c.pid);
      } catch {}
      if (Date.now() > deadline) { console.log(c.pid); process.exit(1); }
      setTimeout(poll, 50);
    };
    poll();`;
  const discovery = db.replace(/baton\.db$/, 'server.json');
  const r = spawnSync(process.execPath, ['-e', script, CLI, db, workspace, discovery], { encoding: 'utf8' });
  const pid = Number(r.stdout.trim());
  if (pid) pids.push(pid);
  assert.equal(r.status, 0, `baton serve did not publish its endpoint: ${r.stderr}`);
  return pid;
}

test('a window whose database another process took follows that process, and reads the database on disk', { skip: process.platform === 'win32' }, async () => {
  fakeVscode.workspace.settings = { 'database.path': setup.db };
  fakeWindow.shown = [];
  const c = new BatonConnection({ globalStorageUri: { fsPath: setup.dir } } as never, log, '0.0.0-test', { takeoverMs: 500, waitingRetryMs: 100 });
  try {
    c.start();
    await until('the window to own the database', () => c.state === 'ready');
    assert.equal(c.mode, 'owner');
    const mine = await c.startWorkflow('bug-fix', 'written by the window');

    const serve = takeWhileBlocked(setup.db, setup.workspace);
    assert.equal(readDiscovery(setup.db)?.pid, serve);
    await until('the window to follow baton serve', () => c.state === 'ready' && c.mode === 'client', 15_000);
    assert.ok(errors.some((e) => /another process took/.test(e)), `the window says why: ${errors.join('\n')}`);

    // Written through the window, now by the serve: the database on disk has both runs.
    const theirs = await c.startWorkflow('bug-fix', 'written after the loss');
    const ids = (await c.listExecutions()).map((e) => e.execution_id);
    assert.ok(ids.includes(mine.execution_id), 'what the window wrote before the loss is there');
    assert.ok(ids.includes(theirs.execution_id), 'what it writes now is there');
    assert.equal(readDiscovery(setup.db)?.pid, serve, "the serve's discovery file is left alone");
  } finally {
    await c.close();
  }
});
