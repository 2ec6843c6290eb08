// Copy MCP Config for Claude Code / Cursor / Codex: a stdio config that runs this extension's CLI on the workspace.
import { join } from 'node:path';
import * as vscode from 'vscode';
import { mcpConfigHint, mcpConfigText, type McpClient } from './mcpConfig.js';
import type { Services } from './services.js';

const NAMES: Record<McpClient, string> = { claude: 'Claude Code', cursor: 'Cursor', codex: 'Codex' };

/** Copies the config for `client` to the clipboard. */
export async function copyMcpConfig(s: Services, client: McpClient): Promise<string | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!folder) {
    void vscode.window.showWarningMessage('Baton: open a folder first; terminal agents join the Baton of a workspace folder.');
    return undefined;
  }
  const custom = vscode.workspace.getConfiguration('baton').get<string>('database.path')?.trim();
  const text = mcpConfigText(client, {
    cliPath: join(s.context.extensionPath, 'dist', 'cli.js'),
    workspace: folder,
    dbPath: custom ? s.connection.dbPath || undefined : undefined,
  });
  await vscode.env.clipboard.writeText(text);
  void vscode.window.showInformationMessage(`Baton: MCP config for ${NAMES[client]} copied. ${mcpConfigHint(client)}`);
  return text;
}
