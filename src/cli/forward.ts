// `baton mcp` when another process owns the database: forwards the client's stdio to that owner (host/proxy.ts). A
// bundle of its own (dist/forward.js, beside dist/cli.js, which loads it), whose imports are the proxy's alone: what
// it needs only to own the database itself (the owner exited before it was reached, or while it forwarded: the
// store, the core and the MCP server of dist/engine.js) is loaded then. A forwarding process, every agent's but the
// first on a database (all of them with the editor open), took 86 MiB and 0.5 s of CPU to start when it loaded all of
// it (see docs/performance.md).
import { BatonError } from '../core/errors.js';
import type { Log } from '../core/ports.js';
import { exitsWithin, movedFrom } from '../host/discovery.js';
import { runProxy } from '../host/proxy.js';
import { deserializeLine } from '../mcp/jsonRpc.js';
import { DEFAULT_TOOL_GROUPS } from '../mcp/toolGroups.js';
import { acquireLock, lockedError } from '../store/lock.js';
import { openOrFindOwner, unreachableOwner } from './common.js';
import type { McpOptions } from './mcpEngine.js';
import { StdioFront } from './stdioFront.js';

/**
 * The owner's side of `baton mcp` (the engine's store, core and MCP server), loaded when this process must own: from
 * dist/engine.js beside this bundle (src/cli/engine.ts when run from source).
 */
const ownerSide = () => import('./engine.js');

/**
 * `baton mcp` when another process held the lock: forwards stdio to the owner it publishes. An owner that is exiting
 * releases the lock a moment later; then this process owns the database after all. `front` (see `ownerFront`) has
 * answered the client's handshake already: the proxy, or the server, is handed it when it starts. Returns 0 once the
 * forwarded session ended, or -1 when this process serves (it exits on its own).
 */
export async function forwardMcp(options: McpOptions, front: StdioFront | null = null): Promise<number> {
  const { dbPath, log } = options;
  // The lock first: while another process holds it (the usual case), openOrFindOwner learns so without this process
  // loading the owner's side.
  const open = async () => {
    const lock = acquireLock(dbPath);
    if (!lock.acquired) throw lockedError(dbPath, lock.ownerPid);
    try {
      return await (await ownerSide()).becomeOwnerOf({ ...options, lock });
    } catch (ex) {
      lock.release();
      throw ex;
    }
  };
  const stdio = () => front ?? StdioFront.ready(log, deserializeLine);
  front?.attachOnStart(deserializeLine);
  // The calls a front holds are answered with why this process cannot serve them (it exits next).
  const failed = (ex: Error): Error => (front?.fail(ex.message), ex);
  for (let attempt = 1; ; attempt++) {
    const found = await openOrFindOwner(dbPath, open, { log });
    if ('lockedBy' in found) throw failed(unreachableOwner(dbPath, found.lockedBy, null));
    if ('opened' in found) {
      await (await ownerSide()).serveFound(found.opened, stdio(), options);
      return -1;
    }
    const info = found.owner;
    log.info(`database ${dbPath} is owned by process ${info.pid} (endpoint ${info.url})`);
    if (attempt === 1) warnIgnored(options, log);
    try {
      await runProxy({
        owner: info, log, downstream: stdio(), downstreamIsStdio: true, takeOver: async () => (await ownerSide()).takeOver(dbPath, open, options),
        ownerMoved: movedFrom(dbPath),
      });
      return 0;
    } catch (ex) {
      if (!BatonError.is(ex, 'owner_unreachable')) throw ex;
      // An owner that is stopping closes its endpoint before it releases the lock (its discovery file may still be
      // read in between): once that process is gone, look again (nothing of the client's was read yet).
      if (attempt >= OWNER_EXIT_ATTEMPTS || !(await exitsWithin(info.pid, OWNER_EXIT_WAIT_MS))) throw failed(unreachableOwner(dbPath, info.pid, info.url));
      log.info(`process ${info.pid} exited before it answered; looking for the database's owner again`);
    }
  }
}

/** A forwarding process serves the owner's tools with the owner's settings: the engine flags given here say so once. */
function warnIgnored(options: McpOptions, log: Log): void {
  const given = [
    options.toolGroups.join(',') !== DEFAULT_TOOL_GROUPS.join(',') && '--tools',
    options.rateLimits && '--rate-limits',
    options.tokenTtlMs !== undefined && '--token-ttl',
    options.stallMinutes !== undefined && '--stall-minutes',
    options.retention?.days !== undefined && '--retention-days',
    options.retention?.maxRuns !== undefined && '--retention-runs',
    options.retention?.idleDays !== undefined && '--retention-idle-days',
    options.contentDir !== undefined && '--content',
  ].filter((flag): flag is string => typeof flag === 'string');
  if (given.length === 0) return;
  log.warn(`${given.join(', ')} ${given.length > 1 ? 'are' : 'is'} ignored here: this process forwards to the one that owns the database, whose tools and settings apply (set them there)`);
}

/** How often, and how long each time, `baton mcp` waits for an owner that does not answer to exit. */
const OWNER_EXIT_ATTEMPTS = 3;
const OWNER_EXIT_WAIT_MS = 5000;
