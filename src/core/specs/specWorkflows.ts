// Spec workflows (dynamic-spec-workflows.md on Baton's engine): a tasks.md read, parsed and snapshotted when the
// workflow starts, its phases inserted as steps of the execution after Phase 0, each rendered through the phase and
// task templates (cached per execution, dropped when it ends), gated by evidence, and written back as ticked boxes.
import type { Broker } from '../broker/broker.js';
import type { DynamicPhases, PreparedSource } from '../broker/dynamicPhases.js';
import type { ExecutionRepo, ExecutionRow, StepRow } from '../broker/executionRepo.js';
import { BatonError, type ErrorReason, echo } from '../errors.js';
import type { CorePorts, FileSystem } from '../ports.js';
import type {
  EvidenceInput, ParsedSpec, SourceDrift, SpecApi, SpecPhase, SpecPhaseContent, SpecPhaseResult, SpecSourcePort, SpecStartInput,
  SpecStatus, SpecSummary, SpecTaskContent, TextEdit, WriteBackRecord,
} from '../specTypes.js';
import type { BatonEvent, CallContext, NextStepRequest, NextStepResponse, StepDefinition, WorkflowTemplate } from '../types.js';
import { CheckboxTasksParser } from './checkboxParser.js';
import { compareSource } from './drift.js';
import { checkEvidence } from './evidence.js';
import { fitSpecContext, phaseContext, taskBrief } from './phaseContext.js';
import { needsSignoff, renderPhase, renderTask, SpecContentCache } from './render.js';
import { parseSource, type SourceParser } from './sourceParser.js';
import { SpecRepo, type SpecSnapshot } from './specRepo.js';
import { specStatus } from './specStatus.js';
import { SpecTasksParser } from './specTasksParser.js';
import { keyStartedText, startedWith } from '../requestKeys.js';
import { isMoving } from '../stateMachine.js';
import { isInside, resolveInWorkspace } from './workspacePath.js';
import { plural } from '../../shared/labels.js';
import { phaseCheckboxes, planTicks } from './writeBack.js';

/** The template spec workflows use unless told otherwise. */
export const SPEC_TEMPLATE = 'spec_execution_v1';
/** Every parser, in the order `auto` prefers them on a tie. */
export const SPEC_PARSERS: readonly SourceParser[] = [new SpecTasksParser(), new CheckboxTasksParser()];

/** A source read and parsed for a new execution. */
interface Prepared extends PreparedSource {
  relative: string;
  absolute: string;
  text: string;
  parsed: ParsedSpec;
  phaseTemplate: string;
  taskTemplate: string;
}

/** What spec workflows need from the facade. */
export interface SpecDeps {
  ports: CorePorts;
  repo: ExecutionRepo;
  broker: Broker;
  workspacePath: string;
  /** Content folders, lowest precedence first (templates are looked up from the last). */
  contentDirs: () => string[];
  /** The spec template by name (active content). */
  template: (name: string) => WorkflowTemplate | undefined;
  templateNames: () => string[];
  emit: (events: BatonEvent[]) => void;
  approveCommand: string | null;
}

/**
 * Where spec tools write their tasks.md, relative to the workspace: spec-kit, Kiro, spec-workflow-mcp and Agent OS
 * (both of its layouts). `sources()` looks in these and not through the whole workspace, which may be large.
 */
export const SPEC_FOLDERS = ['specs', '.kiro/specs', '.spec-workflow/specs', '.agent-os/specs', 'agent-os/specs'] as const;
/** The most `sources()` returns. */
const SOURCES_LIMIT = 200;
/** How many found sources an error about a missing source names. */
const SOURCES_NAMED = 10;
/**
 * The one file name spec tools give a task list: spec-kit (`specs/<feature>/tasks.md`), Kiro
 * (`.kiro/specs/<name>/tasks.md`), spec-workflow-mcp (`.spec-workflow/specs/<name>/tasks.md`), Agent OS and this
 * spec's own format all write `tasks.md`.
 */
export const TASKS_FILE_NAME = 'tasks.md';

/** Whether a path names a tasks.md (exact name; the match is case-sensitive like the file system). */
export function isTasksFile(path: string): boolean {
  return path.split(/[\\/]/).pop() === TASKS_FILE_NAME;
}

/** The tasks.md files in `workspace` itself and its SPEC_FOLDERS, relative to it, in that order (each folder's sorted). */
export async function specSourcesIn(fs: FileSystem, workspace: string): Promise<string[]> {
  const found: string[] = [];
  if (await fs.exists(`${workspace}/${TASKS_FILE_NAME}`)) found.push(TASKS_FILE_NAME);
  for (const dir of SPEC_FOLDERS) {
    for (const f of await fs.list(`${workspace}/${dir}`)) if (isTasksFile(f.relativePath)) found.push(`${dir}/${f.relativePath}`);
  }
  return found;
}

/** How to make a tasks.md, for an error that found none: a file of one checkbox line is a spec of one task. */
export const WRITE_TASKS_FILE = 'Write one, such as specs/FEATURE/tasks.md holding a checkbox list ("- [ ] 1. Set up the project", a line per task)';

/** Found sources for a message: the first SOURCES_NAMED, comma-separated, and how many more. */
export function nameSources(found: readonly string[]): string {
  const more = found.length > SOURCES_NAMED ? ` and ${found.length - SOURCES_NAMED} more` : '';
  return `${found.slice(0, SOURCES_NAMED).join(', ')}${more}`;
}

/** Whether a start carries metadata to keep. */
const hasMetadata = (input: SpecStartInput) => input.metadata !== undefined && Object.keys(input.metadata).length > 0;

/** Step names of phases: `phase-0`, `phase-1`, … */
export const phaseStepName = (n: number) => `phase-${n}`;
/** The files spec tools write beside a tasks.md that hold no tasks (Kiro's, spec-kit's): refused, they point to it. */
const COMPANION_FILE = /(?:^|[\\/])(?:requirements|design|spec|plan|research|data-model|quickstart)\.md$/i;

/** The phase number of a step name, or undefined when it is not a phase. */
export function phaseOfStep(name: string): number | undefined {
  const m = /^phase-(\d+)$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** How a phase with `items` gate items is submitted, as the phase's human message says it. */
function howToSubmit(items: number): string {
  if (items === 0) return 'complete_phase (its gate has no items to give evidence for)';
  return items === 1 ? 'complete_phase with evidence for its one gate item' : `complete_phase with evidence for each of its ${items} gate items`;
}

/** Spec workflows: the broker's dynamic-phase hooks and the API the `specs` tools, the CLI and the editor call. */
export class SpecWorkflows implements DynamicPhases, SpecApi {
  readonly specRepo: SpecRepo;
  readonly cache = new SpecContentCache();
  private source: SpecSourcePort | undefined;
  /** Phases completed whose boxes are still to be ticked, in order. */
  private pendingWrites: Array<{ executionId: string; phase: number }> = [];
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: SpecDeps, source?: SpecSourcePort) {
    this.specRepo = new SpecRepo(deps.ports.store);
    this.source = source;
  }

  /** @inheritdoc */
  setSourcePort(port: SpecSourcePort): void {
    this.source = port;
  }

  private get port(): SpecSourcePort {
    if (!this.source) throw new BatonError('invalid_state', 'This Baton has no access to source files (no spec source port was given).');
    return this.source;
  }

  private now(): string {
    return new Date(this.deps.ports.clock.now()).toISOString();
  }

  // ---- the broker's hooks ----

  /** @inheritdoc */
  async prepare(template: WorkflowTemplate, req: NextStepRequest): Promise<PreparedSource> {
    const config = template.dynamic_config!;
    const given = req.source ?? '';
    if (!given.trim()) {
      throw await this.missingSource('invalid_input', (found) => `Template "${template.name}" needs a source: pass source, the tasks.md relative to the workspace (such as "${found[0] ?? 'specs/auth/tasks.md'}").`, {});
    }
    const file = resolveInWorkspace(this.deps.workspacePath, given);
    const port = this.port;
    const real = await port.realPath(file.absolute);
    if (real === undefined) {
      const message = `No file ${echo(file.relative)} in the workspace (${this.deps.workspacePath}); pass the tasks.md path relative to it.`;
      throw await this.missingSource('source_not_found', () => message, { path: file.relative, workspace: this.deps.workspacePath });
    }
    const root = (await port.realPath(this.deps.workspacePath)) ?? this.deps.workspacePath;
    if (!isInside(root, real)) {
      throw new BatonError('source_outside_workspace', `The source "${file.relative}" is a link that leads out of the workspace (to ${real}); spec sources must be inside it.`, { path: file.relative, workspace: this.deps.workspacePath });
    }
    const text = await port.read(file.absolute);
    if (text === undefined) {
      // It exists (realPath found it) but has no text: a folder, the usual slip (`specs/auth` for its tasks.md).
      const folder = `${file.relative.replace(/\/+$/, '')}/`;
      const message = (found: string[]) => {
        const example = found.find((f) => f.startsWith(folder)) ?? `${folder}${TASKS_FILE_NAME}`;
        return `${echo(file.relative)} is a folder, not a file: pass the ${TASKS_FILE_NAME} in it, relative to the workspace (such as "${example}").`;
      };
      throw await this.missingSource('source_not_found', message, { path: file.relative, workspace: this.deps.workspacePath });
    }
    const parsed = await this.parseOrPoint(config.parser, text, file);
    const [phaseTemplate, taskTemplate] = await Promise.all([this.readTemplate(config.templates.phase), this.readTemplate(config.templates.task)]);
    const prepared: Prepared = { kind: 'prepared_source', relative: file.relative, absolute: file.absolute, text, parsed, phaseTemplate, taskTemplate };
    return prepared;
  }

  /**
   * Parses a source; a file it refuses that is one of a spec's other files (Kiro's requirements.md or design.md, spec-kit's spec.md
   * or plan.md) while a tasks.md sits beside it is refused with that tasks.md named: the spec's tasks are there.
   */
  private async parseOrPoint(parser: string, text: string, file: { relative: string; absolute: string }): Promise<ParsedSpec> {
    try {
      return parseSource(SPEC_PARSERS, parser, text, file.relative);
    } catch (ex) {
      if (!BatonError.is(ex, 'source_parse_failed')) throw ex;
      if (!COMPANION_FILE.test(file.relative)) throw await this.otherSources(ex, file.relative);
      // The tasks.md in the same folder (a path's last separator either way round: the core knows no node:path).
      const tasksBeside = (path: string) => `${path.slice(0, Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1)}${TASKS_FILE_NAME}`;
      const beside = tasksBeside(file.relative);
      if (!(await this.port.realPath(tasksBeside(file.absolute)))) throw ex;
      const hint = `${file.relative} is not the spec's task list: start on the ${TASKS_FILE_NAME} beside it, "${beside}".`;
      throw new BatonError('source_parse_failed', `${hint} ${ex.message}`, { ...ex.details, tasks_file: beside, problem: `${String(ex.details.problem ?? 'no tasks')}; ${hint.replace(/\.$/, '')}` });
    }
  }

  /**
   * A file that is not a task list (a README, a design doc): its parse error, then the workspace's tasks.md files, the
   * ones it may have meant. A tasks.md that does not parse keeps its error alone: it is the file to fix.
   */
  private async otherSources(ex: BatonError, relative: string): Promise<BatonError> {
    if (isTasksFile(relative)) return ex;
    const found = await this.sources();
    if (found.length === 0) return ex;
    const which = found.length === 1 ? `the ${TASKS_FILE_NAME} in the workspace` : `one of the ${TASKS_FILE_NAME} files in the workspace`;
    return new BatonError('source_parse_failed', `${ex.message}\n\nOr start on ${which}: ${nameSources(found)}.`, { ...ex.details, sources: found.slice(0, SOURCES_NAMED) });
  }

  /** A phase or task template from the content folders (the workspace's `.baton/` first); `template_not_found` lists those that exist. */
  private async readTemplate(relative: string): Promise<string> {
    const dirs = this.deps.contentDirs();
    for (const dir of [...dirs].reverse()) {
      const path = `${dir}/${relative}`;
      if (!(await this.deps.ports.fs.exists(path))) continue;
      try {
        return await this.deps.ports.fs.readText(path);
      } catch (ex) {
        // A folder in a template's place, or a file Baton may not read: say which, not "internal error".
        throw new BatonError('template_not_found', `The spec template ${path} cannot be read (${(ex as Error).message}); make it a markdown file, or remove it to use the bundled one.`, { template: relative, path });
      }
    }
    const folder = relative.includes('/') ? relative.slice(0, relative.lastIndexOf('/')) : '';
    const found = new Set<string>();
    for (const dir of dirs) for (const f of await this.deps.ports.fs.list(folder ? `${dir}/${folder}` : dir)) if (f.relativePath.endsWith('.md')) found.add(`${folder ? `${folder}/` : ''}${f.relativePath}`);
    throw new BatonError('template_not_found', `No spec template ${echo(relative)} in the content folders (${dirs.join(', ')}). Templates that exist: ${[...found].join(', ') || '(none)'}.`, { template: relative, templates: [...found] });
  }

  /** @inheritdoc */
  create(executionId: string, template: WorkflowTemplate, prepared: PreparedSource, iso: string): StepDefinition[] {
    const p = prepared as Prepared;
    this.specRepo.insert({
      execution_id: executionId, source_path: p.relative, absolute_path: p.absolute, parser: p.parsed.parser, source_text: p.text,
      source_hash: this.deps.ports.crypto.sha256(p.text), parsed: p.parsed, phase_template: p.phaseTemplate, task_template: p.taskTemplate, created_at: iso,
    });
    const config = template.dynamic_config!;
    const first = template.steps.at(-1)!.name;
    return p.parsed.phases.map((phase) => {
      const gate = phase.validation_gate.map((g) => g.text);
      return {
        name: phaseStepName(phase.number), agent: config.phase_step.agent,
        description: `Phase ${phase.number}: ${phase.name} (${phase.tasks.length} tasks, ${p.relative} line ${phase.line}).`,
        dependencies: [phase.number === 1 ? first : phaseStepName(phase.number - 1)],
        allowed_actions: config.phase_step.allowed_actions, required_output_format: config.phase_step.required_output_format,
        human_gate: needsSignoff(gate), path_patterns: [], tags: config.phase_step.tags, validation_gate: gate,
      };
    });
  }

  /** @inheritdoc */
  decorate(exec: ExecutionRow, step: StepRow, res: NextStepResponse, budgetBytes: number): void {
    const snap = this.specRepo.get(exec.execution_id);
    const phase = phaseOfStep(step.step_name);
    if (!snap || phase === undefined || !res.context) return;
    const total = snap.parsed.phases.length + 1;
    const def = step.metadata.definition;
    if (phase > 0) res.context.step_description = this.renderedPhase(exec.execution_id, snap, phase, true);
    res.context.spec = phaseContext(snap, phase, def?.validation_gate ?? [], total);
    fitSpecContext(res, budgetBytes);
  }

  /** @inheritdoc */
  async checkEvidence(exec: ExecutionRow, step: StepRow, evidence: EvidenceInput | undefined): Promise<string[] | undefined> {
    const gate = step.metadata.definition?.validation_gate ?? [];
    if (!gate.length) return undefined;
    const phase = phaseOfStep(step.step_name) ?? 0;
    try {
      return checkEvidence(`Phase ${phase}`, gate, evidence);
    } catch (ex) {
      if (BatonError.is(ex, 'evidence_incomplete')) {
        // Recorded for the panel ("what it still needs"), in its own transaction: the refused submission changes nothing else.
        await this.deps.ports.store.transaction(() => this.deps.broker.event(exec.execution_id, 'spec_evidence_refused', { step_name: step.step_name, phase, missing: ex.details.missing }));
        this.deps.emit([{ type: 'spec', execution_id: exec.execution_id, phase, what: 'evidence_refused' }]);
        ex.details.execution_id = exec.execution_id;
      }
      throw ex;
    }
  }

  /** @inheritdoc */
  task(exec: ExecutionRow, step: StepRow, taskNumber: number | undefined): NonNullable<NextStepResponse['spec_task']> {
    const phase = phaseOfStep(step.step_name) ?? 0;
    const t = this.getTask(exec.execution_id, phase, taskNumber ?? 0);
    return { phase: t.phase, task_number: t.task_number, task_count: t.task_count, task_id: t.task_id, task_name: t.task_name, task_content: t.task_content };
  }

  // ---- rendering ----

  /** A phase rendered (cached); `inline`: for a step result, whose gate is listed beside it. */
  private renderedPhase(executionId: string, snap: SpecSnapshot, phase: number, inline = false): string {
    return this.cache.phase(executionId, inline ? -phase : phase, () => renderPhase(snap.phase_template, snap.parsed.phases[phase - 1]!, { source: snap.source_path, totalPhases: snap.parsed.phases.length + 1 }, inline));
  }

  /** The snapshot of a spec execution, or `execution_not_found`. */
  private snapshot(id: string): { exec: ExecutionRow; snap: SpecSnapshot } {
    const exec = this.deps.broker.resolve(id);
    const snap = exec && this.specRepo.get(exec.execution_id);
    if (!exec || !snap) {
      throw new BatonError('execution_not_found', `No spec workflow "${id}"; start one with \`baton spec start <tasks.md>\` (an agent: workflow_next_step with template_name "${SPEC_TEMPLATE}" and source), and see the latest with \`baton spec status\`.`);
    }
    return { exec, snap };
  }

  /** The phase in progress: the first phase step that is not done (null when all are). */
  private current(exec: ExecutionRow): StepRow | undefined {
    return this.deps.repo.steps(exec.execution_id).find((s) => s.status !== 'completed' && s.status !== 'skipped');
  }

  private phaseRange(snap: SpecSnapshot, phase: number): void {
    const total = snap.parsed.phases.length + 1;
    if (!Number.isInteger(phase) || phase < 0 || phase >= total) {
      throw new BatonError('phase_out_of_range', `Phase ${phase} does not exist: this spec has phases 0 to ${total - 1} (${total} phases, Phase 0 included).`, { phase, total_phases: total });
    }
  }

  /** `phase_locked` for a phase after the current one, naming the current phase and what it still needs. */
  private lockedError(exec: ExecutionRow, current: StepRow, phase: number): BatonError {
    const n = phaseOfStep(current.step_name) ?? 0;
    const gate = current.metadata.definition?.validation_gate ?? [];
    const needs = current.status === 'awaiting_approval'
      ? "a person's approval of its sign-off"
      : `to be completed with evidence for its ${gate.length} gate items (${gate.map((g, i) => `${i + 1}. ${g}`).join('; ')})`;
    return new BatonError(
      'phase_locked',
      `Phase ${phase} is locked: Phase ${n} is the current phase and must pass its gate first. Phase ${n} still needs ${needs}.`,
      { execution_id: exec.execution_id, current_phase: n, requested_phase: phase, status: current.status, validation_gate: gate },
    );
  }

  // ---- the API ----

  /**
   * @inheritdoc
   * With `ctx.request_key`, the key is recorded in the transaction that creates the execution; the claim of Phase 0
   * and the metadata follow in transactions of their own, which the same start sent again finishes (startedAgain).
   */
  async start(input: SpecStartInput, ctx: CallContext = {}): Promise<SpecPhaseResult> {
    const requestKey = ctx.request_key;
    // Looked up before the source is read again: it may have changed, or gone, since the start the key recorded.
    const known = requestKey === undefined ? undefined : startedWith(this.deps.ports.store, requestKey);
    if (known !== undefined) return this.startedAgain(known, requestKey!, input, ctx);
    const template = input.template_name ?? SPEC_TEMPLATE;
    const t = this.deps.template(template);
    if (t && !t.dynamic_phases) {
      throw new BatonError('invalid_input', `Template ${echo(template)} has no dynamic phases; spec workflows run templates such as ${SPEC_TEMPLATE}.`);
    }
    // The template's source_path_key names the metadata entry that holds the source (the spec's options); else `source`.
    const key = t?.dynamic_config?.source_path_key ?? 'spec_path';
    const source = typeof input.metadata?.[key] === 'string' ? (input.metadata[key] as string) : input.source;
    const description = input.task_description ?? `Carry out the spec ${source} phase by phase`;
    const req: NextStepRequest = { template_name: template, source, task_description: description };
    // Created unclaimed (errors keep their recovery data), then claimed by the caller when it is the agent.
    const started = await this.deps.broker.start(req, ctx);
    const executionId = started.execution_id;
    // The same key sent twice at once: the other call recorded it first, in the transaction that created its workflow.
    if (started.earlier) return this.startedAgain(executionId, requestKey!, input, ctx);
    if (input.claim) await this.claim(executionId, ctx);
    if (hasMetadata(input)) await this.keepMetadata(executionId, input.metadata!);
    return this.withWarnings(executionId, await this.result(executionId));
  }

  /** `result` with the warnings of the execution's spec (a task id on two lines, …), when it has any. */
  private withWarnings(executionId: string, result: SpecPhaseResult): SpecPhaseResult {
    const warnings = this.specRepo.get(executionId)?.parsed.warnings;
    return warnings?.length ? { ...result, warnings } : result;
  }

  /**
   * A start sent again with the request key of an earlier one (by start_workflow, or workflow_next_step): no second
   * workflow, but the one it created as it stands, with what that start left undone after a crash (Phase 0 unclaimed,
   * the metadata not kept) done now. A key that started anything but a spec workflow is refused.
   */
  private async startedAgain(executionId: string, key: string, input: SpecStartInput, ctx: CallContext): Promise<SpecPhaseResult> {
    const exec = this.deps.repo.execution(executionId);
    if (!exec || !this.specRepo.get(executionId)) {
      const what = exec ? `execution ${executionId} (${exec.template_name ?? exec.kind}), which is not a spec workflow` : `execution ${executionId}`;
      throw new BatonError(
        'invalid_input',
        `The request key ${echo(key)} was used by an earlier start, of ${what}: a key names one start. Start the spec workflow with a new key (a new UUID), or without one.`,
        { execution_id: executionId },
      );
    }
    const cur = this.current(exec);
    if (input.claim && cur?.status === 'ready' && (phaseOfStep(cur.step_name) ?? 0) === 0 && isMoving(exec.status)) await this.claim(executionId, ctx);
    // Read before the claim, which keeps no start metadata.
    if (hasMetadata(input) && exec.metadata.start_metadata === undefined) await this.keepMetadata(executionId, input.metadata!);
    const r = await this.result(executionId);
    const note = `${keyStartedText(key)}, so no second one was started; here it is as it stands.`;
    // With the spec's warnings, as the first answer had them: a proxy sends a start again when that answer was lost.
    return this.withWarnings(executionId, { ...r, already_started: true, human_message: `${note} ${r.human_message}` });
  }

  /** Hands the ready step of a spec execution to the caller (Phase 0 after a start, a phase after its approval). */
  private async claim(executionId: string, ctx: CallContext = {}): Promise<void> {
    const res = await this.deps.broker.nextStep({ task_id: executionId }, ctx);
    if (res.status === 'error') throw new BatonError(res.error!.code as never, res.error!.message);
  }

  /** Keeps start_workflow's metadata with the execution. */
  private async keepMetadata(executionId: string, metadata: Record<string, unknown>): Promise<void> {
    const exec = this.deps.repo.execution(executionId)!;
    await this.deps.ports.store.transaction(() => this.deps.repo.updateExecution(executionId, { metadata: { ...exec.metadata, start_metadata: metadata } }, this.now()));
  }

  /** @inheritdoc */
  async currentPhase(sessionId: string): Promise<SpecPhaseResult> {
    const { exec } = this.snapshot(sessionId);
    const cur = this.current(exec);
    // Ready after an approval and held by nobody: the caller takes it, as a claim would.
    if (cur?.status === 'ready' && isMoving(exec.status)) await this.claim(exec.execution_id);
    return this.result(exec.execution_id);
  }

  /** @inheritdoc */
  getTask(sessionId: string, phase: number, taskNumber: number): SpecTaskContent {
    const { exec, snap } = this.snapshot(sessionId);
    this.phaseRange(snap, phase);
    const cur = this.current(exec);
    const curPhase = cur ? phaseOfStep(cur.step_name) ?? 0 : Number.POSITIVE_INFINITY;
    if (phase > curPhase || (phase === curPhase && cur && (cur.status === 'pending' || cur.status === 'ready'))) throw this.lockedError(exec, cur!, phase);
    const p = phase === 0 ? undefined : snap.parsed.phases[phase - 1]!;
    const count = p?.tasks.length ?? 0;
    if (!Number.isInteger(taskNumber) || taskNumber < 1 || taskNumber > count) {
      throw new BatonError(
        'task_out_of_range',
        phase === 0 ? 'Phase 0 has no tasks: it is reading the spec and confirming scope.' : `Task ${taskNumber} does not exist: Phase ${phase} has tasks 1 to ${count}.`,
        { phase, task_number: taskNumber, task_count: count },
      );
    }
    const task = p!.tasks[taskNumber - 1]!;
    const content = this.cache.task(exec.execution_id, phase, taskNumber, () => renderTask(snap.task_template, p!, task, { source: snap.source_path, totalPhases: snap.parsed.phases.length + 1 }));
    return { session_id: exec.execution_id, phase, task_number: taskNumber, task_count: count, task_id: task.id, task_name: task.name, task_content: content, source: 'dynamic' };
  }

  /** @inheritdoc */
  async completePhase(sessionId: string, phase: number, evidence: EvidenceInput, summary?: string): Promise<SpecPhaseResult> {
    const { exec, snap } = this.snapshot(sessionId);
    this.phaseRange(snap, phase);
    let cur = this.current(exec);
    if (!cur) throw new BatonError('invalid_state', `Spec workflow ${exec.execution_id} is ${exec.status}: every phase is done.`, { execution_id: exec.execution_id });
    if (cur.status === 'ready') {
      await this.currentPhase(exec.execution_id);
      cur = this.current(exec)!;
    }
    const curPhase = phaseOfStep(cur.step_name) ?? 0;
    if (phase < curPhase) throw new BatonError('invalid_state', `Phase ${phase} is already completed; the current phase is ${curPhase}.`, { current_phase: curPhase });
    if (phase > curPhase || cur.status !== 'running') throw this.lockedError(exec, cur, phase);
    const aligned = (await this.checkEvidence(exec, cur, evidence)) ?? [];
    const name = phase === 0 ? 'Phase 0' : `Phase ${phase} (${snap.parsed.phases[phase - 1]!.name})`;
    const output = { summary: summary?.trim() || `${name} completed with evidence for ${aligned.length} gate items.`, artifacts: [], references: [snap.source_path], confidence: 1 };
    const res = await this.deps.broker.submitHeld(exec.execution_id, cur.step_name, output, aligned);
    if (res.status === 'error') throw new BatonError(res.error!.code as never, res.error!.message);
    await this.flushWriteBacks();
    return { ...(await this.result(exec.execution_id)), completed_phase: phase };
  }

  /** The answer of the `specs` tools: status, current phase and its content. */
  private async result(executionId: string): Promise<SpecPhaseResult> {
    const { exec, snap } = this.snapshot(executionId);
    const total = snap.parsed.phases.length + 1;
    const cur = this.current(exec);
    const phase = cur ? phaseOfStep(cur.step_name) ?? 0 : null;
    const base = { session_id: exec.execution_id, workflow_type: exec.template_name ?? SPEC_TEMPLATE, status: exec.status, current_phase: phase, total_phases: total, source: snap.source_path };
    if (!cur || phase === null) {
      return { ...base, phase_content: null, human_message: `Every phase of ${snap.source_path} is complete; the workflow is ${exec.status}.` };
    }
    const content = this.phaseContent(exec, snap, cur, phase);
    const approve = this.deps.approveCommand ? `${this.deps.approveCommand} ${exec.execution_id}` : undefined;
    const human = cur.status === 'awaiting_approval'
      ? `Phase ${phase} was submitted and waits for a person's sign-off (in the Baton panel${approve ? `, or \`${approve}\`` : ''}); call get_current_phase later.`
      : cur.status === 'running'
        ? `Work on Phase ${phase} only: ${content.task_count ? `do its ${plural(content.task_count, 'task')} (get_task for any not listed in full), then ` : 'it lists no tasks; '}${howToSubmit(content.validation_gate.length)}.`
        : `Phase ${phase} is next; call get_current_phase to take it.`;
    return { ...base, phase_content: content, human_message: human, ...(cur.status === 'awaiting_approval' && approve ? { approve_command: approve } : {}) };
  }

  private phaseContent(exec: ExecutionRow, snap: SpecSnapshot, step: StepRow, phase: number): SpecPhaseContent {
    const gate = step.metadata.definition?.validation_gate ?? [];
    const total = snap.parsed.phases.length + 1;
    const ctx = phaseContext(snap, phase, gate, total);
    const overview = phase === 0 ? (step.metadata.definition?.description ?? '').trim() : this.renderedPhase(exec.execution_id, snap, phase);
    const p = phase ? snap.parsed.phases[phase - 1] : undefined;
    const tasks = p ? p.tasks.map(taskBrief) : [];
    return {
      phase, phase_name: ctx.phase_name, phase_overview: overview, tasks, task_count: tasks.length, validation_gate: gate,
      human_signoff: step.metadata.definition?.human_gate ?? false,
    };
  }

  /** @inheritdoc */
  async status(id?: string): Promise<SpecStatus> {
    const target = id ?? this.list({ limit: 1 })[0]?.execution_id;
    if (!target) throw new BatonError('execution_not_found', `No spec workflow has run in this workspace; start one with \`baton spec start <tasks.md>\`.`);
    const { exec, snap } = this.snapshot(target);
    const drift = await this.drift(exec.execution_id);
    const events = this.deps.ports.store.all<{ event_type: string; event_data: string; created_at: string }>(
      "SELECT event_type, event_data, created_at FROM events WHERE execution_id = ? AND event_type IN ('spec_write_back', 'spec_evidence_refused') ORDER BY id",
      [exec.execution_id],
    );
    return specStatus(exec, snap, this.deps.repo.steps(exec.execution_id), events, drift);
  }

  /** @inheritdoc */
  async sources(): Promise<string[]> {
    const { fs } = this.deps.ports;
    const workspace = this.deps.workspacePath;
    const found = new Set(await specSourcesIn(fs, workspace));
    for (const s of this.list({ limit: 50 })) {
      if (found.size >= SOURCES_LIMIT) break;
      if (!found.has(s.source) && (await fs.exists(resolveInWorkspace(workspace, s.source).absolute))) found.add(s.source);
    }
    return [...found].slice(0, SOURCES_LIMIT);
  }

  /**
   * The error for a source not given or not found: `message` (which may name a found source), then the tasks.md
   * files found (at most SOURCES_NAMED, also in its details as `sources`) or where none were.
   */
  private async missingSource(reason: ErrorReason, message: (found: string[]) => string, details: Record<string, unknown>): Promise<BatonError> {
    const found = await this.sources();
    const listed = found.length
      ? ` ${TASKS_FILE_NAME} files in the workspace: ${nameSources(found)}.`
      : ` No ${TASKS_FILE_NAME} was found in the workspace root or its spec folders (${SPEC_FOLDERS.map((d) => `${d}/`).join(', ')}). ${WRITE_TASKS_FILE}, and pass its path.`;
    return new BatonError(reason, `${message(found)}${listed}`, { ...details, sources: found.slice(0, SOURCES_NAMED) });
  }

  /** @inheritdoc */
  list(filter: { source?: string; limit?: number } = {}): SpecSummary[] {
    const where = filter.source ? 'WHERE s.source_path = ?' : '';
    const rows = this.deps.ports.store.all<{ execution_id: string; source_path: string; status: SpecSummary['status']; started_at: string; current_step: string | null; parsed: string }>(
      `SELECT e.execution_id, s.source_path, e.status, e.started_at, e.current_step, json_array_length(s.parsed, '$.phases') AS parsed
       FROM spec_sources s JOIN executions e ON e.execution_id = s.execution_id ${where} ORDER BY e.started_at DESC, e.rowid DESC LIMIT ?`,
      [...(filter.source ? [filter.source] : []), filter.limit ?? 50],
    );
    return rows.map((r) => {
      const cur = this.current(this.deps.repo.execution(r.execution_id)!);
      return {
        execution_id: r.execution_id, source: r.source_path, status: r.status, started_at: r.started_at,
        current_phase: cur ? phaseOfStep(cur.step_name) ?? 0 : null, total_phases: Number(r.parsed) + 1,
      };
    });
  }

  /** @inheritdoc */
  async drift(id: string): Promise<SourceDrift> {
    const { snap } = this.snapshot(id);
    let current: string | undefined;
    try {
      current = this.source ? await this.source.read(snap.absolute_path) : undefined;
    } catch (ex) {
      // A file that can no longer be read as text (no longer UTF-8) has drifted at the line the error names.
      const line = ex instanceof BatonError ? ex.details.line : undefined;
      if (typeof line !== 'number') throw ex;
      return { state: 'drifted', source: snap.source_path, first_difference: { line, snapshot: snap.source_text.split(/\r?\n/)[line - 1] ?? '', current: (ex as Error).message } };
    }
    return compareSource(snap.source_path, snap.source_text, current);
  }

  /** @inheritdoc */
  tickEdits(id: string, phase: number, text: string): { edits: TextEdit[]; already: number; refused: Array<{ line: number; reason: string }> } {
    const { snap } = this.snapshot(id);
    if (phase === 0) return { edits: [], already: 0, refused: [] };
    this.phaseRange(snap, phase);
    return planTicks(text, phaseCheckboxes(snap.parsed.phases[phase - 1]!));
  }

  // ---- events: write-back and cleanup ----

  /** Watches the facade's events: a completed phase is queued for write-back; an ended workflow's cache is dropped. */
  onEvent(e: BatonEvent): void {
    if (e.type === 'step' && e.status === 'completed') {
      const phase = phaseOfStep(e.step_name);
      if (phase && phase > 0 && this.specRepo.get(e.execution_id)) this.pendingWrites.push({ executionId: e.execution_id, phase });
    } else if (e.type === 'execution' && (e.status === 'completed' || e.status === 'failed')) {
      this.cache.drop(e.execution_id);
    } else if (e.type === 'pruned') {
      for (const id of e.execution_ids) {
        this.cache.drop(id);
        this.specRepo.forget(id);
      }
    }
  }

  /** Ticks the boxes of every phase completed so far (one at a time); resolves once they are written or refused. */
  flushWriteBacks(): Promise<void> {
    this.writing = this.writing.then(async () => {
      while (this.pendingWrites.length) {
        const { executionId, phase } = this.pendingWrites.shift()!;
        try {
          await this.writeBack(executionId, phase);
        } catch (ex) {
          this.deps.ports.log.error(`spec write-back of ${executionId} phase ${phase} failed`, ex);
        }
      }
    });
    return this.writing;
  }

  /** Ticks one completed phase's boxes in its source (re-planned once if the file changed under the first try). */
  private async writeBack(executionId: string, phase: number): Promise<WriteBackRecord | undefined> {
    const snap = this.specRepo.get(executionId);
    if (!snap || !this.source) return undefined;
    const refs = phaseCheckboxes(snap.parsed.phases[phase - 1]!);
    if (!refs.length) return undefined;
    const record: WriteBackRecord = { at: this.now(), phase, ticked: 0, refused: [] };
    for (let attempt = 0; attempt < 2; attempt++) {
      let text: string | undefined;
      try {
        text = await this.source.read(snap.absolute_path);
      } catch (ex) {
        if (!(ex instanceof BatonError)) throw ex;
        record.error = ex.message; // e.g. the file is no longer UTF-8: nothing is written
        break;
      }
      if (text === undefined) {
        record.error = `${snap.source_path} is missing`;
        break;
      }
      const plan = planTicks(text, refs);
      record.refused = plan.refused;
      if (!plan.edits.length) break;
      const outcome = await this.source.apply(snap.absolute_path, text, plan.edits);
      if (outcome.applied) {
        record.ticked = plan.edits.length;
        delete record.error;
        break;
      }
      record.error = outcome.reason;
    }
    await this.deps.ports.store.transaction(() => this.deps.broker.event(executionId, 'spec_write_back', record));
    this.deps.emit([{ type: 'spec', execution_id: executionId, phase, what: 'write_back' }]);
    return record;
  }
}
