// Projects: discovery from a path (git detection through the FileSystem port), workspace folders, paginated list.
import { BatonError, echo } from '../errors.js';
import type { CorePorts } from '../ports.js';
import type { Project } from '../lifecycleTypes.js';
import { toProjectView } from './views.js';

/** The root of an absolute path: `/`, `C:\` (or `C:/`), or `\\server\share\`; undefined for a relative one. */
const ROOT = /^(?:\\\\[^\\/]+[\\/][^\\/]+[\\/]?|[A-Za-z]:[\\/]|\/)/;

/**
 * A path without trailing separators (the root stays as it is), and for an absolute path without `.` and `..`
 * segments and doubled separators: one folder has one spelling, so `/w/../w/./app/` is the project `/w/app`, not a
 * second row named ".". (Lexical, as Node's path.resolve: a `..` after a symbolic link is not followed.)
 */
export function normalizePath(path: string): string {
  const root = ROOT.exec(path)?.[0];
  if (root !== undefined) {
    const sep = root.includes('\\') || (!path.includes('/') && path.includes('\\')) ? '\\' : '/';
    const parts: string[] = [];
    for (const part of path.slice(root.length).split(/[\\/]+/)) {
      if (part === '..') parts.pop();
      else if (part !== '.' && part !== '') parts.push(part);
    }
    const bare = root.replace(/[\\/]$/, '');
    // A drive's or the file system's root keeps its separator; a share's root is the server and share alone.
    if (!parts.length) return root.startsWith('\\\\') ? bare : root;
    return `${bare}${sep}${parts.join(sep)}`;
  }
  const trimmed = path.replace(/[\\/]+$/, '');
  return trimmed === '' ? path.slice(0, 1) : trimmed;
}

/** The parent folder of `path`, or undefined at the root. */
function parentOf(path: string): string | undefined {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  if (i < 0) return undefined;
  if (i === 0) return path.length > 1 ? path.slice(0, 1) : undefined;
  const parent = path.slice(0, i);
  // "C:" alone is not a folder; "C:\" is.
  return /^[A-Za-z]:$/.test(parent) ? `${parent}${path[i]}` : parent;
}

/** Project rows: discovered from paths, listed by last use. */
export class Projects {
  constructor(private readonly ports: CorePorts) {}

  /** The git repository root at or above `path` (a `.git` folder or file), if any. */
  async gitRoot(path: string): Promise<string | undefined> {
    for (let dir: string | undefined = normalizePath(path); dir; dir = parentOf(dir)) {
      const sep = dir.endsWith('/') || dir.endsWith('\\') ? '' : dir.includes('\\') && !dir.includes('/') ? '\\' : '/';
      if (await this.ports.fs.exists(`${dir}${sep}.git`)) return dir;
    }
    return undefined;
  }

  /** Registers (or refreshes) the project at `path`: one row per folder, git detected up the tree; marks it used. */
  async discover(path: string): Promise<Project> {
    const dir = normalizePath(path);
    if (!/^(?:\/|[A-Za-z]:[\\/]|\\\\)/.test(dir)) {
      throw new BatonError('invalid_input', `projectPath ${echo(path)} is relative; pass the absolute path of the project folder.`);
    }
    if (!(await this.ports.fs.exists(dir))) {
      throw new BatonError('not_found', `No folder at ${echo(path)}; pass the absolute path of a project folder (or omit projectPath for the workspace).`);
    }
    if (await this.ports.fs.isFile?.(dir)) {
      // A file would be registered as a project of its own, apart from the project of the folder that holds it.
      const folder = parentOf(dir) ?? dir;
      throw new BatonError('invalid_input', `projectPath ${echo(path)} is a file, not a folder; pass the project's folder, such as ${echo(folder)}.`);
    }
    const root = await this.gitRoot(dir);
    const iso = new Date(this.ports.clock.now()).toISOString();
    const name = dir.split(/[\\/]/).filter(Boolean).pop() ?? dir;
    const existing = this.ports.store.get<{ metadata: string | null }>('SELECT metadata FROM projects WHERE path = ?', [dir]);
    const metadata = { ...(existing?.metadata ? (JSON.parse(existing.metadata) as Record<string, unknown>) : {}), gitRoot: root ?? null };
    await this.ports.store.transaction(() => {
      this.ports.store.run(
        `INSERT INTO projects (name, path, tech_stack, created_at, updated_at, is_git_repo, metadata, last_used_at) VALUES (?, ?, '[]', ?, ?, ?, ?, ?)
         ON CONFLICT (path) DO UPDATE SET is_git_repo = excluded.is_git_repo, metadata = excluded.metadata, last_used_at = excluded.last_used_at`,
        [name, dir, iso, iso, root ? 1 : 0, JSON.stringify(metadata), iso],
      );
    });
    return this.byPath(dir)!;
  }

  /** A project by id. */
  byId(id: number): Project | undefined {
    const r = this.ports.store.get('SELECT * FROM projects WHERE id = ?', [id]);
    return r && toProjectView(r);
  }

  /** A project by its exact path. */
  byPath(path: string): Project | undefined {
    const r = this.ports.store.get('SELECT * FROM projects WHERE path = ?', [normalizePath(path)]);
    return r && toProjectView(r);
  }

  /** A page of projects, most recently used first (`page` from 1). */
  list(page: number, limit: number): { projects: Project[]; total: number; page: number; limit: number } {
    const total = this.ports.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM projects')!.n;
    const rows = this.ports.store.all('SELECT * FROM projects ORDER BY COALESCE(last_used_at, updated_at) DESC, id LIMIT ? OFFSET ?', [limit, (page - 1) * limit]);
    return { projects: rows.map(toProjectView), total, page, limit };
  }
}
