// Rule: with no --db, --workspace nor BATON_DB_PATH, a command works in the nearest folder, from the current one up,
// that holds a `.baton` (as git finds `.git`), and uses its `.baton/baton.db`; the walk does not leave the git
// repository it starts in, and stops below the home folder, the temp folder and the root (a `.baton` there counts
// only in that very folder); with none found the current folder is the project (a new one gets its `.baton/` there).
// The flags a message prints for a pasted command stay right: none when the same command, pasted in the same folder,
// finds the same database and workspace.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { dbFlagFor, dbPathOf, flagsFor, workspaceOf } from '../../src/cli/common.js';
import { projectFolder, resolveDbPath } from '../../src/store/dbPath.js';

const saved = { cwd: process.cwd(), env: process.env.BATON_DB_PATH };
let root: string;

before(() => {
  delete process.env.BATON_DB_PATH;
  // Below the temp folder, not in it: the walk does not look at the temp folder itself.
  root = realpathSync(mkdtempSync(join(tmpdir(), 'baton-project-folder-')));
});
after(() => {
  process.chdir(saved.cwd);
  if (saved.env === undefined) delete process.env.BATON_DB_PATH;
  else process.env.BATON_DB_PATH = saved.env;
  rmSync(root, { recursive: true, force: true });
});

/** Makes `path` and its parents; returns it. */
function folder(...parts: string[]): string {
  const path = join(root, ...parts);
  mkdirSync(path, { recursive: true });
  return path;
}

test('the nearest folder up holding a .baton; the current folder when none does', () => {
  const project = folder('app');
  folder('app', '.baton');
  const deep = folder('app', 'src', 'lib');
  assert.equal(projectFolder(deep, []), project);
  assert.equal(projectFolder(project, []), project);
  const inner = folder('app', 'packages', 'web');
  folder('app', 'packages', 'web', '.baton');
  assert.equal(projectFolder(join(inner, 'src'), []), inner, 'the nearest wins, as a nested git repository does');
  const fresh = folder('fresh', 'a', 'b');
  assert.equal(projectFolder(fresh, [root]), fresh, 'none up to the stop: the current folder');
  const odd = folder('odd', 'sub');
  writeFileSync(join(root, 'odd', '.baton'), 'a file');
  assert.equal(projectFolder(odd, []), join(root, 'odd'), 'a .baton that is no folder is found too, and then refused by name');
});

test('the walk does not leave the git repository it starts in; from its top folder, it finds the .baton there', () => {
  folder('outer', '.baton');
  const repo = folder('outer', 'repo');
  folder('outer', 'repo', '.git');
  const sub = folder('outer', 'repo', 'src');
  assert.equal(projectFolder(sub, []), sub, "the folder holding the repository's .git is the last looked at");
  folder('outer', 'repo', '.baton');
  assert.equal(projectFolder(sub, []), repo, 'a monorepo\'s .baton at its top is found from any folder in it');
});

test('the walk stops below the home folder and the temp folder: their .baton counts only there', () => {
  const home = folder('home');
  folder('home', '.baton');
  const sub = folder('home', 'proj', 'sub');
  assert.equal(projectFolder(sub, [home]), sub, "the home folder's .baton is not every project's below it");
  assert.equal(projectFolder(home, [home]), home, 'run in the home folder itself, it is found');
  assert.equal(projectFolder(sub, [join(root, 'home', 'proj')]), sub, 'any stop: the temp folder likewise');
});

test('the database and workspace a command uses from a subfolder, and the flags of a pasted command', () => {
  const project = folder('shop');
  mkdirSync(join(project, '.baton'));
  writeFileSync(join(project, '.baton', 'baton.db'), '');
  const sub = folder('shop', 'src');
  const db = join(project, '.baton', 'baton.db');
  process.chdir(sub);
  try {
    assert.equal(resolveDbPath({}), db);
    assert.equal(dbPathOf({}), db);
    assert.equal(workspaceOf({}), project);
    assert.equal(dbFlagFor(db), '', 'pasted here, baton status finds it');
    assert.equal(flagsFor('baton start', db, undefined), '');
    assert.equal(flagsFor('baton start', db, project), '', '--workspace naming the project found from here needs none');
    // Named explicitly, a database or workspace keeps the current folder as the workspace: the flags say so.
    const own = join(sub, '.baton', 'baton.db');
    assert.equal(dbPathOf({ workspace: sub }), own);
    assert.equal(dbFlagFor(own), ` --db ${own}`);
    assert.equal(flagsFor('baton start', own, sub), ` --db ${own}`, 'pasted here with --db, it works in this folder again');
    assert.equal(flagsFor('baton start', db, sub), ` --workspace ${sub} --db ${db}`);
    assert.equal(workspaceOf({ db: '/srv/b.db' }), sub);
    process.env.BATON_DB_PATH = '/srv/b.db';
    assert.equal(workspaceOf({}), sub, 'BATON_DB_PATH names the database: no walk');
    assert.equal(dbFlagFor(db), ` --db ${db}`, 'pasted with BATON_DB_PATH set, the command would use that one');
  } finally {
    delete process.env.BATON_DB_PATH;
    process.chdir(saved.cwd);
  }
});
