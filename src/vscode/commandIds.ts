// Every command Baton registers, with its palette title. No 'vscode' import: the registration test reads it beside
// package.json, and commands.ts's table is typed so that it holds exactly these ids.

/** Command id → title (category "Baton"). Test hooks are not commands of the product (see testHooks.ts). */
export const COMMAND_TITLES = {
  'baton.startWorkflow': 'Start Workflow…',
  'baton.startSpecWorkflow': 'Start Spec Workflow from tasks.md…',
  'baton.runPipeline': 'Run Pipeline…',
  'baton.runTeam': 'Run Agent Team (YAML)…',
  'baton.stopTeam': 'Stop Team',
  'baton.advanceStep': 'Advance Step…',
  'baton.approveStep': 'Approve Step',
  'baton.rejectStep': 'Reject Step…',
  'baton.showExecution': 'Show Execution',
  'baton.openArtifact': 'Open Artifact',
  'baton.cancelExecution': 'Cancel Execution',
  'baton.releaseStep': 'Release Step',
  'baton.pruneRuns': 'Prune Finished Runs…',
  'baton.copyMcpConfigClaude': 'Copy MCP Config for Claude Code',
  'baton.copyMcpConfigCursor': 'Copy MCP Config for Cursor',
  'baton.copyMcpConfigCodex': 'Copy MCP Config for Codex',
  'baton.copyMcpConfigGemini': 'Copy MCP Config for Gemini CLI',
  'baton.copyMcpConfigOpenCode': 'Copy MCP Config for OpenCode',
  'baton.copyHandoffPrompt': 'Copy Agent Prompt',
  'baton.showLog': 'Show Log',
  'baton.refresh': 'Refresh',
} as const;

/** A Baton command id. */
export type CommandId = keyof typeof COMMAND_TITLES;

/** The environment variable with which a test harness asks for the test hooks (value `1`); see testHooks.ts. */
export const TEST_HOOKS_ENV = 'BATON_TEST_HOOKS';

/** The test hooks' command: registered only when TEST_HOOKS_ENV asks for it, and never declared in package.json. */
export const TEST_STATE_COMMAND = 'baton.test.state';

/** Whether the extension host was started by a test harness that asks for the test hooks. */
export function testHooksRequested(env: Record<string, string | undefined>): boolean {
  return env[TEST_HOOKS_ENV] === '1';
}
