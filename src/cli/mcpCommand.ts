// `baton mcp`: stdio MCP for an agent. The owner of the database serves it in process; otherwise it proxies to the owner.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { BatonError } from '../core/errors.js';
import { httpUpstream, ownerAnswers, runProxy, type Upstream } from '../host/proxy.js';
import { createMcpServer } from '../mcp/createMcpServer.js';
import {
  CliError, cliLog, CONTENT_OPTION, CONTENT_USAGE, DB_OPTIONS, DB_USAGE, dbPathOf, openOrFindOwner, parse, refuseArguments, unreachableOwner,
  USAGE_FOOTER, VERSION,
} from './common.js';
import { ENGINE_OPTIONS, ENGINE_USAGE, engineSettings } from './engineOptions.js';
import { becomeOwner } from '../host/owner.js';
import { onShutdown } from './shutdown.js';
import type { Log } from '../core/ports.js';
import type { ToolGroup } from '../mcp/toolGroups.js';

/** Usage of `baton mcp`. */
export const MCP_USAGE = `Usage: baton mcp [--db PATH] [--workspace DIR] [--content DIR] [--tools GROUPS] [--rate-limits SPEC]
                 [--token-ttl MINUTES] [--stall-minutes N]

Serves MCP on stdio (stdout carries only JSON-RPC; logs go to stderr). The first process on a database
owns it (creating it if needed) and also serves 127.0.0.1 HTTP for others; later ones forward to the owner
(whose settings apply). If the owner exits while a forwarding process runs, that process takes over the
database and the session goes on.

Options:
${DB_USAGE}
${CONTENT_USAGE}
${ENGINE_USAGE}
${USAGE_FOOTER}`;

/** Runs `baton mcp`; returns 0 after --help, or -1 once the session is being served (it exits on its own). */
export async function mcpCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...DB_OPTIONS, ...CONTENT_OPTION, ...ENGINE_OPTIONS }, MCP_USAGE);
  if (values.help) {
    process.stdout.write(MCP_USAGE + '\n');
    return 0;
  }
  refuseArguments('mcp', positionals, MCP_USAGE);
  const settings = engineSettings(values, MCP_USAGE);
  const { toolGroups } = settings;
  const log = cliLog();
  const dbPath = dbPathOf(values);
  const open = () => becomeOwner({ ...settings, version: VERSION, dbPath, contentDir: values.content, workspace: values.workspace, log });
  const found = await openOrFindOwner(dbPath, open);
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
    return -1;
  }
  const info = found.owner;
  log.info(`database ${dbPath} is owned by process ${info.pid}; forwarding stdio to ${info.url}`);
  try {
    await runProxy({ owner: info, log, takeOver: () => takeOver(dbPath, open, toolGroups, log) });
  } catch (ex) {
    if (BatonError.is(ex, 'owner_unreachable')) throw unreachableOwner(dbPath, info.pid, info.url);
    throw ex;
  }
  return 0;
}

/** After the owner exited: own the database in this process (or forward to whichever process got there first). */
async function takeOver(dbPath: string, open: () => ReturnType<typeof becomeOwner>, toolGroups: ToolGroup[], log: Log): Promise<Upstream> {
  // Another forwarding process may be opening the database at the same moment: give it time to publish its endpoint.
  const deadline = Date.now() + 10_000;
  let found = await openOrFindOwner(dbPath, open);
  while ('owner' in found && !(await ownerAnswers(found.owner, 1000)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    found = await openOrFindOwner(dbPath, open);
  }
  if ('lockedBy' in found) throw unreachableOwner(dbPath, found.lockedBy, null);
  if ('owner' in found) {
    if (!(await ownerAnswers(found.owner))) throw unreachableOwner(dbPath, found.owner.pid, found.owner.url);
    return httpUpstream(found.owner);
  }
  const owner = found.opened;
  const server = createMcpServer(owner.opened.baton, { toolGroups, version: VERSION, log });
  const [proxySide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  log.info(`this process now owns ${dbPath} (endpoint ${owner.endpoint.url}, discovery ${owner.discoveryFile})`);
  return {
    transport: proxySide,
    name: 'this process',
    pid: null,
    close: async () => {
      await server.close().catch(() => undefined);
      await owner.close();
    },
  };
}
