// The per-execution webview panel: one per execution, its behaviour in PanelController (typed protocol, validation,
// debounced updates), its page in panelHtml (strict CSP), restored after a reload by a WebviewPanelSerializer.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors.js';
import { isName, isStepName } from '../../shared/protocol.js';
import type { BatonSource } from '../batonSource.js';
import { PanelController } from './panelController.js';
import type { PanelLog, PanelPipelines } from './panelController.js';
import { makeNonce, panelHtml, panelTitle } from './panelHtml.js';
import type { PanelTeams } from './panelTeam.js';

/** The panel's view type (also the serializer's and the `onWebviewPanel:` activation event's). */
export const EXECUTION_VIEW_TYPE = 'baton.execution';


/** One execution's panel. */
export class ExecutionPanel {
  private static readonly panels = new Set<ExecutionPanel>();
  /** Set by the host to its log channel; the console otherwise. */
  static log: PanelLog = { warn: (m) => console.warn(`[baton panel] ${m}`), error: (m) => console.error(`[baton panel] ${m}`) };

  /** Set by the host: how panels reach pipeline runs and their streamed output. */
  static pipelines: PanelPipelines | undefined;

  /** Set by the host: how panels reach agent team runs and open their documents. */
  static teams: PanelTeams | undefined;

  private readonly controller: PanelController;
  private readonly disposables: vscode.Disposable[] = [];

  /** Opens the panel of an execution (or task id), or reveals it if it is already open. */
  static show(context: vscode.ExtensionContext, source: BatonSource, executionId: string, column: vscode.ViewColumn = vscode.ViewColumn.Active): ExecutionPanel {
    const open = ExecutionPanel.find(executionId);
    if (open) {
      // Where it is; opened for a tasks.md beside it, it leaves the focus in the file.
      open.panel.reveal(undefined, column !== vscode.ViewColumn.Active);
      return open;
    }
    const panel = vscode.window.createWebviewPanel(
      EXECUTION_VIEW_TYPE,
      `Baton: ${executionId.slice(0, 8)}`,
      column === vscode.ViewColumn.Active ? column : { viewColumn: column, preserveFocus: true },
      { ...ExecutionPanel.webviewOptions(context), retainContextWhenHidden: false },
    );
    return new ExecutionPanel(context, panel, source, executionId, null);
  }

  /** The open panel of an execution (or task id), if any. */
  static find(executionId: string): ExecutionPanel | undefined {
    return [...ExecutionPanel.panels].find((p) => p.controller.matches(executionId));
  }

  /** Reads every open panel again (something they show changed outside the database, such as a tasks.md buffer). */
  static refreshAll(): void {
    for (const p of ExecutionPanel.panels) void p.controller.receive({ type: 'panel/refresh' });
  }

  /** Restores panels after a reload from the `{ executionId, selectedStep }` the webview saved with `setState`. */
  static registerSerializer(context: vscode.ExtensionContext, getSource: () => BatonSource | Promise<BatonSource>): vscode.Disposable {
    return vscode.window.registerWebviewPanelSerializer(EXECUTION_VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
        const saved = typeof state === 'object' && state !== null ? (state as Record<string, unknown>) : {};
        if (!isName(saved.executionId)) {
          ExecutionPanel.log.warn('a Baton panel could not be restored: it saved no execution id');
          panel.dispose();
          return;
        }
        const open = ExecutionPanel.find(saved.executionId);
        if (open) {
          panel.dispose();
          open.panel.reveal();
          return;
        }
        panel.webview.options = ExecutionPanel.webviewOptions(context);
        const selected = isStepName(saved.selectedStep) ? saved.selectedStep : null;
        new ExecutionPanel(context, panel, await getSource(), saved.executionId, selected);
      },
    });
  }

  private static webviewOptions(context: vscode.ExtensionContext): vscode.WebviewOptions {
    return {
      enableScripts: true,
      localResourceRoots: [
        vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview'),
        vscode.Uri.joinPath(context.extensionUri, 'dist', 'codicons'),
      ],
    };
  }

  private constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly panel: vscode.WebviewPanel,
    source: BatonSource,
    executionId: string,
    selectedStep: string | null,
  ) {
    this.controller = new PanelController(source, executionId, {
      post: (message) => {
        void panel.webview.postMessage(message).then(undefined, (ex: unknown) => ExecutionPanel.log.warn(`post failed: ${errorMessage(ex)}`));
      },
      openArtifact: (artifactId) => Promise.resolve(vscode.commands.executeCommand('baton.openArtifact', artifactId)),
      onState: (state) => {
        panel.title = panelTitle(state);
      },
      log: ExecutionPanel.log,
      pipelines: ExecutionPanel.pipelines,
      teams: ExecutionPanel.teams,
    }, selectedStep);
    ExecutionPanel.panels.add(this);
    panel.webview.html = this.html();
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((raw: unknown) => void this.controller.receive(raw)),
      // Hidden webviews are torn down (retainContextWhenHidden: false); they send `panel/ready` again when shown.
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.controller.detach();
      }),
    );
  }

  /** The execution this panel shows. */
  get executionId(): string {
    return this.controller.id;
  }

  private html(): string {
    const webview = this.panel.webview;
    const dist = vscode.Uri.joinPath(this.context.extensionUri, 'dist');
    return panelHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce((n) => randomBytes(n)),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview', 'main.js')).toString(),
      codiconsUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicons', 'codicon.css')).toString(),
      title: this.panel.title,
    });
  }

  /** Stops the panel's listeners (the editor disposes the panel itself). */
  dispose(): void {
    ExecutionPanel.panels.delete(this);
    this.controller.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
