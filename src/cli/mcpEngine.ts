// The engine side of `baton mcp`, loaded once the stdio front has answered the client's handshake: owning the
// database and connecting the server to the front, or (another process owns it) forwarding stdio to that owner.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { BatonError } from '../core/errors.js';
import type { Log } from '../core/ports.js';
import { becomeOwner, openAsOwner, publishOwner, type Owner } from '../host/owner.js';
import type { OpenedBaton } from '../host/openBaton.js';
import { httpUpstream, runProxy, type Upstream } from '../host/proxy.js';
import { createMcpServer } from '../mcp/createMcpServer.js';
import { connectServer, deserializeLine } from '../mcp/jsonRpc.js';
import type { HeldLock } from '../store/lock.js';
import type { SnapshotRead } from '../store/snapshotRead.js';
import { movedFrom, ownerAnswers } from '../host/discovery.js';
import { openOrFindOwner, unreachableOwner, VERSION } from './common.js';
import type { EngineSettings } from './engineOptions.js';
import { onShutdown } from './shutdown.js';
import { StdioFront } from './stdioFront.js';
import { systemErrorText } from './systemError.js';

/** At most this long after the database is open, other processes can reach it (the owner's endpoint is published). */
const PUBLISH_WITHIN_MS = 1000;

/** What `baton mcp` was told: the database, the content and the engine settings. */
export interface McpOptions extends EngineSettings {
  dbPath: string;
  contentDir?: string;
  workspace?: string;
  log: Log;
}

/**
 * What the owner needs beyond the options: the front, the lock the front took, the wasm it started compiling and the
 * database file it started reading.
 */
export interface OwnerStart extends McpOptions {
  front: StdioFront;
  lock: HeldLock;
  wasm?: Promise<WebAssembly.Module>;
  snapshot?: SnapshotRead;
}

/**
 * Opens the database under the front's lock, connects the server to the front, then publishes the owner's HTTP
 * endpoint for other processes; returns how to stop. When opening fails, the error goes to stderr and the front
 * answers every call with it (and the process exits 1 when stopped).
 */
export async function serveOwner(start: OwnerStart): Promise<() => Promise<void>> {
  const { front, log, dbPath } = start;
  const options = { ...start, version: VERSION };
  let opened: OpenedBaton;
  try {
    opened = await openAsOwner(options);
  } catch (ex) {
    start.lock.release();
    // A path the system refuses (a folder that cannot be made, no permission) is said plainly, without a stack.
    const known = BatonError.is(ex) ? ex.message : systemErrorText(ex);
    process.stderr.write(`baton: ${known ?? `internal error: ${(ex as Error).stack ?? String(ex)}`}\n`);
    front.fail(known ?? `Baton could not open its database ${dbPath} (internal error: ${(ex as Error).message}); see its log on stderr.`);
    process.exitCode = 1;
    return async () => undefined;
  }
  const server = createMcpServer(opened.baton, { toolGroups: start.toolGroups, version: VERSION, log, holderPid: process.pid });
  await connectServer(server, front);
  let owner: Owner | null = null;
  let lost = false;
  const forwarding = forwardWhenLost(opened, front, options, async () => {
    lost = true;
    await (owner ?? opened).close();
  });
  // The calls that waited for the database go first; then the HTTP endpoint (whose stack takes a while to load).
  const answered = front.attach(deserializeLine);
  await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, PUBLISH_WITHIN_MS).unref())]);
  try {
    owner = await publishOwner(opened, options);
    log.info(`serving MCP on stdio; owner of ${dbPath} (endpoint ${owner.endpoint.url}, discovery ${owner.discoveryFile})`);
  } catch (ex) {
    log.error(`serving MCP on stdio as the owner of ${dbPath}, but its HTTP endpoint could not start, so other Baton processes cannot reach this database until this one exits`, ex);
  }
  if (lost) await owner?.close(); // lost while it published: its endpoint goes too
  return async () => {
    const proxy = forwarding();
    if (proxy) return proxy;
    await server.close().catch(() => undefined);
    await (owner ?? opened).close();
  };
}

/** What an owner that lost its database (another process took it) logs as it hands its agent on. */
const lostText = (dbPath: string) =>
  `this process no longer owns ${dbPath}, so it stops answering from its copy in memory; its agent's calls go to the database's owner from now on`;

/**
 * When another process takes the database from this owner (its lock file deleted meanwhile, see openStore's
 * lostLockError), what it holds in memory is not what is on disk any more: rather than answer its agent from that
 * stale copy (every write refused), it closes its endpoint and store (nothing written) and carries the agent's
 * session on through a proxy, as a forwarding `baton mcp` does, to whichever process owns the database now (or to
 * this one owning it again, read afresh from disk, if that one has gone). `closeStale` closes what this owner
 * opened. Returns the proxy's run once it started (its end ends the process), else null.
 */
function forwardWhenLost(opened: OpenedBaton, front: StdioFront, options: McpOptions, closeStale: () => Promise<void>): () => Promise<void> | null {
  const { dbPath, log } = options;
  let forwarding: Promise<void> | null = null;
  opened.store.onOwnershipLost(() => {
    forwarding ??= (async () => {
      log.error(lostText(dbPath));
      await closeStale().catch((ex: unknown) => log.warn(`closing the database this process lost failed: ${(ex as Error).message}`));
      // Not under the lock it lost: opening again takes the lock afresh.
      const open = () => becomeOwner({ ...options, lock: undefined, version: VERSION });
      const why = `another process took ${dbPath}`;
      try {
        await runProxy({
          resume: { why, ...front.session() }, log, downstream: front, downstreamIsStdio: true, takeOver: () => takeOver(dbPath, open, options),
          ownerMoved: movedFrom(dbPath),
        });
      } catch (ex) {
        log.error(`forwarding after the database was lost failed: ${(ex as Error).message}`);
        process.exitCode = 1;
      }
      process.exit();
    })();
  });
  return () => forwarding;
}

/**
 * `baton mcp` found the lock free after all (the owner it forwarded to exited): it serves its client as the owner,
 * through `served`, the front that took the client's stdio (see forward.ts).
 */
export async function serveFound(owner: Owner, served: StdioFront, options: McpOptions): Promise<void> {
  const { dbPath, log, toolGroups } = options;
  const server = createMcpServer(owner.opened.baton, { toolGroups, version: VERSION, log, holderPid: process.pid });
  const forwarding = forwardWhenLost(owner.opened, served, options, () => owner.close());
  onShutdown(async (why) => {
    log.info(`stopping (${why})`);
    if (why.startsWith('stdin')) await served.answered(); // as serveAsOwner's: the calls sent before are answered
    const proxy = forwarding();
    if (proxy) return proxy;
    await server.close().catch(() => undefined);
    await owner.close();
  }, log, true);
  await connectServer(server, served);
  log.info(`serving MCP on stdio; owner of ${dbPath} (endpoint ${owner.endpoint.url}, discovery ${owner.discoveryFile})`);
}

/** Opens the database as its owner, under the lock a forwarding `baton mcp` found free and took (see forward.ts). */
export const becomeOwnerOf = (options: McpOptions & { lock?: HeldLock }) => becomeOwner({ ...options, version: VERSION });

/** After the owner exited: own the database in this process (or forward to whichever process got there first). */
export async function takeOver(dbPath: string, open: () => ReturnType<typeof becomeOwner>, { toolGroups, log }: McpOptions): Promise<Upstream> {
  // Another forwarding process may be opening the database at the same moment: give it time to publish its endpoint.
  const deadline = Date.now() + 10_000;
  let found = await openOrFindOwner(dbPath, open, { log });
  while ('owner' in found && !(await ownerAnswers(found.owner, 1000)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    found = await openOrFindOwner(dbPath, open, { log });
  }
  if ('lockedBy' in found) throw unreachableOwner(dbPath, found.lockedBy, null);
  if ('owner' in found) {
    if (!(await ownerAnswers(found.owner))) throw unreachableOwner(dbPath, found.owner.pid, found.owner.url);
    return httpUpstream(found.owner);
  }
  const owner = found.opened;
  const server = createMcpServer(owner.opened.baton, { toolGroups, version: VERSION, log, holderPid: process.pid });
  const [proxySide, serverSide] = InMemoryTransport.createLinkedPair();
  await connectServer(server, serverSide);
  log.info(`this process now owns ${dbPath} (endpoint ${owner.endpoint.url}, discovery ${owner.discoveryFile})`);
  const close = async () => {
    await server.close().catch(() => undefined);
    await owner.close();
  };
  // Another process took the database from this one: the closed connection sends the proxy to the owner now.
  owner.opened.store.onOwnershipLost(() => {
    log.error(lostText(dbPath));
    void close();
  });
  return { transport: proxySide, name: 'this process', pid: null, close };
}
