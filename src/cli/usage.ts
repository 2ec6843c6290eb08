// Every command's --help text, apart from the commands themselves: dist/cli.js prints them without loading the engine.
import { CONTENT_USAGE, DB_USAGE, USAGE_FOOTER } from './common.js';
import { ENGINE_USAGE } from './engineOptions.js';

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


/** Usage of `baton serve`. */
export const SERVE_USAGE = `Usage: baton serve [--db PATH] [--workspace DIR] [--content DIR] [--port N] [--tools GROUPS]
                   [--rate-limits SPEC] [--token-ttl MINUTES] [--stall-minutes N]

Owns the database (creating it if needed) and serves MCP over Streamable HTTP on 127.0.0.1 (bearer token in
server.json beside the database, mode 0600). Runs until SIGINT/SIGTERM.

Options:
${DB_USAGE}
${CONTENT_USAGE}
  --port N                the port (default: a random free one)
${ENGINE_USAGE}
${USAGE_FOOTER}`;

/** Usage of `baton status`. */
export const STATUS_USAGE = `Usage: baton status [--all] [--json] [--db PATH] [--workspace DIR]

Lists executions (only unfinished ones unless --all; at most 50, newest first), with their steps. Asks the
process that owns the database when one runs; otherwise reads the file and writes nothing. With no database
there is nothing to list: status says where it looked and exits 1; it never creates one.

Options:
  --all                   also list finished (completed and failed) executions
  --json                  print {"executions": [...]} instead of text
${DB_USAGE}
${USAGE_FOOTER}`;

/** Usage of `baton approve` and `baton reject`. */
export const DECIDE_USAGE = `Usage: baton approve EXECUTION [--step NAME] [--by NAME] [--json] [--db PATH] [--workspace DIR] [--content DIR]
       baton reject EXECUTION --feedback TEXT [--step NAME] [--by NAME] [--json] [--db PATH] [--workspace DIR]
                    [--content DIR]

Decides a step awaiting approval. EXECUTION is an execution id or a task id (see baton status). The decision
goes through the process that owns the database when one runs (an agent waiting on the gate goes on at once);
otherwise it is written to the database directly. With no database there is nothing to decide: the command says
where it looked and exits 1; it never creates one.

Options:
  --step NAME             the step to decide (default: the one step awaiting approval)
  --feedback TEXT         reject only, required: what the agent must change; it redoes the step with these words
  --by NAME               who decides, recorded with the decision (default: cli:$USER)
  --json                  print the result as JSON
${DB_USAGE}
  --content DIR           the bundled content, loaded when no process owns the database and this command opens it
                          (default: the content/ folder shipped with Baton)
${USAGE_FOOTER}`;
