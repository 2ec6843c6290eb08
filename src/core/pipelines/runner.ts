// The AgentRunner port: how the pipeline engine runs one agent (a CLI such as claude or codex, the editor's language
// models, or any executable) and hears what it does. Implementations live outside the core (src/host/runners,
// src/vscode); the core only knows these shapes.

/** The runners Baton ships. */
export type RunnerKind = 'claude' | 'codex' | 'gemini' | 'opencode' | 'cursor-agent' | 'vscode-lm' | 'command';

/** Every runner kind, in the order they are documented. */
export const RUNNER_KINDS: readonly RunnerKind[] = ['claude', 'codex', 'gemini', 'opencode', 'cursor-agent', 'vscode-lm', 'command'];

/**
 * Tokens, normalized across CLIs: `input` counts every prompt token, `cached` the part of them served from a cache;
 * `output` counts every generated token, `reasoning` the part of them spent thinking.
 */
export interface TokenUsage {
  input: number;
  output: number;
  cached: number;
  reasoning: number;
}

/** No tokens yet. */
export const ZERO_USAGE: TokenUsage = Object.freeze({ input: 0, output: 0, cached: 0, reasoning: 0 });

/** The sum of two usages. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { input: a.input + b.input, output: a.output + b.output, cached: a.cached + b.cached, reasoning: a.reasoning + b.reasoning };
}

/** Prices in US dollars per million tokens, for CLIs that report no cost of their own. */
export interface TokenPrice {
  input: number;
  output: number;
  /** Cached input tokens; the input price unless set. */
  cachedInput?: number;
}

/** The cost of `usage` at `price`, in US dollars. */
export function priceUsage(usage: TokenUsage, price: TokenPrice): number {
  const fresh = Math.max(0, usage.input - usage.cached);
  const cents = fresh * price.input + usage.cached * (price.cachedInput ?? price.input) + usage.output * price.output;
  return cents / 1_000_000;
}

/** Who an MCP session acts for: Baton issues a bearer token per run and agent, so tools can be scoped to them. */
export interface RunScope {
  /** The pipeline run (an execution id). */
  runId: string;
  /** The agent within it. */
  agent: string;
  /** Tool groups its sessions are served; the owner's groups unless set. */
  toolGroups?: readonly string[];
}

/** Baton's MCP server as a run reaches it: Streamable HTTP on 127.0.0.1 with a bearer token. */
export interface McpEndpoint {
  url: string;
  /** The bearer token (sent as `Authorization: Bearer …`); never written to the user's files. */
  token: string;
  /** The server's name in the CLI's configuration (tools become e.g. `mcp__baton__…`); `baton` unless set. */
  name?: string;
}

/** A run token lent to one agent step: its endpoint, and `revoke` once the step ends (idempotent). */
export interface McpGrant {
  endpoint: McpEndpoint;
  revoke(): void;
}

/** The part of AbortSignal a run listens to (the core does not depend on the DOM or Node typings). */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** What to run. */
export interface AgentRunRequest {
  /** The agent's name (for scoping, logs and the `command` runner's environment). */
  agent: string;
  /** The model, in the CLI's own naming; the CLI's default when unset. */
  model?: string;
  /** Appended to the CLI's own system prompt (each CLI's mechanism; prepended to the prompt where it has none). */
  systemPrompt?: string;
  /** The task. Sent on standard input where the CLI reads it there, so its size is not limited by argv. */
  prompt: string;
  /** Baton's MCP server for this run and agent. */
  mcp?: McpEndpoint;
  /** The agent's working folder (the user's project); nothing is written to it by the runner. */
  cwd: string;
  /** Extra environment for the process (e.g. API keys); cannot move HOME or the config folders out of the scratch folder. */
  env?: Readonly<Record<string, string>>;
  /** The run is stopped (its whole process group) after this long. */
  timeoutMs?: number;
  /** Aborting stops the run (its whole process group). */
  signal?: CancelSignal;
  /** The CLI's own tools the agent may use without asking (claude `--allowedTools`); Baton's MCP tools are always allowed. */
  allowedTools?: readonly string[];
  /** Prices to compute the cost from the tokens when the CLI reports none (or $0 for tokens it used). */
  price?: TokenPrice;
  /**
   * What the agent's own file can do about a CLI not found on PATH, said after the install hint of
   * `runner_unavailable`; unset: a pipeline agent's (its `env` may set PATH).
   */
  pathHint?: string;
  /** Hears the process a runner spawned for this run, once it started (runners without a process never call it). */
  onProcess?(process: AgentProcess): void;
}

/** A spawned agent process: what finds it again after the process that started it died (agentProcesses.ts). */
export interface AgentProcess {
  pid: number;
  /** Its process group: runners start each agent in a group of its own, so the group id is its pid. */
  pgid: number;
  /** Proves later that a live `pid` is still this process (Linux: boot id and start time); null where nothing can. */
  identity: string | null;
  /** The program, for messages. */
  command: string;
  /** The run's scratch folder (makeScratchDir), removed once the process is stopped after its Baton process died. */
  scratch?: string | null;
}

/** One thing a run did, in the order it happened. Usage and cost events carry the run's totals so far. */
export type AgentRunEvent =
  /** Text the agent wrote: a whole message or line, or (`delta`) the next piece of one it is still writing. */
  | { type: 'text'; text: string; delta?: true }
  | { type: 'tool_call'; id: string | null; name: string; server: string | null; input: unknown }
  | { type: 'tool_result'; id: string | null; name: string | null; output: string; isError: boolean }
  | { type: 'usage'; usage: TokenUsage }
  | { type: 'cost'; usd: number }
  | { type: 'error'; message: string; line?: string }
  | { type: 'done'; result: AgentRunResult };

/** How a run ended. */
export type AgentRunStatus = 'completed' | 'failed' | 'aborted' | 'timeout';

/** What a run produced. */
export interface AgentRunResult {
  status: AgentRunStatus;
  /** The agent's final answer. */
  text: string;
  usage: TokenUsage;
  /** US dollars: as the CLI reported it, else priced from `request.price`, else null. */
  costUsd: number | null;
  costSource: 'cli' | 'price' | null;
  /** Calls of tools (Baton's and the CLI's own). */
  toolCalls: number;
  /** Lines of output that could not be understood (each was reported as an `error` event). */
  malformedLines: number;
  /** Why it did not complete; null when it did. */
  error: string | null;
  exitCode: number | null;
  /** The CLI's session id, when it reports one. */
  sessionId: string | null;
  durationMs: number;
  /** The end of the process's standard error (at most 8 KB). */
  stderr: string;
}

/** A started run: iterate it for its events (the last is `done`); `result` settles once it is over and cleaned up. */
export interface AgentRun extends AsyncIterable<AgentRunEvent> {
  readonly result: Promise<AgentRunResult>;
}

/** Runs agents of one kind. */
export interface AgentRunner {
  readonly kind: RunnerKind;
  /**
   * Starts a run. A runner that cannot start (its CLI is missing) fails the iteration and `result` with a
   * BatonError `runner_unavailable` whose message says what to install.
   */
  run(request: AgentRunRequest): AgentRun;
}
