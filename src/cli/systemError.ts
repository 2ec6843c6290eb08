// A plain sentence for the errors of the file system and the network a user can act on (a path that is a folder,
// no permission, a port in use), printed instead of an internal error's stack.
import { dirname } from 'node:path';
import type { LockFileError } from '../store/lock.js';

/** What the system refused, for an error of the file system or the network the user can act on; else null. */
export function systemErrorText(ex: unknown): string | null {
  const e = ex as NodeJS.ErrnoException & { address?: string; port?: number };
  const why: Record<string, string> = {
    EISDIR: 'it is a folder where a file is needed',
    ENOTDIR: 'a part of the path is a file, not a folder',
    ENOENT: 'no such file or folder',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'the file system is read-only',
    ENAMETOOLONG: 'the name is too long for the file system (Baton adds up to 40 characters for its lock and temp files)',
    ENOSPC: 'no space left on the device',
    EMFILE: 'too many open files',
    ELOOP: 'too many symbolic links (a link loop)',
  };
  if (typeof e?.code !== 'string') return null;
  if (e.code === 'EADDRINUSE') return `port ${e.port ?? ''} on ${e.address ?? '127.0.0.1'} is in use by another program; pass another --port, or leave --port out for a free one`;
  if (e.code === 'EADDRNOTAVAIL') return `cannot listen on ${e.address ?? 'that address'}: it is not an address of this machine`;
  const reason = why[e.code];
  if (typeof (e as Partial<LockFileError>).database === 'string') return lockFileText(e as LockFileError, reason ?? 'refused');
  if (!reason) return null;
  const what = e.path ? `${e.syscall ?? 'use'} ${e.path}` : (e.syscall ?? 'do that');
  return `cannot ${what}: ${reason} (${e.code}). Check the path (--db, --workspace, BATON_DB_PATH) and its permissions.`;
}

/** Refusals of a folder to take a new file, whatever the system calls them (/proc answers ENOENT). */
const FOLDER_REFUSES = ['ENOENT', 'EACCES', 'EPERM', 'EROFS', 'EINVAL', 'ENOTSUP', 'EOPNOTSUPP'];

/** The words for a lock file Baton could not make or read (see lockFileError in src/store/lock.ts). */
function lockFileText(e: LockFileError, reason: string): string {
  const what = `cannot ${e.syscall ?? 'create'} ${e.path}, the lock file of the database ${e.database}`;
  const folder = dirname(e.path);
  const cause = e.syscall === 'create' && FOLDER_REFUSES.includes(e.code!)
    ? `the folder ${folder} is not writable, or its file system refuses new files there (${e.code}: ${reason})`
    : `${reason} (${e.code})`;
  return `${what}: ${cause}. Use another --db (or BATON_DB_PATH) in a folder you can write to.`;
}
