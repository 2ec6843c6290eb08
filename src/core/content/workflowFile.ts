// Parses and validates one workflow template file (YAML), with a 1-based line for every problem.
import type { ContentProblem } from '../api.js';
import type { DynamicConfig, StepDefinition, WorkflowTemplate } from '../types.js';
import { FieldReader, describe, isMapping, parseYaml, type FieldPath } from './fieldReader.js';
import { findCycles } from './stepGraph.js';

/** The output format a step gets when its template does not say. */
export const DEFAULT_OUTPUT_FORMAT =
  'A summary of what you did and why, the artifacts you produced (with their types), the files you read or changed, ' +
  'a confidence score between 0 and 1, and any blockers or open questions for the next step.';

/** Workflow `type` values. */
export const WORKFLOW_TYPES = ['sequential', 'parallel', 'hybrid'] as const;

const TEMPLATE_FIELDS = ['name', 'description', 'type', 'tags', 'estimated_duration_minutes', 'steps', 'dynamic_phases', 'dynamic_config'] as const;
const DYNAMIC_FIELDS = ['source_type', 'source_path_key', 'templates', 'parser', 'phase_step'] as const;
const PHASE_STEP_FIELDS = ['agent', 'allowed_actions', 'required_output_format', 'tags'] as const;
/** Parsers a template's `dynamic_config.parser` may name. */
export const SPEC_PARSERS = ['auto', 'spec_tasks_parser', 'checkbox_tasks_parser'] as const;
const STEP_FIELDS = [
  'name', 'agent', 'description', 'dependencies', 'allowed_actions', 'required_output_format', 'human_gate',
  'path_patterns', 'tags', 'validation_gate',
] as const;

/** A parsed workflow file: the template when valid, every problem, and where each step names its agent. */
export interface ParsedWorkflow {
  template: WorkflowTemplate | undefined;
  problems: ContentProblem[];
  /** Line of each step's `agent` field, for cross-file checks. */
  agentLines: Map<string, number | null>;
}

/** Parses `text` (the file at `path`); `fallbackName` is used when the file has no `name`. */
export function parseWorkflowFile(raw: string, path: string, fallbackName: string): ParsedWorkflow {
  const agentLines = new Map<string, number | null>();
  const parsed = parseYaml(raw, path);
  if ('problems' in parsed) return { template: undefined, problems: parsed.problems, agentLines };
  const r = new FieldReader(path, parsed.lineOf);
  const fail = (): ParsedWorkflow => ({ template: undefined, problems: r.problems, agentLines });
  const root = parsed.root;
  if (!isMapping(root)) {
    r.error([], `expected a mapping with the fields name, description, type and steps, got ${describe(root)}`);
    return fail();
  }

  const where = 'workflow';
  r.unknownKeys(root, [], where, TEMPLATE_FIELDS);
  const name = r.name(root, [], where, fallbackName);
  const description = r.string(root, [], 'description', where, 'a one-line description of what the workflow is for', true);
  const type = readType(r, root);
  const tags = r.stringList(root, [], 'tags', where);
  const duration = readDuration(r, root);
  const steps = readSteps(r, root, agentLines);
  const dynamicPhases = r.boolean(root, [], 'dynamic_phases', where, false);
  const dynamicConfig = dynamicPhases ? readDynamicConfig(r, root) : undefined;
  if (!dynamicPhases && root['dynamic_config'] !== undefined) r.error(['dynamic_config'], 'workflow: dynamic_config needs dynamic_phases: true');
  if (r.fatal || name === undefined || description === undefined || type === undefined) return fail();
  const template: WorkflowTemplate = { name, description, type, tags, estimated_duration_minutes: duration, steps };
  if (dynamicPhases && dynamicConfig) Object.assign(template, { dynamic_phases: true, dynamic_config: dynamicConfig });
  return { template, problems: r.problems, agentLines };
}

/** The `dynamic_config` of a template with `dynamic_phases: true` (the dynamic-spec-workflows spec's metadata). */
function readDynamicConfig(r: FieldReader, root: Record<string, unknown>): DynamicConfig | undefined {
  const raw = root['dynamic_config'];
  const where = 'dynamic_config';
  if (!isMapping(raw)) {
    r.error(['dynamic_config'], `workflow: dynamic_phases: true needs a dynamic_config mapping (source_type, templates, parser, phase_step), got ${describe(raw)}`);
    return undefined;
  }
  const at: FieldPath = ['dynamic_config'];
  r.unknownKeys(raw, at, where, DYNAMIC_FIELDS);
  const sourceType = r.string(raw, at, 'source_type', where, 'spec_tasks_md', true);
  const key = r.string(raw, at, 'source_path_key', where, 'the metadata key naming the source, such as spec_path', false) ?? 'spec_path';
  const parser = r.string(raw, at, 'parser', where, SPEC_PARSERS.join(', '), false) ?? 'auto';
  if (!(SPEC_PARSERS as readonly string[]).includes(parser)) r.error([...at, 'parser'], `${where}: unknown parser '${parser}' (expected one of ${SPEC_PARSERS.join(', ')})`);
  if (sourceType !== undefined && sourceType !== 'spec_tasks_md') r.error([...at, 'source_type'], `${where}: unknown source_type '${sourceType}' (expected spec_tasks_md)`);
  const t = raw['templates'];
  const tAt: FieldPath = [...at, 'templates'];
  const phase = isMapping(t) ? r.string(t, tAt, 'phase', `${where}.templates`, 'a path such as spec-templates/phase-template.md', true) : undefined;
  const task = isMapping(t) ? r.string(t, tAt, 'task', `${where}.templates`, 'a path such as spec-templates/task-template.md', true) : undefined;
  if (!isMapping(t)) r.error(tAt, `${where}: field 'templates' must be a mapping with phase and task paths, got ${describe(t)}`);
  const ps = raw['phase_step'];
  const psAt: FieldPath = [...at, 'phase_step'];
  const psWhere = `${where}.phase_step`;
  if (ps !== undefined && !isMapping(ps)) r.error(psAt, `${where}: field 'phase_step' must be a mapping (agent, allowed_actions, required_output_format, tags), got ${describe(ps)}`);
  const step = isMapping(ps) ? ps : {};
  if (isMapping(ps)) r.unknownKeys(ps, psAt, psWhere, PHASE_STEP_FIELDS);
  const phaseStep = {
    agent: r.string(step, psAt, 'agent', psWhere, 'the agent that runs each phase, such as implementer', false) ?? 'implementer',
    allowed_actions: r.stringList(step, psAt, 'allowed_actions', psWhere),
    required_output_format: r.string(step, psAt, 'required_output_format', psWhere, 'what each phase submits', false) ?? DEFAULT_OUTPUT_FORMAT,
    tags: r.stringList(step, psAt, 'tags', psWhere),
  };
  if (sourceType === undefined || phase === undefined || task === undefined) return undefined;
  return { source_type: sourceType, source_path_key: key, templates: { phase, task }, parser, phase_step: phaseStep };
}

function readType(r: FieldReader, root: Record<string, unknown>): WorkflowTemplate['type'] | undefined {
  const expected = `one of ${WORKFLOW_TYPES.join(', ')}`;
  const type = r.string(root, [], 'type', 'workflow', expected, true);
  if (type === undefined) return undefined;
  if (!(WORKFLOW_TYPES as readonly string[]).includes(type)) {
    r.error(['type'], `workflow: unknown type '${type}' (expected ${expected})`);
    return undefined;
  }
  return type as WorkflowTemplate['type'];
}

function readDuration(r: FieldReader, root: Record<string, unknown>): number | null {
  const v = root['estimated_duration_minutes'];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) {
    r.error(['estimated_duration_minutes'], `workflow: field 'estimated_duration_minutes' must be a positive whole number of minutes, got ${describe(v)}`);
    return null;
  }
  return v;
}

function readSteps(r: FieldReader, root: Record<string, unknown>, agentLines: Map<string, number | null>): StepDefinition[] {
  const raw = root['steps'];
  if (raw === undefined || raw === null) {
    r.error([], "workflow: missing required field 'steps' (expected a list of steps, each with name, agent and description)");
    return [];
  }
  if (!Array.isArray(raw) || raw.length === 0) {
    r.error(['steps'], `workflow: field 'steps' must be a non-empty list of steps, got ${Array.isArray(raw) ? 'an empty list' : describe(raw)}`);
    return [];
  }
  const steps: Array<{ step: StepDefinition; index: number }> = [];
  const firstIndex = new Map<string, number>();
  raw.forEach((item, i) => {
    const step = readStep(r, item, i);
    if (step === undefined) return;
    const earlier = firstIndex.get(step.name);
    if (earlier !== undefined) {
      r.error(['steps', i, 'name'], `step '${step.name}' (steps[${i}]): duplicate step name; steps[${earlier}] already uses it, and step names must be unique`);
      return;
    }
    firstIndex.set(step.name, i);
    agentLines.set(step.name, r.lineOf(['steps', i, 'agent']));
    steps.push({ step, index: i });
  });
  // Graph checks run over every named step, even ones with other errors, so one run shows everything.
  for (const { step, index } of steps) {
    step.dependencies.forEach((dep, j) => {
      if (firstIndex.has(dep)) return;
      r.error(['steps', index, 'dependencies', j], `step '${step.name}': dependency '${dep}' names no step in this workflow (steps: ${[...firstIndex.keys()].join(', ')})`);
    });
  }
  for (const cycle of findCycles(steps.map((s) => s.step))) {
    const index = firstIndex.get(cycle[0]!)!;
    r.error(['steps', index, 'dependencies'], `dependency cycle: ${cycle.join(' → ')} (→ means "depends on"); no step in a cycle can ever become ready`);
  }
  return steps.map((s) => s.step);
}

function readStep(r: FieldReader, item: unknown, i: number): StepDefinition | undefined {
  const at: FieldPath = ['steps', i];
  if (!isMapping(item)) {
    r.error(at, `steps[${i}]: expected a mapping with name, agent and description, got ${describe(item)}`);
    return undefined;
  }
  const rawName = typeof item['name'] === 'string' ? item['name'].trim() : '';
  const where = rawName ? `step '${rawName}'` : `steps[${i}]`;
  r.unknownKeys(item, at, where, STEP_FIELDS);
  const name = r.string(item, at, 'name', where, 'a step name such as implement-fix', true);
  const agent = r.string(item, at, 'agent', where, 'the name of the agent that runs the step, such as implementer', true);
  const description = r.string(item, at, 'description', where, 'the task text the agent reads', true);
  const dependencies = dedupe(r.stringList(item, at, 'dependencies', where));
  const allowed = r.stringList(item, at, 'allowed_actions', where);
  const format = r.string(item, at, 'required_output_format', where, 'a description of the output the step must submit', false);
  const gate = r.boolean(item, at, 'human_gate', where, false);
  const paths = r.stringList(item, at, 'path_patterns', where);
  const tags = r.stringList(item, at, 'tags', where);
  const gateItems = r.stringList(item, at, 'validation_gate', where);
  // A step with other errors keeps its name and dependencies for the graph checks; the file is rejected anyway.
  if (name === undefined) return undefined;
  return {
    name, agent: agent ?? '', description: description ?? '', dependencies, allowed_actions: allowed,
    required_output_format: format ?? DEFAULT_OUTPUT_FORMAT, human_gate: gate, path_patterns: paths, tags,
    ...(gateItems.length ? { validation_gate: gateItems } : {}),
  };
}

function dedupe(list: string[]): string[] {
  return list.filter((x, i) => list.indexOf(x) === i);
}
