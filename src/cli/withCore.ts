// Commands that act on a database: through its live owner's /control if there is one, else by opening it directly.
import type { BatonApi } from '../core/api.js';
import type { Log } from '../core/ports.js';
import { readDiscovery, type DiscoveryInfo } from '../host/discovery.js';
import { openBaton } from '../host/openBaton.js';
import { ownerAnswers } from '../host/proxy.js';
import { lockedBy, unreachableOwner, waitForDiscovery } from './common.js';

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
  let opened;
  try {
    opened = await openBaton({ dbPath: target.dbPath, contentDir: target.contentDir, workspace: target.workspace, log: target.log });
  } catch (ex) {
    const ownerPid = lockedBy(ex);
    if (ownerPid === null) throw ex;
    const info = await waitForDiscovery(target.dbPath);
    if (info && (await ownerAnswers(info))) return viaOwner(info);
    throw unreachableOwner(target.dbPath, ownerPid, info?.url ?? null);
  }
  try {
    return await direct(opened.baton);
  } finally {
    await opened.close();
  }
}
