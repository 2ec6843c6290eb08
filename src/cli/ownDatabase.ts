// Where work that needs the database owner happens (a pipeline run, a team): in this process when it can own the
// database, else in the live owner (the editor or another Baton process), which this process then asks and follows.
import { readDiscovery, type DiscoveryInfo } from '../host/discovery.js';
import { becomeOwner, type Owner } from '../host/owner.js';
import { ownerAnswers } from '../host/proxy.js';
import { cliLog, dbPathOf, lockedBy, unreachableOwner, VERSION } from './common.js';

/** The database flags of a command that runs work in the owner (the pipeline and team commands). */
export interface OwnerDbValues {
  db?: string;
  workspace?: string;
  content?: string;
}

/** This process becomes the owner (the work runs here), or the live owner is found (the work runs there). */
export async function ownDatabase(values: OwnerDbValues): Promise<{ owner: Owner } | { remote: DiscoveryInfo }> {
  const dbPath = dbPathOf(values);
  const live = readDiscovery(dbPath);
  if (live && (await ownerAnswers(live))) return { remote: live };
  try {
    return {
      owner: await becomeOwner({
        dbPath, toolGroups: ['broker', 'memory'], version: VERSION, contentDir: values.content, workspace: values.workspace, log: cliLog('warn'),
      }),
    };
  } catch (ex) {
    const pid = lockedBy(ex);
    if (pid === null) throw ex;
    // Another process took the database between the two looks: it is the owner now.
    const info = readDiscovery(dbPath);
    if (info && (await ownerAnswers(info))) return { remote: info };
    throw unreachableOwner(dbPath, pid, info?.url ?? null);
  }
}
