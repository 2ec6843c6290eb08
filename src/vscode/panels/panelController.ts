// The panel's behaviour without the editor: validates what the webview sends, answers `panel/ready` with the state,
// decides gates, pushes debounced updates on the source's events. No 'vscode' import, so it is unit-tested with fakes;
// ExecutionPanel wires it to a real WebviewPanel.
import type { BatonEvent } from '../../core/types.js';
import { parseFromWebview } from '../../shared/protocol.js';
import type { FromWebview, PanelState, ToWebview } from '../../shared/protocol.js';
import { BatonError, errorMessage } from '../../core/errors.js';
import { Coalescer, REFRESH_TIMES } from '../coalescer.js';
import type { BatonSource, SourceDisposable } from '../batonSource.js';
import type { PipelineFeed } from '../pipelines/pipelineFeed.js';
import type { PipelineSource } from '../pipelines/pipelineSource.js';
import { buildPanelPipeline, reviewSubmissions } from './panelPipeline.js';
import { buildPanelSpec } from './panelSpec.js';
import { buildPanelState } from './panelState.js';
import { PanelTeamPart, type PanelTeams } from './panelTeam.js';

/** How long source events are gathered before the panel is refreshed (and, under a steady stream, the longest wait). */
export const UPDATE_DEBOUNCE_MS = REFRESH_TIMES.quietMs;
/** How many artifacts the panel lists at first, and how many more each "Show more" adds (the newest first). */
export const ARTIFACTS_SHOWN = 100;
/** What a panel says once retention deleted its run (it reads nothing after that). */
export const PRUNED_MESSAGE = 'This run was pruned by retention; its record is gone.';

/** Where the panel reports what it ignored or failed at (structurally a `LogOutputChannel`). */
export interface PanelLog {
  warn(message: string): void;
  error(message: string): void;
}

/** What the controller needs from its host (the webview panel, the editor's commands). */
export interface PanelHost {
  post(message: ToWebview): void;
  openArtifact(artifactId: string): Promise<unknown>;
  /** Called with every state posted (the panel's title follows the workflow name). */
  onState?(state: PanelState): void;
  log: PanelLog;
  /** Pipeline runs and their streamed output, when this editor serves them. */
  pipelines?: PanelPipelines;
  /** Agent team runs, when this editor serves them. */
  teams?: PanelTeams;
}

/** How a panel reaches pipeline runs. */
export interface PanelPipelines {
  source(): Promise<PipelineSource>;
  feed: PipelineFeed;
}

/**
 * Reads everything the panel shows, in parallel; the current step, guardrails and templates are optional extras. The
 * artifact list is the newest `artifactLimit`, read so (a run with thousands lists a screenful), with the run's count.
 */
export async function loadPanelState(
  source: BatonSource, executionId: string, selectedStep: string | null, artifactLimit = ARTIFACTS_SHOWN,
): Promise<PanelState> {
  // The steps' artifacts are not read with the status: the capped list below is all the panel shows of them.
  const status = await source.workflowStatus(executionId, { artifacts: false });
  const id = status.execution_id;
  const [current, events, artifacts, guardrails, templates] = await Promise.all([
    source.currentStep(id).catch(() => null),
    source.events(id),
    source.artifacts({ type: 'execution', execution_id: id, limit: artifactLimit, newest_first: true }),
    source.guardrails().catch(() => ''),
    source.templates().catch(() => []),
  ]);
  const template = templates.find((t) => t.name === status.workflow);
  const state = buildPanelState(status, current, events, artifacts.artifacts, guardrails, selectedStep, template?.steps ?? []);
  state.artifactsTotal = Math.max(artifacts.total, state.artifacts.length);
  // A spec workflow's phases come with their tasks, gates and evidence (if its status cannot be read, the steps alone).
  if (template?.dynamic_phases) state.spec = await source.specStatus(id).then(buildPanelSpec, () => null);
  return state;
}


/** One execution's panel logic. */
export class PanelController {
  private ready = false;
  private selectedStep: string | null;
  /** The canonical execution id once the first state is read (the panel may be opened with a task id). */
  private resolvedId: string | null = null;
  private readonly updates: Coalescer;
  private loadSeq = 0;
  private readonly subscription: SourceDisposable;
  private readonly unfeed: () => void;
  /** Whether the execution is a pipeline run (unknown until first read). */
  private pipeline: boolean | undefined;
  private readonly team: PanelTeamPart;
  /** Set once retention deleted the run: there is nothing left to read. */
  private pruned = false;
  /** How many artifacts the list shows (grows by ARTIFACTS_SHOWN with each "Show more"). */
  private artifactLimit = ARTIFACTS_SHOWN;

  constructor(
    private readonly source: BatonSource,
    private readonly executionId: string,
    private readonly host: PanelHost,
    selectedStep: string | null = null,
    debounceMs = UPDATE_DEBOUNCE_MS,
  ) {
    this.selectedStep = selectedStep;
    this.updates = new Coalescer(() => void this.push('update'), { quietMs: debounceMs, maxWaitMs: Math.max(debounceMs, REFRESH_TIMES.maxWaitMs) });
    this.team = new PanelTeamPart(host.teams);
    this.subscription = source.onEvent((e) => this.onSourceEvent(e));
    this.unfeed = host.pipelines?.feed.onChange((runId) => {
      if (this.matches(runId)) this.updateSoon();
    }) ?? (() => undefined);
  }

  /** The execution shown (as opened, then canonical once read). */
  get id(): string {
    return this.resolvedId ?? this.executionId;
  }

  /** Whether `id` (execution or task id) names this panel's execution. */
  matches(id: string): boolean {
    return id === this.executionId || id === this.resolvedId;
  }

  /** The webview went away (hidden with retainContextWhenHidden off); it says `panel/ready` again when shown. */
  detach(): void {
    this.ready = false;
  }

  /** A raw message from the webview: validated, then handled; invalid ones are logged and dropped. */
  receive(raw: unknown): Promise<void> {
    const msg = parseFromWebview(raw);
    if (!msg) {
      this.host.log.warn(`ignored an invalid message from the panel of ${this.id}: ${JSON.stringify(raw)?.slice(0, 200)}`);
      return Promise.resolve();
    }
    return this.handle(msg);
  }

  private async handle(msg: FromWebview): Promise<void> {
    switch (msg.type) {
      case 'panel/ready':
        this.ready = true;
        return this.push('init');
      case 'panel/refresh':
        return this.push('update');
      case 'panel/moreArtifacts':
        this.artifactLimit += ARTIFACTS_SHOWN;
        return this.push('update');
      case 'panel/selectStep':
        this.selectedStep = msg.stepName;
        return;
      case 'panel/openArtifact':
        await this.host.openArtifact(msg.artifactId).then(undefined, (ex: unknown) => {
          this.host.post({ type: 'panel/error', message: `Could not open artifact ${msg.artifactId}: ${errorMessage(ex)}` });
        });
        return;
      case 'panel/approve':
        return this.decide(msg.stepName, 'approve');
      case 'panel/reject':
        return this.decide(msg.stepName, 'reject', msg.feedback);
      case 'pipeline/resume':
        return this.resume(msg.tokens, msg.usd);
      case 'team/send':
        return this.teamAction(() => this.team.send(this.id, msg.message), 'Could not post to the channel');
      case 'team/openDocument':
        return this.teamAction(() => this.team.open(this.id, msg.name), `Could not open ${msg.name}`);
      case 'team/stop':
        return this.teamAction(async () => void (await this.team.stop(this.id, msg.agent)), `Could not stop ${msg.agent ?? 'the team'}`);
      default: {
        const never: never = msg;
        this.host.log.warn(`unhandled panel message ${JSON.stringify(never)}`);
      }
    }
  }

  /** Decides a gate; if it was already decided elsewhere (CLI, notification, another window) just refresh. */
  private async decide(stepName: string, decision: 'approve' | 'reject', feedback?: string): Promise<void> {
    try {
      await this.source.decide({ execution_id: this.id, step_name: stepName, decision, ...(feedback === undefined ? {} : { feedback }) });
    } catch (ex) {
      const stillWaiting = await this.source.workflowStatus(this.id).then(
        (s) => s.steps.some((st) => st.step_name === stepName && st.status === 'awaiting_approval'),
        () => true,
      );
      if (stillWaiting) this.host.post({ type: 'panel/error', message: errorMessage(ex) });
      else this.host.log.warn(`${decision} of ${stepName} skipped: already decided (${errorMessage(ex)})`);
    }
    await this.push('update');
  }

  /** A team action from the panel; a failure is shown in the panel. The state is posted again either way. */
  private async teamAction(act: () => Promise<void>, what: string): Promise<void> {
    try {
      await act();
    } catch (ex) {
      this.host.post({ type: 'panel/error', message: `${what}: ${errorMessage(ex)}` });
    }
    await this.push('update');
  }

  /** Resumes a paused run (here, or through the owner), with its budget raised to what is given. */
  private async resume(tokens: number | null, usd: number | null): Promise<void> {
    try {
      const pipelines = this.host.pipelines;
      if (!pipelines) throw new Error('this editor does not run pipelines');
      const budget = tokens === null && usd === null ? undefined : { ...(tokens === null ? {} : { tokens }), ...(usd === null ? {} : { usd }) };
      await (await pipelines.source()).resume(this.id, budget);
    } catch (ex) {
      this.host.post({ type: 'panel/error', message: `Could not resume run ${this.id}: ${errorMessage(ex)}` });
    }
    await this.push('update');
  }

  private onSourceEvent(e: BatonEvent): void {
    if (e.type === 'pruned') {
      if (e.execution_ids.some((id) => this.matches(id))) this.gone();
      return;
    }
    const relevant =
      e.type === 'content' ||
      ('execution_id' in e && this.matches(e.execution_id)) ||
      (e.type === 'execution' && e.task_id !== null && this.matches(e.task_id));
    if (relevant) this.updateSoon();
  }

  /** The run was pruned: drop any pending or in-flight read and say so. */
  private gone(): void {
    this.pruned = true;
    this.updates.cancel();
    this.loadSeq++;
    if (this.ready) this.host.post({ type: 'panel/error', message: PRUNED_MESSAGE });
  }

  private updateSoon(): void {
    if (!this.ready || this.pruned) return;
    this.updates.schedule();
  }

  /** Reads the state and posts it; only the newest read is posted, and only to a live webview. */
  private async push(kind: 'init' | 'update'): Promise<void> {
    if (!this.ready) return;
    // A webview shown again (or refreshed) after its run was pruned is told so instead of failing to read it.
    if (this.pruned) return this.host.post({ type: 'panel/error', message: PRUNED_MESSAGE });
    const seq = ++this.loadSeq;
    try {
      const state = await loadPanelState(this.source, this.id, this.selectedStep, this.artifactLimit);
      state.team = await this.team.load(state.executionId);
      if (!state.team) state.pipeline = await this.loadPipeline(state);
      // A pipeline's review has no agent's submission: what the run asks is what the person decides on.
      if (state.pipeline) {
        const missing = state.awaiting.filter((name) => !state.submissions.some((x) => x.stepName === name));
        state.submissions.push(...reviewSubmissions(state.pipeline, missing, state.artifacts));
      }
      if (seq !== this.loadSeq || !this.ready) return;
      this.resolvedId = state.executionId;
      this.host.onState?.(state);
      this.host.post(kind === 'init' ? { type: 'panel/init', executionId: state.executionId, state } : { type: 'panel/update', state });
    } catch (ex) {
      if (seq !== this.loadSeq) return;
      this.host.log.error(`could not read execution ${this.id}: ${errorMessage(ex)}`);
      this.host.post({ type: 'panel/error', message: `Could not read execution ${this.id}: ${errorMessage(ex)}` });
    }
  }

  /** The pipeline part of the state, for a pipeline run; null for other executions. */
  private async loadPipeline(state: PanelState): Promise<PanelState['pipeline']> {
    const pipelines = this.host.pipelines;
    if (!pipelines || this.pipeline === false) return null;
    const source = await pipelines.source();
    try {
      const view = await source.view(state.executionId);
      this.pipeline = true;
      const rows = state.steps.map((s) => ({ step_name: s.name, status: s.status, attempt: s.attempt, outcome_summary: s.summary }));
      return buildPanelPipeline(view, rows, pipelines.feed, source.live);
    } catch (ex) {
      if (!BatonError.is(ex, 'execution_not_found')) throw ex;
      this.pipeline = false;
      return null;
    }
  }

  /** Stops listening to the source. */
  dispose(): void {
    this.updates.cancel();
    this.unfeed();
    this.subscription.dispose();
  }
}
