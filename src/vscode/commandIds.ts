// Every command Baton registers, with its palette title. No 'vscode' import: the registration test reads it beside
// package.json, and commands.ts's table is typed so that it holds exactly these ids.

/** Command id → title (category "Baton"); `baton.test.state` is hidden from the palette. */
export const COMMAND_TITLES = {
  'baton.startWorkflow': 'Start Workflow…',
  'baton.advanceStep': 'Advance Step…',
  'baton.approveStep': 'Approve Step',
  'baton.rejectStep': 'Reject Step…',
  'baton.showExecution': 'Show Execution',
  'baton.openArtifact': 'Open Artifact',
  'baton.cancelExecution': 'Cancel Execution',
  'baton.copyMcpConfigClaude': 'Copy MCP Config for Claude Code',
  'baton.copyMcpConfigCursor': 'Copy MCP Config for Cursor',
  'baton.copyMcpConfigCodex': 'Copy MCP Config for Codex',
  'baton.copyHandoffPrompt': 'Copy Agent Prompt',
  'baton.showLog': 'Show Log',
  'baton.refresh': 'Refresh',
  'baton.test.state': 'Test State (internal)',
} as const;

/** A Baton command id. */
export type CommandId = keyof typeof COMMAND_TITLES;

/** Commands kept out of the command palette. */
export const HIDDEN_COMMANDS: readonly CommandId[] = ['baton.test.state'];
