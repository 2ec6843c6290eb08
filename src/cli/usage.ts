// Every command's --help text, apart from the commands themselves: dist/cli.js prints them without loading the engine.
import { CONTENT_USAGE, DB_USAGE, NO_DB_USAGE_FOOTER, USAGE_FOOTER } from './common.js';
import { ENGINE_USAGE } from './engineOptions.js';
import { RUNNER_KINDS } from '../core/pipelines/runner.js';

/** The general usage: `baton --help`. Each line says what that command does and takes, as its own --help does. */
export const USAGE = `Usage: baton <command> [options]

Commands:
  mcp        serve MCP on stdio (owner of the database, or proxy to its owner); creates the database if needed
  serve      own the database and serve MCP over 127.0.0.1 HTTP only; creates the database if needed
  status     list executions and their steps (reads only; never creates a database)
  approve    approve a step awaiting approval
  reject     reject a step awaiting approval, with feedback
  cancel     end an unfinished workflow, spec workflow or pipeline run (as the editor's Cancel Execution)
  release    take a running step from an agent that went away: the next agent that asks gets it
  prune      delete finished runs older than N days or past the newest N, cancel runs idle N days (--dry-run counts)
  pipeline   list, run, resume or cancel pipelines of agents (.baton/pipelines/*.yaml)
  blueprint  list blueprints, or make a pipeline from one (blueprint new NAME --from BLUEPRINT)
  spec       start a spec workflow on a tasks.md (spec start FILE), or show one (spec status [ID])
  run        run a team of agents (workflow YAML) until every agent is idle; prints the final document
  start      start a team of agents that keeps running until stopped (--background: detached)
  stop       stop agent@instance, @instance (a whole team), a standalone agent NAME, or --all
  list       list the agents of running teams (ls)
  send       post a message to a team's channel (--to agent@instance, @instance or a standalone agent's NAME)
  peek       show a team's channel, agents and document
  new        start a standalone agent, alone or in a running team's channel (--context @instance)

Options: -h, --help (this text, on stdout), -v, --version.
Run "baton <command> --help" or "baton help <command>" for a command's options.
A command's --json prints its result, or its failure, as JSON on stdout; mcp, serve, start and new have none: given
--json they refuse it on stderr (exit 2) and write nothing to stdout.

The database is --db, else $BATON_DB_PATH, else .baton/baton.db under --workspace (default: the project folder).
The project folder: the current one, or, when neither --db nor $BATON_DB_PATH is given, the nearest folder above
it holding a .baton (as git finds .git; the search ends at the top of a git repository, and below your home
folder, the temp folder and /).
Exit codes: 0 done; 1 failed (e.g. no database, its owner does not answer, no such execution); 2 usage error.`;

/** Usage of `baton mcp`. */
export const MCP_USAGE = `Usage: baton mcp [--db PATH] [--workspace DIR] [--content DIR] [--tools GROUPS] [--rate-limits SPEC]
                 [--token-ttl MINUTES] [--stall-minutes N] [--retention-days N] [--retention-runs N]
                 [--retention-idle-days N]

Serves MCP on stdio (stdout carries only JSON-RPC; logs go to stderr). The first process on a database
owns it (creating it if needed) and also serves 127.0.0.1 HTTP for others; later ones forward to the owner
(whose settings apply). If the owner exits while a forwarding process runs, that process takes over the
database and the session goes on.
No --json: stdout carries JSON-RPC only, so a refusal, as every log line, goes to stderr as text.
BATON_WASM_TIERS=baseline runs sql.js on V8's baseline compiler alone: less CPU for a short session (about 40% over
five calls), fewer calls/s under load (default: both tiers, the optimizing one on one background thread).

Options:
${DB_USAGE}
${CONTENT_USAGE}
${ENGINE_USAGE}
${USAGE_FOOTER}`;


/** Usage of `baton serve`. */
export const SERVE_USAGE = `Usage: baton serve [--db PATH] [--workspace DIR] [--content DIR] [--port N] [--tools GROUPS]
                   [--rate-limits SPEC] [--token-ttl MINUTES] [--stall-minutes N] [--retention-days N]
                   [--retention-runs N] [--retention-idle-days N]

Owns the database (creating it if needed) and serves MCP over Streamable HTTP on 127.0.0.1 (bearer token in
server.json beside the database, or NAME.server.json beside NAME.db; mode 0600). Runs until SIGINT, SIGTERM or SIGHUP.
No --json: it says where it serves on stderr as text; a script reads the endpoint, token and pid from server.json.
BATON_WASM_TIERS=baseline runs sql.js on V8's baseline compiler alone: less CPU at start, fewer calls/s under load.

Options:
${DB_USAGE}
${CONTENT_USAGE}
  --port N                the port (default: a random free one)
${ENGINE_USAGE}
${USAGE_FOOTER}`;

/** Usage of `baton status`. */
export const STATUS_USAGE = `Usage: baton status [--all] [--json] [--db PATH] [--workspace DIR]

Lists executions (only unfinished ones unless --all; at most 50, newest first, saying so when it leaves older
ones out), with their steps. Asks the process that owns the database when one runs; otherwise reads the file and
writes nothing. With no database there is nothing to list: status says where it looked and exits 1; it never
creates one.

Options:
  --all                   also list finished (completed, failed or cancelled) executions; a cancelled one says
                          who cancelled it and why, in short (--json: cancel_reason, in full)
  --json                  print {"executions": [...], "more": false} instead of text (more: older ones left out)
${DB_USAGE}
${USAGE_FOOTER}`;

/** Usage of `baton prune`. */
export const PRUNE_USAGE = `Usage: baton prune [--days N] [--keep N] [--idle-days N] [--dry-run] [--compact] [--json] [--db PATH]
                   [--workspace DIR]

Deletes finished (completed, failed or cancelled) runs finished more than N days ago, or past the newest N,
with their steps, artifacts, events, tokens, logs and run memory. Findings stay: they are the project's
knowledge. An unfinished run is never deleted: first, one with no activity for --idle-days days (its agent went
away, nobody decided its gate) is cancelled, and is pruned later like any finished run. Then, when a quarter of
the database is free space (or with --compact), gives that space back to the disk and to memory. The process
that owns the database does all this about hourly by its own policy (--retention-days, --retention-runs and
--retention-idle-days of baton mcp and baton serve, or the editor's baton.retention settings); this command asks
it to prune now, or prunes the file itself when no process owns it. With no database there is nothing to prune:
the command says where it looked and exits 1.

Options:
  --days N                prune runs finished more than N days ago (default: the owner's policy, else 30;
                          0: none by age)
  --keep N                keep at most the newest N finished runs (default: the owner's policy, else 1000;
                          0: none by count)
  --idle-days N           cancel unfinished runs with no activity for N days (default: the owner's policy,
                          else 30; 0: none)
  --dry-run               count what would go; cancel and delete nothing
  --compact               give the freed space back even when less than a quarter of the database is free
  --json                  print the result as JSON
${DB_USAGE}
${USAGE_FOOTER}`;

/** The synopses of `baton approve` and `baton reject`, which share one usage. */
const APPROVE_SYNOPSIS = 'baton approve EXECUTION [--step NAME] [--by NAME] [--json] [--db PATH] [--workspace DIR] [--content DIR]';
const REJECT_SYNOPSIS = `baton reject EXECUTION --feedback TEXT [--step NAME] [--by NAME] [--json] [--db PATH] [--workspace DIR]
                    [--content DIR]`;

/** Usage of `baton approve` (and of reject, second). */
export const DECIDE_USAGE = `Usage: ${APPROVE_SYNOPSIS}
       ${REJECT_SYNOPSIS}

Decides a step awaiting approval. EXECUTION is an execution id or a task id (see baton status). The decision
goes through the process that owns the database when one runs (an agent waiting on the gate goes on at once);
otherwise it is written to the database directly. With no database there is nothing to decide: the command says
where it looked and exits 1; it never creates one.

Options:
  --step NAME             the step to decide (default: the one step awaiting approval)
  --feedback TEXT         reject only, required: for a workflow's step, what the agent must change (it redoes the
                          step with these words); for a pipeline's human_review step, why you reject it (recorded
                          with the run, which then fails, or goes on with the review not approved when the step
                          says onReject: continue)
  --by NAME               who decides, recorded with the decision (default: cli:$USER, or cli: and the OS user's name
                          when USER is not set)
  --json                  print the result as JSON
${DB_USAGE}
  --content DIR           the bundled content, loaded when no process owns the database and this command opens it
                          (default: the content/ folder shipped with Baton)
${USAGE_FOOTER}`;

/** Usage of `baton reject`: approve's, its own synopsis first (its errors then say "see baton reject --help"). */
export const REJECT_USAGE = DECIDE_USAGE.replace(`Usage: ${APPROVE_SYNOPSIS}\n       ${REJECT_SYNOPSIS}`, `Usage: ${REJECT_SYNOPSIS}\n       ${APPROVE_SYNOPSIS}`);

/** Usage of `baton cancel`. */
export const CANCEL_USAGE = `Usage: baton cancel EXECUTION [--json] [--db PATH] [--workspace DIR]

Ends an unfinished execution: a workflow (its agent's next call is refused), a spec workflow, or a pipeline run
(as baton pipeline cancel does), as the editor's Cancel Execution does. EXECUTION is an execution id or a task id
(see baton status); it then reads "cancelled" (its status is failed, with a cancellation mark). Goes through the
process that owns the database when one runs; otherwise writes the database directly. A team run is stopped with
baton stop @INSTANCE instead. With no database there is nothing to cancel: the command says where it looked and
exits 1.

Options:
  --json                  print the cancelled execution as JSON
${DB_USAGE}
${USAGE_FOOTER}`;

/** Usage of `baton release`. */
export const RELEASE_USAGE = `Usage: baton release EXECUTION [--step NAME] [--json] [--db PATH] [--workspace DIR]

Takes a running step of a workflow or spec workflow from the agent that holds it, as the editor's Release Step
does: for an agent that went away holding it (its session ended, its process died). The step is ready again at
once and goes to the next agent that asks for work, where it would otherwise wait until its token expired and
the stall threshold (--stall-minutes, 30 by default) passed. The token it held stops working: its agent, if it
comes back, is told the step was released. EXECUTION is an execution id or a task id (see baton status). Goes
through the process that owns the database when one runs; otherwise writes the database directly.

Options:
  --step NAME             the step to release, when several are running
  --json                  print what was released as JSON
${DB_USAGE}
${USAGE_FOOTER}`;

/** Usage of `baton pipeline`. */
export const PIPELINE_USAGE = `Usage: baton pipeline list [--json] [--db PATH] [--workspace DIR]
       baton pipeline run NAME|FILE --input TEXT [--var KEY=VALUE]... [--budget-tokens N] [--budget-usd X] [--json]
                          [--db PATH] [--workspace DIR] [--content DIR]
       baton pipeline resume RUN [--budget-tokens N] [--budget-usd X] [--forget-agents] [--json] [--db PATH]
                             [--workspace DIR]
       baton pipeline cancel RUN [--json] [--db PATH] [--workspace DIR]

Runs a pipeline: a system of agents (claude, codex, gemini, opencode, cursor-agent, vscode-lm or any command) and
the workflow they follow, from .baton/pipelines/NAME.yaml or FILE (a .yaml path, read from the current folder, also
with --workspace; make one with baton blueprint new). The run is an execution like any other (baton status,
workflow-status://RUN); each step is written to the database before the next starts, so a run whose process died
resumes where it was with baton pipeline resume RUN, and no finished step runs again; an agent that process left
running is stopped first (its whole process group), once it is proved to be that agent (on Linux: by its start
time), and list shows such agents. A human_review step waits for baton approve|reject RUN. A run past its budget
pauses (budget_exceeded); resume it with a higher budget. On a terminal the progress is drawn live; otherwise (or
with --json) each event is a JSON line on stdout. Ctrl-C (or the terminal closing) pauses the run: the agent is
stopped, and baton pipeline resume RUN goes on from that step; baton pipeline cancel RUN ends a run for good. When
another process owns the database (the editor, baton serve), the run happens there and this command follows it.

Options:
  --input TEXT            the run's input, {{system.input}} in templates (required for run)
  --var KEY=VALUE         a variable, {{KEY}} in templates (repeatable; overrides the system's variables)
  --budget-tokens N       pause the run (budget_exceeded) before it uses more than N tokens
  --budget-usd X          pause the run before it spends more than X US dollars
  --forget-agents         resume: a live process that cannot be proved to be the agent the run's earlier process left
                          running (its pid may be another program's now) is left alone and forgotten, not refused
  --json                  list, cancel: print JSON instead of text; run, resume: JSON lines on stdout even on a
                          terminal
${DB_USAGE}
${CONTENT_USAGE}
${USAGE_FOOTER.replace('2 usage error.', '2 usage error;\n3 the run paused (budget, Ctrl-C) or the process running it ended, and can be resumed.')}`;

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
  --workspace DIR         the project folder (default: the current folder, or the nearest one above it holding a
                          .baton)
  --content DIR           the bundled content (default: the content/ folder shipped with Baton)
${NO_DB_USAGE_FOOTER}`;

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

const TEAM_DB = `${DB_USAGE}
  -h, --help              show this help (on stdout)

Teams run in the process that owns the database (this one when no other Baton process does: the editor, baton
serve, baton mcp or a baton start); the other team commands reach it through its endpoint.

${USAGE_FOOTER.split('\n').slice(2, -1).join('\n')}`;

/** The exit codes of the team commands but run (which says what ends a run). */
const TEAM_EXIT = 'Exit codes: 0 done; 1 failed (e.g. no such team or agent, or the database\'s owner does not answer); 2 usage error.';

/** Usage of `baton run`. */
export const RUN_USAGE = `Usage: baton run FILE [--instance NAME] [--verbose] [--json] [--max-invocations N] [--db PATH] [--workspace DIR]
                      [--content DIR]

Runs a team of agents (a workflow YAML file: name, context, agents, setup, kickoff): runs the setup commands,
posts the kickoff to the channel, wakes each agent that has unread @mentions, and exits when every agent is idle
(no unread mentions, none running). Prints the final document (notes.md) on stdout; when the team wrote none,
stdout stays empty and a line on stderr says so. FILE is read from the current folder, also with --workspace (the
folder the setup commands run in and the team's files go).

Options:
  --instance NAME         the instance (default: default); agents are NAME@instance
  --verbose               show the channel and each agent's turns on stderr
  --json                  JSON lines on stdout: every event, then {"type":"result", reason, document, …}
  --max-invocations N     stop after N agent turns in all (default 50), against agents that @mention each other forever
${CONTENT_USAGE}
${TEAM_DB}
Exit codes: 0 every agent idle; 2 usage error; 1 a missing or invalid workflow file, a failed agent turn or setup
command, the limit reached, or stopped (Ctrl-C, baton stop).`;

/** Usage of `baton start`. */
export const START_USAGE = `Usage: baton start FILE [--instance NAME] [--background] [--verbose] [--max-invocations N] [--db PATH]
                        [--workspace DIR] [--content DIR]

Starts a team of agents and keeps it running until it is stopped (baton stop @instance, or Ctrl-C): people and
other processes talk to it with baton send, and new @mentions wake its agents. FILE is read from the current folder,
also with --workspace (the folder the setup commands run in and the team's files go).
No --json: it prints the team's agents and how to reach them as text; baton list --json lists them for a script.

Options:
  --instance NAME         the instance (default: default)
  --background            run in a detached process (its log in teams/NAME.log beside the database)
  --verbose               show the channel and each agent's turns on stderr
  --max-invocations N     stop after N agent turns in all (default 50)
${CONTENT_USAGE}
${TEAM_DB}
Exit codes: 0 done; 2 usage error; 1 failed (e.g. a missing or invalid workflow file, a failed setup command, or
no answer from the owner).`;

/** Usage of `baton stop`. */
export const STOP_USAGE = `Usage: baton stop (agent@instance | @instance | NAME | --all) [--json] [--db PATH] [--workspace DIR]

Stops one agent of a team (agent@instance), a whole instance (@instance), a standalone agent (NAME), or
everything (--all); running agents are killed with their process groups. With no Baton process owning the
database, it ends the team runs a killed one left running and stops the agents they left (their process groups).

Options:
  --all                   stop every team
  --json                  print {"stopped": [...]}
${TEAM_DB}
${TEAM_EXIT}`;

/** Usage of `baton list`. */
export const LIST_USAGE = `Usage: baton list [--json] [--db PATH] [--workspace DIR]

Lists the agents of running teams: NAME (agent@instance), SOURCE (the workflow file) and STATUS (idle, running,
stopped, or failed with the reason of its last turn, in short: a CLI not installed, one that exits at once).

Options:
  --json                  a JSON array of {name, source, status, instance, error (a failed agent's full reason)}
${TEAM_DB}
${TEAM_EXIT}`;

/** Usage of `baton send`. */
export const SEND_USAGE = `Usage: baton send MESSAGE --to (agent@instance | @instance | NAME) [--json] [--db PATH] [--workspace DIR]

Posts MESSAGE to a team's channel as you ("user"). With --to agent@instance the message @mentions that agent
(prefixed when it does not already), which wakes it; with --to @instance it is posted as written.

Options:
  --to TARGET             who the message is for
  --json                  print the channel entry as JSON
${TEAM_DB}
${TEAM_EXIT}`;

/** Usage of `baton peek`. */
export const PEEK_USAGE = `Usage: baton peek [@instance] [--json] [--db PATH] [--workspace DIR]

Shows a team's channel, its agents' states and its document (the first running instance unless named).

Options:
  --json                  print {instance, channel, document, agents, end} as JSON
${TEAM_DB}
${TEAM_EXIT}`;

/** Usage of `baton new`. */
export const NEW_USAGE = `Usage: baton new NAME --backend B [--model M] [--system-prompt TEXT] [--context @instance] [-- PROGRAM ARGS…]
                 [--db PATH] [--workspace DIR] [--content DIR]

Starts a standalone agent. With --context @instance it joins that running team: it reads and writes its channel
and documents, and wakes when someone writes @NAME there. Without, it runs alone as NAME with its own context
(.workflow/NAME/); talk to it with baton send "…" --to NAME, stop it with baton stop NAME. When no other Baton
process owns the database, this one runs the agent and keeps running until it is stopped (baton stop NAME, or
Ctrl-C); otherwise the owner runs it and this command returns at once.
No --json: it prints where the agent runs as text; baton list --json lists it for a script.

Options:
  --backend B             ${RUNNER_KINDS.filter((k) => k !== 'vscode-lm').join(', ')}
  --model M               the model, in the backend's naming (its default when unset)
  --system-prompt TEXT    the agent's own instructions (the team guidance is added)
  --context @instance     join that running team's channel
  -- PROGRAM ARGS…        the command backend's program (an argument list, never a shell string)
${CONTENT_USAGE}
${TEAM_DB}
${TEAM_EXIT}`;
