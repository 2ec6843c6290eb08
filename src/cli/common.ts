// What the subcommands share: option definitions, usage errors, the database path, finding or becoming the owner.
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { version } from '../../package.json';
import { BatonError } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';
import type { Log } from '../core/ports.js';
import { discoveryPath, readDiscovery, type DiscoveryInfo } from '../host/discovery.js';
import { capital, halted, ownerCommand, ownerState, silentOwnerWays, stateFromPs, type OwnerState, type PsRunner } from '../host/silentOwner.js';
import { stderrLog } from '../host/nodePorts.js';
import { projectFolder, resolveDbPath } from '../store/dbPath.js';
import { lockPathOf } from '../store/lock.js';

/** Baton's version (package.json). */
export const VERSION: string = version;

// dist/cli.js and dist/engine.js each hold a copy of this module: `instanceof` recognises both copies' errors.
const CLI_ERROR = Symbol.for('baton.CliError');

/**
 * A failure that ends the command with an exit code and a message on stderr; `details`, what the message says for a
 * script (--json prints them, as the core's errors' details).
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    Object.defineProperty(this, CLI_ERROR, { value: true });
  }

  /** Whether `value` is a CliError made by any copy of this class. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[CLI_ERROR] === true;
  }
}

/** Options every database command takes. */
export const DB_OPTIONS = {
  db: { type: 'string' },
  workspace: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** The content option of the commands that may open the core with its content (not `status`, which only reads). */
export const CONTENT_OPTION = { content: { type: 'string' } } as const satisfies ParseArgsConfig['options'];

/** Help lines of DB_OPTIONS' database flags. */
export const DB_USAGE = `  --db PATH               the database file (default: $BATON_DB_PATH if set, else .baton/baton.db under --workspace)
  --workspace DIR         the project folder; its .baton/ holds the default database and your own agents, rules
                          and workflows (default: the current folder, or the nearest one above it holding a .baton)`;

/** Help line of CONTENT_OPTION. */
export const CONTENT_USAGE = `  --content DIR           the bundled agents, rules, workflows and contracts, loaded before the workspace's .baton/
                          (default: the content/ folder shipped with Baton)`;

/** The end of every command's help: help flag, database resolution, environment, exit codes. */
export const USAGE_FOOTER = `  -h, --help              show this help (on stdout)

The database is --db, else $BATON_DB_PATH, else .baton/baton.db under --workspace (default: the project folder).
The project folder: the current one, or, when neither --db nor $BATON_DB_PATH is given, the nearest folder above
it holding a .baton (as git finds .git; the search ends at the top of a git repository, and below your home
folder, the temp folder and /).
Environment: BATON_DB_PATH (the database when --db is not given), BATON_LOG_LEVEL (debug, info, warn or error;
logs go to stderr).
Exit codes: 0 done; 1 failed (e.g. no database, its owner does not answer, no such execution); 2 usage error.`;

/** The end of the help of a command that opens no database (blueprint): help flag, environment, exit codes. */
export const NO_DB_USAGE_FOOTER = `  -h, --help              show this help (on stdout)

Environment: BATON_LOG_LEVEL (debug, info, warn or error; logs go to stderr).
Exit codes: 0 done; 1 failed (e.g. no such blueprint, a file that already exists); 2 usage error.`;

/**
 * parseArgs with strict checking; a bad flag becomes a usage error (exit 2). A negative number after a flag that takes
 * a value is that value (`--port -1` gets the flag's own check, not parseArgs' "ambiguous"), and `--workspace` and
 * `--content` must name folders that exist (a typo would otherwise create a workspace, or load no workflows).
 */
export function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, usage: string) {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!;
    const next = args[i + 1];
    const takesValue = flag.startsWith('--') && !flag.includes('=') && options[flag.slice(2)]?.type === 'string';
    if (takesValue && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${flag}=${next}`);
      i++;
    } else {
      joined.push(flag);
    }
  }
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: joined, options, allowPositionals: true, strict: true });
  } catch (ex) {
    throw new CliError(unknownOption(ex, options, usage) ?? badValue(ex, joined, options, usage) ?? `${(ex as Error).message}\n\n${usage}`, 2);
  }
  // An empty path (`--db "$UNSET"`) is refused: read as "not given", it would use the default database instead.
  for (const flag of ['db', 'workspace', 'content']) {
    if ((parsed.values as Record<string, unknown>)[flag] === '') {
      throw new CliError(`--${flag} needs a path (got an empty one); leave --${flag} out for the default\n\n${usage}`, 2);
    }
  }
  // So is an empty name: `--by ''` was recorded as the decider, `--step ''` and `--tools ''` read as not given.
  for (const flag of ['step', 'by', 'instance', 'tools']) {
    if ((parsed.values as Record<string, unknown>)[flag] !== '') continue;
    const placeholder = new RegExp(`^ {2}--${flag} (\\S+)`, 'm').exec(usage)?.[1] ?? 'VALUE';
    throw new CliError(`--${flag} needs a value (got an empty one): --${flag} ${placeholder}; or leave --${flag} out for the default\n\n${usage}`, 2);
  }
  // `${workspaceFolder}` left as written by a client that does not fill it in (Claude Code passes it on): --db made a
  // folder of that name and a database apart from the project's; --workspace said only "no such folder".
  for (const flag of ['db', 'workspace', 'content']) {
    const value = (parsed.values as Record<string, unknown>)[flag];
    const variable = typeof value === 'string' ? unfilledVariable(value) : null;
    if (variable) {
      throw new CliError(`--${flag} ${value}: ${variable} is a variable the program that started Baton did not fill in (VS Code's `
        + `mcp.json fills \${workspaceFolder}; most agent CLIs' configs do not): give the absolute path instead\n\n${usage}`, 2);
    }
  }
  const fromEnv = process.env.BATON_DB_PATH;
  const envVariable = 'db' in options && !(parsed.values as Record<string, unknown>).db && fromEnv ? unfilledVariable(fromEnv) : null;
  if (envVariable) {
    throw new CliError(`BATON_DB_PATH=${fromEnv}: ${envVariable} is a variable the program that started Baton did not fill in: give `
      + 'the absolute path instead', 2);
  }
  for (const flag of ['workspace', 'content']) {
    const value = (parsed.values as Record<string, unknown>)[flag];
    if (typeof value !== 'string') continue;
    const kind = folderKind(value);
    if (kind !== 'folder') throw new CliError(`--${flag} ${value}: ${kind === 'missing' ? 'no such folder' : 'not a folder'}; name an existing folder\n\n${usage}`, 2);
    // A folder that is not a content folder (the project's own, say) loads nothing, and every workflow goes missing.
    if (flag === 'content' && !CONTENT_FOLDERS.some((d) => folderKind(join(value, d)) === 'folder')) {
      process.stderr.write(`baton: warning: --content ${value} holds none of ${CONTENT_FOLDERS.map((d) => `${d}/`).join(', ')}: none of Baton's bundled agents, rules or workflows is loaded; leave --content out to load them\n`);
    }
  }
  return parsed;
}

/**
 * The words for an option the command does not take (parseArgs' own advice, to put it after `--`, fits no typo), with
 * the command's closest option when one is near; undefined for parseArgs' other errors.
 */
function unknownOption(ex: unknown, options: NonNullable<ParseArgsConfig['options']>, usage: string): string | undefined {
  if ((ex as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return undefined;
  const option = /Unknown option '([^']+)'/.exec((ex as Error).message)?.[1];
  if (option === undefined) return undefined;
  const command = commandOf(usage);
  // A command without --json says why in its usage ("No --json: ..."): a script learns what to read instead.
  const noJson = option === '--json' ? /^No --json: (.+?)\.?$/m.exec(usage)?.[1] : undefined;
  if (noJson !== undefined) return `${command} takes no --json: ${noJson} (see ${command} --help)`;
  // A one-letter option is near every other one: only a long one gets a suggestion.
  const near = option.startsWith('--') ? didYouMean(option, Object.keys(options).map((name) => `--${name}`), (s) => s) : '';
  return `unknown option ${option} for ${command}${near}; see ${command} --help`;
}

/**
 * The words for an option given without its value, or a value it does not take (parseArgs says "argument missing",
 * "argument is ambiguous", "does not take an argument"), naming how to write it; undefined for other errors.
 */
function badValue(ex: unknown, args: string[], options: NonNullable<ParseArgsConfig['options']>, usage: string): string | undefined {
  if ((ex as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return undefined;
  // parseArgs names the option as '--db', '--db <value>' or '-h, --help'.
  const name = /'(?:-\w, )?--([^\s']+)/.exec((ex as Error).message)?.[1];
  const option = name === undefined ? undefined : options[name];
  if (option === undefined) return undefined;
  const see = `see ${commandOf(usage)} --help`;
  if (option.type === 'boolean') return `--${name} takes no value: write --${name}; ${see}`;
  const placeholder = new RegExp(`^ {2}(?:-\\w, )?--${name} (\\S+)`, 'm').exec(usage)?.[1] ?? 'VALUE';
  const next = args[args.indexOf(`--${name}`) + 1];
  // parseArgs refuses a value that starts with '-' (`--db --all`: a forgotten value, or one that needs the '=' form).
  let after = '';
  const known = (word: string) =>
    word.startsWith('--') ? word.slice(2).split('=')[0]! in options : Object.values(options).some((o) => `-${o.short}` === word);
  if (next !== undefined && known(next)) after = ` (${next} is an option, not its value)`;
  else if (next?.startsWith('-')) after = ` (a value that starts with "-" is written --${name}=${next})`;
  return `--${name} needs a value: --${name} ${placeholder}${after}; ${see}`;
}

/** `baton status`: the command a usage text is about. */
function commandOf(usage: string): string {
  return `baton ${/^Usage: baton (\S+)/.exec(usage)?.[1] ?? '<command>'}`;
}

/** The folders of a content folder (`content/` shipped with Baton, or one laid out like it). */
const CONTENT_FOLDERS = ['agents', 'rules', 'workflows', 'contracts', 'blueprints', 'spec-templates', 'teams'];

/** The `${NAME}` in `path` when the path up to it does not exist (a folder really named so is taken), else null. */
function unfilledVariable(path: string): string | null {
  const m = /\$\{[^}]*\}/.exec(path);
  if (!m) return null;
  const end = path.slice(m.index + m[0].length).search(/[\\/]/);
  return existsSync(end === -1 ? path : path.slice(0, m.index + m[0].length + end)) ? null : m[0];
}

/** Whether `path` is a folder, something else, or nothing. */
function folderKind(path: string): 'folder' | 'other' | 'missing' {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'other';
  } catch {
    return 'missing';
  }
}

/** A usage error for a command that takes no positional arguments but got some. */
export function refuseArguments(command: string, positionals: string[], usage: string): void {
  if (positionals.length > 0) throw new CliError(`${command} takes no arguments (got "${positionals.join(' ')}")\n\n${usage}`, 2);
}

/**
 * The usage error of a command that takes one EXECUTION and got none or several: what an EXECUTION is and where to
 * find one (`db`: dbFlagFor's), and the words it got.
 */
export function oneExecution(command: string, positionals: string[], db: string, usage: string): CliError {
  const got = positionals.length > 1 ? `; got "${positionals.join(' ')}"` : '';
  return new CliError(`${command} needs exactly one EXECUTION (an execution or task id; baton status${db} lists them)${got}\n\n${usage}`, 2);
}

/**
 * A FILE argument read as a shell reads a path: relative to the current folder, whatever --workspace says. One that is
 * not there while the same path under --workspace is, is refused naming both and the path to type, not taken: a
 * fallback would let the same words name another file once the first appears.
 */
export function fileArgument(given: string, workspace: string | undefined): string {
  const path = resolve(given);
  if (workspace === undefined || existsSync(path)) return path;
  const there = resolve(workspace, given);
  if (there === path || !existsSync(there)) return path;
  // not_found, as the commands' own missing-file refusals, for a script reading --json's reason.
  throw new BatonError('not_found',
    `no file ${path} (${given} is read from the current folder, as the shell reads a path), but there is ${there} under ` +
      `--workspace: write ${shellQuote(relative(process.cwd(), there))}`, { path, workspace_path: there });
}

/** The database path the flags and environment name (absolute): with none, that of the project (workspaceOf). */
export function dbPathOf(values: { db?: string; workspace?: string }): string {
  return resolveDbPath({ db: values.db, workspace: values.workspace });
}

/**
 * The project folder a command works in (its `.baton/` content, where its agents run): --workspace; else, when neither
 * --db nor BATON_DB_PATH names the database, the current folder or the nearest one above it holding a `.baton`
 * (projectFolder, whose `.baton/baton.db` is then the database); else the current folder.
 */
export function workspaceOf(values: { db?: string; workspace?: string }): string {
  if (values.workspace !== undefined) return resolve(values.workspace);
  return values.db || process.env.BATON_DB_PATH ? process.cwd() : projectFolder();
}

/** Where a database path came from, in words, for messages. */
function originOf(values: { db?: string; workspace?: string }): string {
  if (values.db) return 'given by --db';
  if (process.env.BATON_DB_PATH) return 'from BATON_DB_PATH';
  if (values.workspace) return 'the default under --workspace';
  const project = projectFolder();
  return project === process.cwd() ? 'the default for the current folder' : `the default of the project ${project}, the nearest folder up from here with a .baton`;
}

/** `' --db PATH'` for a command a person copies, or '' when the same command without it finds this database here. */
export function dbFlagFor(dbPath: string): string {
  const found = join(projectFolder(), '.baton', 'baton.db');
  return dbPath === found && resolveDbPath({}) === found ? '' : ` --db ${shellQuote(dbPath)}`;
}

/** Commands that read the workspace itself (its files, .baton/ content, where agents run), not only a database. */
const WORKSPACE_COMMAND = /^baton (?:mcp|serve|spec start|start|run|new|pipeline (?:run|list)|blueprint)\b/;

/**
 * The flags a pasted `command` needs to reach what this command used: dbFlagFor's --db; for a command that reads the
 * workspace, when --workspace named another folder than the current one, that --workspace (then --db only when the
 * database is not that workspace's default), since a FILE is read from the current folder and --db alone leaves the
 * workspace there. blueprint opens no database.
 */
export function flagsFor(command: string, dbPath: string, workspace: string | undefined): string {
  const blueprint = /^baton blueprint\b/.test(command);
  const folder = workspace === undefined ? undefined : resolve(workspace);
  const dbFlag = blueprint ? '' : dbFlagFor(dbPath);
  // Pasted here, a command without --workspace works where workspaceOf says: with no --db, in the project found.
  const implied = workspaceOf({ db: dbFlag ? dbPath : undefined });
  if (folder === undefined || folder === implied || !WORKSPACE_COMMAND.test(command)) return dbFlag;
  const db = blueprint || resolveDbPath({ workspace: folder }) === dbPath ? '' : ` --db ${shellQuote(dbPath)}`;
  return ` --workspace ${shellQuote(folder)}${db}`;
}

/**
 * `text` with flagsFor's flags after each backticked `baton COMMAND ...` that names no database or workspace itself:
 * the core, or an owner elsewhere, words its refusals without knowing which --db and --workspace the command had.
 */
export function withDbFlag(text: string, dbPath: string, workspace?: string): string {
  return text.replace(/`(baton [^`]*)`/g, (whole, command: string) =>
    (/ --(db|workspace)\b/.test(command) ? whole : `\`${command}${flagsFor(command, dbPath, workspace)}\``));
}

/** The database a command's arguments name (--db, --workspace), as dbPathOf; other flags and words are passed over. */
export function dbPathIn(args: string[]): string {
  const { db, workspace } = dbFlagsIn(args);
  return dbPathOf({ db, workspace });
}

/** The --workspace a command's arguments name, if any (as dbPathIn reads them). */
export function workspaceIn(args: string[]): string | undefined {
  return dbFlagsIn(args).workspace;
}

function dbFlagsIn(args: string[]): { db?: string; workspace?: string } {
  const { values } = parseArgs({ args, options: { db: { type: 'string' }, workspace: { type: 'string' } }, strict: false, allowPositionals: true });
  const given = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  return { db: given(values.db), workspace: given(values.workspace) };
}

/** A word as a POSIX shell reads it back: unchanged when plain, else single-quoted. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The message when a command that never creates a database finds none (exit 1). The way to start one names this
 * command's --db and --workspace (flagsFor), so it makes the database this command looked for; the editor makes only
 * a workspace's default one.
 */
export function missingDatabase(dbPath: string, values: { db?: string; workspace?: string }, consequence: string): CliError {
  const folder = dirname(dbPath);
  const flags = flagsFor('baton serve', dbPath, values.workspace);
  const editorMakesIt = dbPath === join(workspaceOf(values), '.baton', 'baton.db');
  const start = flags
    ? `To start it, run "baton mcp${flags}" or "baton serve${flags}"${editorMakesIt ? ', or open that workspace in the editor with Baton installed' : ''}.\n`
    : 'To start one, run "baton mcp" or "baton serve" in the workspace folder, or open that folder in the editor with Baton installed.\n';
  return new CliError(
    `no Baton database at ${dbPath} (${originOf(values)}; ${existsSync(folder) ? 'the folder exists, the file does not' : `the folder ${folder} does not exist either`}). ${capital(consequence)}\n` +
      start +
      'If Baton already runs elsewhere, name its database with --db PATH or BATON_DB_PATH.',
    1,
    { db_path: dbPath },
  );
}

/** Stderr log; BATON_LOG_LEVEL picks the level. */
export function cliLog(defaultLevel: 'debug' | 'info' | 'warn' | 'error' = 'info'): Log {
  const raw = process.env.BATON_LOG_LEVEL;
  const level = raw?.trim().toLowerCase();
  const known = level === 'debug' || level === 'info' || level === 'warn' || level === 'error';
  const log = stderrLog(known ? level : defaultLevel);
  if (raw && !known && !warnedLevel) {
    warnedLevel = true;
    log.warn(`BATON_LOG_LEVEL="${raw}" is not a level; using ${defaultLevel} (levels: debug, info, warn, error)`);
  }
  return log;
}

/** Whether the bad BATON_LOG_LEVEL was reported already (a command may make several logs). */
let warnedLevel = false;

/** What `openOrFindOwner` found. */
export type Ownership<T> = { opened: T } | { owner: DiscoveryInfo } | { lockedBy: number };

/**
 * The longest a command waits for the process that holds a database's lock to publish its endpoint, or to let go of
 * the lock, while that process runs: an owner takes the lock first and publishes its endpoint once the database is
 * open (1.3 to 2.1 s for a 50 MB one here, longer for a larger one), a one-shot command (baton prune --compact) lets
 * go once done, and one that is stopping removes its endpoint before it releases the lock. One that is stopped
 * (Ctrl-Z, a debugger) does none of these: it is not waited for at all.
 */
export const OWNER_START_MS = 60_000;

/** How long a command waits for an endpoint the lock holder published to answer (it answers at once, or is hung). */
export const OWNER_ANSWER_MS = 5000;

/** After how long a command that waits says on stderr what it waits for. */
const WAIT_NOTICE_MS = 1000;

/** How `openOrFindOwner` waits. */
export interface OwnerWait {
  /** What must also hold of the endpoint found (that it answers, say). */
  ready?: (owner: DiscoveryInfo) => Promise<boolean>;
  /** Where to say what it waits for (default: an info line on stderr). */
  log?: Log;
  /** The longest wait for a lock holder that runs and publishes no endpoint (default OWNER_START_MS). */
  startMs?: number;
  /** The system the holder's state and command line are read on, and its ps (tests force darwin's way on Linux). */
  platform?: NodeJS.Platform;
  ps?: PsRunner;
}

/**
 * Opens the database, or finds the live owner's endpoint. While the process that holds the lock runs, it retries: an
 * owner that is starting has not published its endpoint yet (up to `startMs`), one that published it may not answer
 * yet (up to OWNER_ANSWER_MS), and one that is exiting has removed it but not yet released the lock; one that is gone
 * leaves a lock the next try takes. Only the endpoint of the lock holder counts, and `ready` must hold of it. After
 * about a second it says what it waits for; a holder that is stopped (Ctrl-Z, a debugger) ends the wait at once.
 */
export async function openOrFindOwner<T>(dbPath: string, open: () => Promise<T>, wait: OwnerWait = {}): Promise<Ownership<T>> {
  const { ready, startMs = OWNER_START_MS, platform, ps } = wait;
  const began = Date.now();
  let silentSince: number | null = null;
  let told = false;
  // Read from ps (macOS, the BSDs), the holder's state costs a spawn: asked at the first try, then once a second
  // rather than at every try (10 a second).
  const stateEveryMs = stateFromPs(platform) ? 1000 : 0;
  let stateAt = -Infinity;
  for (;;) {
    try {
      return { opened: await open() };
    } catch (ex) {
      const ownerPid = lockedBy(ex);
      if (ownerPid === null) throw ex;
      // Only the endpoint of the process that holds the lock: a discovery file another process left, or one that
      // is starting, must not take this database's calls.
      const owner = readDiscovery(dbPath);
      const published = owner !== null && owner.pid === ownerPid;
      if (published && (!ready || (await ready(owner)))) return { owner };
      const now = Date.now();
      // Stopped, it neither publishes nor lets go until a person resumes it: the caller says so now.
      if (now - stateAt >= stateEveryMs) {
        stateAt = now;
        if (halted(ownerState(ownerPid, undefined, platform, ps))) return { lockedBy: ownerPid };
      }
      if (published) silentSince ??= now;
      if (published ? now - silentSince! >= OWNER_ANSWER_MS : now - began >= startMs) return { lockedBy: ownerPid };
      if (!told && now - began >= WAIT_NOTICE_MS) {
        told = true;
        const command = ownerCommand(ownerPid, undefined, platform, ps);
        (wait.log ?? cliLog()).info(waitingText(dbPath, ownerPid, command, published ? owner.url : null, published ? OWNER_ANSWER_MS : startMs));
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What a command waiting for the lock holder `pid` says: which process (its `command` line), for what, how long. */
function waitingText(dbPath: string, pid: number, command: string, url: string | null, ms: number): string {
  const who = `Baton process ${pid}${command ? ` (${command})` : ''}`;
  const what = url
    ? `is owned by ${who}, whose endpoint ${url} does not answer yet; waiting up to ${ms / 1000} s for it to answer`
    : `is held by ${who}, which publishes no endpoint yet; waiting up to ${ms / 1000} s while it runs, for it to serve or to let go of it`;
  return `database ${dbPath} ${what} (Ctrl-C stops waiting)`;
}

/**
 * The message when another process owns the database but cannot be reached. `state`: what the system says of it (a
 * test passes its own).
 */
export function unreachableOwner(dbPath: string, ownerPid: number, url: string | null, state: OwnerState = ownerState(ownerPid)): CliError {
  const owned = `database ${dbPath} is owned by Baton process ${ownerPid}`;
  const details = { db_path: dbPath, owner_pid: ownerPid, owner_url: url };
  const { why, resume, kill } = silentOwnerWays(ownerPid, state);
  const end = `end it (${kill}, or restart the editor if it is the editor's), then run this command again; or use --db elsewhere.`;
  const ways = resume ? `${capital(resume)}, or ${end}` : capital(end);
  if (url) {
    // It published an endpoint and lives on without answering (it would have exited, or answered, by now): stopped
    // (Ctrl-Z, SIGSTOP, a debugger), which resuming ends, or hung, which a plain kill does not end.
    return new CliError(`${owned} but its endpoint ${url} does not answer, and it lives on, ${why}. ${ways} ${notBatonHint(dbPath, ownerPid)}`, 1, details);
  }
  const publishes = `it publishes no endpoint (no ${basename(discoveryPath(dbPath))} beside the database)`;
  // One stopped before it published its endpoint is resumed first too; any other may be starting still, or not Baton.
  if (halted(state)) return new CliError(`${owned} but ${publishes} and is ${why}. ${ways} ${notBatonHint(dbPath, ownerPid)}`, 1, details);
  return new CliError(`${owned} but ${publishes}; stop that process or use --db elsewhere. ${notBatonHint(dbPath, ownerPid)}`, 1, details);
}

/** What to do when the pid a lock names is not Baton's at all (it was reused), which Baton cannot always tell. */
export function notBatonHint(dbPath: string, ownerPid: unknown): string {
  return `If process ${String(ownerPid)} is not Baton (its pid was reused after a restart), delete ${lockPathOf(dbPath)} and start again.`;
}

/** The owner pid a store_locked error names. */
export function lockedBy(ex: unknown): number | null {
  // A store_locked error without an owner (a takeover that could not finish) says itself what to do.
  return BatonError.is(ex, 'store_locked') && typeof ex.details.ownerPid === 'number' ? ex.details.ownerPid : null;
}

/**
 * Exits with `code` once what the command wrote to stdout and stderr has gone out. A pipe takes 64 KiB at a time and
 * Node writes the rest as the reader makes room: `process.exit` at once cut `baton status --all --json | jq` there.
 */
export function exitWhenWritten(code: number, streams: NodeJS.WritableStream[] = [process.stdout, process.stderr]): void {
  let waiting = streams.length;
  const done = () => {
    if (--waiting === 0) process.exit(code);
  };
  // A stream whose reader went away (EPIPE) calls back with its error: nothing more will go out, so done too.
  for (const stream of streams) stream.write('', done);
}
