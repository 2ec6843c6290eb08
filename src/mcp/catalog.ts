// What a client learns from Baton's MCP server before it calls anything: the `initialize` answer and `tools/list`.
// The build takes both from the real server (catalogBuilder.ts) into dist/mcp-catalog.json, so that `baton mcp` can
// answer them before its engine is loaded. Nothing here may import more than types: it runs before the engine.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The catalog file the build writes beside the CLI bundle. */
export const CATALOG_FILE = 'mcp-catalog.json';

/** The `initialize` answer and the tools of each tool group, as the server sends them. */
export interface McpCatalog {
  /** The `initialize` result; its protocolVersion is what a client asking for an unsupported version gets. */
  initialize: { protocolVersion: string } & Record<string, unknown>;
  /** Protocol versions the server answers with the version asked for. */
  protocolVersions: string[];
  /** The tools of each group that has tools, in the order `tools/list` lists the groups. */
  groups: Array<{ group: string; tools: unknown[] }>;
  /** The methods the server answers, whatever its groups (a catalog from before they were kept has none). */
  methods?: string[];
  /**
   * What the catalog file read is (a hash of its text; not in the file): two processes whose ids match answer the
   * handshake alike, so a forwarding `baton mcp` may answer it for its owner (see `ownerFront`).
   */
  id?: string;
}

/** The catalog file at `path`, or null when it is missing or not a catalog (run from source: no build). */
export function readCatalog(path: string): McpCatalog | null {
  let text: string;
  let parsed: Partial<McpCatalog>;
  try {
    text = readFileSync(path, 'utf8');
    parsed = JSON.parse(text) as Partial<McpCatalog>;
  } catch {
    return null;
  }
  const ok = typeof parsed.initialize?.protocolVersion === 'string' && Array.isArray(parsed.protocolVersions) && Array.isArray(parsed.groups);
  if (!ok) return null;
  if (parsed.methods !== undefined && !(Array.isArray(parsed.methods) && parsed.methods.every((m) => typeof m === 'string'))) delete parsed.methods;
  return { ...(parsed as McpCatalog), id: createHash('sha256').update(text).digest('hex').slice(0, 32) };
}

/** The `initialize` result for a client asking for `requested`, as the SDK's server negotiates it. */
export function initializeResult(catalog: McpCatalog, requested: unknown): Record<string, unknown> {
  const version = typeof requested === 'string' && catalog.protocolVersions.includes(requested) ? requested : catalog.initialize.protocolVersion;
  return { ...catalog.initialize, protocolVersion: version };
}

/** The `tools/list` result of a server with these tool groups. */
export function toolsListResult(catalog: McpCatalog, toolGroups: readonly string[]): { tools: unknown[] } {
  return { tools: catalog.groups.filter((g) => toolGroups.includes(g.group)).flatMap((g) => g.tools) };
}
