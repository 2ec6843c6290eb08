// Opens a team's shared document from the panel: the file provider's documents are real files under the context
// directory, so the editor opens the file itself (and reloads it from disk as agents write it); a document held in
// memory opens as an untitled markdown copy of its text now.
import * as vscode from 'vscode';
import type { PanelTeamDocument } from '../../shared/protocol.js';

/** Opens `doc` in an editor tab beside the panel. */
export async function openTeamDocument(doc: PanelTeamDocument, read: () => Promise<string>): Promise<void> {
  const document = doc.path
    ? await vscode.workspace.openTextDocument(vscode.Uri.file(doc.path))
    : await vscode.workspace.openTextDocument({ content: await read(), language: 'markdown' });
  await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: false, preserveFocus: true });
}
