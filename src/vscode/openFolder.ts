// What a command that needs a workspace folder says when none is open: why, with the editor's own Open Folder….
import * as vscode from 'vscode';

/** The first workspace folder, or undefined after telling the person `why` one is needed (with Open Folder…). */
export function folderOrAsk(why: string): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (folder) return folder;
  void vscode.window.showWarningMessage(`Baton: ${why}`, 'Open Folder…')
    .then((pick) => pick && void vscode.commands.executeCommand('workbench.action.files.openFolder'));
  return undefined;
}
