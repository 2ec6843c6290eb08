// Where a spec's tasks.md may be: inside the workspace only. Pure string work (no node:path): `..`, absolute paths and
// drive letters are refused here; symlinks that lead out are refused once the host has resolved the real path.
import { BatonError, echo } from '../errors.js';

/** A source path resolved inside the workspace. */
export interface WorkspaceFile {
  /** Relative to the workspace, `/` separators. */
  relative: string;
  /** The workspace joined with `relative`. */
  absolute: string;
}

/** Trailing separators off, `\` as `/`. */
function norm(p: string): string {
  return p.replace(/\\/g, '/').replace(/\/+$/, '') || '/';
}

/**
 * Resolves `input` (relative to the workspace; `./` allowed) to a file inside it; refuses absolute paths, drive
 * letters, `~` and any `..` segment with `source_outside_workspace`, and an empty path with `invalid_input`.
 */
export function resolveInWorkspace(workspace: string, input: string): WorkspaceFile {
  const raw = input.trim();
  if (!raw) throw new BatonError('invalid_input', 'No source given: pass the tasks.md path relative to the workspace, such as "specs/auth/tasks.md".');
  const p = raw.replace(/\\/g, '/');
  const refuse = (why: string) => new BatonError(
    'source_outside_workspace',
    `The source ${echo(raw)} ${why}; spec sources must be inside the workspace (${workspace}). Pass a path relative to it, such as "specs/auth/tasks.md".`,
    { path: raw, workspace },
  );
  const root = norm(workspace);
  if (/^[A-Za-z]:/.test(p) || p.startsWith('/') || p.startsWith('~')) {
    // An absolute path inside the workspace is accepted as its relative form.
    const abs = norm(p);
    if (abs.startsWith(`${root}/`) && !abs.slice(root.length + 1).split('/').includes('..')) return resolveInWorkspace(workspace, abs.slice(root.length + 1));
    throw refuse('is an absolute path outside the workspace');
  }
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.includes('..')) throw refuse('goes up with ".."');
  if (parts.length === 0) throw new BatonError('invalid_input', `The source ${echo(raw)} names the workspace itself; pass the tasks.md file in it.`);
  const relative = parts.join('/');
  return { relative, absolute: `${root === '/' ? '' : root}/${relative}` };
}

/** Whether `real` (a resolved real path) is inside `realRoot` (the workspace's real path). */
export function isInside(realRoot: string, real: string): boolean {
  const root = norm(realRoot);
  const p = norm(real);
  return p === root || p.startsWith(root === '/' ? '/' : `${root}/`);
}
