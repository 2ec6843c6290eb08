// Types for scripts/agentClis.mjs, so the TypeScript tests can import it.
export interface AgentCliPaths {
  claude: string;
  codex: string;
  gemini: string;
  opencode: string;
}
export function agentCliPaths(): AgentCliPaths;
export function ensureAgentClis(options?: { log?: (line: string) => void }): Promise<AgentCliPaths>;
