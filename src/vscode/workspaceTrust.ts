// Restricted Mode: the commands that run agents and setup commands of the workspace (teams, pipelines) wait for the
// person to trust the folder, as the editor's own tasks do; they say so and offer the editor's trust editor.
import * as vscode from 'vscode';

const MANAGE = 'Manage Workspace Trust';

/** False in a trusted workspace; otherwise tells the person why `what` needs trust (with Manage Workspace Trust). */
export function refuseUntrusted(what: string): boolean {
  if (vscode.workspace.isTrusted) return false;
  void vscode.window.showWarningMessage(
    `Baton: ${what} runs agents and setup commands in this folder, which is not trusted (Restricted Mode). ` +
      `Trust the folder with ${MANAGE}, then run ${what} again.`,
    MANAGE,
  ).then((pick) => pick && void vscode.commands.executeCommand('workbench.trust.manage'));
  return true;
}
