// Rule: a baton.* setting with a value Baton cannot use (a negative lifetime, an unknown tool group, "no" for a
// true/false) falls back to its default and the person is told once, in a warning naming each setting, the value and
// the default used, with Open Settings; not only in the log. Reopening with the same settings does not repeat it.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { BatonLog } from '../../src/vscode/log.js';
import { BatonConnection } from '../../src/vscode/ownership.js';
import { readSettings } from '../../src/vscode/settings.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';

const log = { debug() {}, info() {}, warn() {}, error() {}, channel: { show() {} } } as unknown as BatonLog;

const settled = (c: BatonConnection) => new Promise<void>((resolve) => {
  const sub = c.onDidChange(() => c.state !== 'starting' && (sub.dispose(), resolve()));
});

describe('settings Baton cannot use', () => {
  const folder = mkdtempSync(join(tmpdir(), 'baton-settings-'));
  beforeEach(() => {
    fakeWindow.shown = [];
    fakeWindow.answer = () => undefined;
    fakeVscode.commands.executed = [];
    fakeVscode.workspace.workspaceFolders = [{ name: 'ws', uri: { fsPath: folder } }];
  });
  afterEach(() => {
    fakeVscode.workspace.settings = {};
    fakeVscode.workspace.workspaceFolders = undefined;
  });

  it('a true/false setting given anything else is the default, reported ("no" is not false)', () => {
    const s = readSettings(<T>(k: string) => (k === 'rateLimits.enabled' ? 'no' : undefined) as T, '/ws');
    assert.equal(s.rateLimits.enabled, true);
    assert.deepEqual(s.problems, ['baton.rateLimits.enabled must be true or false (got "no"); using true']);
  });

  it('are named in one warning with Open Settings when the database opens, and not again on a reopen', async () => {
    fakeVscode.workspace.settings = { 'tokens.lifetimeMinutes': -5, 'rateLimits.enabled': 'no' };
    fakeWindow.answer = (shown) => (shown.level === 'warning' ? 'Open Settings' : undefined);
    const c = new BatonConnection({ globalStorageUri: { fsPath: folder } } as never, log, '0.0.0-test');
    try {
      let opened = settled(c);
      c.start();
      await opened;
      assert.equal(c.state, 'ready');
      assert.deepEqual(fakeWindow.shown.map((m) => [m.level, m.message, m.items]), [['warning',
        'Baton: 2 settings are not valid, so their defaults are used: baton.tokens.lifetimeMinutes must be a positive number ' +
        '(got -5); using 10; baton.rateLimits.enabled must be true or false (got "no"); using true.', ['Open Settings']]]);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(fakeVscode.commands.executed, [['workbench.action.openSettings', '@ext:baton-dev.baton']]);
      opened = settled(c);
      await c.restart();
      await opened;
      assert.equal(fakeWindow.shown.length, 1, 'the same problems are not shown again');
    } finally {
      await c.close();
      c.dispose();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
