// `baton mcp`: stdio MCP for an agent. The owner of the database serves it in process; otherwise it proxies to the owner.
// This part runs before the engine is loaded: it takes the database's lock, answers the client's handshake from the
// build-time catalog (stdioFront.ts) and only then loads the engine (dist/engine.js), which opens the database, or,
// when another process holds the lock, the proxy (dist/forward.js).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Log } from '../core/ports.js';
import { readDiscovery } from '../host/discovery.js';
import { CATALOG_FILE, readCatalog } from '../mcp/catalog.js';
import { DEFAULT_TOOL_GROUPS, type ToolGroup } from '../mcp/toolGroups.js';
import { acquireLock, lockPathOf, type HeldLock } from '../store/lock.js';
import { makeDirs } from '../store/makeDirs.js';
import { readSnapshotAhead } from '../store/snapshotRead.js';
import { CliError, cliLog, CONTENT_OPTION, DB_OPTIONS, dbPathOf, parse, refuseArguments, shellQuote, VERSION, workspaceOf } from './common.js';
import { ENGINE_OPTIONS, engineSettings } from './engineOptions.js';
import type { McpOptions } from './mcpEngine.js';
import { nodeTooOld } from './nodeVersion.js';
import { onShutdown } from './shutdown.js';
import { StdioFront } from './stdioFront.js';
import { MCP_USAGE } from './usage.js';
import { tuneServerHeap } from './youngGeneration.js';

/** Loads the engine: dist/engine.js beside the bundle (src/cli/engine.ts when run from source). */
const loadEngine = () => import('./engine.js');

/** Loads the proxy of a forwarding `baton mcp`: dist/forward.js beside the bundle (src/cli/forward.ts from source). */
const loadForward = () => import('./forward.js');

/** What a failed start of `baton mcp` says: its words (stderr's, after "baton: ") and its exit code. */
export interface StartFailure {
  message: string;
  code: number;
}

/**
 * What the start-up has set going by the time it fails: the front that reads stdin (if one does yet), the tool groups
 * it lists, and whether the end of stdin stops the process already.
 */
interface Startup {
  front: StdioFront | null;
  toolGroups: readonly ToolGroup[];
  stopsWithStdin: boolean;
}

/**
 * Runs `baton mcp`; returns 0 after --help or once a forwarded session ended, -1 while it serves (it exits on its own).
 * A start that fails (`describe` words the failure) is said on stderr and, to a client on a pipe, over MCP too.
 */
export async function mcpCommand(args: string[], describe?: (ex: unknown) => StartFailure): Promise<number> {
  const startup: Startup = { front: null, toolGroups: DEFAULT_TOOL_GROUPS, stopsWithStdin: false };
  try {
    return await startMcp(args, startup);
  } catch (ex) {
    if (!describe || !refuseToStart(describe(ex), args, startup)) throw ex;
    return -1;
  }
}

async function startMcp(args: string[], startup: Startup): Promise<number> {
  const { values, positionals } = parse(args, { ...DB_OPTIONS, ...CONTENT_OPTION, ...ENGINE_OPTIONS }, MCP_USAGE);
  if (values.help) {
    process.stdout.write(MCP_USAGE + '\n');
    return 0;
  }
  refuseArguments('mcp', positionals, MCP_USAGE);
  const settings = engineSettings(values, MCP_USAGE);
  startup.toolGroups = settings.toolGroups;
  tuneServerHeap();
  const log = cliLog();
  // On a Node too old for the engine the database is left alone: refused before the lock is taken.
  const tooOld = nodeTooOld();
  if (tooOld) throw new CliError(tooOld, 1);
  const options = { ...settings, dbPath: dbPathOf(values), contentDir: values.content, workspace: workspaceOf(values), log };
  makeDirs(dirname(lockPathOf(options.dbPath))); // the folder of the file a linked database leads to
  const lock = acquireLock(options.dbPath);
  if (!lock.acquired) {
    const front = (startup.front = ownerFront(options.dbPath, log));
    // Loading the engine holds the event loop: the handshake is answered first, as the owner's own front does.
    if (front) await front.engineWanted;
    return (await loadForward()).forwardMcp(options, front);
  }
  await serveAsOwner(options, lock, log, startup);
  return -1;
}

/**
 * A start that failed, for a client on a pipe (an agent, which shows the person no stderr, only "connection closed"):
 * the handshake is answered from the catalog and every call gets what is wrong and its fix, so the agent (and through
 * it the person) reads it; stderr says it at once, and the process exits with the failure's code when the client
 * leaves. False, leaving the failure to be thrown, for a person at a terminal, a build without a catalog (run from
 * source), or a session already under way (stdin taken by a server or proxy).
 */
function refuseToStart(failure: StartFailure, args: string[], startup: Startup): boolean {
  if (process.stdin.isTTY) return false;
  const started = startup.front;
  if (started ? !started.unattached : process.stdin.readableFlowing !== null) return false;
  const catalog = started ? null : readCatalog(join(__dirname, CATALOG_FILE));
  if (!started && !catalog) return false;
  const log = cliLog();
  process.stderr.write(`baton: ${failure.message}\n`);
  process.exitCode = failure.code;
  const front = started ?? new StdioFront({ catalog: catalog!, toolGroups: startup.toolGroups, log });
  if (!startup.stopsWithStdin) onShutdown(async () => undefined, log, true);
  front.listen();
  front.fail(refusalText(failure.message, args));
  return true;
}

/** What an agent is told of a failed start: the failure's first paragraph, the command and folder, what to do next. */
export function refusalText(message: string, args: string[], cwd: string = process.cwd()): string {
  const first = message.split('\n\n')[0]!.trim();
  const command = ['baton', 'mcp', ...args].map(shellQuote).join(' ');
  return `Baton's MCP server could not start: ${first}\n(It ran as \`${command}\` in ${cwd}. Tell the person: once `
    + 'that is fixed, in the MCP config of this agent or on the machine, restart the Baton MCP server; until then it '
    + 'answers every call with this message.)';
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
async function serveAsOwner(options: McpOptions, lock: HeldLock, log: Log, startup: Startup): Promise<void> {
  const wasm = compileWasm();
  // Under the lock: the database file is read on the thread pool while the engine loads (a 50 MB one took 0.15 s).
  const snapshot = readSnapshotAhead(options.dbPath);
  const catalog = readCatalog(join(__dirname, CATALOG_FILE)) ?? (await (await loadEngine()).buildCatalog(VERSION));
  const front = (startup.front = new StdioFront({ catalog, toolGroups: options.toolGroups, log }));
  let started: Promise<() => Promise<void>> | null = null;
  onShutdown(async (why) => {
    log.info(`stopping (${why})`);
    // The client that closed stdin still reads the answers of the calls it sent before (a signal does not wait).
    if (why.startsWith('stdin')) await front.answered();
    const stop = started && (await started.catch(() => null));
    if (stop) await stop();
    else lock.release();
  }, log, true);
  startup.stopsWithStdin = true;
  front.listen();
  await front.engineWanted;
  started = loadEngine().then((engine) => engine.serveOwner({ ...options, front, lock, wasm, snapshot }));
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
