// The demo workspace `npm start` opens, and the editor settings it starts with. The demo lives outside the clone, in
// the user's data folder ($XDG_DATA_HOME/baton/demo, by default ~/.local/share/baton/demo), and is a git repository of
// its own: the editor's git support then never finds a repository in a parent folder (the clone's, or a home kept in
// git) and never asks about one. Each start copies the demo project's files afresh; its .baton/ (the database) and
// anything added stay.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

const root = join(new URL('.', import.meta.url).pathname, '..');
const fixture = join(root, 'test', 'e2e', 'fixtures', 'demo-workspace');
/** Where the demo lived before it moved out of the clone (left alone; start says so). */
const legacyDemo = join(root, '.baton-demo');

/** The demo's folder for this environment (XDG_DATA_HOME, else HOME/.local/share). */
export function demoFolder(env = process.env) {
  const data = env.XDG_DATA_HOME ? resolve(env.XDG_DATA_HOME) : join(env.HOME ? resolve(env.HOME) : homedir(), '.local', 'share');
  return join(data, 'baton', 'demo');
}

/**
 * Makes the demo ready in `folder`: copies the project's files (its .baton/ and anything added stay) and makes it a git
 * repository with one commit (when git is installed). Returns what it did.
 */
export function prepareDemo(folder, { log = () => undefined } = {}) {
  if (!existsSync(folder) && existsSync(legacyDemo)) {
    log(`demo: the demo now lives in ${folder}; ${legacyDemo} is no longer used (copy its .baton/ over to keep its executions, then delete it)`);
  }
  cpSync(fixture, folder, { recursive: true, force: true });
  const git = existsSync(join(folder, '.git')) ? 'present' : initRepository(folder, log);
  return { folder, git };
}

/** A repository holding the demo as its first commit (the person's and the agents' changes then show as changes). */
function initRepository(folder, log) {
  const run = (...args) =>
    spawnSync('git', ['-c', 'init.defaultBranch=main', '-c', 'user.name=Baton demo', '-c', 'user.email=demo@baton.invalid', '-c', 'commit.gpgsign=false', ...args], {
      cwd: folder,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
      timeout: 30_000,
    });
  const init = run('init', '-q');
  if (init.error?.code === 'ENOENT') return 'unavailable'; // no git: the editor's git support finds no repository at all
  const add = init.status === 0 ? run('add', '-A') : init;
  const commit = add.status === 0 ? run('commit', '-q', '--no-verify', '-m', 'The Baton demo project') : add;
  if (commit.status !== 0) {
    rmSync(join(folder, '.git'), { recursive: true, force: true });
    throw new Error(`demo: git could not make ${folder} a repository (exit ${commit.status}): ${commit.stderr ?? commit.error?.message}`);
  }
  log(`demo: ${folder} is a git repository of its own`);
  return 'initialized';
}

/** The user settings `npm start` writes once (a person's own changes survive restarts). */
export const START_SETTINGS = {
  'workbench.startupEditor': 'none',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
};

/** Writes START_SETTINGS to `file` unless it exists. */
export function writeStartSettings(file) {
  if (existsSync(file)) return;
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify(START_SETTINGS, null, 2));
}
