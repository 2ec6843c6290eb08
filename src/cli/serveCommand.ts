// `baton serve`: own the database and serve only the 127.0.0.1 HTTP endpoint, until a signal.
import { discoveryPath, readDiscovery } from '../host/discovery.js';
import {
  CliError, cliLog, CONTENT_OPTION, DB_OPTIONS, dbFlagFor, dbPathOf, lockedBy, notBatonHint, parse, refuseArguments, VERSION,
} from './common.js';
import { ENGINE_OPTIONS, engineSettings } from './engineOptions.js';
import { becomeOwner } from '../host/owner.js';
import { missingFolders, removeCreated } from './withCore.js';
import { onShutdown } from './shutdown.js';
import { capYoungGeneration } from './youngGeneration.js';
import { SERVE_USAGE } from './usage.js';

/** Runs `baton serve`; returns 0 after --help, or -1 once it serves (it exits on a signal). */
export async function serveCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...DB_OPTIONS, ...CONTENT_OPTION, ...ENGINE_OPTIONS, port: { type: 'string' } }, SERVE_USAGE);
  if (values.help) {
    process.stdout.write(SERVE_USAGE + '\n');
    return 0;
  }
  refuseArguments('serve', positionals, SERVE_USAGE);
  // Digits only: Number() reads '' as 0 (a random port) and '0x50' or '1e3' as other ports than the words say.
  const port = values.port === undefined ? 0 : /^\d{1,5}$/.test(values.port) ? Number(values.port) : -1;
  if (port < 0 || port > 65535) throw new CliError(`--port must be a port number, 0 to 65535 (got "${values.port}")\n\n${SERVE_USAGE}`, 2);
  const settings = engineSettings(values, SERVE_USAGE);
  capYoungGeneration();
  const log = cliLog();
  const dbPath = dbPathOf(values);
  const made = missingFolders(dbPath);
  try {
    const opening = becomeOwner({
      ...settings, version: VERSION, dbPath, contentDir: values.content, workspace: values.workspace, port, log,
    });
    // Installed before the owner publishes its discovery file: a stop signal from then on (a supervisor that sees the
    // file and stops the process at once) closes the database in order, once it is open, rather than killing it.
    onShutdown(async (why) => {
      log.info(`stopping (${why})`);
      await (await opening.catch(() => null))?.close();
    }, log, false);
    const owner = await opening;
    process.stderr.write(`Baton serving ${dbPath}\n  MCP endpoint: ${owner.endpoint.url}\n  discovery (url, token; mode 0600): ${owner.discoveryFile}\n`);
    return -1;
  } catch (ex) {
    const ownerPid = lockedBy(ex);
    if (ownerPid !== null) throw alreadyOwned(dbPath, ownerPid);
    // A database this serve made before it failed (its --port in use) goes again, with the folders made for it: the
    // refused command leaves nothing behind, as spec start does.
    if (made) removeCreated(dbPath, made);
    throw ex;
  }
}

/** The message when another process owns the database: the ways on (use that owner, stop it, or another database). */
function alreadyOwned(dbPath: string, ownerPid: number): CliError {
  const info = readDiscovery(dbPath);
  const endpoint = info?.pid === ownerPid ? info.url : null;
  const stop = process.platform === 'win32' ? `taskkill /PID ${ownerPid}` : `kill ${ownerPid}`;
  const ways = [
    endpoint
      ? `use that process: agents can connect to its endpoint (the bearer token is in ${discoveryPath(dbPath)}), or run baton mcp${dbFlagFor(dbPath)}, which forwards to it;`
      : `wait: it publishes no endpoint yet (no ${discoveryPath(dbPath)}); if it is starting, try again in a moment;`,
    `stop process ${ownerPid} (${stop}; if it is an editor's, close that window), then run baton serve again;`,
    'or serve another database: baton serve --db OTHER.db',
  ];
  const owned = `database ${dbPath} is already owned by Baton process ${ownerPid}${endpoint ? ` (endpoint ${endpoint})` : ''}`;
  const reused = endpoint ? '' : `\n${notBatonHint(dbPath, ownerPid)}`;
  return new CliError(`${owned}. Either\n${ways.map((w) => `  - ${w}`).join('\n')}${reused}`, 1);
}
