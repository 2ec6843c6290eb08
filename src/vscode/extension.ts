// The editor face's entry point. The editor issue builds the real face; for now activation only logs.
import type * as vscode from 'vscode';

/** Called by the editor when Baton activates. */
export function activate(context: vscode.ExtensionContext): void {
  context.subscriptions.push({ dispose() {} });
}

/** Called by the editor when Baton deactivates. */
export function deactivate(): void {}
