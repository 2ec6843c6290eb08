// The status-bar item: the active execution's step and progress; click opens its panel; hidden when nothing is active.
import * as vscode from 'vscode';
import type { BatonConnection } from './ownership.js';
import type { SharedRunListing } from './sharedRunListing.js';
import { statusBarExecution, statusBarLabel, statusBarView } from './statusBarText.js';

/** Shows the item and keeps it current from core events (through the runs' listing it shares with the tree). */
export function registerStatusBar(connection: BatonConnection, runs: SharedRunListing): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('baton.status', vscode.StatusBarAlignment.Left, 50);
  item.name = 'Baton';
  let seq = 0;
  const update = async () => {
    const mine = ++seq;
    let view;
    if (connection.state === 'ready') {
      const executions = await runs.unfinished();
      const chosen = statusBarExecution(executions);
      // A spec workflow's item names its phase; if its status cannot be read it names the step as any other.
      const spec = chosen?.kind === 'spec' ? await connection.specStatus(chosen.execution_id).catch(() => undefined) : undefined;
      view = statusBarView(executions, spec);
    }
    if (mine !== seq) return;
    if (!view) return item.hide();
    item.text = view.text;
    item.tooltip = view.tooltip;
    item.accessibilityInformation = { label: statusBarLabel(view), role: 'button' };
    item.command = { command: 'baton.showExecution', title: 'Show Execution', arguments: [view.executionId] };
    item.show();
  };
  const refreshed = runs.onRefresh(() => void update().catch(() => item.hide()));
  return new vscode.Disposable(() => {
    refreshed.dispose();
    item.dispose();
  });
}
