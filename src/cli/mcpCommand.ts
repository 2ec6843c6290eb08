// `baton mcp`: stdio MCP for an agent. The owner of the database serves it in process; otherwise it proxies to the owner.
// This part runs before the engine is loaded: it takes the database's lock, answers the client's handshake from the
// build-time catalog (stdioFront.ts) and only then loads the engine (dist/engine.js), which opens the database.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Log } from '../core/ports.js';
import { readDiscovery } from '../host/discovery.js';
import { CATALOG_FILE, readCatalog } from '../mcp/catalog.js';
import type { ToolGroup } from '../mcp/toolGroups.js';
import { acquireLock, lockPathOf, type HeldLock } from '../store/lock.js';
import { makeDirs } from '../store/makeDirs.js';
import { CliError, cliLog, CONTENT_OPTION, DB_OPTIONS, dbPathOf, parse, refuseArguments, VERSION } from './common.js';
import { ENGINE_OPTIONS, engineSettings } from './engineOptions.js';
import type { McpOptions } from './mcpEngine.js';
import { nodeTooOld } from './nodeVersion.js';
import { onShutdown } from './shutdown.js';
import { StdioFront } from './stdioFront.js';
import { MCP_USAGE } from './usage.js';
import { capYoungGeneration } from './youngGeneration.js';

/** Loads the engine: dist/engine.js beside the bundle (src/cli/engine.ts when run from source). */
const loadEngine = () => import('./engine.js');

/** Runs `baton mcp`; returns 0 after --help or once a forwarded session ended, -1 while it serves (it exits on its own). */
export async function mcpCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...DB_OPTIONS, ...CONTENT_OPTION, ...ENGINE_OPTIONS }, MCP_USAGE);
  if (values.help) {
    process.stdout.write(MCP_USAGE + '\n');
    return 0;
  }
  refuseArguments('mcp', positionals, MCP_USAGE);
  const settings = engineSettings(values, MCP_USAGE);
  capYoungGeneration();
  const log = cliLog();
  const tooOld = nodeTooOld();
  if (tooOld) return refuseOldNode(tooOld, settings.toolGroups, log);
  const options = { ...settings, dbPath: dbPathOf(values), contentDir: values.content, workspace: values.workspace, log };
  makeDirs(dirname(lockPathOf(options.dbPath))); // the folder of the file a linked database leads to
  const lock = acquireLock(options.dbPath);
  if (!lock.acquired) {
    const front = ownerFront(options.dbPath, log);
    // Loading the engine holds the event loop: the handshake is answered first, as the owner's own front does.
    if (front) await front.engineWanted;
    return (await loadEngine()).forwardMcp(options, front);
  }
  await serveAsOwner(options, lock, log);
  return -1;
}

/**
 * On a Node too old for the engine: the handshake is answered from the catalog and every call gets `why`, so the agent
 * (and through it the person) reads what to install; stderr says it at once. The database is left alone.
 */
function refuseOldNode(why: string, toolGroups: ToolGroup[], log: Log): number {
  const catalog = readCatalog(join(__dirname, CATALOG_FILE));
  if (!catalog) throw new CliError(why, 1);
  log.error(why);
  process.exitCode = 1;
  const front = new StdioFront({ catalog, toolGroups, log });
  onShutdown(async (reason) => log.info(`stopping (${reason})`), log, true);
  front.listen();
  front.fail(why);
  return -1;
}

/**
 * For a process that forwards to the database's owner: a front that answers the client's handshake at once, as the
 * owner would (its discovery file names the same build's catalog and the groups it serves), while the engine loads
 * and the owner is reached; null for an owner of another build (or run from source), whose handshake is forwarded.
 */
function ownerFront(dbPath: string, log: Log): StdioFront | null {
  const owner = readDiscovery(dbPath);
  if (!owner?.catalog || !owner.toolGroups) return null;
  const catalog = readCatalog(join(__dirname, CATALOG_FILE));
  if (!catalog || catalog.id !== owner.catalog) return null;
  const front = new StdioFront({ catalog, toolGroups: owner.toolGroups, log });
  front.listen();
  return front;
}

/** Answers the handshake at once, then loads the engine and opens the database under `lock`. */
async function serveAsOwner(options: McpOptions, lock: HeldLock, log: Log): Promise<void> {
  const wasm = compileWasm();
  const catalog = readCatalog(join(__dirname, CATALOG_FILE)) ?? (await (await loadEngine()).buildCatalog(VERSION));
  const front = new StdioFront({ catalog, toolGroups: options.toolGroups, log });
  let started: Promise<() => Promise<void>> | null = null;
  onShutdown(async (why) => {
    log.info(`stopping (${why})`);
    if (started) await (await started)();
    else lock.release();
  }, log, true);
  front.listen();
  await front.engineWanted;
  started = loadEngine().then((engine) => engine.serveOwner({ ...options, front, lock, wasm }));
  await started;
}

/**
 * Starts compiling sql.js's wasm (off the main thread) while the engine loads; undefined when run from source.
 * V8 still compiles each function when it is first called: compiling all of them up front cost more CPU than it
 * saved on this 2-core machine (paired runs), so it is left lazy.
 */
function compileWasm(): Promise<WebAssembly.Module> | undefined {
  const path = join(__dirname, 'sql-wasm.wasm');
  if (!existsSync(path)) return undefined;
  // The ES2022 lib without the DOM declares no values of the WebAssembly API.
  const api = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } }).WebAssembly;
  const compiled = readFile(path).then((bytes) => api.compile(bytes));
  compiled.catch(() => undefined); // the store reports a failure when it needs the module
  return compiled;
}
