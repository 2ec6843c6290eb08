// Commands that act on a database: through its live owner's /control if there is one, else by opening it directly
// (creating it only for access 'create', and removing it again when the command fails).
import { existsSync, rmdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { BatonApi } from '../core/api.js';
import { BatonError } from '../core/errors.js';
import type { Log } from '../core/ports.js';
import { ownerAnswers, readDiscovery, type DiscoveryInfo } from '../host/discovery.js';
import { openBaton, type OpenedBaton } from '../host/openBaton.js';
import { journalPathOf } from '../store/dbPath.js';
import { openOrFindOwner, unreachableOwner, type Ownership } from './common.js';

/** Where and how to open the database if nobody owns it. */
export interface CoreTarget {
  dbPath: string;
  /** 'read': only read the file (status); 'existing': own it to change it (approve, reject); 'create': own it, creating it if need be (spec start). */
  access: 'read' | 'existing' | 'create';
  contentDir?: string;
  workspace?: string;
  log: Log;
  /** The error when there is no database at `dbPath`. */
  missing: () => Error;
}

/** Runs `viaOwner` against a live owner, or `direct` on the opened database (closed afterwards). */
export async function withCore<T>(
  target: CoreTarget,
  viaOwner: (owner: DiscoveryInfo) => Promise<T>,
  direct: (baton: BatonApi) => Promise<T>,
): Promise<T> {
  const live = readDiscovery(target.dbPath);
  if (live && (await ownerAnswers(live))) return viaOwner(live);
  const made = target.access === 'create' ? missingFolders(target.dbPath) : null;
  const open = () =>
    openBaton({ dbPath: target.dbPath, access: target.access, contentDir: target.contentDir, workspace: target.workspace, log: target.log });
  let found: Ownership<OpenedBaton>;
  try {
    found = await openOrFindOwner(target.dbPath, open);
  } catch (ex) {
    if (BatonError.is(ex, 'store_missing')) throw target.missing();
    throw ex;
  }
  if ('lockedBy' in found) throw unreachableOwner(target.dbPath, found.lockedBy, null);
  if ('owner' in found) {
    if (await ownerAnswers(found.owner)) return viaOwner(found.owner);
    throw unreachableOwner(target.dbPath, found.owner.pid, found.owner.url);
  }
  const opened = found.opened;
  let failed = false;
  try {
    return await direct(opened.baton);
  } catch (ex) {
    failed = true;
    throw ex;
  } finally {
    await opened.close();
    // A database this command created for work that was refused (`spec start` of a file that is not there) goes
    // again, with the folders made for it: a typo must not leave a workspace database behind.
    if (failed && made) removeCreated(target.dbPath, made);
  }
}

/** The folders `dbPath` needs that do not exist yet, deepest first; null when the database itself exists. */
export function missingFolders(dbPath: string): string[] | null {
  if (existsSync(dbPath)) return null;
  const out: string[] = [];
  for (let dir = dirname(dbPath); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) out.push(dir);
  return out;
}

/** Removes a database created by this command, and the (then empty) folders made for it. */
export function removeCreated(dbPath: string, folders: string[]): void {
  for (const file of [dbPath, journalPathOf(dbPath)]) rmSync(file, { force: true });
  for (const dir of folders) {
    try {
      rmdirSync(dir);
    } catch {
      return; // not empty: something else is in it now
    }
  }
}
