// `baton serve`: own the database and serve only the 127.0.0.1 HTTP endpoint, until a signal.
import { readDiscovery } from '../host/discovery.js';
import { CliError, cliLog, DB_OPTIONS, dbPathOf, lockedBy, parse, VERSION } from './common.js';
import { ENGINE_OPTIONS, ENGINE_USAGE, engineSettings } from './engineOptions.js';
import { becomeOwner } from '../host/owner.js';
import { onShutdown } from './shutdown.js';
import { capYoungGeneration } from './youngGeneration.js';

/** Usage of `baton serve`. */
export const SERVE_USAGE = `Usage: baton serve [--db PATH] [--content DIR] [--workspace DIR] [--port N] [--tools GROUPS]
                   [--rate-limits SPEC] [--token-ttl MINUTES] [--stall-minutes N]

Owns the database and serves MCP over Streamable HTTP on 127.0.0.1 (bearer token in server.json beside
the database, mode 0600). Runs until SIGINT/SIGTERM.
  --port N                the port (default: a random free one)
${ENGINE_USAGE}`;

/** Runs `baton serve`. */
export async function serveCommand(args: string[]): Promise<void> {
  const { values } = parse(args, { ...DB_OPTIONS, ...ENGINE_OPTIONS, port: { type: 'string' } }, SERVE_USAGE);
  if (values.help) {
    process.stderr.write(SERVE_USAGE + '\n');
    return;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number (got "${values.port}")\n\n${SERVE_USAGE}`, 2);
  const settings = engineSettings(values, SERVE_USAGE);
  capYoungGeneration();
  const log = cliLog();
  const dbPath = dbPathOf(values);
  try {
    const owner = await becomeOwner({
      ...settings, version: VERSION, dbPath, contentDir: values.content, workspace: values.workspace, port, log,
    });
    onShutdown(async (why) => {
      log.info(`stopping (${why})`);
      await owner.close();
    }, log, false);
    process.stderr.write(`Baton serving ${dbPath}\n  MCP endpoint: ${owner.endpoint.url}\n  discovery (url, token; mode 0600): ${owner.discoveryFile}\n`);
  } catch (ex) {
    const ownerPid = lockedBy(ex);
    if (ownerPid === null) throw ex;
    const info = readDiscovery(dbPath);
    throw new CliError(`database ${dbPath} is already owned by Baton process ${ownerPid}${info ? ` (endpoint ${info.url})` : ''}`, 1);
  }
}
