// What command handlers and feature registrations share.
import type * as vscode from 'vscode';
import type { HeldSteps } from './heldSteps.js';
import type { BatonLog } from './log.js';
import type { BatonConnection } from './ownership.js';
import type { SharedRunListing } from './sharedRunListing.js';
import type { WorkflowsTreeProvider } from './views/workflowsTreeProvider.js';

/** The extension's parts, built once in `activate`. */
export interface Services {
  context: vscode.ExtensionContext;
  connection: BatonConnection;
  log: BatonLog;
  held: HeldSteps;
  tree: WorkflowsTreeProvider;
  /** The runs as the tree and the status bar read them this refresh (the pickers of unfinished runs read them here). */
  runs: Pick<SharedRunListing, 'unfinished'>;
  /** Activation timings for the log and the test hook. */
  timings: { activationMs: number; firstRenderMs: number | null; mcpProvidedUrl: string | null };
}
