// Builds the catalog (catalog.ts) from the real server: `initialize` and `tools/list` asked over an in-memory
// connection, exactly as a client receives them. The build runs it; `baton mcp` run from source runs it at start.
// It also names the methods the server answers (kept in the catalog), for a forwarding `baton mcp` (batonMethods).
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isDeepStrictEqual } from 'node:util';
import type { BatonApi } from '../core/api.js';
import { silentLog } from '../core/ports.js';
import { join } from 'node:path';
import { CATALOG_FILE, readCatalog, type McpCatalog } from './catalog.js';
import { createMcpServer, serverMethods } from './createMcpServer.js';
import { TOOL_GROUPS, type ToolGroup } from './toolGroups.js';

/**
 * What the server needs from the core while it is built and asked for its catalog: no templates (so no prompts), no
 * events, and its close. Anything else means the catalog would depend on the database, and fails the build.
 */
const NO_ENGINE = new Proxy({} as BatonApi, {
  get: (_target, prop) => {
    if (prop === 'templates') return () => [];
    if (prop === 'onEvent') return () => () => undefined;
    if (prop === 'connectionClosed') return () => undefined; // the catalog's server closes, having handed out nothing
    if (prop === 'then') return undefined;
    return () => {
      throw new Error(`the MCP catalog must not depend on the database, but building the server called baton.${String(prop)}`);
    };
  },
});

/** Sends one request to a fresh server with these groups and returns its raw result. */
async function ask(toolGroups: readonly ToolGroup[], version: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const server = createMcpServer(NO_ENGINE, { toolGroups, version, log: silentLog });
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const answer = new Promise<JSONRPCMessage>((resolve) => (client.onmessage = resolve));
  await server.connect(serverSide);
  await client.send({ jsonrpc: '2.0', id: 1, method, params });
  const reply = (await answer) as { result?: Record<string, unknown>; error?: { message: string } };
  await server.close();
  if (!reply.result) throw new Error(`the MCP server answered ${method} with ${JSON.stringify(reply.error)}`);
  return reply.result;
}

/** The catalog of this build's server (Baton version `version`). */
export async function buildCatalog(version: string): Promise<McpCatalog> {
  // A version no server supports: the answer carries the one the server falls back to.
  const init = { protocolVersion: 'baton-catalog', capabilities: {}, clientInfo: { name: 'baton-catalog', version } };
  const initialize = (await ask(TOOL_GROUPS, version, 'initialize', init)) as McpCatalog['initialize'];
  const groups: McpCatalog['groups'] = [];
  for (const group of TOOL_GROUPS) {
    if (!isDeepStrictEqual(await ask([group], version, 'initialize', init), initialize)) {
      throw new Error(`the initialize answer depends on the tool groups (group ${group}); the catalog cannot hold it`);
    }
    const { tools } = (await ask([group], version, 'tools/list', {})) as { tools: unknown[] };
    if (tools.length > 0) groups.push({ group, tools });
  }
  const all = (await ask(TOOL_GROUPS, version, 'tools/list', {})) as { tools: Array<{ name: string }> };
  const first = (g: McpCatalog['groups'][number]) => all.tools.findIndex((t) => t.name === (g.tools[0] as { name: string }).name);
  groups.sort((a, b) => first(a) - first(b));
  if (!isDeepStrictEqual(groups.flatMap((g) => g.tools), all.tools)) {
    throw new Error('tools/list of all groups is not the tools of each group in order; the catalog cannot hold it');
  }
  return { initialize, protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS], groups, methods: [...serverMethodsOf()] };
}

let methods: ReadonlySet<string> | undefined;

/**
 * The methods Baton's server answers, the same whatever its tool groups, asked of a server built without the engine
 * (built once): over stdio it answers any other request, even before `initialize`, with Method not found.
 */
export function batonMethods(): ReadonlySet<string> {
  // The build's catalog beside the bundle has them; run from source, a server is built (about 7 ms).
  methods ??= new Set(readCatalog(join(__dirname, CATALOG_FILE))?.methods ?? serverMethodsOf());
  return methods;
}

/** The methods a server built without the engine answers. */
function serverMethodsOf(): string[] {
  const server = createMcpServer(NO_ENGINE, { toolGroups: TOOL_GROUPS, version: '0.0.0', log: silentLog });
  const names = serverMethods(server);
  void server.close();
  return names;
}
