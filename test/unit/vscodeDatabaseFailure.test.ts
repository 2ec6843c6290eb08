// Rule: when the editor cannot open its database (a folder it cannot create or write), it says so at once in an
// error notification that names the file, the system's reason and what to change: the baton.database.path setting
// (with an Open Settings button) when the setting chose the file, else the folder Baton must be able to write; the
// commands run afterwards, or waiting for it while it opened, say the same, not the bare system error. Once the cause
// is fixed, Try Again (or Refresh) opens it without a reload. Copy MCP Config, which needs no database, still copies
// its config, and says that the agent's Baton opens the database this editor could not.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { BatonLog } from '../../src/vscode/log.js';
import { COMMANDS } from '../../src/vscode/commands.js';
import { copyMcpConfig } from '../../src/vscode/mcpConfigCommands.js';
import { BatonConnection } from '../../src/vscode/ownership.js';
import type { Services } from '../../src/vscode/services.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';

const log = { debug() {}, info() {}, warn() {}, error() {}, channel: { show() {} } } as unknown as BatonLog;

const settled = (c: BatonConnection) => new Promise<void>((resolve) => {
  const sub = c.onDidChange(() => c.state !== 'starting' && (sub.dispose(), resolve()));
});

async function failedConnection(): Promise<BatonConnection> {
  const storage = mkdtempSync(join(tmpdir(), 'baton-fail-'));
  const c = new BatonConnection({ globalStorageUri: { fsPath: storage } } as never, log, '0.0.0-test');
  const settled = new Promise<void>((resolve) => c.onDidChange(() => c.state !== 'starting' && resolve()));
  c.start();
  await settled;
  rmSync(storage, { recursive: true, force: true });
  return c;
}

describe('the database cannot be opened', () => {
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.answer = () => undefined;
    fakeVscode.workspace.settings = {};
    fakeVscode.commands.executed = [];
  });
  afterEach(() => {
    fakeVscode.workspace.workspaceFolders = undefined;
  });

  it('a path from baton.database.path: the notification names the file, why, and the setting to change', async () => {
    fakeVscode.workspace.settings = { 'database.path': '/proc/nope/baton.db' };
    fakeWindow.answer = () => 'Open Settings';
    const c = await failedConnection();
    assert.equal(c.state, 'failed');
    assert.equal(fakeWindow.shown.length, 1);
    const [shown] = fakeWindow.shown;
    assert.equal(shown!.level, 'error');
    assert.match(shown!.message, /^Baton: could not open the database \/proc\/nope\/baton\.db \(ENOENT: no such file or directory, mkdir '\/proc\/nope'\)\. /);
    assert.match(shown!.message, /The setting baton\.database\.path names it: point the setting at a file in a folder you can write to, or clear it to use \.baton\/baton\.db in the workspace folder\.$/);
    assert.deepEqual(shown!.items, ['Open Settings', 'Show Log', 'Try Again']);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(fakeVscode.commands.executed, [['workbench.action.openSettings', 'baton.database.path']]);
    await assert.rejects(c.listExecutions(), (ex: Error) => ex.message === shown!.message.slice('Baton: '.length), 'a command says the same');
    c.dispose();
  });

  it('the default path: names the folder Baton must be able to write, no settings button', async () => {
    fakeVscode.workspace.workspaceFolders = [{ name: 'ws', uri: { fsPath: '/proc/no-such-folder' } }];
    const c = await failedConnection();
    const [shown] = fakeWindow.shown;
    assert.match(shown!.message, /^Baton: could not open the database \/proc\/no-such-folder\/\.baton\/baton\.db \(ENOENT[^)]*\)\. Check that Baton may create and write files in \/proc\/no-such-folder\/\.baton, or set baton\.database\.path to a file elsewhere\.$/);
    assert.deepEqual(shown!.items, ['Show Log', 'Try Again']);
    c.dispose();
  });
  it('a command that waited while the database was opening is told the same, not the bare system error', async () => {
    fakeVscode.workspace.settings = { 'database.path': '/proc/nope/baton.db' };
    const storage = mkdtempSync(join(tmpdir(), 'baton-fail-'));
    const c = new BatonConnection({ globalStorageUri: { fsPath: storage } } as never, log, '0.0.0-test');
    try {
      c.start();
      assert.equal(c.state, 'starting');
      const waited = c.listExecutions();
      await assert.rejects(waited, (ex: Error) => /^could not open the database \/proc\/nope\/baton\.db \(ENOENT[^)]*\)\. The setting baton\.database\.path names it/.test(ex.message));
      assert.equal(fakeWindow.shown[0]!.message, `Baton: ${c.error}`);
    } finally {
      c.dispose();
      rmSync(storage, { recursive: true, force: true });
    }
  });

  it('opens the database once its cause is fixed: Try Again on the notification, or Refresh', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'baton-fail-'));
    const blocker = join(folder, '.baton'); // a file where Baton's folder goes
    writeFileSync(blocker, '');
    fakeVscode.workspace.workspaceFolders = [{ name: 'ws', uri: { fsPath: folder } }];
    const c = new BatonConnection({ globalStorageUri: { fsPath: folder } } as never, log, '0.0.0-test');
    try {
      let opened = settled(c);
      c.start();
      await opened;
      assert.equal(c.state, 'failed');
      assert.deepEqual(fakeWindow.shown[0]!.items, ['Show Log', 'Try Again']);
      // Refresh (the tree's button and the failed view's link) opens it again, and fails again while the cause stays.
      opened = settled(c);
      await COMMANDS['baton.refresh']({ connection: c } as unknown as Services);
      await opened;
      assert.equal(c.state, 'failed');
      // The person removes the file in the way and picks Try Again on the new notification.
      fakeWindow.answer = (shown) => (shown.level === 'error' ? (rmSync(blocker), 'Try Again') : undefined);
      opened = settled(c);
      await COMMANDS['baton.refresh']({ connection: c } as unknown as Services);
      await opened; // failed once more (the file was still there when it tried)
      opened = settled(c);
      await opened; // Try Again
      assert.equal(c.state, 'ready');
      assert.deepEqual(await c.listExecutions(), []);
    } finally {
      await c.close();
      c.dispose();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('Copy MCP Config still copies the config, saying that the agent\'s Baton opens the database that failed here', async () => {
    fakeVscode.workspace.settings = { 'database.path': '/proc/nope/baton.db' };
    fakeVscode.workspace.workspaceFolders = [{ name: 'ws', uri: { fsPath: '/home/me/app' } }];
    const c = await failedConnection();
    const storage = mkdtempSync(join(tmpdir(), 'baton-launcher-'));
    fakeWindow.shown = [];
    try {
      const s = { connection: c, log, context: { extensionPath: '/ext', globalStorageUri: { fsPath: storage } } } as unknown as Services;
      const text = await copyMcpConfig(s, 'claude');
      assert.deepEqual(JSON.parse(text!).mcpServers.baton.args.slice(1), ['mcp', '--workspace', '/home/me/app', '--db', '/proc/nope/baton.db']);
      assert.equal(fakeVscode.env.clipboard.text, text);
      assert.equal(fakeWindow.shown.length, 1);
      assert.equal(fakeWindow.shown[0]!.level, 'warning');
      assert.match(fakeWindow.shown[0]!.message, /^Baton: MCP config for Claude Code copied\. .* But this editor could not open the database it uses \(\/proc\/nope\/baton\.db\), and the agent's Baton opens the same one: fix that first/);
    } finally {
      c.dispose();
      rmSync(storage, { recursive: true, force: true });
    }
  });
});
