// `baton mcp`: stdio MCP for an agent. The owner of the database serves it in process; otherwise it proxies to the owner.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { BatonError } from '../core/errors.js';
import { runProxy } from '../host/proxy.js';
import { createMcpServer } from '../mcp/createMcpServer.js';
import { parseToolGroups } from '../mcp/toolGroups.js';
import { CliError, cliLog, DB_OPTIONS, dbPathOf, lockedBy, parse, unreachableOwner, VERSION, waitForDiscovery } from './common.js';
import { becomeOwner, onShutdown } from './owner.js';

/** Usage of `baton mcp`. */
export const MCP_USAGE = `Usage: baton mcp [--db PATH] [--content DIR] [--workspace DIR] [--tools GROUPS] [--rate-limits on|off]

Serves MCP on stdio (stdout carries only JSON-RPC; logs go to stderr). The first process on a database
owns it and also serves 127.0.0.1 HTTP for others; later ones forward to the owner.
  --tools GROUPS        comma-separated tool groups: broker, specs, lifecycle, content, memory, context, or all (default broker)
  --rate-limits on|off  per-task and per-agent rate limits (default on)`;

/** Parses `on|off`. */
export function onOff(value: string | undefined, flag: string, usage: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'off') return value === 'on';
  throw new CliError(`${flag} must be "on" or "off" (got "${value}")\n\n${usage}`, 2);
}

/** Runs `baton mcp`; resolves when the session ends. */
export async function mcpCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { ...DB_OPTIONS, tools: { type: 'string' }, 'rate-limits': { type: 'string' } }, MCP_USAGE);
  if (values.help) {
    process.stderr.write(MCP_USAGE + '\n');
    return;
  }
  let toolGroups;
  try {
    toolGroups = parseToolGroups(values.tools);
  } catch (ex) {
    throw new CliError(`${(ex as Error).message}\n\n${MCP_USAGE}`, 2);
  }
  const rateLimits = onOff(values['rate-limits'], '--rate-limits', MCP_USAGE);
  const log = cliLog();
  const dbPath = dbPathOf(values);
  try {
    const owner = await becomeOwner({ dbPath, contentDir: values.content, workspace: values.workspace, rateLimits, toolGroups, log });
    const server = createMcpServer(owner.opened.baton, { toolGroups, version: VERSION, log });
    const transport = new StdioServerTransport();
    onShutdown(async (why) => {
      log.info(`stopping (${why})`);
      await server.close().catch(() => undefined);
      await owner.close();
    }, log, true);
    await server.connect(transport);
    log.info(`serving MCP on stdio; owner of ${dbPath} (endpoint ${owner.endpoint.url}, discovery ${owner.discoveryFile})`);
    return;
  } catch (ex) {
    const ownerPid = lockedBy(ex);
    if (ownerPid === null) throw ex;
    const info = await waitForDiscovery(dbPath);
    if (!info) throw unreachableOwner(dbPath, ownerPid, null);
    log.info(`database ${dbPath} is owned by process ${info.pid}; forwarding stdio to ${info.url}`);
    try {
      await runProxy({ owner: info, log });
    } catch (proxyEx) {
      if (BatonError.is(proxyEx, 'owner_unreachable')) throw unreachableOwner(dbPath, info.pid, info.url);
      throw proxyEx;
    }
    process.exit(0);
  }
}
