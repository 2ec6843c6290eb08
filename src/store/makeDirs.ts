// Creating a database's folder: `mkdir -p` one level at a time.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fsyncDirSync } from './durableFile.js';

/**
 * Makes `dir` and its missing parents, each synced into its parent folder (so that a database made in them survives a
 * power cut by name). Node's `mkdirSync(dir, { recursive: true })` loops for ever where the system answers ENOENT for
 * a folder whose parent exists (`--db /proc/x/baton.db`), and says EEXIST when a part of the path is a file; here the
 * first gives the system's ENOENT and the second ENOTDIR, naming the part, for the caller to say.
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    let isDir: boolean | null = null;
    try {
      isDir = statSync(at).isDirectory();
    } catch (ex) {
      // ENOTDIR: a part further up is a file, which the walk up comes to (and names).
      const code = (ex as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw ex;
    }
    if (isDir === false) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${at}'`), { code: 'ENOTDIR', syscall: 'mkdir', path: at });
    if (isDir) break;
    missing.push(at);
    const up = dirname(at);
    if (up === at) break;
    at = up;
  }
  for (const m of missing.reverse()) {
    try {
      mkdirSync(m);
    } catch (ex) {
      // Made meanwhile by another process: fine when it is a folder.
      if ((ex as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(m).isDirectory()) throw ex;
      continue;
    }
    syncParent(m);
  }
}

/**
 * Syncs the folder that holds the new folder `dir`: its name is durable only then (the files made in it are synced
 * there by their makers). A parent this process may write but not read (mode 0733) cannot be opened to sync: skipped.
 */
function syncParent(dir: string): void {
  try {
    fsyncDirSync(dirname(dir));
  } catch (ex) {
    if ((ex as NodeJS.ErrnoException).code !== 'EACCES') throw ex;
  }
}
