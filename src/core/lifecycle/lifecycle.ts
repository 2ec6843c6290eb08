// Lifecycle of executions and steps for the lifecycle tools: start, transition, resume, complete, timeouts and
// dependencies, on the broker's tables and through the one state machine.
import type { ContentCache } from '../broker/contentCache.js';
import type { ExecutionRepo } from '../broker/executionRepo.js';
import { BatonError, echo } from '../errors.js';
import type { CorePorts } from '../ports.js';
import { earlierStart } from '../requestKeys.js';
import type { BatonEvent, ExecutionStatus, StepStatus } from '../types.js';
import type { ContractValidator } from './contracts.js';
import type { Projects } from './projects.js';
import { RESUMABLE_STATES, TERMINAL_STATES, assertTransition } from '../stateMachine.js';
import type {
  ContractCheck, StartExecutionInput, StartStepInput, TransitionResult, WorkflowExecution, WorkflowPhase, WorkflowStep,
} from '../lifecycleTypes.js';
import { toExecutionView, toStepView } from './views.js';

/** What the lifecycle needs from the facade. */
export interface LifecycleDeps {
  ports: CorePorts;
  repo: ExecutionRepo;
  content: ContentCache;
  contracts: ContractValidator;
  projects: Projects;
  /** The workspace project. */
  projectId: () => number;
  /** Emits events once the write that caused them is durable. */
  emit: (events: BatonEvent[]) => void;
  /** Appends to the audit timeline (inside the current transaction). */
  event: (executionId: string, type: string, data: unknown) => void;
}

type Raw = Record<string, unknown>;

const DONE: ReadonlySet<StepStatus> = new Set(['completed', 'skipped']);

/** The phases a lifecycle execution took from its template (kept in its metadata); none for other executions. */
function phasesOf(r: Raw): WorkflowPhase[] {
  return (JSON.parse(String(r.metadata ?? '{}')) as { phases?: WorkflowPhase[] }).phases ?? [];
}
const OPEN_STATES: readonly ExecutionStatus[] = ['pending', 'running', 'paused', 'awaiting_approval', 'timeout', 'escalated'];

/** Executions and steps driven by the lifecycle tools. */
export class Lifecycle {
  constructor(private readonly deps: LifecycleDeps) {}

  private get store() {
    return this.deps.ports.store;
  }

  private now(): { ms: number; iso: string } {
    const ms = this.deps.ports.clock.now();
    return { ms, iso: new Date(ms).toISOString() };
  }

  /** An execution row by execution id or task id; throws `execution_not_found`. */
  row(id: string): Raw {
    const r = this.store.get<Raw>('SELECT * FROM executions WHERE execution_id = ?', [id])
      ?? this.store.get<Raw>('SELECT * FROM executions WHERE task_id = ? ORDER BY started_at DESC LIMIT 1', [id]);
    if (!r) throw new BatonError('execution_not_found', `No execution ${echo(id)}; find ids with get_incomplete_executions or get_execution_history.`);
    return r;
  }

  /** An execution in the spec's shape. */
  execution(id: string, withPhases = true): WorkflowExecution {
    return toExecutionView(this.row(id), withPhases);
  }

  /**
   * Creates a `pending` execution of a workflow template, associated with a project; its phases come from the template.
   * With `requestKey`, a key recorded already gives the execution it created as it is now, and none is created.
   */
  async startExecution(input: StartExecutionInput, requestKey?: string): Promise<WorkflowExecution> {
    const template = this.deps.content.template(input.workflowName);
    if (!template) {
      const names = this.deps.content.templates().map((t) => t.name);
      throw new BatonError('template_not_found', `No workflow ${echo(input.workflowName)}${this.deps.content.leftOutNote('workflows', input.workflowName)}. Workflows: ${names.join(', ') || '(none)'}; see search_workflows.`);
    }
    let projectId = this.deps.projectId();
    if (input.projectId !== undefined) {
      if (!this.deps.projects.byId(input.projectId)) throw new BatonError('not_found', `No project ${input.projectId}; see list_projects, or pass projectPath.`);
      projectId = input.projectId;
    } else if (input.projectPath !== undefined) {
      projectId = (await this.deps.projects.discover(input.projectPath)).id;
    }
    const parallel = template.type !== 'sequential';
    const phases: WorkflowPhase[] = template.steps.map((s) => ({
      phase: s.name, agent: s.agent, description: s.description, dependsOn: s.dependencies, allowParallel: s.allow_parallel ?? parallel,
    }));
    const { iso } = this.now();
    const id = this.deps.ports.ids.uuid();
    const earlier = await this.store.transaction(() => {
      const earlier = requestKey === undefined ? undefined : earlierStart(this.store, requestKey, id, iso);
      if (earlier !== undefined) return earlier;
      this.store.run(
        `INSERT INTO executions (execution_id, kind, template_id, template_name, task_id, project_id, status, progress, started_at, updated_at,
           created_at, timeout_ms, metadata) VALUES (?, 'template', ?, ?, NULL, ?, 'pending', 0, ?, ?, ?, ?, ?)`,
        [id, template.id, template.name, projectId, iso, iso, iso, input.timeoutMs ?? null,
          JSON.stringify({ origin: 'lifecycle', user: input.metadata ?? null, phases })],
      );
      this.deps.event(id, 'execution_created', { workflow: template.name, project_id: projectId, timeout_ms: input.timeoutMs ?? null });
      return undefined;
    });
    if (earlier !== undefined) return this.execution(earlier);
    this.deps.emit([{ type: 'execution', execution_id: id, task_id: null, status: 'pending' }]);
    return this.execution(id);
  }

  /** Moves an execution to `to` (checked against the state machine); `error` is kept with it. */
  async transition(id: string, to: ExecutionStatus, error?: string, output?: unknown): Promise<TransitionResult> {
    const { result, events } = await this.store.transaction(() => {
      const events: BatonEvent[] = [];
      const r = this.row(id);
      this.assertNoGatePassed(r, to);
      const result = this.transitionInTx(r, to, events, error, output);
      return { result, events };
    });
    this.deps.emit(events);
    return result;
  }

  /** Brings a `timeout`, `escalated` or `paused` execution back to `running` (its timeout starts again). */
  async resume(id: string): Promise<TransitionResult> {
    const r = this.row(id);
    const state = r.status as ExecutionStatus;
    if (!RESUMABLE_STATES.includes(state)) {
      throw new BatonError('invalid_state', `Execution ${String(r.execution_id)} is ${state}; only ${RESUMABLE_STATES.join(', ')} executions can be resumed${state === 'pending' ? ' (start it with transition_workflow_state newState "running")' : ''}.`);
    }
    return this.transition(String(r.execution_id), 'running');
  }

  /** Completes (output validated against WorkflowOutput) or fails (with `error`) an execution. */
  async completeExecution(id: string, output?: Record<string, unknown>, error?: string): Promise<TransitionResult & { contract?: ContractCheck }> {
    const r = this.row(id);
    const executionId = String(r.execution_id);
    if (error !== undefined) return this.transition(executionId, 'failed', error, output);
    // Check the transition before validating, so an agent hears about the state first.
    this.assertNoGatePassed(r, 'completed');
    assertTransition(executionId, r.status as ExecutionStatus, 'completed');
    const contract = output === undefined ? undefined : await this.deps.contracts.check('WorkflowOutput', output, 'output');
    const res = await this.transition(executionId, 'completed', undefined, output);
    return contract ? { ...res, contract } : res;
  }

  /** Every unfinished execution (pending, running, paused, awaiting_approval, timeout, escalated), oldest first. */
  incomplete(workflowName?: string): WorkflowExecution[] {
    const marks = OPEN_STATES.map(() => '?').join(',');
    const filter = workflowName !== undefined ? ' AND template_name = ?' : '';
    return this.store
      .all<Raw>(`SELECT * FROM executions WHERE status IN (${marks})${filter} ORDER BY COALESCE(created_at, started_at), rowid`, [
        ...OPEN_STATES, ...(workflowName !== undefined ? [workflowName] : []),
      ])
      .map((r) => toExecutionView(r));
  }

  /** Moves every running execution past its deadline (by the injected clock) to `timeout`; returns them. */
  async checkTimeouts(): Promise<WorkflowExecution[]> {
    const { ms } = this.now();
    const due = this.store.all<Raw>("SELECT * FROM executions WHERE status = 'running' AND deadline_ms IS NOT NULL AND deadline_ms <= ?", [ms]);
    if (due.length === 0) return [];
    const events: BatonEvent[] = [];
    await this.store.transaction(() => {
      for (const r of due) this.transitionInTx(r, 'timeout', events, `Timed out: no completion within ${String(r.timeout_ms)} ms of starting to run.`);
    });
    this.deps.emit(events);
    return due.map((r) => this.execution(String(r.execution_id), false));
  }

  private transitionInTx(r: Raw, to: ExecutionStatus, events: BatonEvent[], error?: string, output?: unknown): TransitionResult {
    const executionId = String(r.execution_id);
    const from = r.status as ExecutionStatus;
    assertTransition(executionId, from, to);
    // A finished execution is a record: a repeat of its end (a retry whose answer was lost) changes nothing, and
    // another output or error would rewrite what it finished with, so it is refused.
    if (from === to && TERMINAL_STATES.includes(to)) {
      const rewrites = [
        error !== undefined && error !== (r.error ?? null) && 'error',
        output !== undefined && JSON.stringify(output) !== (r.output ?? null) && 'output',
      ].filter((f): f is string => typeof f === 'string');
      if (rewrites.length) {
        throw new BatonError('invalid_state', `Execution ${executionId} is already ${to}; its ${rewrites.join(' and ')} ${rewrites.length > 1 ? 'stay' : 'stays'} as it `
          + `finished (see get_execution_details). To record another result, start a new execution with start_execution.`);
      }
      return { success: true, executionId, from, state: to };
    }
    const { ms, iso } = this.now();
    const fields: Record<string, string | number | null> = { status: to };
    if (to === 'running') {
      if (!r.run_started_at) fields.run_started_at = iso;
      // The timeout counts from each (re)start; a gate's approval does not restart it.
      if (from !== 'awaiting_approval' && from !== 'running') fields.deadline_ms = r.timeout_ms != null ? ms + Number(r.timeout_ms) : null;
      fields.error = null;
    }
    if (TERMINAL_STATES.includes(to) && from !== to) {
      // One that ends from pending never ran: it has no duration.
      const started = from === 'pending' ? null : String(r.run_started_at ?? r.started_at);
      Object.assign(fields, { completed_at: iso, duration_ms: started === null ? null : ms - Date.parse(started), current_step: null, deadline_ms: null });
      if (to === 'completed') fields.progress = 100;
    }
    if (error !== undefined) fields.error = error;
    if (output !== undefined) fields.output = JSON.stringify(output);
    const sets = Object.keys(fields).map((k) => `${k} = ?`);
    this.store.run(`UPDATE executions SET ${sets.join(', ')}, updated_at = ? WHERE execution_id = ?`, [...Object.values(fields), iso, executionId]);
    const taskId = (r.task_id as string | null) ?? null;
    if (taskId && TERMINAL_STATES.includes(to)) this.deps.repo.setTaskStatus(taskId, to, iso);
    if (from !== to) {
      this.deps.event(executionId, 'state_changed', { from, to, error: error ?? null });
      events.push({ type: 'execution', execution_id: executionId, task_id: taskId, status: to });
    }
    return { success: true, executionId, from, state: to };
  }

  // ---- steps ----

  /** Steps of an execution in order, with dependencies as step ids. */
  steps(executionId: string): WorkflowStep[] {
    const rows = this.store.all<Raw>(
      `SELECT id, execution_id, step_name, phase_name, agent_name, status, dependencies, started_at, completed_at, duration_ms, output, error
       FROM steps WHERE execution_id = ? ORDER BY position`,
      [executionId],
    );
    const ids = new Map(rows.map((s) => [String(s.step_name), Number(s.id)]));
    return rows.map((s) => toStepView(s, ids));
  }

  /** A step by its id (a string of digits); throws `step_not_found`. */
  step(stepId: string): WorkflowStep {
    const r = /^\d+$/.test(stepId) ? this.store.get<Raw>('SELECT * FROM steps WHERE id = ?', [Number(stepId)]) : undefined;
    if (!r) throw new BatonError('step_not_found', `No step with id ${echo(stepId)}; step ids are the "id" of start_step results (see get_execution_details).`);
    return this.steps(String(r.execution_id)).find((s) => s.id === stepId)!;
  }

  /** Pending (or ready) steps whose dependencies are all completed: what can start now. */
  readySteps(executionId: string): WorkflowStep[] {
    const steps = this.steps(String(this.row(executionId).execution_id));
    const byId = new Map(steps.map((s) => [s.id, s]));
    return steps.filter((s) => (s.state === 'pending' || s.state === 'ready')
      && s.dependsOn.every((d) => DONE.has(byId.get(d)?.state ?? 'pending')));
  }

  /**
   * Starts a step: creates it `pending` (or takes the pending step of that name), then moves it to `running` if
   * every dependency is completed. Otherwise the step stays pending and a BatonError names what it waits for.
   */
  async startStep(input: StartStepInput): Promise<WorkflowStep> {
    const r = this.row(input.executionId);
    const executionId = String(r.execution_id);
    this.assertLifecycleDriven(r);
    const state = r.status as ExecutionStatus;
    if (state !== 'running') {
      const how = state === 'pending' ? 'start it with transition_workflow_state({ newState: "running" })'
        : RESUMABLE_STATES.includes(state) ? 'resume it with resume_execution' : 'start a new execution';
      throw new BatonError('invalid_state', `Execution ${executionId} is ${state}; steps start only while it is running: ${how}.`);
    }
    const existing = this.steps(executionId);
    const byId = new Map(existing.map((s) => [s.id, s]));
    const missing = (input.dependsOn ?? []).filter((d) => !byId.has(d));
    if (missing.length) {
      const known = existing.map((s) => `${s.id} (${s.stepName})`).join(', ') || '(none yet)';
      throw new BatonError('invalid_input', `dependsOn names ${missing.map((m) => `"${m}"`).join(', ')}, which ${missing.length > 1 ? 'are not steps' : 'is not a step'} of execution ${executionId}. Its steps: ${known}.`);
    }
    const depNames = (input.dependsOn ?? []).map((d) => byId.get(d)!.stepName);
    const { iso, ms } = this.now();
    const { stepId, blockedBy, events } = await this.store.transaction(() => {
      const events: BatonEvent[] = [];
      let row = this.store.get<Raw>('SELECT * FROM steps WHERE execution_id = ? AND step_name = ?', [executionId, input.stepName]);
      if (row && row.status === 'completed') {
        throw new BatonError('invalid_state', `Step "${input.stepName}" (id ${String(row.id)}) of execution ${executionId} is already completed; give a retry or follow-up a new stepName.`);
      }
      if (row && row.status === 'running') return { stepId: String(row.id), blockedBy: [] as string[], events };
      if (!row) {
        const phase = phasesOf(r).find((p) => p.phase === (input.phaseName ?? input.stepName));
        const position = this.store.get<{ n: number | null }>('SELECT MAX(position) AS n FROM steps WHERE execution_id = ?', [executionId])!.n ?? -1;
        this.store.run(
          `INSERT INTO steps (execution_id, step_name, agent_name, position, dependencies, status, phase_name, metadata)
           VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)`,
          [executionId, input.stepName, input.agentName ?? phase?.agent ?? 'unassigned', position + 1, JSON.stringify(depNames),
            input.phaseName ?? null, JSON.stringify({ origin: 'lifecycle' })],
        );
        this.deps.repo.forgetShapes(executionId);
        row = this.store.get<Raw>('SELECT * FROM steps WHERE execution_id = ? AND step_name = ?', [executionId, input.stepName])!;
        events.push({ type: 'step', execution_id: executionId, step_name: input.stepName, status: 'pending' });
      } else {
        const merged = [...new Set([...(JSON.parse(String(row.dependencies)) as string[]), ...depNames])];
        this.store.run('UPDATE steps SET dependencies = ?, phase_name = COALESCE(?, phase_name) WHERE id = ?', [JSON.stringify(merged), input.phaseName ?? null, row.id as number]);
        this.deps.repo.forgetShapes(executionId);
        row = { ...row, dependencies: JSON.stringify(merged) };
      }
      const deps = JSON.parse(String(row.dependencies)) as string[];
      const states = new Map(this.store.all<{ step_name: string; status: StepStatus; id: number }>(
        'SELECT id, step_name, status FROM steps WHERE execution_id = ?', [executionId],
      ).map((s) => [s.step_name, s]));
      const blockedBy = deps.filter((d) => !DONE.has(states.get(d)?.status ?? 'pending'))
        .map((d) => `${states.get(d)?.id ?? '?'} "${d}" (${states.get(d)?.status ?? 'missing'})`);
      if (blockedBy.length === 0) {
        this.store.run("UPDATE steps SET status = 'running', started_at = ?, completed_at = NULL, error = NULL, attempt = attempt + 1 WHERE id = ?", [iso, row.id as number]);
        this.store.run('UPDATE executions SET current_step = ?, updated_at = ? WHERE execution_id = ?', [input.stepName, iso, executionId]);
        this.deps.event(executionId, 'step_started', { step_id: String(row.id), step_name: input.stepName, at_ms: ms });
        events.push({ type: 'step', execution_id: executionId, step_name: input.stepName, status: 'running' });
      }
      return { stepId: String(row.id), blockedBy, events };
    });
    this.deps.emit(events);
    if (blockedBy.length) {
      throw new BatonError(
        'invalid_state',
        `Step "${input.stepName}" (id ${stepId}) cannot run yet: it depends on ${blockedBy.join(', ')}, which ${blockedBy.length > 1 ? 'are' : 'is'} not completed. ` +
          'It was kept pending: complete those steps, then call start_step again with the same stepName.',
        { stepId },
      );
    }
    return this.step(stepId);
  }

  /** Completes a running step (output validated against StepOutput) or fails it with `error`. */
  async completeStep(stepId: string, output?: Record<string, unknown>, error?: string): Promise<WorkflowStep & { contract?: ContractCheck }> {
    const step = this.step(stepId);
    const r = this.row(step.executionId);
    this.assertLifecycleDriven(r);
    if (step.state !== 'running') {
      throw new BatonError('invalid_state', `Step ${stepId} ("${step.stepName}") is ${step.state}, not running; ${step.state === 'pending' ? 'start it with start_step first' : 'a finished step cannot be completed again'}.`);
    }
    const contract = error === undefined && output !== undefined ? await this.deps.contracts.check('StepOutput', output, 'output') : undefined;
    const { ms, iso } = this.now();
    const status: StepStatus = error === undefined ? 'completed' : 'failed';
    const events: BatonEvent[] = [];
    await this.store.transaction(() => {
      // Checked again here: another call may have completed or failed it while the output was validated.
      const now = this.store.get<{ status: StepStatus }>('SELECT status FROM steps WHERE id = ?', [Number(stepId)])?.status;
      if (now !== 'running') {
        throw new BatonError('invalid_state', `Step ${stepId} ("${step.stepName}") is ${now ?? 'gone'}, not running: another call finished it first; a finished step cannot be completed again.`);
      }
      const started = step.startedAt ? Date.parse(step.startedAt) : ms;
      const summary = output && typeof output.summary === 'string' ? output.summary : null;
      this.store.run(
        'UPDATE steps SET status = ?, output = ?, outcome_summary = ?, error = ?, completed_at = ?, duration_ms = ? WHERE id = ?',
        [status, output === undefined ? null : JSON.stringify(output), summary, error ?? null, iso, ms - started, Number(stepId)],
      );
      this.store.run(
        'UPDATE executions SET progress = ?, current_step = CASE WHEN current_step = ? THEN NULL ELSE current_step END, updated_at = ? WHERE execution_id = ?',
        [this.progress(step.executionId, r), step.stepName, iso, step.executionId],
      );
      this.deps.event(step.executionId, status === 'completed' ? 'step_completed' : 'step_failed', { step_id: stepId, step_name: step.stepName, error: error ?? null });
      events.push({ type: 'step', execution_id: step.executionId, step_name: step.stepName, status });
    });
    this.deps.emit(events);
    const done = this.step(stepId);
    return contract ? { ...done, contract } : done;
  }

  /**
   * Percent done: completed or skipped steps out of all the work known, the steps started so far and the template's
   * phases no step has taken up yet (counting only the started steps said 100% after the first of four phases).
   */
  private progress(executionId: string, r: Raw): number {
    const steps = this.store.all<{ step_name: string; phase_name: string | null; status: StepStatus }>(
      'SELECT step_name, phase_name, status FROM steps WHERE execution_id = ?', [executionId],
    );
    const taken = new Set(steps.flatMap((s) => (s.phase_name ? [s.step_name, s.phase_name] : [s.step_name])));
    const phases = phasesOf(r);
    const total = steps.length + phases.filter((p) => !taken.has(p.phase)).length;
    const done = steps.filter((s) => DONE.has(s.status)).length;
    return Math.round((100 * done) / Math.max(1, total));
  }

  /**
   * A workflow driven by workflow_next_step completes with its last step, and leaves a gate only by a person's
   * decision: the lifecycle tools may fail, escalate, pause or resume it, but not complete it or move it out of
   * awaiting_approval to running (an agent closed its own gated run that way, and the person could no longer decide).
   */
  private assertNoGatePassed(r: Raw, to: ExecutionStatus): void {
    if (!r.task_id || r.status === to) return;
    const id = String(r.execution_id);
    if (to === 'completed') {
      throw new BatonError(
        'invalid_state',
        `Execution ${id} is driven by workflow_next_step (task ${String(r.task_id)}): it completes when its last step is submitted; call workflow_next_step({ task_id: "${String(r.task_id)}" }) for the step it needs (or fail it with an error).`,
      );
    }
    if (r.status === 'awaiting_approval' && to === 'running') {
      throw new BatonError(
        'invalid_state',
        `Execution ${id} waits for a person to approve or reject its gate; an agent cannot move it on. Ask them to decide (baton approve ${id}, or in the editor), or wait with workflow_next_step({ step_token }).`,
      );
    }
  }

  /** Broker executions move their steps only through step tokens. */
  private assertLifecycleDriven(r: Raw): void {
    if (r.task_id) {
      throw new BatonError(
        'invalid_state',
        `Execution ${String(r.execution_id)} is driven by workflow_next_step (task ${String(r.task_id)}); its steps move with step tokens: call workflow_next_step({ task_id: "${String(r.task_id)}" }).`,
      );
    }
  }
}
