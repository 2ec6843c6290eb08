// Every command's --help text, apart from the commands themselves: dist/cli.js prints them without loading the engine.
import { CONTENT_USAGE, DB_USAGE, USAGE_FOOTER } from './common.js';
import { ENGINE_USAGE } from './engineOptions.js';
import { RUNNER_KINDS } from '../core/pipelines/runner.js';

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

/** Usage of `baton pipeline`. */
export const PIPELINE_USAGE = `Usage: baton pipeline list [--json] [--db PATH] [--workspace DIR]
       baton pipeline run NAME|FILE --input TEXT [--var KEY=VALUE]... [--budget-tokens N] [--budget-usd X] [--json]
                          [--db PATH] [--workspace DIR] [--content DIR]
       baton pipeline resume RUN [--budget-tokens N] [--budget-usd X] [--json] [--db PATH] [--workspace DIR]

Runs a pipeline: a system of agents (claude, codex, gemini, opencode, cursor-agent, vscode-lm or any command) and
the workflow they follow, from .baton/pipelines/NAME.yaml or FILE (make one with baton blueprint new). The run is an
execution like any other (baton status, workflow-status://RUN); each step is written to the database before the next
starts, so a run whose process died resumes where it was with baton pipeline resume RUN, and no finished step runs
again. A human_review step waits for baton approve|reject RUN. A run past its budget pauses (budget_exceeded);
resume it with a higher budget. On a terminal the progress is drawn live; otherwise (or with --json) each event is a
JSON line on stdout. Ctrl-C stops the run (it fails as aborted). When another process owns the database (the editor,
baton serve), the run happens there and this command follows it.

Options:
  --input TEXT            the run's input, {{system.input}} in templates (required for run)
  --var KEY=VALUE         a variable, {{KEY}} in templates (repeatable; overrides the system's variables)
  --budget-tokens N       pause the run (budget_exceeded) before it uses more than N tokens
  --budget-usd X          pause the run before it spends more than X US dollars
  --json                  JSON lines on stdout even on a terminal
${DB_USAGE}
${CONTENT_USAGE}
${USAGE_FOOTER.replace('2 usage error.', '2 usage error; 3 the run paused (budget) and can be resumed.')}`;

/** Usage of `baton blueprint`. */
export const BLUEPRINT_USAGE = `Usage: baton blueprint list [--json] [--workspace DIR] [--content DIR]
       baton blueprint new NAME --from BLUEPRINT [--input KEY=VALUE]... [--runner KIND] [--command ARG]... [--force]
                           [--workspace DIR] [--content DIR]

Makes a pipeline system from a blueprint: writes .baton/pipelines/NAME.yaml under --workspace, with the blueprint's
required inputs as the system's variables; then run it with baton pipeline run NAME --input TEXT.

Options:
  --from BLUEPRINT        the blueprint's id (see baton blueprint list)
  --input KEY=VALUE       a required input of the blueprint (repeatable); missing ones are named
  --runner KIND           run every agent with ${RUNNER_KINDS.join(', ')}
                          (default: each template's runner, else the one its first suggested model implies)
  --command ARG           with --runner command: the program and its arguments, one --command per argument
  --force                 replace an existing .baton/pipelines/NAME.yaml
  --json                  list as JSON
  --workspace DIR         the project folder (default: the current folder)
  --content DIR           the bundled content (default: the content/ folder shipped with Baton)
${USAGE_FOOTER}`;

/** Usage of `baton spec`. */
export const SPEC_USAGE = `Usage: baton spec start FILE [--description TEXT] [--json] [--db PATH] [--workspace DIR] [--content DIR]
       baton spec status [ID] [--json] [--db PATH] [--workspace DIR]

Spec workflows: a spec's tasks.md run as gated phases (Phase 0 reads the spec; then one phase per phase of the file).

  start FILE    starts spec_execution_v1 on FILE (a tasks.md inside the workspace; relative to the current folder).
                The file is read, parsed and snapshotted now; agents take Phase 0 with workflow_next_step({}) or the
                specs tools. Creates the database if there is none.
  status [ID]   the phases and tasks of a spec workflow (default: the latest) with their states, the evidence handed
                in, whether tasks.md drifted from its snapshot, and the boxes written back. Reads only.

Options:
  --description TEXT      start only: what the workflow is for (default: "Carry out the spec FILE phase by phase")
  --json                  print the result as JSON
${DB_USAGE}
${CONTENT_USAGE}
${USAGE_FOOTER}`;
