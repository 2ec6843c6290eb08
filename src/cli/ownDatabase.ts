// Where work that needs the database owner happens (a pipeline run, a team): in this process when it can own the
// database, else in the live owner (the editor or another Baton process), which this process then asks and follows.
import { exitsWithin, ownerAnswers, readDiscovery, type DiscoveryInfo } from '../host/discovery.js';
import { becomeOwner, type Owner } from '../host/owner.js';
import { notTaken } from '../host/controlClient.js';
import { cliLog, dbPathOf, openOrFindOwner, OWNER_START_MS, unreachableOwner, VERSION, workspaceOf } from './common.js';

/** The database flags of a command that runs work in the owner (the pipeline and team commands). */
export interface OwnerDbValues {
  db?: string;
  workspace?: string;
  content?: string;
}

/**
 * This process becomes the owner (the work runs here), or the live owner is found (the work runs there). An owner
 * that holds the lock but does not answer yet is waited for (two commands started at once: one takes the lock and
 * opens the database before it publishes its endpoint); so is its lock, should it exit meanwhile.
 */
export async function ownDatabase(values: OwnerDbValues, startMs = OWNER_START_MS): Promise<{ owner: Owner } | { remote: DiscoveryInfo }> {
  const dbPath = dbPathOf(values);
  const live = readDiscovery(dbPath);
  if (live && (await ownerAnswers(live))) return { remote: live };
  // Another process may take the database between the two looks: it is the owner once it answers.
  const found = await openOrFindOwner(dbPath, () => becomeOwner({
    dbPath, toolGroups: ['broker', 'memory'], version: VERSION, contentDir: values.content, workspace: workspaceOf(values), log: cliLog('warn'),
  }), { ready: ownerAnswers, startMs });
  if ('opened' in found) return { owner: found.opened };
  if ('owner' in found) return { remote: found.owner };
  throw unreachableOwner(dbPath, found.lockedBy, readDiscovery(dbPath)?.url ?? null);
}

/** How many owners a command tries that stop before they take its work, and how long each may take to go. */
const OWNER_TRIES = 3;
const OWNER_EXIT_MS = 5000;

/**
 * This process as the owner, or the live owner having taken the work: `send` hands it over and returns how to follow
 * it. An owner that stops before it takes the work (its own ended: it refuses, or is gone) is no owner; this process
 * or the next one is, and `send` is tried again (it surely did nothing: see notTaken).
 */
export async function ownerTaking<T>(values: OwnerDbValues, send: (remote: DiscoveryInfo) => Promise<T>): Promise<{ owner: Owner } | { follow: T }> {
  for (let tries = 1; ; tries++) {
    const where = await ownDatabase(values);
    if (!('remote' in where)) return where;
    try {
      return { follow: await send(where.remote) };
    } catch (ex) {
      if (tries >= OWNER_TRIES || !notTaken(ex)) throw ex;
    }
    await exitsWithin(where.remote.pid, OWNER_EXIT_MS);
  }
}
