// Pipeline runs as the editor reaches them: in its own core when it owns the database (runs are driven in this
// process, so their progress streams to the panel), else through the owner's /control endpoint, the way
// `baton pipeline run` does (the owner drives them; the panel follows the database's events). No 'vscode' import.
import type { PipelineRunSummary, PipelineRunView, PipelineRuns } from '../../core/pipelines/pipelineRuns.js';
import type { Budget, PipelineProgress, System } from '../../core/pipelines/types.js';
import type { ControlRequest } from '../../host/ownerServer.js';
import type { SourceDisposable } from '../batonSource.js';
import type { OwnerControl } from '../remoteSource.js';

/** What a run starts with. */
export interface PipelineStart {
  input: string;
  variables?: Record<string, string>;
  budget?: Budget;
  /** The agents' working folder (the workspace). */
  cwd: string;
  /** The system file, when it came from one. */
  source?: string;
}

/** Pipeline runs for the editor's command, panel and tree. */
export interface PipelineSource {
  /** Whether streamed progress (agent output, tool calls) reaches this editor: only for runs it drives. */
  readonly live: boolean;
  runs(): Promise<PipelineRunSummary[]>;
  view(runId: string): Promise<PipelineRunView>;
  /** Creates the run and has it driven (here, or by the owner); answers with its id at once. */
  start(system: System, start: PipelineStart): Promise<string>;
  /** Resumes a paused or interrupted run, with `budget` replacing its limits. */
  resume(runId: string, budget?: Budget): Promise<void>;
  onProgress(listener: (p: PipelineProgress) => void): SourceDisposable;
}

/** Where a background drive's failure is reported. */
export type DriveFailure = (runId: string, ex: unknown) => void;

/** The editor owns the database: runs are driven in this process. */
export class LocalPipelines implements PipelineSource {
  readonly live = true;

  constructor(private readonly pipelines: PipelineRuns, private readonly failed: DriveFailure) {}

  async runs(): Promise<PipelineRunSummary[]> {
    return this.pipelines.list();
  }

  async view(runId: string): Promise<PipelineRunView> {
    return this.pipelines.view(runId);
  }

  async start(system: System, start: PipelineStart): Promise<string> {
    const runId = await this.pipelines.start(system, start);
    this.drive(runId);
    return runId;
  }

  async resume(runId: string, budget?: Budget): Promise<void> {
    await this.pipelines.prepareResume(runId, budget);
    this.drive(runId);
  }

  private drive(runId: string): void {
    void this.pipelines.drive(runId).catch((ex: unknown) => this.failed(runId, ex));
  }

  onProgress(listener: (p: PipelineProgress) => void): SourceDisposable {
    return { dispose: this.pipelines.watch(listener) };
  }
}

/**
 * A terminal Baton owns the database: runs start and resume there (`pipeline_start` / `pipeline_resume`), through the
 * window's watched connection to it (a call waiting on an owner found silent fails then, in the window's words).
 */
export class RemotePipelines implements PipelineSource {
  readonly live = false;

  constructor(private readonly owner: OwnerControl) {}

  private async result<T>(request: ControlRequest): Promise<T> {
    return ((await this.owner.control(request)) as { result: T }).result;
  }

  runs(): Promise<PipelineRunSummary[]> {
    return this.result({ op: 'pipeline_runs' });
  }

  view(runId: string): Promise<PipelineRunView> {
    return this.result({ op: 'pipeline_run', run_id: runId });
  }

  async start(system: System, start: PipelineStart): Promise<string> {
    return (await this.result<{ runId: string }>({ op: 'pipeline_start', system, ...start })).runId;
  }

  async resume(runId: string, budget?: Budget): Promise<void> {
    await this.result({ op: 'pipeline_resume', run_id: runId, budget });
  }

  onProgress(): SourceDisposable {
    return { dispose: () => undefined };
  }
}
