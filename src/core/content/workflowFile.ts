// Parses and validates one workflow template file, with a 1-based line for every problem: YAML, or Markdown whose
// YAML frontmatter holds the same fields (the lifecycle spec's workflow files, `phases` and all).
import type { ContentProblem } from '../api.js';
import type { DynamicConfig, StepDefinition, WorkflowTemplate } from '../types.js';
import { FieldReader, describe, isMapping, normalizeText, parseYaml, type FieldPath } from './fieldReader.js';
import { findCycles } from './stepGraph.js';

/** The output format a step gets when its template does not say. */
export const DEFAULT_OUTPUT_FORMAT =
  'A summary of what you did and why, the artifacts you produced (with their types), the files you read or changed, ' +
  'a confidence score between 0 and 1, and any blockers or open questions for the next step.';

/** Workflow `type` values. */
export const WORKFLOW_TYPES = ['sequential', 'parallel', 'hybrid'] as const;

/** Workflow `complexity` values. */
export const COMPLEXITIES = ['simple', 'moderate', 'high'] as const;

const TEMPLATE_FIELDS = [
  'name', 'description', 'type', 'tags', 'complexity', 'estimated_duration_minutes', 'steps', 'phases', 'dynamic_phases', 'dynamic_config',
] as const;
const DYNAMIC_FIELDS = ['source_type', 'source_path_key', 'templates', 'parser', 'phase_step'] as const;
const PHASE_STEP_FIELDS = ['agent', 'allowed_actions', 'required_output_format', 'tags'] as const;
/** Parsers a template's `dynamic_config.parser` may name. */
export const SPEC_PARSERS = ['auto', 'spec_tasks_parser', 'checkbox_tasks_parser'] as const;
/** A step's fields by the lifecycle spec's names (its workflow files' `phases`): name, dependencies, and one more. */
const PHASE_NAMES = ['phase', 'dependsOn', 'allowParallel'] as const;
const STEP_FIELDS = [
  'name', 'agent', 'description', 'dependencies', 'allowed_actions', 'required_output_format', 'human_gate',
  'path_patterns', 'tags', 'validation_gate', ...PHASE_NAMES,
] as const;

/** A parsed workflow file: the template when valid, every problem, and where each step names its agent. */
export interface ParsedWorkflow {
  template: WorkflowTemplate | undefined;
  problems: ContentProblem[];
  /** Line of each step's `agent` field, for cross-file checks. */
  agentLines: Map<string, number | null>;
  /**
   * The file is the seed's registry of workflows (`index.yaml`: a `workflows` list of names and paths, a discovery
   * aid) rather than a workflow: nothing to load, and no problem either.
   */
  registry?: true;
}

/** Whether a Markdown file opens with YAML frontmatter: a workflow in Markdown does; one without is documentation. */
export function hasFrontmatter(raw: string): boolean {
  return /^(?:\uFEFF)?---[ \t]*\r?(?:\n|$)/.test(raw);
}

/**
 * Parses a Markdown workflow (`workflows/NAME.md`, see hasFrontmatter): its frontmatter as a YAML workflow, its body
 * kept as the workflow's `content`. The seed's own workflow files are written so: name, description, tags,
 * complexity and `phases`.
 */
export function parseMarkdownWorkflowFile(raw: string, path: string, fallbackName: string): ParsedWorkflow {
  const lines = normalizeText(raw).split('\n');
  const end = lines[0]?.trim() === '---' ? lines.findIndex((l, i) => i > 0 && (l.trim() === '---' || l.trim() === '...')) : -1;
  if (end < 0) {
    const message = "frontmatter opened with '---' on line 1 is never closed; add a line with '---' after the last field";
    return { template: undefined, problems: [{ path, line: 1, message }], agentLines: new Map() };
  }
  // The frontmatter after a blank first line, so that each problem's line is the file's.
  const parsed = parseWorkflowFile(['', ...lines.slice(1, end)].join('\n'), path, fallbackName);
  const body = lines.slice(end + 1).join('\n').trim();
  if (parsed.template && body) parsed.template.content = body;
  return parsed;
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
    r.error([], `expected a mapping with the fields name, description and steps, got ${describe(root)}`);
    return fail();
  }

  if (Array.isArray(root['workflows']) && root['steps'] === undefined && root['phases'] === undefined) {
    return { template: undefined, problems: [], agentLines, registry: true };
  }
  const other = root['steps'] === undefined && root['phases'] === undefined ? otherKind(root) : undefined;
  if (other) {
    r.error([], other);
    return fail();
  }
  const where = 'workflow';
  r.unknownKeys(root, [], where, TEMPLATE_FIELDS);
  const name = r.name(root, [], where, fallbackName);
  const description = r.string(root, [], 'description', where, 'a one-line description of what the workflow is for', true);
  const tags = r.stringList(root, [], 'tags', where);
  const duration = readDuration(r, root);
  const complexity = readComplexity(r, root);
  const steps = readSteps(r, root, agentLines);
  const type = readType(r, root, steps);
  const dynamicPhases = r.boolean(root, [], 'dynamic_phases', where, false);
  const dynamicConfig = dynamicPhases ? readDynamicConfig(r, root) : undefined;
  if (!dynamicPhases && root['dynamic_config'] !== undefined) r.error(['dynamic_config'], 'workflow: dynamic_config needs dynamic_phases: true');
  if (r.fatal || name === undefined || description === undefined || type === undefined) return fail();
  const template: WorkflowTemplate = { name, description, type, tags, estimated_duration_minutes: duration, steps };
  if (complexity) template.complexity = complexity;
  if (dynamicPhases && dynamicConfig) Object.assign(template, { dynamic_phases: true, dynamic_config: dynamicConfig });
  return { template, problems: r.problems, agentLines };
}

/**
 * What to do with a workflow template (steps, or the lifecycle spec's phases, and no agents) that a command for
 * another kind of file (`kind`: "team workflow", "pipeline") was given; undefined for anything else.
 */
export function workflowTemplateHint(root: Record<string, unknown>, fallbackName: string, kind: string): string | undefined {
  const steps = Array.isArray(root['steps']) || Array.isArray(root['phases']);
  if (!steps || root['agents'] !== undefined || root['workflow'] !== undefined) return undefined;
  const name = typeof root['name'] === 'string' ? root['name'] : fallbackName;
  return `this is a workflow template (steps an agent takes one at a time), not a ${kind}; put it in .baton/workflows/ `
    + `and start it from an agent with workflow_next_step({ template_name: "${name}" }), or with Baton: Start Workflow... `
    + 'in the editor';
}

/**
 * Where a file of another kind found among the workflow templates belongs: a team workflow (agents as a mapping),
 * a pipeline (a list of agents and workflow steps) or a blueprint; undefined for anything else.
 */
function otherKind(root: Record<string, unknown>): string | undefined {
  const reads = 'workflows/ holds workflow templates (name, description, steps)';
  if (isMapping(root['agents']) && root['workflow'] === undefined) {
    return `this is a team workflow (agents as a mapping of names, with a kickoff), not a workflow template; ${reads}: `
      + 'move it out of that folder and run it with baton run FILE';
  }
  if (Array.isArray(root['agents']) && root['workflow'] !== undefined) {
    return `this is a pipeline (a list of agents, and workflow steps), not a workflow template; ${reads}: `
      + 'move it to .baton/pipelines/ and run it with baton pipeline run NAME';
  }
  if (root['agentTemplates'] !== undefined || root['workflowTemplate'] !== undefined) {
    return `this is a blueprint (agentTemplates, workflowTemplate), not a workflow template; ${reads}: `
      + 'move it to .baton/blueprints/ and make a pipeline of it with baton blueprint new NAME --from BLUEPRINT';
  }
  return undefined;
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

/** The workflow's `type`, or when it has none, the type its steps' dependencies make it. */
function readType(r: FieldReader, root: Record<string, unknown>, steps: readonly StepDefinition[]): WorkflowTemplate['type'] | undefined {
  return root['type'] === undefined || root['type'] === null ? typeOfGraph(steps) : readChoice(r, root, 'type', WORKFLOW_TYPES);
}

/**
 * What a workflow's dependencies make it: `sequential` when its steps can only go one at a time (one first step, and
 * no step followed by two or waiting on two), `parallel` when none waits on another, else `hybrid`.
 */
export function typeOfGraph(steps: readonly StepDefinition[]): WorkflowTemplate['type'] {
  if (steps.length > 1 && steps.every((s) => s.dependencies.length === 0)) return 'parallel';
  const followers = new Map<string, number>();
  for (const s of steps) for (const d of s.dependencies) followers.set(d, (followers.get(d) ?? 0) + 1);
  const firsts = steps.filter((s) => s.dependencies.length === 0).length;
  const chain = firsts <= 1 && steps.every((s) => s.dependencies.length <= 1) && [...followers.values()].every((n) => n <= 1);
  return chain ? 'sequential' : 'hybrid';
}

function readComplexity(r: FieldReader, root: Record<string, unknown>): WorkflowTemplate['complexity'] {
  return root['complexity'] === undefined || root['complexity'] === null ? undefined : readChoice(r, root, 'complexity', COMPLEXITIES);
}

/** The workflow field `key`, one of `choices`; else undefined, with the problem recorded. */
function readChoice<T extends string>(r: FieldReader, root: Record<string, unknown>, key: string, choices: readonly T[]): T | undefined {
  const expected = `one of ${choices.join(', ')}`;
  const value = r.string(root, [], key, 'workflow', expected, true);
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value)) {
    r.error([key], `workflow: unknown ${key} '${value}' (expected ${expected})`);
    return undefined;
  }
  return value as T;
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
  // The lifecycle spec's workflow files list their steps as `phases`; either name, not both.
  const list = root['steps'] === undefined && root['phases'] !== undefined ? 'phases' : 'steps';
  if (list === 'steps' && root['phases'] !== undefined) {
    r.error(['phases'], "workflow: both 'steps' and 'phases' are given; keep one (phases is the lifecycle spec's name for the steps)");
  }
  const raw = root[list];
  if (raw === undefined || raw === null) {
    r.error([], "workflow: missing required field 'steps' (expected a list of steps, each with name, agent and description; " +
      "or 'phases', each with phase, agent, description and dependsOn)");
    return [];
  }
  if (!Array.isArray(raw) || raw.length === 0) {
    r.error([list], `workflow: field '${list}' must be a non-empty list of steps, got ${Array.isArray(raw) ? 'an empty list' : describe(raw)}`);
    return [];
  }
  const steps: Array<{ step: StepDefinition; index: number; depsKey: string }> = [];
  const firstIndex = new Map<string, number>();
  raw.forEach((item, i) => {
    const read = readStep(r, item, list, i);
    if (read === undefined) return;
    const { step, nameKey, depsKey } = read;
    const earlier = firstIndex.get(step.name);
    if (earlier !== undefined) {
      r.error([list, i, nameKey], `step '${step.name}' (${list}[${i}]): duplicate step name; ${list}[${earlier}] already uses it, and step names must be unique`);
      return;
    }
    firstIndex.set(step.name, i);
    agentLines.set(step.name, r.lineOf([list, i, 'agent']));
    steps.push({ step, index: i, depsKey });
  });
  // Graph checks run over every named step, even ones with other errors, so one run shows everything.
  for (const { step, index, depsKey } of steps) {
    step.dependencies.forEach((dep, j) => {
      if (firstIndex.has(dep)) return;
      r.error([list, index, depsKey, j], `step '${step.name}': dependency '${dep}' names no step in this workflow (steps: ${[...firstIndex.keys()].join(', ')})`);
    });
  }
  for (const cycle of findCycles(steps.map((s) => s.step))) {
    const { index, depsKey } = steps.find((s) => s.step.name === cycle[0])!;
    r.error([list, index, depsKey], `dependency cycle: ${cycle.join(' → ')} (→ means "depends on"); no step in a cycle can ever become ready`);
  }
  return steps.map((s) => s.step);
}

/** The first of two names of one field that `item` uses (`name` or the lifecycle spec's `phase`); both is an error. */
function fieldName(r: FieldReader, item: Record<string, unknown>, at: FieldPath, where: string, own: string, spec: string): string {
  if (item[own] === undefined) return item[spec] === undefined ? own : spec;
  if (item[spec] !== undefined) r.error([...at, spec], `${where}: both '${own}' and '${spec}' are given; keep one (${spec} is the lifecycle spec's name for ${own})`);
  return own;
}

function readStep(r: FieldReader, item: unknown, list: string, i: number): { step: StepDefinition; nameKey: string; depsKey: string } | undefined {
  const at: FieldPath = [list, i];
  if (!isMapping(item)) {
    r.error(at, `${list}[${i}]: expected a mapping with name, agent and description, got ${describe(item)}`);
    return undefined;
  }
  const named = item['name'] ?? item['phase'];
  const rawName = typeof named === 'string' ? named.trim() : '';
  const where = rawName ? `step '${rawName}'` : `${list}[${i}]`;
  r.unknownKeys(item, at, where, STEP_FIELDS);
  const nameKey = fieldName(r, item, at, where, 'name', 'phase');
  const depsKey = fieldName(r, item, at, where, 'dependencies', 'dependsOn');
  const name = r.string(item, at, nameKey, where, 'a step name such as implement-fix', true);
  const agent = r.string(item, at, 'agent', where, 'the name of the agent that runs the step, such as implementer', true);
  const description = r.string(item, at, 'description', where, 'the task text the agent reads', true);
  const dependencies = dedupe(r.stringList(item, at, depsKey, where));
  const allowed = r.stringList(item, at, 'allowed_actions', where);
  const format = r.string(item, at, 'required_output_format', where, 'a description of the output the step must submit', false);
  const gate = r.boolean(item, at, 'human_gate', where, false);
  const paths = r.stringList(item, at, 'path_patterns', where);
  const tags = r.stringList(item, at, 'tags', where);
  const gateItems = r.stringList(item, at, 'validation_gate', where);
  const parallel = item['allowParallel'] === undefined ? undefined : r.boolean(item, at, 'allowParallel', where, true);
  // A step with other errors keeps its name and dependencies for the graph checks; the file is rejected anyway.
  if (name === undefined) return undefined;
  const step: StepDefinition = {
    name, agent: agent ?? '', description: description ?? '', dependencies, allowed_actions: allowed,
    required_output_format: format ?? DEFAULT_OUTPUT_FORMAT, human_gate: gate, path_patterns: paths, tags,
    ...(gateItems.length ? { validation_gate: gateItems } : {}),
    ...(parallel === undefined ? {} : { allow_parallel: parallel }),
  };
  return { step, nameKey, depsKey };
}

function dedupe(list: string[]): string[] {
  return list.filter((x, i) => list.indexOf(x) === i);
}
