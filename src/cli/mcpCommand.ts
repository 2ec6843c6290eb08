// `baton mcp`: stdio MCP for an agent. The owner of the database serves it in process; otherwise it proxies to the owner.
// This part runs before the engine is loaded: it takes the database's lock, answers the client's handshake from the
// build-time catalog (stdioFront.ts) and only then loads the engine (dist/engine.js), which opens the database.
import { existsSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Log } from '../core/ports.js';
import { CATALOG_FILE, readCatalog } from '../mcp/catalog.js';
import { acquireLock, type HeldLock } from '../store/lock.js';
import { cliLog, DB_OPTIONS, dbPathOf, parse, VERSION } from './common.js';
import { ENGINE_OPTIONS, ENGINE_USAGE, engineSettings } from './engineOptions.js';
import type { McpOptions } from './mcpEngine.js';
import { onShutdown } from './shutdown.js';
import { StdioFront } from './stdioFront.js';
import { capYoungGeneration } from './youngGeneration.js';

/** Usage of `baton mcp`. */
export const MCP_USAGE = `Usage: baton mcp [--db PATH] [--content DIR] [--workspace DIR] [--tools GROUPS] [--rate-limits SPEC]
                 [--token-ttl MINUTES] [--stall-minutes N]

Serves MCP on stdio (stdout carries only JSON-RPC; logs go to stderr). The first process on a database
owns it and also serves 127.0.0.1 HTTP for others; later ones forward to the owner (whose settings apply).
If the owner exits while a forwarding process runs, that process takes over the database and the session goes on.
${ENGINE_USAGE}`;

/** Loads the engine: dist/engine.js beside the bundle (src/cli/engine.ts when run from source). */
const loadEngine = () => import('./engine.js');

/** Runs `baton mcp`; resolves when the session ends. */
export async function mcpCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { ...DB_OPTIONS, ...ENGINE_OPTIONS }, MCP_USAGE);
  if (values.help) {
    process.stderr.write(MCP_USAGE + '\n');
    return;
  }
  const settings = engineSettings(values, MCP_USAGE);
  capYoungGeneration();
  const log = cliLog();
  const options = { ...settings, dbPath: dbPathOf(values), contentDir: values.content, workspace: values.workspace, log };
  mkdirSync(dirname(options.dbPath), { recursive: true });
  const lock = acquireLock(options.dbPath);
  if (!lock.acquired) {
    await (await loadEngine()).forwardMcp(options);
    return;
  }
  await serveAsOwner(options, lock, log);
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
