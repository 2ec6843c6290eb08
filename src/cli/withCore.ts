// Commands that act on a database: through its live owner's /control if there is one, else by opening it directly.
import type { BatonApi } from '../core/api.js';
import type { Log } from '../core/ports.js';
import { readDiscovery, type DiscoveryInfo } from '../host/discovery.js';
import { openBaton } from '../host/openBaton.js';
import { ownerAnswers } from '../host/proxy.js';
import { openOrFindOwner, unreachableOwner } from './common.js';

/** Where and how to open the database if nobody owns it. */
export interface CoreTarget {
  dbPath: string;
  contentDir?: string;
  workspace?: string;
  log: Log;
}

/** Runs `viaOwner` against a live owner, or `direct` on the opened database (closed afterwards). */
export async function withCore<T>(
  target: CoreTarget,
  viaOwner: (owner: DiscoveryInfo) => Promise<T>,
  direct: (baton: BatonApi) => Promise<T>,
): Promise<T> {
  const live = readDiscovery(target.dbPath);
  if (live && (await ownerAnswers(live))) return viaOwner(live);
  const found = await openOrFindOwner(target.dbPath, () =>
    openBaton({ dbPath: target.dbPath, contentDir: target.contentDir, workspace: target.workspace, log: target.log }),
  );
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
