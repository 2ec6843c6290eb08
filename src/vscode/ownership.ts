// Who owns the workspace database: this editor (in-process core + HTTP endpoint) or a terminal Baton (the editor is its
// client, and takes over when that process ends). The UI holds one BatonConnection, which delegates to whichever
// source is current and re-subscribes its listeners when ownership changes.
import * as vscode from 'vscode';
import type {
  ArtifactQuery, ArtifactRecord, ExecutionFilter, ArtifactsResource, AvailableWorkflowsResource, CurrentStepResource, ExecutionSummary, StepRelease,
  GateDecision, GateDecisionResult, TimelineEvent, WorkflowStatusResource,
} from '../core/api.js';
import { BatonError, errorMessage } from '../core/errors.js';
import type { Finding } from '../core/lifecycleTypes.js';
import type { PipelineRunView } from '../core/pipelines/pipelineRuns.js';
import type { PruneRequest, PruneResult } from '../core/retention.js';
import type { SpecStartInput, SpecStatus, SpecSummary } from '../core/specTypes.js';
import type { BatonEvent, CallContext, NextStepRequest, NextStepResponse, WorkflowTemplate } from '../core/types.js';
import type { Owner } from '../host/owner.js';
import { LocalSource, type BatonSource, type SourceDisposable, type SourceEndpoint } from './batonSource.js';
import type { BatonLog } from './log.js';
import { PipelineFeed } from './pipelines/pipelineFeed.js';
import { LocalPipelines, RemotePipelines, type PipelineSource } from './pipelines/pipelineSource.js';
import { OWNER_WATCH, RemoteSource, type OwnerWatchTiming } from './remoteSource.js';
import { LocalTeams, RemoteTeams, type TeamSource } from './teams/teamSource.js';
import { teamsOf } from '../host/worker/teams.js';
import { editorSpecSource } from './specSourceEditor.js';
import { databaseFailureText, readSettings, settingsProblemsText } from './settings.js';
import { heldDatabaseText, HolderReader, type HolderSystem } from './heldDatabase.js';
import { ownerCommand, type OwnerState } from '../host/silentOwner.js';

/**
 * Where the connection stands. 'waiting': another process holds the database and serves nothing this window can use
 * (see heldDatabase.ts), from the start or since the owner this window followed was stopped or went silent; the
 * connection retries in the background and becomes 'ready' once it lets go, or answers.
 */
export type ConnectionState = 'starting' | 'ready' | 'waiting' | 'failed';

/** The failure notification's button that opens the database again (as Refresh does while it has failed). */
const TRY_AGAIN = 'Try Again';

/**
 * How long to keep trying to take over after the owner's stream ends (it releases its lock on the way out), or to find
 * the endpoint of a holder that is starting; past it, the connection waits in the background (state 'waiting').
 */
const TAKEOVER_MS = 10_000;

/** How often a waiting connection looks again whether the database's holder let go of it (or answers). */
const WAITING_RETRY_MS = 1000;

/**
 * How long the connection tries before it waits in the background, how often it looks again then, and how a terminal
 * owner it follows is watched (tests).
 */
export interface ConnectionTiming {
  takeoverMs: number;
  waitingRetryMs: number;
  watch?: OwnerWatchTiming;
  /** The system processes are read on, and its ps (tests force darwin's way on Linux). */
  system?: HolderSystem;
}

/** The editor's one BatonSource; see the file comment. */
export class BatonConnection implements BatonSource, vscode.Disposable {
  private source: BatonSource | undefined;
  private owner: Owner | undefined;
  private remote: RemoteSource | undefined;
  private forward: SourceDisposable | undefined;
  private pipelineSource: PipelineSource | undefined;
  private progress: SourceDisposable | undefined;
  private teamSource: TeamSource | undefined;
  /** What streams from the pipeline runs this editor drives (the panels read it). */
  readonly feed = new PipelineFeed();
  private readonly listeners = new Set<(event: BatonEvent) => void>();
  private readonly changed = new vscode.EventEmitter<void>();
  private readyWaiters: Array<{ resolve: (s: BatonSource) => void; reject: (ex: unknown) => void }> = [];
  private stopped = false;
  /** Bumped by every start and close, so a connect still in flight from before a restart gives up. */
  private generation = 0;
  private failure: unknown;
  /** Fires when the state, the mode or the endpoint changes (the tree re-reads, the MCP provider re-announces). */
  readonly onDidChange = this.changed.event;
  state: ConnectionState = 'starting';
  /** The database this editor uses. */
  dbPath = '';
  /** Whether `baton.database.path` chose it (a failure to open it then names the setting). */
  private customDb = false;
  /** The settings problems last shown, so a reconnect (a takeover, a restart) does not show them again. */
  private shownProblems = '';

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: BatonLog,
    private readonly version: string,
    private readonly timing: ConnectionTiming = { takeoverMs: TAKEOVER_MS, waitingRetryMs: WAITING_RETRY_MS },
  ) {}

  get mode(): 'owner' | 'client' {
    return this.source?.mode ?? 'owner';
  }

  /** Why starting failed (shown in the tree). */
  get error(): string | undefined {
    return this.failure === undefined ? undefined : (this.failure as Error).message ?? String(this.failure);
  }

  endpoint(): SourceEndpoint {
    return this.source?.endpoint() ?? { url: '', token: '' };
  }

  /** Opens or finds the owner in the background; the UI shows "Starting Baton…" until it is ready. */
  start(): void {
    this.stopped = false;
    const gen = ++this.generation;
    this.state = 'starting';
    this.failure = undefined;
    this.changed.fire();
    void this.connect(gen).catch((ex: unknown) => gen === this.generation && this.fail(ex));
  }

  /** Closes and starts again (settings or workspace trust changed). */
  async restart(): Promise<void> {
    await this.close();
    this.start();
  }

  /** Releases the database (checkpoint, discovery file, endpoint) or the client stream. */
  async close(): Promise<void> {
    this.stopped = true;
    this.generation++;
    this.forward?.dispose();
    this.forward = undefined;
    this.dropPipelines();
    this.remote?.dispose();
    this.remote = undefined;
    const owner = this.owner;
    this.owner = undefined;
    this.source = undefined;
    if (owner) await owner.close();
  }

  dispose(): void {
    void this.close();
    this.changed.dispose();
  }

  /** The current source, once there is one. */
  ready(): Promise<BatonSource> {
    if (this.source) return Promise.resolve(this.source);
    // Waiting may last as long as another process works: a command is told why at once, not left hanging.
    if (this.state === 'failed' || this.state === 'waiting') return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  private async connect(gen: number): Promise<void> {
    const stale = () => this.stopped || gen !== this.generation;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? this.context.globalStorageUri.fsPath;
    const settings = readSettings((key) => vscode.workspace.getConfiguration('baton').get(key), folder);
    for (const p of settings.problems) this.log.warn(p);
    this.showSettingsProblems(settingsProblemsText(settings.problems));
    this.dbPath = settings.dbPath;
    this.customDb = settings.customDb;
    const trusted = vscode.workspace.isTrusted;
    if (!trusted) this.log.info("workspace not trusted: the workspace's .baton/ agents, rules and workflows are not loaded");
    const { becomeOwner } = await import('../host/owner.js');
    const { ownerAnswers, readDiscovery } = await import('../host/discovery.js');
    const deadline = Date.now() + this.timing.takeoverMs;
    const holders = new HolderReader(this.timing.system);
    for (;;) {
      if (stale()) return;
      try {
        const owner = await becomeOwner({
          dbPath: settings.dbPath,
          toolGroups: settings.toolGroups,
          rateLimits: settings.rateLimits,
          tokenTtlMs: settings.tokenTtlMs,
          stallMinutes: settings.stallMinutes,
          retention: settings.retention,
          version: this.version,
          workspace: folder,
          workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
          workspaceContent: trusted,
          log: this.log,
        });
        if (stale()) return void (await owner.close());
        this.owner = owner;
        owner.opened.store.onOwnershipLost(() => void this.ownershipLost(owner));
        // Spec workflows read tasks.md from the open buffer and tick its boxes with WorkspaceEdits (undo works).
        owner.opened.baton.specs.setSourcePort(editorSpecSource);
        this.log.info(`owner of ${settings.dbPath}; MCP endpoint ${owner.endpoint.url}`);
        this.teamSource = new LocalTeams(owner.opened.baton.teams, teamsOf(owner.opened.baton));
        this.pipelineSource = new LocalPipelines(owner.opened.baton.pipelines, (runId, ex) => this.log.error(`pipeline run ${runId} failed`, ex));
        return this.use(new LocalSource(owner.opened.baton, { url: owner.endpoint.url, token: owner.endpoint.token }));
      } catch (ex) {
        if (!BatonError.is(ex, 'store_locked')) throw ex;
        const holder = typeof ex.details.ownerPid === 'number' ? ex.details.ownerPid : null;
        const found = readDiscovery(settings.dbPath);
        // Only the endpoint of the process that holds the lock, once it answers: a discovery file of another process
        // (left by one that lost the lock, or whose pid was reused) or of a stopped one would take every call nowhere.
        const info = found && found.pid === holder && (await ownerAnswers(found)) ? found : null;
        if (stale()) return;
        if (info) {
          this.log.info(`database ${settings.dbPath} is owned by Baton process ${info.pid}; using its endpoint ${info.url}`);
          const remote: RemoteSource = new RemoteSource(info, (err) => this.log.warn(`cannot follow the events of Baton process ${info.pid}`, err), {
            onSilent: (state) => this.ownerSilent(remote, state),
            timing: this.timing.watch ?? OWNER_WATCH,
            platform: this.timing.system?.platform,
            ps: this.timing.system?.ps,
          });
          this.remote = remote;
          void remote.closed.then(() => this.ownerEnded(remote));
          // Through the watched source: their calls fail with its words once the owner is found silent.
          this.pipelineSource = new RemotePipelines(remote);
          this.teamSource = new RemoteTeams(remote);
          return this.use(remote);
        }
        // A stopped holder lets go of nothing until it is resumed: say so now rather than after the takeover time.
        if (Date.now() > deadline || (holder !== null && holders.stopped(holder))) {
          this.waitFor(holder === null ? ex.message : heldDatabaseText(settings.dbPath, holders.of(holder, found?.pid === holder ? found.url : null)));
        }
      }
      await new Promise((r) => setTimeout(r, this.state === 'waiting' ? this.timing.waitingRetryMs : 250));
    }
  }

  /** A warning with Open Settings for settings that fell back to their defaults (logged alone, nobody saw them). */
  private showSettingsProblems(text: string | undefined): void {
    if ((text ?? '') === this.shownProblems) return;
    this.shownProblems = text ?? '';
    if (!text) return;
    void vscode.window.showWarningMessage(text, 'Open Settings')
      .then((pick) => pick && void vscode.commands.executeCommand('workbench.action.openSettings', '@ext:baton-dev.baton'));
  }

  /** The owner's stream ended: take over (or follow a new owner). */
  private ownerEnded(remote: RemoteSource): void {
    if (this.stopped || this.remote !== remote) return;
    this.log.info(`Baton process ${remote.pid} stopped serving the database; taking over`);
    remote.dispose();
    this.leave();
    this.state = 'starting';
    this.changed.fire();
    this.reconnect();
  }

  /**
   * Another process took the database this window owned (its lock file was deleted meanwhile, and another Baton
   * started): what the window holds in memory is not what is on disk any more, and every write is refused. It closes
   * its core and endpoint (writing nothing; the other's lock and discovery file are left alone) and connects again: to
   * the process that owns the database now, or as its owner again, reading it afresh, once that one has gone.
   */
  private async ownershipLost(owner: Owner): Promise<void> {
    if (this.stopped || this.owner !== owner) return;
    this.log.error(`another process took ${this.dbPath} (its lock file was deleted while this window owned it): this window stops answering from its copy in memory and follows the database's owner now`);
    this.owner = undefined;
    this.leave();
    this.state = 'starting';
    this.changed.fire();
    await owner.close().catch((ex: unknown) => this.log.warn(`closing the database this window lost failed: ${errorMessage(ex)}`));
    if (!this.stopped) this.reconnect();
  }

  /**
   * The owner this window follows was stopped (Ctrl-Z, a debugger) or has not answered for long: wait as for a holder
   * found so at the start (the same words, once), fail the calls waiting on it with them, and let connect() follow it
   * again once it answers (a fresh event stream, the views read again), or take over once it ends.
   */
  private ownerSilent(remote: RemoteSource, state: OwnerState): void {
    if (this.stopped || this.remote !== remote) return;
    // The watch read the state already (from ps, where there is no /proc): not read again.
    const { platform, ps } = this.timing.system ?? {};
    const command = ownerCommand(remote.pid, undefined, platform, ps);
    const text = heldDatabaseText(this.dbPath, { pid: remote.pid, url: remote.endpoint().url, state, command });
    remote.silenced(text);
    this.leave();
    this.waitFor(text);
    this.reconnect();
  }

  /** Drops the remote owner's source, its event forwarding, pipelines and teams (it went away or went silent). */
  private leave(): void {
    this.remote = undefined;
    this.forward?.dispose();
    this.forward = undefined;
    this.dropPipelines();
    this.source = undefined;
  }

  private reconnect(): void {
    const gen = this.generation;
    void this.connect(gen).catch((ex: unknown) => gen === this.generation && this.fail(ex));
  }

  private dropPipelines(): void {
    this.progress?.dispose();
    this.progress = undefined;
    this.pipelineSource = undefined;
    this.teamSource = undefined;
  }

  /** Agent team runs: in this editor's process when it owns the database, else through the owner. */
  async teams(): Promise<TeamSource> {
    await this.ready();
    if (!this.teamSource) throw new BatonError('invalid_state', 'Baton is not connected to its database; see Baton: Show Log.');
    return this.teamSource;
  }

  /** Pipeline runs: in this editor's core when it owns the database, else through the owner. */
  async pipelines(): Promise<PipelineSource> {
    await this.ready();
    if (!this.pipelineSource) throw new BatonError('invalid_state', 'Baton is not connected to its database; see Baton: Show Log.');
    return this.pipelineSource;
  }

  /** A pipeline run's view, read from whichever source is current at the call (this editor's core, or the owner). */
  async pipelineView(runId: string): Promise<PipelineRunView> {
    return (await this.pipelines()).view(runId);
  }

  /**
   * Another process holds the database past the takeover time and serves nothing usable: say which, and how to get it
   * back (`text`: once; the tree and commands say it while it lasts), and wait: connect() goes on trying in the
   * background.
   */
  private waitFor(text: string): void {
    if (this.state === 'waiting' && this.error === text) return;
    const first = this.state !== 'waiting';
    this.failure = new Error(text);
    this.state = 'waiting';
    this.log.warn(`Baton waits for its database: ${text}`);
    if (first) {
      void vscode.window.showWarningMessage(`Baton: ${text}`, 'Show Log').then((pick) => pick && this.log.channel.show());
    }
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of waiters) w.reject(this.failure);
    this.changed.fire();
  }

  private use(source: BatonSource): void {
    if (this.state === 'waiting') {
      // The warning may still be on screen: say that it is over.
      this.log.info(`the database ${this.dbPath} is free again; Baton is back`);
      void vscode.window.showInformationMessage(`Baton: the database ${this.dbPath} is usable again (${this.remote ? `through Baton process ${this.remote.pid}` : 'this window owns it now'}).`);
    }
    this.failure = undefined;
    this.source = source;
    this.progress = this.pipelineSource?.onProgress((p) => this.feed.add(p));
    this.forward = source.onEvent((e) => {
      for (const l of [...this.listeners]) l(e);
    });
    this.state = 'ready';
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of waiters) w.resolve(source);
    this.changed.fire();
  }

  private fail(ex: unknown): void {
    // A system error (ENOENT, EACCES) names neither the database nor the way on; Baton's own errors say both.
    this.failure = BatonError.is(ex) || !this.dbPath ? ex : new Error(databaseFailureText(this.dbPath, this.customDb, errorMessage(ex)));
    this.state = 'failed';
    this.log.error('Baton could not open its database', ex);
    const settings = this.customDb ? ['Open Settings'] : [];
    // Try Again: a cause fixed outside the settings (a folder made writable) is otherwise picked up only by a reload.
    void vscode.window.showErrorMessage(`Baton: ${this.error}`, ...settings, 'Show Log', TRY_AGAIN).then((pick) => {
      if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'baton.database.path');
      else if (pick === 'Show Log') this.log.channel.show();
      else if (pick === TRY_AGAIN && this.state === 'failed') void this.restart();
    });
    // A command that waited for the database says what a later one does: the file, why, and what to change.
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of waiters) w.reject(this.failure);
    this.changed.fire();
  }

  // ---- BatonSource, delegated to the current source ----

  async listExecutions(filter?: ExecutionFilter): Promise<ExecutionSummary[]> {
    return (await this.ready()).listExecutions(filter);
  }

  async workflowStatus(id: string, opts?: { artifacts?: boolean }): Promise<WorkflowStatusResource> {
    return (await this.ready()).workflowStatus(id, opts);
  }

  async currentStep(id: string): Promise<CurrentStepResource> {
    return (await this.ready()).currentStep(id);
  }

  async events(executionId: string): Promise<TimelineEvent[]> {
    return (await this.ready()).events(executionId);
  }

  async availableWorkflows(): Promise<AvailableWorkflowsResource> {
    return (await this.ready()).availableWorkflows();
  }

  async templates(): Promise<WorkflowTemplate[]> {
    return (await this.ready()).templates();
  }

  async artifact(artifactId: string): Promise<ArtifactRecord | undefined> {
    return (await this.ready()).artifact(artifactId);
  }

  async artifacts(query: ArtifactQuery): Promise<ArtifactsResource> {
    return (await this.ready()).artifacts(query);
  }

  async findings(executionId: string): Promise<Finding[]> {
    return (await this.ready()).findings(executionId);
  }

  async decide(decision: GateDecision): Promise<GateDecisionResult> {
    return (await this.ready()).decide(decision);
  }

  async cancel(executionId: string, reason?: string): Promise<ExecutionSummary> {
    return (await this.ready()).cancel(executionId, reason);
  }

  async release(executionId: string, stepName: string): Promise<StepRelease> {
    return (await this.ready()).release(executionId, stepName);
  }

  async nextStep(req: NextStepRequest, ctx?: CallContext): Promise<NextStepResponse> {
    return (await this.ready()).nextStep(req, ctx);
  }

  async prune(req?: PruneRequest): Promise<PruneResult> {
    return (await this.ready()).prune(req);
  }

  async startWorkflow(templateName: string, taskDescription?: string): Promise<ExecutionSummary> {
    return (await this.ready()).startWorkflow(templateName, taskDescription);
  }

  async guardrails(): Promise<string> {
    return (await this.ready()).guardrails();
  }

  async startSpec(input: SpecStartInput): Promise<SpecSummary> {
    return (await this.ready()).startSpec(input);
  }

  async specStatus(id: string): Promise<SpecStatus> {
    return (await this.ready()).specStatus(id);
  }

  async listSpecs(filter?: { source?: string; limit?: number }): Promise<SpecSummary[]> {
    return (await this.ready()).listSpecs(filter);
  }

  onEvent(listener: (event: BatonEvent) => void): SourceDisposable {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }
}
