// A scratch folder per run: the CLI's HOME, XDG folders and TMPDIR all point into it, so whatever the CLI writes
// (sessions, caches, logs, its config files, Baton's MCP entry with the token) lands there and is removed with it.
// Nothing is written to the user's home or project.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A run's scratch folder. */
export interface ScratchDir {
  root: string;
  /** The HOME the CLI sees. */
  home: string;
  /** The variables that move every per-user folder into the scratch folder. */
  env: Record<string, string>;
  /** Writes a file (mode 0600) at a path relative to the scratch root; returns its absolute path. */
  write(relativePath: string, content: string): string;
  /** Removes the folder and everything in it. */
  remove(): Promise<void>;
}

/** Variables of the parent's environment that would lead a CLI back to the user's own configuration. */
export const REDIRECTING_VARIABLES = [
  'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'GEMINI_CLI_SYSTEM_SETTINGS_PATH', 'OPENCODE_CONFIG',
  'OPENCODE_CONFIG_DIR', 'OPENCODE_CONFIG_CONTENT', 'CURSOR_CONFIG_DIR',
];

/** Creates a scratch folder under the system's temporary folder (`parent` in tests). */
export async function makeScratchDir(parent = tmpdir()): Promise<ScratchDir> {
  const root = await mkdtemp(join(parent, 'baton-run-'));
  const home = join(root, 'home');
  const tmp = join(root, 'tmp');
  const dirs = {
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: join(root, 'run'),
  };
  for (const dir of [home, tmp, ...Object.values(dirs)]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const env: Record<string, string> = { HOME: home, USERPROFILE: home, TMPDIR: tmp, TMP: tmp, TEMP: tmp, ...dirs };
  // git still finds the person's identity (read only; git never writes its global config unasked).
  const gitConfig = join(homedir(), '.gitconfig');
  if (!process.env.GIT_CONFIG_GLOBAL && existsSync(gitConfig)) env.GIT_CONFIG_GLOBAL = gitConfig;
  return {
    root,
    home,
    env,
    write(relativePath, content) {
      const path = join(root, relativePath);
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, content, { mode: 0o600 });
      return path;
    },
    remove: () => rm(root, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 }),
  };
}
