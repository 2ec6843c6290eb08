// The MCP configuration a terminal agent needs to join this workspace's Baton. No 'vscode' import (unit-tested).

/** The clients "Copy MCP Config for …" serves. */
export type McpClient = 'claude' | 'cursor' | 'codex';

/** Where Baton's CLI is and which workspace (and database, when not the default) it serves. */
export interface McpConfigTarget {
  /** Absolute path of `dist/cli.js` inside the extension. */
  cliPath: string;
  workspace: string;
  /** Set when `baton.database.path` moves the database; else the CLI's default for the workspace. */
  dbPath?: string;
}

/** `node <cli> mcp --workspace <folder> [--db <path>]`. */
export function mcpArgs(t: McpConfigTarget): string[] {
  return [t.cliPath, 'mcp', '--workspace', t.workspace, ...(t.dbPath ? ['--db', t.dbPath] : [])];
}

/** The config text: JSON (`mcpServers`) for Claude Code and Cursor, TOML (`[mcp_servers.baton]`) for Codex. */
export function mcpConfigText(client: McpClient, t: McpConfigTarget): string {
  const args = mcpArgs(t);
  if (client === 'codex') {
    // A JSON string is a valid TOML basic string (same escapes).
    return `[mcp_servers.baton]\ncommand = "node"\nargs = [${args.map((a) => JSON.stringify(a)).join(', ')}]\n`;
  }
  const server = client === 'claude' ? { type: 'stdio', command: 'node', args } : { command: 'node', args };
  return JSON.stringify({ mcpServers: { baton: server } }, null, 2) + '\n';
}

/** Where the pasted config goes, for the confirmation message. */
export function mcpConfigHint(client: McpClient): string {
  switch (client) {
    case 'claude': return "Paste it into the project's .mcp.json (or run `claude mcp add-json baton '<the baton object>'`).";
    case 'cursor': return 'Paste it into .cursor/mcp.json in the project.';
    case 'codex': return 'Paste it into ~/.codex/config.toml.';
  }
}
