// `baton serve`: own the database and serve only the 127.0.0.1 HTTP endpoint, until a signal.
import { discoveryPath, ownerAnswers, readDiscovery } from '../host/discovery.js';
import { requestWithin } from '../host/requestWithin.js';
import {
  CliError, cliLog, CONTENT_OPTION, DB_OPTIONS, dbFlagFor, dbPathOf, notBatonHint, openOrFindOwner, OWNER_START_MS, parse, refuseArguments,
  unreachableOwner, VERSION, workspaceOf, type Ownership,
} from './common.js';
import { ENGINE_OPTIONS, engineSettings } from './engineOptions.js';
import { numberFlag } from './numberFlag.js';
import { becomeOwner, type Owner } from '../host/owner.js';
import { halted, ownerState } from '../host/silentOwner.js';
import { missingFolders, removeCreated } from './withCore.js';
import { onShutdown } from './shutdown.js';
import { tuneServerHeap } from './youngGeneration.js';
import { SERVE_USAGE } from './usage.js';

/** Runs `baton serve`; returns 0 after --help, or -1 once it serves (it exits on a signal). */
export async function serveCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...DB_OPTIONS, ...CONTENT_OPTION, ...ENGINE_OPTIONS, port: { type: 'string' } }, SERVE_USAGE);
  if (values.help) {
    process.stdout.write(SERVE_USAGE + '\n');
    return 0;
  }
  refuseArguments('serve', positionals, SERVE_USAGE);
  const port = numberFlag(values.port, { flag: '--port', min: 0, max: 65535, maxWhy: '0: a free one', examples: ['8080'] }, SERVE_USAGE) ?? 0;
  const settings = engineSettings(values, SERVE_USAGE);
  tuneServerHeap();
  const log = cliLog();
  const dbPath = dbPathOf(values);
  // A stop signal while another process holds the database ends the waiting: no more tries.
  let stopping = false;
  // What the database needs that does not exist yet, as of the try that opens it (another process may make it while
  // this one waits): only a database this try made is removed if the try fails.
  let made: string[] | null = null;
  const open = () => {
    if (stopping) return Promise.reject(new Error('stopped while waiting for the database'));
    made = missingFolders(dbPath);
    return becomeOwner({ ...settings, version: VERSION, dbPath, contentDir: values.content, workspace: workspaceOf(values), port, log });
  };
  // Another process may hold the lock a while (an owner starting or stopping, a command such as baton approve):
  // wait for it to serve, or to let go, before saying who owns the database.
  const opening = openOrFindOwner(dbPath, open, { ready: ownerAnswers, log });
  // Installed before the owner publishes its discovery file: a stop signal from then on (a supervisor that sees the
  // file and stops the process at once) closes the database in order, once it is open, rather than killing it.
  const stop = onShutdown(async (why) => {
    stopping = true;
    log.info(`stopping (${why})`);
    const found = await opening.catch(() => null);
    if (found && 'opened' in found) await found.opened.close();
  }, log, false);
  let found: Ownership<Owner>;
  try {
    found = await opening;
  } catch (ex) {
    if (stopping) return -1; // the shutdown handler exits
    // A database this serve made before it failed (its --port in use) goes again, with the folders made for it: the
    // refused command leaves nothing behind, as spec start does.
    if (made) removeCreated(dbPath, made);
    throw (await portHeldByBaton(ex, port, dbPath)) ?? ex;
  }
  if ('opened' in found) {
    const owner = found.opened;
    // Another process took the database (its lock file deleted meanwhile): this serve's copy in memory is stale, and
    // it has no client of its own to carry on, so it ends; forwarding `baton mcp`s see it gone and go to the new owner.
    owner.opened.store.onOwnershipLost(() => {
      log.error(`baton serve stops (exit 1): another process took ${dbPath}, so what this one holds in memory is not what is on disk; agents forwarding to it go on to that process. Serve it again once that process stops (baton serve${dbFlagFor(dbPath)}), or connect to that process.`);
      process.exitCode = 1;
      stop('the database was taken by another process');
    });
    process.stderr.write(`Baton serving ${dbPath}\n  MCP endpoint: ${owner.endpoint.url}\n  discovery (url, token; mode 0600): ${owner.discoveryFile}\n`);
    return -1;
  }
  if ('owner' in found) throw alreadyOwned(dbPath, found.owner.pid, found.owner.url);
  // Still held when the wait ended: an endpoint that never answered, or none at all.
  const info = readDiscovery(dbPath);
  if (info?.pid === found.lockedBy) throw unreachableOwner(dbPath, info.pid, info.url);
  const state = ownerState(found.lockedBy);
  if (halted(state)) throw unreachableOwner(dbPath, found.lockedBy, null, state);
  throw alreadyOwned(dbPath, found.lockedBy, null);
}

/**
 * The message when another process owns the database: the ways on (use that owner, stop it, or another database).
 * `endpoint`: the owner's, which answers; null when it published none in the time this command waited.
 */
function alreadyOwned(dbPath: string, ownerPid: number, endpoint: string | null): CliError {
  const stop = process.platform === 'win32' ? `taskkill /PID ${ownerPid}` : `kill ${ownerPid}`;
  const forward = `run baton mcp${dbFlagFor(dbPath)}, which forwards to it`;
  const ways = [
    endpoint
      ? `use that process: agents can connect to its endpoint (the bearer token is in ${discoveryPath(dbPath)}), or ${forward};`
      : `if it is still starting (a large database takes longer to open), wait until it writes ${discoveryPath(dbPath)}, then connect agents to its endpoint, or ${forward};`,
    `stop process ${ownerPid} (${stop}; if it is an editor's, close that window), then run baton serve again;`,
    'or serve another database: baton serve --db OTHER.db',
  ];
  const owned = endpoint
    ? `database ${dbPath} is already owned by Baton process ${ownerPid} (endpoint ${endpoint})`
    : `database ${dbPath} is already owned by Baton process ${ownerPid}, which published no endpoint in the ${OWNER_START_MS / 1000} s this command waited`;
  const reused = endpoint ? '' : `\n${notBatonHint(dbPath, ownerPid)}`;
  return new CliError(`${owned}. Either\n${ways.map((w) => `  - ${w}`).join('\n')}${reused}`, 1);
}

/**
 * When `--port` is in use by another Baton (its /healthz answers with its pid, and the database it serves): who holds
 * it and the ways on, instead of "another program"; null for any other failure, or a program that is not Baton.
 */
async function portHeldByBaton(ex: unknown, port: number, dbPath: string): Promise<CliError | null> {
  if ((ex as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === 0) return null;
  const url = `http://127.0.0.1:${port}`;
  const other = await requestWithin(`${url}/healthz`, {}, 1000, async (res) => (res.ok ? ((await res.json()) as { ok?: unknown; pid?: unknown; database?: unknown }) : null))
    .catch(() => null);
  if (other?.ok !== true || typeof other.pid !== 'number') return null;
  const database = typeof other.database === 'string' ? other.database : null;
  const stop = process.platform === 'win32' ? `taskkill /PID ${other.pid}` : `kill ${other.pid}`;
  const serves = database === null ? 'an older Baton that does not say which database it serves' : `which serves ${database}`;
  const ways = [
    database === dbPath
      ? `use it: it serves this database already; agents connect to ${url}/mcp (the bearer token is in ${discoveryPath(dbPath)}), or run baton mcp${dbFlagFor(dbPath)}, which forwards to it;`
      : `serve ${dbPath} on another port: baton serve${dbFlagFor(dbPath)} --port ${port === 65535 ? port - 1 : port + 1} (or leave --port out for a free one);`,
    ...(database === dbPath || database === null ? [] : [
      `or, to work on ${database}: it serves it already; agents connect to ${url}/mcp (the bearer token is in ${discoveryPath(database)}), or run baton mcp${dbFlagFor(database)}, which forwards to it;`,
    ]),
    `or stop process ${other.pid} (${stop}; if it is an editor's, close that window), then run baton serve again.`,
  ];
  return new CliError(`port ${port} on 127.0.0.1 is in use by another Baton: process ${other.pid}, ${serves} (endpoint ${url}/mcp). Either\n${ways.map((w) => `  - ${w}`).join('\n')}`, 1);
}
