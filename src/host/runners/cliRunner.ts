// The runner for a spawned program: finds it (or says what to install), makes the run's scratch folder, lets the
// CLI's definition plan its arguments, environment and files, runs it (processRun), and removes the scratch folder
// before the run's result is reported.
import { existsSync, statSync } from 'node:fs';
import { BatonError } from '../../core/errors.js';
import { RunEventQueue } from '../../core/pipelines/runEvents.js';
import { settleRun, type ProcessEnd } from '../../core/pipelines/runOutcome.js';
import type { AgentRun, AgentRunner, AgentRunRequest, McpEndpoint, RunnerKind } from '../../core/pipelines/runner.js';
import { isRecord, type StreamParser } from '../../core/pipelines/streams/streamParser.js';
import { findExecutable, whyNotExecutable } from './findExecutable.js';
import { runProcess } from './processRun.js';
import { makeScratchDir, REDIRECTING_VARIABLES, type ScratchDir } from './scratchDir.js';

/** How a runner of a spawned CLI is set up (by the engine from a pipeline's agent, or by a test). */
export interface CliRunnerOptions {
  /** The program: a name looked up on PATH or a path; the CLI's usual command unless set. */
  executable?: string;
  /** Environment for every run (e.g. an API key or a provider's base URL). */
  env?: Readonly<Record<string, string>>;
  /** Arguments placed before Baton's (for the `command` runner: the command's own arguments). */
  args?: readonly string[];
  /** The CLI's own settings, merged under Baton's MCP entry into the configuration the run writes (see each CLI). */
  config?: Readonly<Record<string, unknown>>;
  /** Between SIGTERM and SIGKILL on abort or timeout; KILL_GRACE_MS (2 s) unless set. */
  killGraceMs?: number;
  /** Where scratch folders are made; the system's temporary folder unless set. */
  scratchParent?: string;
}

/** Arguments, environment and standard input for one run. */
export interface CliPlan {
  args: string[];
  env?: Record<string, string>;
  /** Written to standard input; null: none. */
  stdin: string | null;
}

/** What makes one CLI's runner: its command, install hint, how it is invoked, how its output is parsed. */
export interface CliDefinition {
  kind: RunnerKind;
  command: string;
  /**
   * Tells a person without the CLI how to get it (named in the `runner_unavailable` error). A CLI's ends "on PATH",
   * followed there by what the agent's own file can do about PATH (AgentRunRequest.pathHint); the command runner's
   * is a whole sentence.
   */
  install: string;
  /** Plans a run; writes the CLI's configuration files into `scratch`. */
  plan(request: AgentRunRequest, scratch: ScratchDir, options: CliRunnerOptions): CliPlan;
  parser(request: AgentRunRequest): StreamParser;
}

/** What a pipeline agent can do about a CLI that is not on PATH (a team file has no `env`: it says its own). */
const PIPELINE_PATH_HINT = 'a pipeline agent may set its own PATH in env';

/** A runner of a spawned CLI. */
export class CliRunner implements AgentRunner {
  readonly kind: RunnerKind;

  constructor(private readonly definition: CliDefinition, private readonly options: CliRunnerOptions = {}) {
    this.kind = definition.kind;
  }

  run(request: AgentRunRequest): AgentRun {
    const queue = new RunEventQueue();
    this.execute(request, queue).catch((ex: unknown) => queue.fail(ex));
    return queue;
  }

  private async execute(request: AgentRunRequest, queue: RunEventQueue): Promise<void> {
    const { definition: def, options } = this;
    const command = options.executable ?? def.command;
    const pathEnv = options.env?.PATH ?? request.env?.PATH ?? process.env.PATH;
    const executable = findExecutable(command, pathEnv, request.cwd);
    if (!executable) {
      const why = command.includes('/') || command.includes('\\') ? whyNotExecutable(command, request.cwd) : 'was not found on PATH';
      const install = def.kind === 'command' ? def.install : `${def.install} (${request.pathHint ?? PIPELINE_PATH_HINT}).`;
      throw new BatonError('runner_unavailable', `${def.kind}: "${command}" ${why}. ${install}`, {
        runner: def.kind, command,
      });
    }
    if (!existsSync(request.cwd) || !statSync(request.cwd).isDirectory()) {
      throw new BatonError('invalid_input', `${def.kind}: the working folder ${request.cwd} does not exist`, { cwd: request.cwd });
    }
    const parser = def.parser(request);
    const scratch = await makeScratchDir(options.scratchParent);
    let end: ProcessEnd;
    try {
      const plan = def.plan(request, scratch, options);
      end = await runProcess({
        cli: def.kind,
        executable,
        args: [...(options.args ?? []), ...plan.args],
        // PWD too: some CLIs (opencode) take their project folder from it rather than from the process's folder.
        env: { ...inheritedEnv(), ...options.env, ...request.env, ...plan.env, ...scratch.env, PWD: request.cwd },
        cwd: request.cwd,
        stdin: plan.stdin,
        parser,
        timeoutMs: request.timeoutMs,
        signal: request.signal,
        killGraceMs: options.killGraceMs,
        onEvent: (e) => queue.push(e),
        onSpawn: request.onProcess,
        scratch: scratch.root,
      });
    } finally {
      await scratch.remove();
    }
    queue.finish(settleRun(def.kind, parser.outcome(), end, request.price));
  }
}

/** The parent's environment without what would lead a CLI back to the user's own configuration. */
function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !REDIRECTING_VARIABLES.includes(k)) env[k] = v;
  return env;
}

/** The MCP server's name in the CLI's configuration. */
export function serverName(mcp: McpEndpoint): string {
  return mcp.name ?? 'baton';
}

/** `base` with `over` merged in, objects recursively (arrays and other values replaced). */
export function deepMerge(base: Readonly<Record<string, unknown>>, over: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const prev = out[k];
    out[k] = isRecord(prev) && isRecord(v) ? deepMerge(prev, v) : v;
  }
  return out;
}

