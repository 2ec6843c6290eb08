// Spec sources as the editor sees them: a tasks.md open in an editor is read from its buffer (unsaved changes
// included), and ticking its boxes is a WorkspaceEdit on the document, so undo works and a dirty buffer stays the
// person's (the edit joins it, unsaved). A document that was clean is saved after the edit, so the file on disk, the
// CLI and other agents see the ticks too.
import * as vscode from 'vscode';
import type { ApplyOutcome, SpecSourcePort, TextEdit } from '../core/specTypes.js';
import { readIfThere, realPathOrNone } from '../host/specSourceFile.js';

/** The open document of a file, if an editor has it. */
function openDocument(path: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === path);
}

/** The editor's spec source port (see the file comment). */
export const editorSpecSource: SpecSourcePort = {
  async read(path) {
    // A document holds no byte-order mark: a file read from disk is read the same way.
    return openDocument(path)?.getText() ?? readIfThere(path, true);
  },
  realPath: realPathOrNone,
  async apply(path: string, base: string, edits: TextEdit[]): Promise<ApplyOutcome> {
    let doc: vscode.TextDocument;
    try {
      doc = openDocument(path) ?? (await vscode.workspace.openTextDocument(vscode.Uri.file(path)));
    } catch (ex) {
      return { applied: false, reason: `${path} could not be opened: ${(ex as Error).message}` };
    }
    // No await between this check and applyEdit: the buffer cannot change in between.
    if (doc.getText() !== base) return { applied: false, reason: `${path} changed since it was read; nothing was written` };
    const wasDirty = doc.isDirty;
    const edit = new vscode.WorkspaceEdit();
    for (const e of edits) edit.replace(doc.uri, new vscode.Range(doc.positionAt(e.offset), doc.positionAt(e.offset + e.length)), e.text);
    if (!(await vscode.workspace.applyEdit(edit))) return { applied: false, reason: `the editor refused the edit of ${path}` };
    // The ticks are in the buffer either way; a clean document is saved so that the file says so too.
    if (!wasDirty) await doc.save();
    return { applied: true };
  },
};
