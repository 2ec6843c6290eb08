// The `baton` command line: dispatches to one file per subcommand. stdout belongs to JSON-RPC in `baton mcp`.
// Only what `baton mcp` needs before answering its client is loaded here; the rest is in the engine (engine.ts).
import { BatonError } from '../core/errors.js';
import { CliError, VERSION } from './common.js';
import { mcpCommand } from './mcpCommand.js';

/** Loads the engine: dist/engine.js beside the bundle (src/cli/engine.ts when run from source). */
const loadEngine = () => import('./engine.js');

const USAGE = `Usage: baton <command> [options]

Commands:
  mcp       serve MCP on stdio (owner of the database, or proxy to its owner)
  serve     own the database and serve MCP over 127.0.0.1 HTTP only
  status    list executions and their steps
  approve   approve a step awaiting approval
  reject    reject a step awaiting approval, with feedback

Options: --help, --version. Run "baton <command> --help" for a command's options.`;

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
  try {
    switch (command) {
      case '--version':
      case '-v':
        process.stdout.write(`${VERSION}\n`);
        return 0;
      case '--help':
      case '-h':
      case 'help':
        process.stdout.write(`${USAGE}\n`);
        return 0;
      case 'mcp':
        guardStdout();
        await mcpCommand(rest);
        return -1;
      case 'serve':
        await (await loadEngine()).serveCommand(rest);
        return -1;
      case 'status':
        await (await loadEngine()).statusCommand(rest);
        return 0;
      case 'approve':
      case 'reject':
        await (await loadEngine()).decideCommand(command, rest);
        return 0;
      default:
        process.stderr.write(`${command === undefined ? 'missing command' : `unknown command "${command}"`}\n\n${USAGE}\n`);
        return 2;
    }
  } catch (ex) {
    if (ex instanceof CliError) {
      process.stderr.write(`baton: ${ex.message}\n`);
      return ex.exitCode;
    }
    if (BatonError.is(ex)) {
      process.stderr.write(`baton: ${ex.message}\n`);
      return 1;
    }
    process.stderr.write(`baton: internal error: ${(ex as Error).stack ?? String(ex)}\n`);
    return 1;
  }
}

void main(process.argv.slice(2)).then((code) => {
  // -1: a server is running; it exits from its own shutdown handler.
  if (code >= 0) process.exit(code);
});
