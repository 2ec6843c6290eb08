// Commands that act on a database: through its live owner's /control if there is one, else by opening it directly
// (never creating it).
import type { BatonApi } from '../core/api.js';
import { BatonError } from '../core/errors.js';
import type { Log } from '../core/ports.js';
import { readDiscovery, type DiscoveryInfo } from '../host/discovery.js';
import { openBaton, type OpenedBaton } from '../host/openBaton.js';
import { ownerAnswers } from '../host/proxy.js';
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
  try {
    return await direct(opened.baton);
  } finally {
    await opened.close();
  }
}
