// Where the database lives when nobody says otherwise, and where its files really are.
import { readlinkSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** `--db` flag, else BATON_DB_PATH, else `<workspace or cwd>/.baton/baton.db` (absolute). */
export function resolveDbPath(opts: { db?: string; env?: NodeJS.ProcessEnv; workspace?: string }): string {
  const env = opts.env ?? process.env;
  if (opts.db) return resolve(opts.db);
  const fromEnv = env.BATON_DB_PATH;
  if (fromEnv) return resolve(fromEnv);
  return join(resolve(opts.workspace ?? process.cwd()), '.baton', 'baton.db');
}

/** The journal beside a database: `X/baton.db` → `X/baton.journal`. */
export function journalPathOf(dbPath: string): string {
  return dbPath.endsWith('.db') ? `${dbPath.slice(0, -3)}.journal` : `${dbPath}.journal`;
}

// Linux's own limit on links followed while resolving one path.
const MAX_LINKS = 40;

/**
 * The file a path names once its symbolic links are followed, also a link whose target does not exist yet; the path
 * itself when it is no link (or a loop of them, which opening it then reports). Every file is replaced by renaming a
 * temp file over it: renamed over a link, the temp file would take the link's place, and the file the user linked
 * would stop being written.
 */
export function followLinks(path: string): string {
  let current = resolve(path);
  for (let hops = 0; hops < MAX_LINKS; hops++) {
    let target: string;
    try {
      target = readlinkSync(current);
    } catch {
      return current; // not a link (EINVAL), or nothing there (ENOENT)
    }
    // A relative target is read from the link's real folder, as the system does (`..` after a linked folder).
    current = resolve(realFolderOf(current), target);
  }
  return resolve(path);
}

function realFolderOf(path: string): string {
  try {
    return realpathSync(dirname(path));
  } catch {
    return dirname(path);
  }
}
