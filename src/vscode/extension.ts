// The editor face's entry point: activate() only wires the parts; the database opens in the background.
import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import { registerApprovalNotifications } from './approvals.js';
import { registerArtifactDocuments } from './artifactDocuments.js';
import { registerCommands } from './commands.js';
import { registerContentDiagnostics } from './contentDiagnostics.js';
import { HeldSteps } from './heldSteps.js';
import { createBatonLog } from './log.js';
import { registerRunner } from '../host/pipelines/runnerRegistry.js';
import { LmRunner } from './lmRunner.js';
import { registerMcpProvider } from './mcpProvider.js';
import { BatonConnection } from './ownership.js';
import { openTeamDocument } from './teams/teamDocuments.js';
import { confirmTeamStop } from './teams/teamStop.js';
import { ExecutionPanel } from './panels/executionPanel.js';
import { registerBudgetNotifications } from './pipelineCommands.js';
import type { Services } from './services.js';
import { registerSpecCodeLens, SPEC_CODELENS_SETTING } from './specCommands.js';
import { SharedRunListing } from './sharedRunListing.js';
import { registerStatusBar } from './statusBar.js';
import { registerTestHooks } from './testHooks.js';
import { registerWorkflowsTree } from './views/workflowsTreeProvider.js';
import { refreshLauncher } from './mcpConfigCommands.js';

let connection: BatonConnection | undefined;

/** The declared `baton.*` settings that the database's owner is opened with (all but the editor-only ones). */
function databaseSettings(context: vscode.ExtensionContext): string[] {
  const declared = (context.extension.packageJSON as { contributes?: { configuration?: { properties?: Record<string, unknown> } } }).contributes?.configuration?.properties ?? {};
  return Object.keys(declared).filter((key) => key !== SPEC_CODELENS_SETTING);
}

/** Called by the editor when Baton activates. Does not wait for the database: the tree shows "Starting Baton…". */
export function activate(context: vscode.ExtensionContext): void {
  const t0 = performance.now();
  const log = createBatonLog(context);
  const version = String((context.extension.packageJSON as { version?: unknown }).version ?? '0.0.0');
  connection = new BatonConnection(context, log, version);
  // The tree and the status bar list the runs from one reading per refresh (the owner's loop also answers agents).
  const runs = new SharedRunListing(connection);
  const { provider: tree, disposable: treeView } = registerWorkflowsTree(connection, runs);
  const services: Services = { context, connection, log, held: new HeldSteps(), tree, runs, timings: { activationMs: 0, firstRenderMs: null, mcpProvidedUrl: null } };
  tree.onFirstRender = (state) => {
    services.timings.firstRenderMs = Math.round(performance.now() - t0);
    log.info(`Baton: first view rendered in ${services.timings.firstRenderMs} ms (${state})`);
  };
  ExecutionPanel.log = { warn: (m) => log.warn(m), error: (m) => log.error(m) };
  const c = connection;
  ExecutionPanel.pipelines = { source: () => c.pipelines(), feed: c.feed };
  ExecutionPanel.teams = { source: () => c.teams(), openDocument: openTeamDocument, confirmStop: confirmTeamStop };
  // Agents with `runner: vscode-lm` run on this editor's language models (only where the editor drives the run).
  registerRunner('vscode-lm', () => new LmRunner(vscode));
  context.subscriptions.push(
    c,
    runs,
    treeView,
    registerMcpProvider(c, version, log, (url) => void (services.timings.mcpProvidedUrl = url)),
    registerArtifactDocuments(c),
    registerStatusBar(c, runs),
    registerApprovalNotifications(services),
    registerBudgetNotifications(services),
    registerCommands(services),
    registerSpecCodeLens(services),
    registerContentDiagnostics(log),
    ExecutionPanel.registerSerializer(context, () => c),
    // A takeover (this window now owns the database, or follows another owner) changes what the panels read from, and
    // the last events of the owner that went (a run it paused as it closed, say) reach no one: they read again.
    c.onDidChange(() => {
      if (c.state === 'ready') ExecutionPanel.refreshAll();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void c.restart()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      // Settings of the editor's face alone (the CodeLens) leave the database open.
      if (!e.affectsConfiguration('baton') || !databaseSettings(context).some((key) => e.affectsConfiguration(key))) return;
      log.info('Baton settings changed; reopening the database with them');
      void c.restart();
    }),
  );
  const testHooks = registerTestHooks(services);
  if (testHooks) context.subscriptions.push(testHooks);
  c.start();
  refreshLauncher(context, log);
  services.timings.activationMs = Math.round(performance.now() - t0);
  log.info(`Baton: activated in ${services.timings.activationMs} ms`);
}

/** Called by the editor when Baton deactivates: releases the database (checkpoint, discovery file). */
export function deactivate(): Promise<void> | undefined {
  return connection?.close();
}
