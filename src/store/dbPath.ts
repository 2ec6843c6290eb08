// Where the database lives when nobody says otherwise, and where its files really are.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** `--db` flag, else BATON_DB_PATH, else `<workspace, or projectFolder()>/.baton/baton.db` (absolute). */
export function resolveDbPath(opts: { db?: string; env?: NodeJS.ProcessEnv; workspace?: string }): string {
  const env = opts.env ?? process.env;
  if (opts.db) return resolve(opts.db);
  const fromEnv = env.BATON_DB_PATH;
  if (fromEnv) return resolve(fromEnv);
  return join(opts.workspace === undefined ? projectFolder() : resolve(opts.workspace), '.baton', 'baton.db');
}

/**
 * The project a command run in `from` works in when nothing names one, found as git finds its `.git`: `from` or the
 * nearest folder above it that holds a `.baton` (its database, or the project's own agents, rules and workflows), so
 * an agent started in `src/` joins the project's database instead of making `src/.baton/baton.db`; `from` itself when
 * none does (a new project gets its `.baton/` there). The walk does not leave the git repository it starts in (its
 * top folder, holding `.git`, is the last looked at), and stops below the home folder, the system's temp folder and
 * the root: a `.baton` there counts only for a command run in that very folder (it is not every project's below).
 */
export function projectFolder(from: string = process.cwd(), stops: readonly string[] = [homedir(), tmpdir()]): string {
  const start = resolve(from);
  const ceilings = new Set(stops.flatMap((stop) => [resolve(stop), realOr(stop)]));
  for (let at = start; ; ) {
    if (hasEntry(join(at, '.baton'))) return at;
    const up = dirname(at);
    if (up === at || hasEntry(join(at, '.git')) || ceilings.has(up) || dirname(up) === up) return start;
    at = up;
  }
}

/** Whether something is at `path` (a link counts, wherever it leads); false where the system will not say. */
function hasEntry(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** `path` with its links followed, or as given when it cannot be (it does not exist). */
function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
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
