// The `baton` command line: dispatches to one file per subcommand. stdout belongs to JSON-RPC in `baton mcp`.
// Only what `baton mcp` needs before answering its client is loaded here; the rest is in the engine (engine.ts).
import { BatonError } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';
import { CliError, dbPathIn, exitWhenWritten, shellQuote, VERSION, withDbFlag, workspaceIn } from './common.js';
import { mcpCommand } from './mcpCommand.js';
import { nodeTooOld } from './nodeVersion.js';
import { systemErrorText } from './systemError.js';
import { baselineWasmAsked, baselineWasmOnly, optimizeOnOneThread } from './wasmTiers.js';
import {
  BLUEPRINT_USAGE, CANCEL_USAGE, DECIDE_USAGE, REJECT_USAGE, LIST_USAGE, MCP_USAGE, NEW_USAGE, PEEK_USAGE, PIPELINE_USAGE, PRUNE_USAGE, RELEASE_USAGE, RUN_USAGE, SEND_USAGE, SERVE_USAGE, SPEC_USAGE, START_USAGE,
  STATUS_USAGE, STOP_USAGE, USAGE,
} from './usage.js';

/**
 * Loads the engine: dist/engine.js beside the bundle (src/cli/engine.ts when run from source). On a Node too old for
 * it, the command is refused with the Node it needs rather than failing at its first write.
 */
const loadEngine = () => {
  const tooOld = nodeTooOld();
  return tooOld ? Promise.reject(new CliError(tooOld, 1)) : import('./engine.js');
};

/** The commands that answer and exit, which run sql.js on V8's baseline compiler alone (see baselineWasmOnly). */
const ANSWER_AND_EXIT = new Set(['status', 'approve', 'reject', 'cancel', 'release', 'prune', 'blueprint', 'spec', 'stop', 'list', 'ls', 'send', 'peek']);

const COMMAND_USAGE: Record<string, string> = { mcp: MCP_USAGE, serve: SERVE_USAGE, status: STATUS_USAGE, approve: DECIDE_USAGE, reject: REJECT_USAGE, cancel: CANCEL_USAGE,
  release: RELEASE_USAGE,
  prune: PRUNE_USAGE,
  pipeline: PIPELINE_USAGE, blueprint: BLUEPRINT_USAGE, spec: SPEC_USAGE,
  run: RUN_USAGE, start: START_USAGE, stop: STOP_USAGE, list: LIST_USAGE, ls: LIST_USAGE, send: SEND_USAGE, peek: PEEK_USAGE, new: NEW_USAGE,
};

/** A usage error naming what is wrong, with the general usage after it. */
function usageError(message: string): CliError {
  return new CliError(`${message}\n\n${USAGE}`, 2);
}

/** `baton help [COMMAND]`: the general or a command's usage, on stdout. */
function help(topic: string[]): number {
  if (topic.length > 1) {
    // `baton help status --json`: the help of the command named is what there is (help is text only).
    const named = topic.find((word) => Object.hasOwn(COMMAND_USAGE, word));
    if (named) throw new CliError(`help takes one command and no options (got "${topic.join(' ')}"): baton help ${named}`, 2);
    throw usageError(`help takes at most one command (got "${topic.join(' ')}")`);
  }
  const text = topic[0] === undefined || topic[0] === 'help' || topic[0] === '--help' || topic[0] === '-h' ? USAGE : COMMAND_USAGE[topic[0]];
  if (text === undefined) throw unknownCommand(topic[0]!, [], 'no help for unknown command');
  process.stdout.write(`${text}\n`);
  return 0;
}

/**
 * Whether a command's `args` ask for its help (`-h` or `--help` before any `--`): main() prints it without loading the
 * engine, in half the time. A line that also holds a mistake gets the help (exit 0) rather than the mistake's usage
 * error, as with git.
 */
function asksHelp(args: string[]): boolean {
  const own = ownArgs(args);
  return own.includes('--help') || own.includes('-h');
}

/** A command's `args` up to a `--`: what follows it belongs to the program `baton new` runs, not to the command. */
function ownArgs(args: string[]): string[] {
  return args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
}

/** baton's own options, which come before any command (`-h`, `-v` are their short forms). */
const OWN_OPTIONS = ['--help', '--version'];

/**
 * The usage error for a first word that names no command: a close command's name (then the usage would only bury the
 * answer), or, for an option, where it goes: after the command that takes it.
 */
function unknownCommand(word: string, rest: string[], what = 'unknown command'): CliError {
  if (!word.startsWith('-')) {
    // `baton version`, as many tools spell it: the version is an option here.
    if (word === 'version' && rest.length === 0) return new CliError(`${what} "version": for Baton's version, baton --version`, 2);
    const near = didYouMean(word, [...Object.keys(COMMAND_USAGE), 'help'], (s) => s);
    return near ? new CliError(`${what} "${word}"${near}; see baton --help`, 2) : usageError(`${what} "${word}"`);
  }
  const option = word.split('=')[0]!;
  if (OWN_OPTIONS.includes(option)) return new CliError(`${option} takes no value: write ${option}`, 2);
  const near = option.startsWith('--') ? didYouMean(option, OWN_OPTIONS, (s) => s) : '';
  const takers = Object.keys(COMMAND_USAGE).filter((c) => c !== 'ls' && optionsIn(COMMAND_USAGE[c]!).includes(option));
  const at = rest.findIndex((w) => takers.includes(w));
  let where = `baton itself takes only -h, --help and -v, --version; a command's options come after the command (see baton --help)`;
  if (at >= 0) where = `options come after the command: baton ${[rest[at]!, word, ...rest.filter((_, i) => i !== at)].map(shellQuote).join(' ')}`;
  else if (takers.length > 3) where = `options come after the command (e.g. baton ${takers[0]} ${option}; see baton --help)`;
  else if (takers.length > 0) {
    const of = takers.map((c) => `baton ${c}`).join(', ').replace(/, (?=[^,]*$)/, ' and ');
    where = `it is an option of ${of}: write it after the command (see baton ${takers[0]} --help)`;
  }
  return new CliError(`unknown option ${option}${near}; ${where}`, 2);
}

/** The long options a command's usage describes (its option lines). */
function optionsIn(usage: string): string[] {
  return [...usage.matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!);
}

/**
 * Whether a failure of `command` given --json is JSON: not for a command that has no --json (its usage describes
 * none). A word that is no command may be a typo of one that has (`baton stauts --json`), and `baton help status
 * --json` names one: theirs is.
 */
function takesJson(command: string | undefined): boolean {
  return command === undefined || !Object.hasOwn(COMMAND_USAGE, command) || optionsIn(COMMAND_USAGE[command]!).includes('--json');
}

/** Stray console output must never reach stdout, where an MCP client reads JSON-RPC. */
function guardStdout(): void {
  const toStderr = (...args: unknown[]) => process.stderr.write(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ') + '\n');
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

/** Runs one command line; returns the exit code (or never returns while a server runs). */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const warnTiers = (line: string) => process.stderr.write(`baton: warning: ${line}\n`);
  if (baselineWasmAsked(process.env, warnTiers) || (command !== undefined && ANSWER_AND_EXIT.has(command))) baselineWasmOnly();
  else optimizeOnOneThread();
  try {
    if (command !== undefined && Object.hasOwn(COMMAND_USAGE, command) && asksHelp(rest)) return help([command]);
    switch (command) {
      case '--version':
      case '-v':
        process.stdout.write(`${VERSION}\n`);
        return 0;
      case '--help':
      case '-h':
      case 'help':
        return help(rest);
      case 'mcp':
        guardStdout();
        return await mcpCommand(rest, (ex) => failure(ex, rest));
      case 'serve':
        return await (await loadEngine()).serveCommand(rest);
      case 'status':
        return await (await loadEngine()).statusCommand(rest);
      case 'spec':
        return await (await loadEngine()).specCommand(rest);
      case 'approve':
      case 'reject':
        return await (await loadEngine()).decideCommand(command, rest);
      case 'cancel':
        return await (await loadEngine()).cancelCommand(rest);
      case 'release':
        return await (await loadEngine()).releaseCommand(rest);
      case 'prune':
        return await (await loadEngine()).pruneCommand(rest);
      case 'pipeline':
        return await (await loadEngine()).pipelineCommand(rest);
      case 'blueprint':
        return await (await loadEngine()).blueprintCommand(rest);
      case 'run':
        return await (await loadEngine()).runCommand(rest);
      case 'start':
        return await (await loadEngine()).startCommand(rest);
      case 'stop':
        return await (await loadEngine()).stopCommand(rest);
      case 'list':
      case 'ls':
        return await (await loadEngine()).listCommand(rest);
      case 'send':
        return await (await loadEngine()).sendCommand(rest);
      case 'peek':
        return await (await loadEngine()).peekCommand(rest);
      case 'new':
        return await (await loadEngine()).newCommand(rest);
      case undefined:
        throw usageError('missing command');
      default:
        throw unknownCommand(command, rest);
    }
  } catch (ex) {
    const said = failure(ex, command !== undefined && Object.hasOwn(COMMAND_USAGE, command) ? rest : null);
    process.stderr.write(`baton: ${said.message}\n`);
    // A script that asked for JSON gets its failure as JSON too (stdout), besides the words on stderr. A --json after
    // `--` is an argument of the program `baton new` runs, not this command's flag. A command that has no --json
    // refuses it on stderr alone: mcp's stdout is its client's JSON-RPC channel, and the others' is their text.
    if (ownArgs(rest).includes('--json') && takesJson(command)) process.stdout.write(`${JSON.stringify(failureJson(said))}\n`);
    return said.code;
  }
}

/** What a command's failure says. */
interface Failure {
  code: number;
  reason: string;
  message: string;
  /** What the words say, for a script (a BatonError's details: a path, a pid). */
  details?: Record<string, unknown>;
  /** The message without the stack, for JSON. */
  short?: string;
}

/**
 * A failure as --json prints it: the shape the owner's control endpoint answers with, {error: {reason, message,
 * details?}}, and the exit code, which a script reading a pipe's output does not see. The message is its first
 * paragraph (the usage after it is for a person).
 */
function failureJson(f: Failure): { error: { reason: string; message: string; exit_code: number; details?: Record<string, unknown> } } {
  const message = (f.short ?? f.message).split('\n\n')[0]!;
  return { error: { reason: f.reason, message, exit_code: f.code, ...(f.details ? { details: f.details } : {}) } };
}

/** A BatonError's details as plain JSON, if it has any that are. */
function detailsOf(ex: BatonError): Record<string, unknown> | undefined {
  if (Object.keys(ex.details).length === 0) return undefined;
  try {
    return JSON.parse(JSON.stringify(ex.details)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * A command's failure: its exit code, a reason a script can test, and the words for a person. A domain refusal's
 * `baton ...` commands name the database and workspace of the command's `args` (null: no command), so they work
 * pasted.
 */
function failure(ex: unknown, args: string[] | null): Failure {
  if (ex instanceof CliError) return { code: ex.exitCode, reason: ex.exitCode === 2 ? 'usage' : 'failed', message: ex.message, details: ex.details };
  if (BatonError.is(ex)) {
    const message = args ? withDbFlag(ex.message, dbPathIn(args), workspaceIn(args)) : ex.message;
    return { code: 1, reason: ex.reason, message, details: detailsOf(ex) };
  }
  const plain = systemErrorText(ex);
  if (plain) return { code: 1, reason: String((ex as NodeJS.ErrnoException).code), message: plain };
  // A bug: its stack goes to stderr, for a report; JSON gets the message alone.
  return { code: 1, reason: 'internal', message: `internal error: ${(ex as Error).stack ?? String(ex)}`, short: `internal error: ${(ex as Error).message ?? String(ex)}` };
}

// Whoever reads stderr may go away (`baton serve 2>&1 | head -1`): its logs are then lost, not the process.
process.stderr.on('error', () => undefined);

void main(process.argv.slice(2)).then((code) => {
  // -1: a server is running; it exits from its own shutdown handler.
  if (code >= 0) exitWhenWritten(code);
});
