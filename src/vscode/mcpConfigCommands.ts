// Copy MCP Config for Claude Code / Cursor / Codex: a stdio config that runs this extension's CLI on the workspace.
import { join } from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../core/errors.js';
import { mcpConfigHint, mcpConfigText, writeLauncher, type McpClient } from './mcpConfig.js';
import { folderOrAsk } from './openFolder.js';
import type { Services } from './services.js';

const NAMES: Record<McpClient, string> = { claude: 'Claude Code', cursor: 'Cursor', codex: 'Codex', gemini: 'Gemini CLI', opencode: 'OpenCode' };

/** Copies the config for `client` to the clipboard. */
export async function copyMcpConfig(s: Services, client: McpClient): Promise<string | undefined> {
  const folder = folderOrAsk('open a folder first; terminal agents join the Baton of a workspace folder.');
  if (!folder) return undefined;
  const custom = vscode.workspace.getConfiguration('baton').get<string>('database.path')?.trim();
  const text = mcpConfigText(client, {
    cliPath: stableCliPath(s),
    workspace: folder,
    dbPath: custom ? s.connection.dbPath || undefined : undefined,
  });
  await vscode.env.clipboard.writeText(text);
  const copied = `Baton: MCP config for ${NAMES[client]} copied. ${mcpConfigHint(client)}`;
  // The config needs no database, but the agent's Baton opens the one this editor failed to open: say so, not "done".
  if (s.connection.state === 'failed') {
    void vscode.window.showWarningMessage(`${copied} But this editor could not open the database it uses (${s.connection.dbPath}), ` +
      "and the agent's Baton opens the same one: fix that first (the error notification and Baton: Show Log say why; " +
      'Baton: Refresh tries again).');
  } else if (s.connection.state === 'waiting') {
    void vscode.window.showWarningMessage(`${copied} But another process holds the database this editor uses (${s.connection.dbPath}) ` +
      "and serves nothing, so the agent's Baton cannot use it either until that process lets go of it (Baton: Show Log " +
      'says which process, and how to end or resume it).');
  } else {
    void vscode.window.showInformationMessage(copied);
  }
  return text;
}

/**
 * The CLI path a copied config names: a launcher in the extension's global storage that runs the CLI of the Baton
 * installed now (refreshed at each start, see refreshLauncher), so the config survives updates; the extension's own
 * dist/cli.js when the launcher cannot be written.
 */
function stableCliPath(s: Services): string {
  const cli = join(s.context.extensionPath, 'dist', 'cli.js');
  try {
    return writeLauncher(s.context.globalStorageUri.fsPath, cli);
  } catch (ex) {
    s.log.warn(`Baton: could not write the CLI launcher (the config names this version's CLI instead): ${errorMessage(ex)}`);
    return cli;
  }
}

/** Points a launcher written earlier at this version's CLI (after an update); writes none where there was none. */
export function refreshLauncher(context: vscode.ExtensionContext, log: { warn(m: string): void }): void {
  try {
    writeLauncher(context.globalStorageUri.fsPath, join(context.extensionPath, 'dist', 'cli.js'), true);
  } catch (ex) {
    log.warn(`Baton: could not refresh the CLI launcher: ${errorMessage(ex)}`);
  }
}
