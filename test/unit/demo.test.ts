// Rule: the `npm start` demo lives outside the clone, in the user's data folder, as a git repository of its own (so no
// enclosing repository is ever a "parent" of the workspace), and a refresh restores the project's files while its
// database, its history and a person's settings stay.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { demoFolder, prepareDemo, START_SETTINGS, writeStartSettings } from '../../scripts/demo.mjs';

const root = join(__dirname, '..', '..');
const git = (cwd: string, ...args: string[]) => spawnSync('git', args, { cwd, encoding: 'utf8' });

function inTemp(fn: (dir: string) => void): void {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'baton-demo-')));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the npm start demo', () => {
  it('lives in the data folder (XDG_DATA_HOME, else ~/.local/share), never in the clone', () => {
    assert.equal(demoFolder({ XDG_DATA_HOME: '/data', HOME: '/home/x' }), '/data/baton/demo');
    assert.equal(demoFolder({ HOME: '/home/x' }), '/home/x/.local/share/baton/demo');
    assert.ok(!demoFolder().startsWith(root), demoFolder());
  });

  it('is a git repository of its own even inside another repository, with the project as its first commit', () => {
    inTemp((dir) => {
      assert.equal(git(dir, 'init', '-q').status, 0);
      const folder = join(dir, 'home', '.local', 'share', 'baton', 'demo');
      assert.equal(prepareDemo(folder).git, 'initialized');
      assert.equal(git(folder, 'rev-parse', '--show-toplevel').stdout.trim(), folder);
      assert.equal(git(folder, 'log', '--format=%s').stdout.trim(), 'The Baton demo project');
      assert.equal(git(folder, 'status', '--porcelain').stdout, '', 'a clean work tree');
      assert.ok(existsSync(join(folder, 'src', 'cart.js')));
    });
  });

  it('keeps its database and history on a refresh, ignores .baton/ in git, and restores the project files', () => {
    inTemp((dir) => {
      const folder = join(dir, 'demo');
      prepareDemo(folder);
      mkdirSync(join(folder, '.baton'));
      writeFileSync(join(folder, '.baton', 'baton.db'), 'the database');
      writeFileSync(join(folder, 'src', 'cart.js'), 'changed by a person');
      writeFileSync(join(folder, 'notes.md'), 'added by a person');
      assert.equal(prepareDemo(folder).git, 'present');
      assert.equal(readFileSync(join(folder, '.baton', 'baton.db'), 'utf8'), 'the database');
      assert.equal(readFileSync(join(folder, 'notes.md'), 'utf8'), 'added by a person');
      assert.notEqual(readFileSync(join(folder, 'src', 'cart.js'), 'utf8'), 'changed by a person');
      assert.equal(git(folder, 'rev-list', '--count', 'HEAD').stdout.trim(), '1');
      assert.equal(git(folder, 'status', '--porcelain').stdout, '?? notes.md\n', 'the database is not a change');
    });
  });

  it('writes its settings once, so a person\'s own survive restarts', () => {
    inTemp((dir) => {
      const file = join(dir, 'User', 'settings.json');
      writeStartSettings(file);
      assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), START_SETTINGS);
      writeFileSync(file, '{"editor.fontSize": 20}');
      writeStartSettings(file);
      assert.equal(readFileSync(file, 'utf8'), '{"editor.fontSize": 20}');
    });
  });
});
