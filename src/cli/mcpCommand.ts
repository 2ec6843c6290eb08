// `baton mcp`: stdio MCP for an agent. The owner of the database serves it in process; otherwise it proxies to the owner.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { BatonError } from '../core/errors.js';
import { runProxy } from '../host/proxy.js';
import { createMcpServer } from '../mcp/createMcpServer.js';
import { CliError, cliLog, DB_OPTIONS, dbPathOf, openOrFindOwner, parse, unreachableOwner, VERSION } from './common.js';
import { ENGINE_OPTIONS, ENGINE_USAGE, engineSettings } from './engineOptions.js';
import { becomeOwner } from '../host/owner.js';
import { onShutdown } from './shutdown.js';

/** Usage of `baton mcp`. */
export const MCP_USAGE = `Usage: baton mcp [--db PATH] [--content DIR] [--workspace DIR] [--tools GROUPS] [--rate-limits SPEC]
                 [--token-ttl MINUTES] [--stall-minutes N]

Serves MCP on stdio (stdout carries only JSON-RPC; logs go to stderr). The first process on a database
owns it and also serves 127.0.0.1 HTTP for others; later ones forward to the owner (whose settings apply).
${ENGINE_USAGE}`;

/** Runs `baton mcp`; resolves when the session ends. */
export async function mcpCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { ...DB_OPTIONS, ...ENGINE_OPTIONS }, MCP_USAGE);
  if (values.help) {
    process.stderr.write(MCP_USAGE + '\n');
    return;
  }
  const settings = engineSettings(values, MCP_USAGE);
  const { toolGroups } = settings;
  const log = cliLog();
  const dbPath = dbPathOf(values);
  const found = await openOrFindOwner(dbPath, () =>
    becomeOwner({ ...settings, version: VERSION, dbPath, contentDir: values.content, workspace: values.workspace, log }),
  );
  if ('lockedBy' in found) throw unreachableOwner(dbPath, found.lockedBy, null);
  if ('opened' in found) {
    const owner = found.opened;
    const server = createMcpServer(owner.opened.baton, { toolGroups, version: VERSION, log });
    onShutdown(async (why) => {
      log.info(`stopping (${why})`);
      await server.close().catch(() => undefined);
      await owner.close();
    }, log, true);
    await server.connect(new StdioServerTransport());
    log.info(`serving MCP on stdio; owner of ${dbPath} (endpoint ${owner.endpoint.url}, discovery ${owner.discoveryFile})`);
    return;
  }
  const info = found.owner;
  log.info(`database ${dbPath} is owned by process ${info.pid}; forwarding stdio to ${info.url}`);
  try {
    await runProxy({ owner: info, log });
  } catch (ex) {
    if (BatonError.is(ex, 'owner_unreachable')) throw unreachableOwner(dbPath, info.pid, info.url);
    throw ex;
  }
  process.exit(0);
}
