// The per-execution webview panel: one per execution, fed from the BatonSource's events (debounced), talking to its
// webview through the typed protocol in src/shared/protocol.ts, restored after a reload by a WebviewPanelSerializer.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { BatonEvent } from '../../core/types.js';
import { isName, parseFromWebview } from '../../shared/protocol.js';
import type { FromWebview, PanelState, ToWebview } from '../../shared/protocol.js';
import type { BatonSource } from '../batonSource.js';
import { makeNonce, panelHtml } from './panelHtml.js';
import { buildPanelState } from './panelState.js';

/** The panel's view type (also the serializer's and the `onWebviewPanel:` activation event's). */
export const EXECUTION_VIEW_TYPE = 'baton.execution';
/** How long source events are gathered before the panel is refreshed. */
const UPDATE_DEBOUNCE_MS = 100;
const ARTIFACT_LIMIT = 500;

/** Where the panel reports what it ignored or failed at (structurally a `LogOutputChannel`). */
export interface PanelLog {
  warn(message: string): void;
  error(message: string): void;
}

/** Reads everything the panel shows, in parallel; the current step, guardrails and templates are optional extras. */
export async function loadPanelState(source: BatonSource, executionId: string, selectedStep: string | null): Promise<PanelState> {
  const status = await source.workflowStatus(executionId);
  const id = status.execution_id;
  const [current, events, artifacts, guardrails, templates] = await Promise.all([
    source.currentStep(id).catch(() => null),
    source.events(id),
    source.artifacts({ type: 'execution', execution_id: id, limit: ARTIFACT_LIMIT }).then((r) => r.artifacts),
    source.guardrails().catch(() => ''),
    source.templates().catch(() => []),
  ]);
  const definitions = templates.find((t) => t.name === status.workflow)?.steps ?? [];
  return buildPanelState(status, current, events, artifacts, guardrails, selectedStep, definitions);
}

function messageOf(ex: unknown): string {
  return ex instanceof Error ? ex.message : String(ex);
}

/** One execution's panel. */
export class ExecutionPanel {
  private static readonly panels = new Set<ExecutionPanel>();
  /** Set by the host to its log channel; the console otherwise. */
  static log: PanelLog = { warn: (m) => console.warn(`[baton panel] ${m}`), error: (m) => console.error(`[baton panel] ${m}`) };

  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  private selectedStep: string | null = null;
  /** The canonical execution id once the first state is read (the panel may be opened with a task id). */
  private resolvedId: string | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private loadSeq = 0;

  /** Opens the panel of an execution, or reveals it if it is already open. */
  static show(context: vscode.ExtensionContext, source: BatonSource, executionId: string): ExecutionPanel {
    const open = [...ExecutionPanel.panels].find((p) => p.matches(executionId));
    if (open) {
      open.panel.reveal();
      return open;
    }
    const panel = vscode.window.createWebviewPanel(
      EXECUTION_VIEW_TYPE,
      `Baton: ${executionId.slice(0, 8)}`,
      vscode.ViewColumn.Active,
      { ...ExecutionPanel.webviewOptions(context), retainContextWhenHidden: false },
    );
    return new ExecutionPanel(context, panel, source, executionId, null);
  }

  /** Restores panels after a reload from the `{ executionId }` the webview saved with `setState`. */
  static registerSerializer(context: vscode.ExtensionContext, getSource: () => BatonSource | Promise<BatonSource>): vscode.Disposable {
    return vscode.window.registerWebviewPanelSerializer(EXECUTION_VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
        const saved = typeof state === 'object' && state !== null ? (state as Record<string, unknown>) : {};
        if (!isName(saved.executionId)) {
          ExecutionPanel.log.warn('a Baton panel could not be restored: it saved no execution id');
          panel.dispose();
          return;
        }
        const executionId = saved.executionId;
        const open = [...ExecutionPanel.panels].find((p) => p.matches(executionId));
        if (open) {
          panel.dispose();
          open.panel.reveal();
          return;
        }
        panel.webview.options = ExecutionPanel.webviewOptions(context);
        const selected = isName(saved.selectedStep) ? saved.selectedStep : null;
        new ExecutionPanel(context, panel, await getSource(), executionId, selected);
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
    private readonly source: BatonSource,
    private readonly executionId: string,
    selectedStep: string | null,
  ) {
    this.selectedStep = selectedStep;
    ExecutionPanel.panels.add(this);
    panel.webview.html = this.html();
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      // Hidden webviews are torn down (retainContextWhenHidden: false); they send `panel/ready` again when shown.
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
      source.onEvent((e) => this.onSourceEvent(e)),
    );
  }

  /** The execution this panel shows (as opened, then canonical once read). */
  get id(): string {
    return this.resolvedId ?? this.executionId;
  }

  private matches(id: string): boolean {
    return id === this.executionId || id === this.resolvedId;
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

  private post(message: ToWebview): void {
    void this.panel.webview.postMessage(message).then(undefined, (ex: unknown) => ExecutionPanel.log.warn(`post failed: ${messageOf(ex)}`));
  }

  private receive(raw: unknown): void {
    const msg = parseFromWebview(raw);
    if (!msg) {
      ExecutionPanel.log.warn(`ignored an invalid message from the panel of ${this.id}: ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    void this.handle(msg);
  }

  private async handle(msg: FromWebview): Promise<void> {
    switch (msg.type) {
      case 'panel/ready':
        this.ready = true;
        await this.push('init');
        return;
      case 'panel/refresh':
        await this.push('update');
        return;
      case 'panel/selectStep':
        this.selectedStep = msg.stepName;
        return;
      case 'panel/openArtifact':
        await vscode.commands.executeCommand('baton.openArtifact', msg.artifactId).then(undefined, (ex: unknown) => {
          this.post({ type: 'panel/error', message: `Could not open artifact ${msg.artifactId}: ${messageOf(ex)}` });
        });
        return;
      case 'panel/approve':
        await this.decide(msg.stepName, 'approve');
        return;
      case 'panel/reject':
        await this.decide(msg.stepName, 'reject', msg.feedback);
        return;
      default: {
        const never: never = msg;
        ExecutionPanel.log.warn(`unhandled panel message ${JSON.stringify(never)}`);
      }
    }
  }

  /** Decides a gate; if it was already decided elsewhere (CLI, notification, another window) just refresh. */
  private async decide(stepName: string, decision: 'approve' | 'reject', feedback?: string): Promise<void> {
    try {
      await this.source.decide({ execution_id: this.id, step_name: stepName, decision, ...(feedback === undefined ? {} : { feedback }) });
    } catch (ex) {
      const still = await this.source.workflowStatus(this.id).then(
        (s) => s.steps.some((st) => st.step_name === stepName && st.status === 'awaiting_approval'),
        () => true,
      );
      if (still) this.post({ type: 'panel/error', message: messageOf(ex) });
      else ExecutionPanel.log.warn(`${decision} of ${stepName} skipped: already decided (${messageOf(ex)})`);
    }
    await this.push('update');
  }

  private onSourceEvent(e: BatonEvent): void {
    const relevant =
      e.type === 'content' ||
      ('execution_id' in e && this.matches(e.execution_id)) ||
      (e.type === 'execution' && e.task_id !== null && this.matches(e.task_id));
    if (!relevant) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.push('update');
    }, UPDATE_DEBOUNCE_MS);
  }

  /** Reads the state and posts it; only the newest read is posted, and only to a live webview. */
  private async push(kind: 'init' | 'update'): Promise<void> {
    if (!this.ready) return;
    const seq = ++this.loadSeq;
    try {
      const state = await loadPanelState(this.source, this.id, this.selectedStep);
      if (seq !== this.loadSeq || !this.ready) return;
      this.resolvedId = state.executionId;
      this.panel.title = `Baton: ${state.workflow ?? state.executionId}`;
      this.post(kind === 'init' ? { type: 'panel/init', executionId: state.executionId, state } : { type: 'panel/update', state });
    } catch (ex) {
      if (seq !== this.loadSeq) return;
      ExecutionPanel.log.error(`could not read execution ${this.id}: ${messageOf(ex)}`);
      this.post({ type: 'panel/error', message: `Could not read execution ${this.id}: ${messageOf(ex)}` });
    }
  }

  /** Closes the panel's listeners (the editor disposes the panel itself). */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    ExecutionPanel.panels.delete(this);
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
