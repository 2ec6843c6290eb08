// The discovery file beside a database: how other Baton processes find the owner's endpoint (mode 0600).
import { chmodSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isPidAlive } from '../store/lock.js';
import { makeDirs } from '../store/makeDirs.js';
import { requestWithin } from './requestWithin.js';

/** What `server.json` holds. */
export interface DiscoveryInfo {
  url: string;
  token: string;
  pid: number;
  /**
   * The owner's MCP catalog (its `id`) and the tool groups it serves: a forwarding `baton mcp` with the same catalog
   * answers the client's handshake itself (see `ownerFront`). Absent for an owner run from source, or an older one.
   */
  catalog?: string;
  toolGroups?: string[];
}

/**
 * The discovery file beside the database: `server.json` for the usual `baton.db` (the workspace's `.baton/`), and
 * `NAME.server.json` for any other `NAME.db`, so two databases in one folder never share (or take over a user's)
 * `server.json`.
 */
export function discoveryPath(dbPath: string): string {
  const name = basename(dbPath);
  return join(dirname(dbPath), name === 'baton.db' ? 'server.json' : `${name.replace(/\.(db|sqlite3?)$/i, '')}.server.json`);
}

export { isPidAlive };

/**
 * The header a forwarding `baton mcp` sends the owner with its pid: the agent's connection lives as long as that
 * process, so the steps handed out on it are handed on once it is gone (killed, say), as for a process's own stdio.
 */
export const HOLDER_PID_HEADER = 'baton-holder-pid';

/** Writes the discovery file atomically (temp file + rename) with mode 0600; returns its path. */
export function writeDiscovery(dbPath: string, info: DiscoveryInfo): string {
  const path = discoveryPath(dbPath);
  makeDirs(dirname(path)); // the folder may have been deleted under a running owner
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(info) + '\n', { mode: 0o600 });
  chmodSync(temp, 0o600); // the umask may have widened nothing, but an existing temp file keeps its old mode
  renameSync(temp, path);
  return path;
}

/** The owner's endpoint, or null when there is no file, it is unreadable, or its pid is dead. */
export function readDiscovery(dbPath: string): DiscoveryInfo | null {
  let raw: string;
  try {
    raw = readFileSync(discoveryPath(dbPath), 'utf8');
  } catch {
    return null;
  }
  try {
    const info = JSON.parse(raw) as Partial<DiscoveryInfo>;
    if (typeof info.url !== 'string' || typeof info.token !== 'string' || typeof info.pid !== 'number') return null;
    if (!isPidAlive(info.pid)) return null;
    const groups = Array.isArray(info.toolGroups) && info.toolGroups.every((g) => typeof g === 'string') ? info.toolGroups : undefined;
    return {
      url: info.url, token: info.token, pid: info.pid,
      ...(typeof info.catalog === 'string' && groups ? { catalog: info.catalog, toolGroups: groups } : {}),
    };
  } catch {
    return null;
  }
}

/** Removes the discovery file if it names `pid` (never another owner's file). */
export function removeDiscovery(dbPath: string, pid: number): void {
  const path = discoveryPath(dbPath);
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as Partial<DiscoveryInfo>;
    if (info.pid === pid) unlinkSync(path);
  } catch {
    // missing or unreadable: nothing of ours to remove
  }
}

/** Whether the owner's endpoint answers /healthz as the process the discovery file names. */
export async function ownerAnswers(owner: DiscoveryInfo, timeoutMs = 2000): Promise<boolean> {
  try {
    return await requestWithin(new URL('/healthz', owner.url), {}, timeoutMs, async (res) => {
      const body = (await res.json()) as { ok?: boolean; pid?: number };
      return res.ok && body.ok === true && body.pid === owner.pid;
    });
  } catch {
    return false;
  }
}

/** Whether the database's discovery file names another endpoint than `owner`'s now (runProxy's ownerMoved). */
export const movedFrom = (dbPath: string) => (owner: DiscoveryInfo) => readDiscovery(dbPath)?.url !== owner.url;

/** Whether `pid` is gone now or within `ms`. */
export async function exitsWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isPidAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}
