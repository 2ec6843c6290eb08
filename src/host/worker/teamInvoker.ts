// One turn of a team agent: its runner (through the runner registry, as pipelines use it), Baton's endpoint with the
// agent's own bearer token (scoped to the team's `context` tool group), and the project MCP file of its backend held
// for the duration of the turn (codex, cursor-agent; see projectMcpConfig.ts).
import type { ProcessTrack } from '../../core/pipelines/agentProcesses.js';
import type { AgentRunEvent, McpEndpoint, RunnerKind } from '../../core/pipelines/runner.js';
import type { SystemAgent } from '../../core/pipelines/types.js';
import type { Invocation, InvocationOutcome } from '../../core/worker/teamRunner.js';
import type { AgentDefinition } from '../../core/worker/types.js';
import { runnerFor } from '../pipelines/runnerRegistry.js';
import { TEAM_TOKEN_VARIABLE, type ProjectMcpConfig } from './projectMcpConfig.js';

/** The MCP server's name in the agents' configuration (tools become e.g. `mcp__baton__channel_send`). */
export const TEAM_SERVER_NAME = 'baton';

/**
 * What a team file can do about a CLI not found on PATH: nothing sets PATH there (it has no `env`, unlike a pipeline's
 * agents), so it names the process whose PATH counts, or another backend.
 */
export const TEAM_PATH_HINT = 'a team file has no env: its agents get the PATH of the Baton process that runs the team '
  + '(baton run or start, or the editor or baton serve when one owns the database), so restart that one with it on PATH, '
  + 'or set this agent\'s backend: to a CLI you have';

/** What a turn needs besides the agent. */
export interface TurnContext {
  instance: string;
  cwd: string;
  endpoint: McpEndpoint;
  projectConfig: ProjectMcpConfig;
  /** A turn is stopped after this long; 30 minutes unless set. */
  timeoutMs?: number;
  /** Records the turn's process while it runs, so that it can be stopped if this process dies first. */
  track?: (runner: RunnerKind) => ProcessTrack | undefined;
  onRunEvent?: (agent: string, event: AgentRunEvent) => void;
}

/** Starts one turn of `agent`. */
export function invokeTeamAgent(agent: string, def: AgentDefinition, request: { prompt: string; systemPrompt: string }, ctx: TurnContext): Invocation {
  const controller = new AbortController();
  const outcome = (async (): Promise<InvocationOutcome> => {
    const kind = (def.backend ?? 'claude') as RunnerKind;
    const runner = runnerFor({ id: agent, role: 'implementer', runner: kind, command: def.command } as SystemAgent);
    const release = ctx.projectConfig.acquire(kind, ctx.cwd, { name: TEAM_SERVER_NAME, url: ctx.endpoint.url });
    const track = ctx.track?.(kind);
    try {
      const run = runner.run({
        agent,
        model: def.model || undefined,
        systemPrompt: request.systemPrompt,
        prompt: request.prompt,
        mcp: { ...ctx.endpoint, name: TEAM_SERVER_NAME },
        cwd: ctx.cwd,
        env: { [TEAM_TOKEN_VARIABLE]: ctx.endpoint.token, BATON_TEAM_INSTANCE: ctx.instance },
        allowedTools: def.tools,
        pathHint: TEAM_PATH_HINT,
        timeoutMs: ctx.timeoutMs ?? 30 * 60_000,
        signal: controller.signal,
        onProcess: track?.onProcess,
      });
      for await (const event of run) ctx.onRunEvent?.(agent, event);
      const result = await run.result;
      return { status: result.status, text: result.text, error: result.error };
    } finally {
      release();
      await track?.ended();
    }
  })();
  return { outcome, stop: () => controller.abort() };
}
