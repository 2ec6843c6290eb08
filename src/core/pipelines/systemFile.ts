// Parses and validates pipeline systems (`.baton/pipelines/*.yaml`) and blueprints (`content/blueprints/*.yaml`).
// Every problem names the file, the line, the field (as a path such as workflow[1].children[0].type) and, where the
// field takes one of a set of values, the allowed values.
import type { ContentProblem } from '../api.js';
import { describe, isMapping, parseYaml, type FieldPath } from '../content/fieldReader.js';
import { workflowTemplateHint } from '../content/workflowFile.js';
import { regexProblem } from './regexCheck.js';
import { RUNNER_KINDS, type RunnerKind } from './runner.js';
import { didYouMean } from '../suggest.js';
import {
  BLUEPRINT_CATEGORIES, BLUEPRINT_INPUT_TYPES, CONDITION_OPERATORS, FAILURE_POLICIES, STEP_TYPES, SYSTEM_AGENT_ROLES, TRANSFORM_OPERATIONS,
  type AgentTemplate, type BlueprintInput, type Budget, type System, type SystemAgent, type SystemBlueprint, type SystemWorkflowStep,
  type WorkflowStepCondition,
} from './types.js';

/** The result of parsing a file: the value when valid, and every problem. */
export interface Parsed<T> {
  value: T | undefined;
  problems: ContentProblem[];
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SYSTEM_FIELDS = ['name', 'description', 'agents', 'workflow', 'budget', 'variables'];
const AGENT_FIELDS = ['id', 'role', 'runner', 'modelConfig', 'modelConfigOverride', 'model', 'systemPromptOverride', 'allowedTools', 'command', 'env', 'price', 'cliConfig'];
const STEP_FIELDS = [
  'id', 'type', 'name', 'agentId', 'inputTemplate', 'outputVariable', 'children', 'condition', 'trueBranch', 'falseBranch', 'maxIterations',
  'breakCondition', 'failurePolicy', 'timeoutMs', 'retry', 'operation', 'pattern', 'group', 'onReject',
];
/**
 * The fields each step type reads beyond the common ones (`id`, `type`, `name`, `inputTemplate`, `outputVariable`): a
 * field of another type is ignored by this one, so it is named (`condition` on a loop step means `breakCondition`).
 */
const COMMON_STEP_FIELDS = ['id', 'type', 'name', 'inputTemplate', 'outputVariable'];
const TYPE_FIELDS: Record<(typeof STEP_TYPES)[number], readonly string[]> = {
  agent: ['agentId', 'timeoutMs', 'retry'],
  sequential: ['children'],
  parallel: ['children', 'failurePolicy'],
  conditional: ['condition', 'trueBranch', 'falseBranch'],
  loop: ['maxIterations', 'children', 'breakCondition'],
  human_review: ['onReject'],
  transform: ['operation', 'pattern', 'group'],
};
const BLUEPRINT_FIELDS = ['id', 'name', 'description', 'category', 'agentTemplates', 'workflowTemplate', 'requiredInputs', 'budget'];
/** Hard limits that keep a runaway file from a runaway run. */
const MAX_ITERATIONS = 1000;
const MAX_TIMEOUT_MS = 24 * 3600_000;

/** Reads fields of one document and records problems with their lines (shared with the team workflow parser). */
export class Reader {
  readonly problems: ContentProblem[] = [];
  constructor(private readonly path: string, private readonly lineOf: (at: FieldPath) => number | null) {}

  error(at: FieldPath, message: string): void {
    this.problems.push({ path: this.path, line: this.lineOf(at), message: `${fieldName(at)}: ${message}` });
  }
  warn(at: FieldPath, message: string): void {
    this.error(at, `${message} (ignored)`);
  }

  str(obj: Record<string, unknown>, at: FieldPath, key: string, expected: string, required = false): string | undefined {
    const v = obj[key];
    if (v === undefined || v === null) {
      if (required) this.error([...at, key], `missing required field (expected ${expected})`);
      return undefined;
    }
    if (typeof v !== 'string' || v.trim() === '') {
      this.error([...at, key], `must be ${expected}, got ${describe(v)}`);
      return undefined;
    }
    return v;
  }

  oneOf<T extends string>(obj: Record<string, unknown>, at: FieldPath, key: string, allowed: readonly T[], required = false): T | undefined {
    const v = obj[key];
    if ((v === undefined || v === null) && !required) return undefined;
    if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
      this.error([...at, key], `must be one of ${allowed.join(', ')}; got ${describe(v)}`);
      return undefined;
    }
    return v as T;
  }

  int(obj: Record<string, unknown>, at: FieldPath, key: string, min: number, max: number, required = false): number | undefined {
    const v = obj[key];
    if (v === undefined || v === null) {
      if (required) this.error([...at, key], `missing required field (expected a whole number from ${min} to ${max})`);
      return undefined;
    }
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      this.error([...at, key], `must be a whole number from ${min} to ${max}, got ${describe(v)}`);
      return undefined;
    }
    return v;
  }

  num(obj: Record<string, unknown>, at: FieldPath, key: string, what: string): number | undefined {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      this.error([...at, key], `must be ${what} (a number ≥ 0), got ${describe(v)}`);
      return undefined;
    }
    return v;
  }

  strings(obj: Record<string, unknown>, at: FieldPath, key: string): string[] | undefined {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) {
      this.error([...at, key], `must be a list of strings, got ${describe(v)}`);
      return undefined;
    }
    // YAML reads a bare `true`, `1` or `null` as another type: name the item and how to keep it a string.
    const bad = v.findIndex((x) => typeof x !== 'string');
    if (bad >= 0) {
      const item: unknown = v[bad];
      const quoted = typeof item === 'boolean' || typeof item === 'number' || item === null ? `; quote it: "${String(item)}"` : '';
      this.error([...at, key, bad], `must be a string, got ${describe(item)}${quoted}`);
      return undefined;
    }
    return v as string[];
  }

  /** Warns of each field not in `known`; a `...` placeholder is an error naming `fill` (the fields it stands for). */
  unknown(obj: Record<string, unknown>, at: FieldPath, known: readonly string[], fill: readonly string[] = known): void {
    for (const k of Object.keys(obj)) {
      if (known.includes(k)) continue;
      if (isPlaceholder(k)) this.error(at, `holds '${k}', a placeholder from an example, not a field; write the fields it stands for in its place (${fill.join(', ')})`);
      else this.warn([...at, k], `unknown field${didYouMean(k, known)}; known fields: ${known.join(', ')}`);
    }
  }
}

/** Whether a key or value is the `...` an example writes for "and the rest" (`{ type: agent, agentId: x, ... }`). */
export function isPlaceholder(v: unknown): boolean {
  return typeof v === 'string' && /^\s*(\.\.\.|\u2026)\s*$/.test(v);
}

/** `workflow[1].children[0].type` from a path. */
export function fieldName(at: FieldPath): string {
  let out = '';
  for (const p of at) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return out || '(file)';
}

/** Parses YAML text with line tracking; a file that is not readable YAML is its problems (shared with the team workflow parser). */
export function load(raw: string, path: string): { root: unknown; r: Reader } | { problems: ContentProblem[] } {
  const parsed = parseYaml(raw, path);
  return 'problems' in parsed ? parsed : { root: parsed.root, r: new Reader(path, parsed.lineOf) };
}

/** The runner a model name implies (`claude-…`, `gpt-…`/`codex-…`/`o3…`, `gemini-…`, `opencode-…`, `cursor-…`). */
export function runnerForModel(model: string | undefined): RunnerKind | undefined {
  if (!model) return undefined;
  const m = model.toLowerCase();
  if (m.startsWith('claude')) return 'claude';
  if (m.startsWith('codex') || m.startsWith('gpt') || /^o\d/.test(m)) return 'codex';
  if (m.startsWith('gemini')) return 'gemini';
  if (m.startsWith('opencode')) return 'opencode';
  if (m.startsWith('cursor')) return 'cursor-agent';
  return undefined;
}

/** Parses a system file. `fallbackName` (the file name) is used when it has no `name`. */
export function parseSystemFile(raw: string, path: string, fallbackName: string): Parsed<System> {
  const loaded = load(raw, path);
  if ('problems' in loaded) return { value: undefined, problems: loaded.problems };
  const { root, r } = loaded;
  if (!isMapping(root)) {
    r.error([], `expected a mapping with name, agents and workflow, got ${describe(root)}`);
    return { value: undefined, problems: r.problems };
  }
  const other = otherKind(root, fallbackName);
  if (other) {
    r.error([], other);
    return { value: undefined, problems: r.problems };
  }
  r.unknown(root, [], SYSTEM_FIELDS);
  const name = r.str(root, [], 'name', 'a name') ?? fallbackName;
  if (!ID.test(name.replace(/ /g, '-'))) r.error(['name'], `'${name}' is not a valid name (letters, digits, spaces, '_' and '-')`);
  const description = root['description'] === '' ? '' : r.str(root, [], 'description', 'a one-line description') ?? '';
  const agents = readAgents(r, root['agents'], ['agents']);
  const ids = new Set(agents.map((a) => a.id));
  const workflow = readSteps(r, root['workflow'], ['workflow'], ids, true);
  const budget = readBudget(r, root, []);
  const variables = readVariables(r, root, []);
  const errors = r.problems.filter((p) => !p.message.endsWith('(ignored)'));
  if (errors.length) return { value: undefined, problems: r.problems };
  return { value: { name, description, agents, workflow, ...(budget ? { budget } : {}), ...(variables ? { variables } : {}) }, problems: r.problems };
}

/**
 * What to do with a file of another kind that a pipeline run was given: a blueprint (agentTemplates and
 * workflowTemplate) or a team workflow (agents as a mapping, kickoff, setup, context); undefined for anything else.
 */
function otherKind(root: Record<string, unknown>, fallbackName: string): string | undefined {
  const template = workflowTemplateHint(root, fallbackName, 'pipeline');
  if (template) return `${template} (a pipeline lists its agents with id and has workflow steps)`;
  if (root['agents'] !== undefined || root['workflow'] !== undefined) {
    const team = isMapping(root['agents']) && root['workflow'] === undefined;
    return team ? 'this is a team workflow (agents as a mapping of names, with kickoff and @mentions), not a pipeline; '
      + 'run it with baton run FILE (a pipeline lists its agents with id and has workflow steps)' : undefined;
  }
  if (root['agentTemplates'] === undefined && root['workflowTemplate'] === undefined) return undefined;
  const id = typeof root['id'] === 'string' ? root['id'] : fallbackName;
  return 'this is a blueprint (agentTemplates, workflowTemplate), not a pipeline; put it in .baton/blueprints/ and make a '
    + `pipeline of it with baton blueprint new NAME --from ${id}`;
}

function readAgents(r: Reader, raw: unknown, at: FieldPath): SystemAgent[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    r.error(at, `must be a non-empty list of agents (each with id, role and runner or modelConfig.model), got ${describe(raw)}`);
    return [];
  }
  const out: SystemAgent[] = [];
  const seen = new Set<string>();
  raw.forEach((item, i) => {
    const here = [...at, i];
    if (!isMapping(item)) return r.error(here, `expected a mapping with id, role and runner, got ${describe(item)}`);
    r.unknown(item, here, AGENT_FIELDS);
    const id = r.str(item, here, 'id', "an agent id of letters, digits, '_' or '-'", true);
    if (id !== undefined && !ID.test(id)) r.error([...here, 'id'], `'${id}' is not a valid id (letters, digits, '_' or '-')`);
    if (id !== undefined && seen.has(id)) r.error([...here, 'id'], `duplicate agent id '${id}'; agent ids must be unique`);
    if (id) seen.add(id);
    const role = r.oneOf(item, here, 'role', SYSTEM_AGENT_ROLES) ?? 'custom';
    // The spec's agent step executor reads `modelConfigOverride ?? modelConfig`: both name the agent's model.
    const key = item['modelConfigOverride'] !== undefined && item['modelConfigOverride'] !== null ? 'modelConfigOverride' : 'modelConfig';
    const modelConfig = isMapping(item[key]) ? item[key] : undefined;
    if (item[key] !== undefined && !modelConfig) r.error([...here, key], `must be a mapping such as { model: claude-haiku }, got ${describe(item[key])}`);
    const model = (modelConfig && r.str(modelConfig, [...here, key], 'model', 'a model name')) ?? r.str(item, here, 'model', 'a model name');
    let runner = r.oneOf(item, here, 'runner', RUNNER_KINDS);
    if (!runner && item['runner'] === undefined) {
      runner = runnerForModel(model);
      if (!runner) r.error([...here, 'runner'], `missing; set runner to one of ${RUNNER_KINDS.join(', ')} (it cannot be inferred from ${model ? `model '${model}'` : 'a missing model'})`);
    }
    const command = r.strings(item, here, 'command');
    if (runner === 'command' && (command ? command.length === 0 : !Array.isArray(item['command']))) {
      r.error([...here, 'command'], "the command runner needs command: an argument list such as ['node', 'agent.js'] (no shell string)");
    }
    const env = isMapping(item['env']) ? Object.fromEntries(Object.entries(item['env']).map(([k, v]) => [k, String(v)])) : undefined;
    const price = isMapping(item['price']) ? item['price'] : undefined;
    const agent: SystemAgent = { id: id ?? `agents[${i}]`, role, runner: runner ?? 'command' };
    if (model) agent.modelConfig = { model };
    const sp = r.str(item, here, 'systemPromptOverride', 'text');
    if (sp) agent.systemPromptOverride = sp;
    const tools = r.strings(item, here, 'allowedTools');
    if (tools && agent.runner !== 'claude') r.warn([...here, 'allowedTools'], toolsIgnored(agent.runner, "Baton's MCP tools"));
    else if (tools) agent.allowedTools = tools;
    // As in a team file: a command on another runner's agent is not dropped without a word (a CLI is found on PATH).
    if (command && agent.runner !== 'command') {
      const path = CLI_CONFIG_RUNNERS.includes(agent.runner) ? ' (set PATH in env to run another copy of it)' : '';
      r.warn([...here, 'command'], `only the command runner runs a command; this agent uses ${agent.runner}${path}`);
    } else if (command) agent.command = command;
    if (env) agent.env = env;
    const cliConfig = readCliConfig(r, item, here, agent.runner);
    if (cliConfig) agent.cliConfig = cliConfig;
    if (price) {
      const input = r.num(price, [...here, 'price'], 'input', 'US dollars per million input tokens');
      const output = r.num(price, [...here, 'price'], 'output', 'US dollars per million output tokens');
      if (input !== undefined && output !== undefined) agent.price = { input, output };
    }
    out.push(agent);
  });
  return out;
}

/** Why a list of the CLI's own tools is ignored for `runner`: only claude has a flag (`--allowedTools`) that takes it. */
export function toolsIgnored(runner: RunnerKind, batons: string, kind = 'runner'): string {
  return `only the claude ${kind} takes a list of its CLI's own tools (claude --allowedTools: the tools it may use without `
    + `asking); a ${runner} agent gets ${batons} and its CLI's own defaults`;
}

/** The runners that take `cliConfig` (the spawned CLIs with settings of their own). */
const CLI_CONFIG_RUNNERS: readonly RunnerKind[] = ['claude', 'codex', 'gemini', 'opencode', 'cursor-agent'];

function readCliConfig(r: Reader, item: Record<string, unknown>, here: FieldPath, runner: RunnerKind): Record<string, unknown> | undefined {
  const raw = item['cliConfig'];
  if (raw === undefined || raw === null) return undefined;
  if (!isMapping(raw)) {
    r.error([...here, 'cliConfig'], `must be a mapping of the CLI's own settings (e.g. { model_provider: local } for codex), got ${describe(raw)}`);
    return undefined;
  }
  if (!CLI_CONFIG_RUNNERS.includes(runner)) {
    r.error([...here, 'cliConfig'], `the ${runner} runner takes no cliConfig; it applies to ${CLI_CONFIG_RUNNERS.join(', ')} (use env for the command runner)`);
    return undefined;
  }
  return raw;
}

function readBudget(r: Reader, obj: Record<string, unknown>, at: FieldPath): Budget | undefined {
  const raw = obj['budget'];
  if (raw === undefined || raw === null) return undefined;
  if (!isMapping(raw)) {
    r.error([...at, 'budget'], `must be a mapping such as { tokens: 200000, usd: 2.5 }, got ${describe(raw)}`);
    return undefined;
  }
  r.unknown(raw, [...at, 'budget'], ['tokens', 'usd']);
  const tokens = r.num(raw, [...at, 'budget'], 'tokens', 'a token limit');
  const usd = r.num(raw, [...at, 'budget'], 'usd', 'a limit in US dollars');
  return { ...(tokens !== undefined ? { tokens } : {}), ...(usd !== undefined ? { usd } : {}) };
}

function readVariables(r: Reader, obj: Record<string, unknown>, at: FieldPath): Record<string, string> | undefined {
  const raw = obj['variables'];
  if (raw === undefined || raw === null) return undefined;
  if (!isMapping(raw)) {
    r.error([...at, 'variables'], `must be a mapping of names to values, got ${describe(raw)}`);
    return undefined;
  }
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}

function readSteps(r: Reader, raw: unknown, at: FieldPath, agents: Set<string>, required: boolean, allowEmpty = false): SystemWorkflowStep[] {
  if (raw === undefined || raw === null) {
    if (required) r.error(at, `missing required field (expected a list of steps with type ${STEP_TYPES.join(', ')})`);
    return [];
  }
  if (!Array.isArray(raw) || (raw.length === 0 && !allowEmpty)) {
    r.error(at, `must be a ${allowEmpty ? '' : 'non-empty '}list of steps, got ${Array.isArray(raw) ? 'an empty list' : describe(raw)}`);
    return [];
  }
  const ids = new Set<string>();
  return raw.flatMap((item, i) => {
    const step = readStep(r, item, [...at, i], i, agents);
    if (!step) return [];
    if (ids.has(step.id)) r.error([...at, i, 'id'], `duplicate step id '${step.id}' among its siblings; give the step an id of its own`);
    ids.add(step.id);
    return [step];
  });
}

function readStep(r: Reader, item: unknown, at: FieldPath, index: number, agents: Set<string>): SystemWorkflowStep | undefined {
  if (!isMapping(item)) {
    r.error(at, `expected a mapping with a type (${STEP_TYPES.join(', ')}), got ${describe(item)}`);
    return undefined;
  }
  const typed = (STEP_TYPES as readonly unknown[]).includes(item['type']) ? TYPE_FIELDS[item['type'] as (typeof STEP_TYPES)[number]] : undefined;
  r.unknown(item, at, STEP_FIELDS, typed ? [...COMMON_STEP_FIELDS, ...typed] : STEP_FIELDS);
  const type = r.oneOf(item, at, 'type', STEP_TYPES, true);
  if (!type) return undefined;
  const own = [...COMMON_STEP_FIELDS, ...TYPE_FIELDS[type]];
  for (const k of Object.keys(item)) {
    if (own.includes(k) || !STEP_FIELDS.includes(k)) continue; // unknown fields are named above
    const of = STEP_TYPES.filter((t) => TYPE_FIELDS[t].includes(k));
    const belongs = of.length > 1 ? `${of.slice(0, -1).join(', ')} and ${of.at(-1)}` : of[0];
    // `condition` on a loop step is its `breakCondition`: a field of this type that ends in the name given.
    const meant = TYPE_FIELDS[type].find((f) => f !== k && f.toLowerCase().endsWith(k.toLowerCase()));
    const a = /^[aeiou]/.test(type) ? 'an' : 'a';
    r.warn([...at, k], `not a field of ${a} ${type} step (it belongs to ${belongs} steps)${meant ? ` (did you mean '${meant}'?)` : ''}; ${a} ${type} step's fields: ${own.join(', ')}`);
  }
  const agentId = r.str(item, at, 'agentId', 'the id of an agent of this system');
  const rawId = r.str(item, at, 'id', "a step id of letters, digits, '_' or '-'");
  if (rawId !== undefined && !ID.test(rawId)) r.error([...at, 'id'], `'${rawId}' is not a valid id (letters, digits, '_' or '-')`);
  const id = rawId ?? `${index + 1}-${agentId ?? type}`;
  const s: SystemWorkflowStep = { id, type };
  const name = r.str(item, at, 'name', 'a display name');
  if (name) s.name = name;
  const tpl = r.str(item, at, 'inputTemplate', 'a template text with {{variables}}');
  if (tpl !== undefined) s.inputTemplate = tpl;
  const out = r.str(item, at, 'outputVariable', 'a variable name');
  if (out !== undefined) {
    if (!VARIABLE.test(out) || out === 'system' || out === 'loop') r.error([...at, 'outputVariable'], `'${out}' is not a valid variable name (letters, digits and '_'; not 'system' or 'loop')`);
    else s.outputVariable = out;
  }
  switch (type) {
    case 'agent':
      if (agentId === undefined) r.error([...at, 'agentId'], `an agent step needs agentId, one of: ${[...agents].join(', ') || '(no agents)'}`);
      else if (!agents.has(agentId)) r.error([...at, 'agentId'], `no agent '${agentId}' in this system; agents: ${[...agents].join(', ') || '(none)'}`);
      else s.agentId = agentId;
      readAgentOptions(r, item, at, s);
      break;
    case 'sequential':
    case 'parallel':
      s.children = readSteps(r, item['children'], [...at, 'children'], agents, true);
      if (type === 'parallel') {
        const policy = r.oneOf(item, at, 'failurePolicy', FAILURE_POLICIES);
        if (policy) s.failurePolicy = policy;
      }
      break;
    case 'conditional':
      s.condition = readCondition(r, item['condition'], [...at, 'condition'], true);
      s.trueBranch = readSteps(r, item['trueBranch'], [...at, 'trueBranch'], agents, false, true);
      s.falseBranch = readSteps(r, item['falseBranch'], [...at, 'falseBranch'], agents, false, true);
      if (item['trueBranch'] === undefined && item['falseBranch'] === undefined) {
        r.error(at, 'a conditional step needs trueBranch or falseBranch (or both): the steps to run when its condition holds, or when it does not');
      }
      break;
    case 'loop':
      s.maxIterations = r.int(item, at, 'maxIterations', 1, MAX_ITERATIONS, true);
      s.children = readSteps(r, item['children'], [...at, 'children'], agents, true);
      if (item['breakCondition'] !== undefined) s.breakCondition = readCondition(r, item['breakCondition'], [...at, 'breakCondition'], true);
      else checkEmptyBranches(r, item['children'], s, at);
      break;
    case 'human_review': {
      const onReject = r.oneOf(item, at, 'onReject', ['fail', 'continue'] as const);
      if (onReject) s.onReject = onReject;
      break;
    }
    case 'transform': {
      const op = r.oneOf(item, at, 'operation', TRANSFORM_OPERATIONS);
      if (op) s.operation = op;
      if (s.inputTemplate === undefined) r.error([...at, 'inputTemplate'], 'a transform step needs inputTemplate, the text it transforms (with {{variables}})');
      if (op === 'extract') {
        const pattern = r.str(item, at, 'pattern', 'a regular expression', true);
        if (pattern !== undefined) {
          const problem = regexProblem(pattern);
          if (problem) r.error([...at, 'pattern'], problem);
          else s.pattern = pattern;
        }
        const group = r.int(item, at, 'group', 0, 99);
        if (group !== undefined) s.group = group;
      }
      break;
    }
  }
  return s;
}

/**
 * A loop without breakCondition whose conditional child has an explicit empty branch: the shape of the spec's Pattern 4
 * (`trueBranch: [], // Break loop`), where the empty branch runs nothing and the loop goes on to maxIterations.
 */
function checkEmptyBranches(r: Reader, rawChildren: unknown, loop: SystemWorkflowStep, at: FieldPath): void {
  const children = loop.children ?? [];
  if (!Array.isArray(rawChildren) || rawChildren.length !== children.length) return; // a bad child is reported already
  rawChildren.forEach((raw, i) => {
    const child = children[i]!;
    if (!isMapping(raw) || child.type !== 'conditional' || !child.condition) return;
    for (const branch of ['trueBranch', 'falseBranch'] as const) {
      if (!Array.isArray(raw[branch]) || raw[branch].length > 0) continue;
      const stop = branch === 'trueBranch' ? child.condition : { not: child.condition };
      r.error([...at, 'children', i, branch], `an empty branch does not end the loop: it runs nothing and the loop goes on, `
        + `up to maxIterations (${loop.maxIterations ?? '?'}); to end the loop there, give the loop `
        + `breakCondition: ${flow(stop)} (checked after each child) and leave out this ${branch}`);
    }
  });
}

/** A value as a YAML flow mapping or list, for a message the person copies into the file. */
function flow(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
  if (isMapping(v)) return `{ ${Object.entries(v).map(([k, x]) => `${k}: ${flow(x)}`).join(', ')} }`;
  const plain = typeof v !== 'string' || (/^[A-Za-z_][A-Za-z0-9_. /-]*$/.test(v) && !/^(true|false|null|yes|no|on|off)$/i.test(v));
  return plain ? String(v) : JSON.stringify(v);
}

function readAgentOptions(r: Reader, item: Record<string, unknown>, at: FieldPath, s: SystemWorkflowStep): void {
  const timeout = r.int(item, at, 'timeoutMs', 1, MAX_TIMEOUT_MS);
  if (timeout !== undefined) s.timeoutMs = timeout;
  const retry = item['retry'];
  if (retry === undefined || retry === null) return;
  if (!isMapping(retry)) {
    r.error([...at, 'retry'], `must be a mapping such as { maxAttempts: 3, backoffMs: 1000 }, got ${describe(retry)}`);
    return;
  }
  r.unknown(retry, [...at, 'retry'], ['maxAttempts', 'backoffMs', 'multiplier']);
  const maxAttempts = r.int(retry, [...at, 'retry'], 'maxAttempts', 1, 20, true);
  const backoffMs = r.int(retry, [...at, 'retry'], 'backoffMs', 0, 3600_000) ?? 1000;
  const multiplier = r.num(retry, [...at, 'retry'], 'multiplier', 'the factor the wait grows by');
  if (maxAttempts !== undefined) s.retry = { maxAttempts, backoffMs, ...(multiplier !== undefined ? { multiplier } : {}) };
}

function readCondition(r: Reader, raw: unknown, at: FieldPath, required: boolean): WorkflowStepCondition | undefined {
  if (raw === undefined || raw === null) {
    if (required) r.error(at, `missing (expected { field, operator, value } with operator one of ${CONDITION_OPERATORS.join(', ')}, or all / any / not)`);
    return undefined;
  }
  if (!isMapping(raw)) {
    r.error(at, `must be a mapping { field, operator, value }, got ${describe(raw)}`);
    return undefined;
  }
  for (const k of ['all', 'any'] as const) {
    if (raw[k] === undefined) continue;
    if (!Array.isArray(raw[k]) || raw[k].length === 0) {
      r.error([...at, k], `must be a non-empty list of conditions, got ${describe(raw[k])}`);
      return undefined;
    }
    const list = (raw[k] as unknown[]).map((c, i) => readCondition(r, c, [...at, k, i], true));
    if (list.some((c) => !c)) return undefined;
    return k === 'all' ? { all: list as WorkflowStepCondition[] } : { any: list as WorkflowStepCondition[] };
  }
  if (raw['not'] !== undefined) {
    const inner = readCondition(r, raw['not'], [...at, 'not'], true);
    return inner && { not: inner };
  }
  r.unknown(raw, at, ['field', 'operator', 'value', 'caseSensitive']);
  const field = r.str(raw, at, 'field', 'a variable path such as reviewResult or system.input', true);
  const operator = r.oneOf(raw, at, 'operator', CONDITION_OPERATORS, true);
  const value = raw['value'];
  if (value !== undefined && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    r.error([...at, 'value'], `must be a string, number or boolean, got ${describe(value)}`);
    return undefined;
  }
  if (operator && !['exists', 'not_exists'].includes(operator) && value === undefined) {
    r.error([...at, 'value'], `operator ${operator} needs a value`);
    return undefined;
  }
  if ((operator === 'matches' || operator === 'not_matches') && typeof value === 'string') {
    const problem = regexProblem(value);
    if (problem) {
      r.error([...at, 'value'], problem);
      return undefined;
    }
  }
  if (operator && ['gt', 'gte', 'lt', 'lte'].includes(operator) && typeof value !== 'number') {
    r.error([...at, 'value'], `operator ${operator} needs a number, got ${describe(value)}`);
    return undefined;
  }
  if (!field || !operator) return undefined;
  return { field, operator, ...(value !== undefined ? { value } : {}), ...(raw['caseSensitive'] === true ? { caseSensitive: true } : {}) };
}

/** Parses a blueprint file. */
export function parseBlueprintFile(raw: string, path: string, fallbackId: string): Parsed<SystemBlueprint> {
  const loaded = load(raw, path);
  if ('problems' in loaded) return { value: undefined, problems: loaded.problems };
  const { root, r } = loaded;
  if (!isMapping(root)) {
    r.error([], `expected a mapping with id, name, agentTemplates, workflowTemplate and requiredInputs, got ${describe(root)}`);
    return { value: undefined, problems: r.problems };
  }
  r.unknown(root, [], BLUEPRINT_FIELDS);
  const id = r.str(root, [], 'id', 'a blueprint id') ?? fallbackId;
  const name = r.str(root, [], 'name', 'a display name', true) ?? id;
  const description = r.str(root, [], 'description', 'a one-line description', true) ?? '';
  const category = r.oneOf(root, [], 'category', BLUEPRINT_CATEGORIES, true) ?? 'custom';
  const templates = readAgentTemplates(r, root['agentTemplates']);
  const ids = templates.map((t) => t.id);
  if (root['workflowTemplate'] === undefined || root['workflowTemplate'] === null) {
    // The spec's "Feature Implementation" example has agent templates and inputs but no steps.
    r.error(['workflowTemplate'], `missing required field: the steps the pipeline runs, such as [{ type: agent, agentId: ${ids[0] ?? 'ID'}, `
      + `outputVariable: findings }] (step types: ${STEP_TYPES.join(', ')}); an agent step names its agent template by agentId: `
      + `${ids.join(', ') || '(no templates)'} (a template without an id is named by its role)`);
  }
  const workflowTemplate = readSteps(r, root['workflowTemplate'], ['workflowTemplate'], new Set(ids), false);
  const requiredInputs = readInputs(r, root['requiredInputs']);
  const errors = r.problems.filter((p) => !p.message.endsWith('(ignored)'));
  if (errors.length) return { value: undefined, problems: r.problems };
  return { value: { id, name, description, category, agentTemplates: templates, workflowTemplate, requiredInputs }, problems: r.problems };
}

function readAgentTemplates(r: Reader, raw: unknown): AgentTemplate[] {
  const at: FieldPath = ['agentTemplates'];
  if (!Array.isArray(raw) || raw.length === 0) {
    r.error(at, `must be a non-empty list of agent templates (id, role, suggestedModels, suggestedTools, promptTemplate), got ${describe(raw)}`);
    return [];
  }
  const seen = new Set<string>();
  return raw.flatMap((item, i) => {
    const here = [...at, i];
    if (!isMapping(item)) {
      r.error(here, `expected a mapping, got ${describe(item)}`);
      return [];
    }
    r.unknown(item, here, ['id', 'role', 'suggestedModels', 'suggestedTools', 'promptTemplate', 'runner', 'command']);
    const role = r.oneOf(item, here, 'role', SYSTEM_AGENT_ROLES, true) ?? 'custom';
    const id = r.str(item, here, 'id', 'an agent id') ?? role;
    // Two templates of one id make a pipeline with two agents of that id, whose steps would all run the last one.
    if (seen.has(id)) r.error([...here, 'id'], `duplicate agent id '${id}'; give each agent template an id of its own (steps name them by agentId)`);
    seen.add(id);
    const runner = r.oneOf(item, here, 'runner', RUNNER_KINDS);
    const command = r.strings(item, here, 'command');
    const t: AgentTemplate = {
      id, role, suggestedModels: r.strings(item, here, 'suggestedModels') ?? [], suggestedTools: r.strings(item, here, 'suggestedTools') ?? [],
      promptTemplate: r.str(item, here, 'promptTemplate', 'the agent\'s prompt with {{inputs}}', true) ?? '',
    };
    if (runner) t.runner = runner;
    if (command) t.command = command;
    return [t];
  });
}

function readInputs(r: Reader, raw: unknown): BlueprintInput[] {
  const at: FieldPath = ['requiredInputs'];
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    r.error(at, `must be a list of inputs (name, description, type), got ${describe(raw)}`);
    return [];
  }
  const names = new Set<string>();
  return raw.flatMap((item, i) => {
    const here = [...at, i];
    if (!isMapping(item)) {
      r.error(here, `expected a mapping, got ${describe(item)}`);
      return [];
    }
    r.unknown(item, here, ['name', 'description', 'type', 'options', 'default']);
    const name = r.str(item, here, 'name', 'an input name', true);
    if (name !== undefined && !VARIABLE.test(name)) r.error([...here, 'name'], `'${name}' is not a valid variable name (letters, digits and '_')`);
    if (name !== undefined && names.has(name)) r.error([...here, 'name'], `duplicate input '${name}'; each input is asked for once, so give it a name of its own or remove it`);
    if (name !== undefined) names.add(name);
    const type = r.oneOf(item, here, 'type', BLUEPRINT_INPUT_TYPES, true) ?? 'string';
    const input: BlueprintInput = { name: name ?? '', description: r.str(item, here, 'description', 'what the input is', true) ?? '', type };
    const options = r.strings(item, here, 'options');
    if (options) input.options = options;
    if (type === 'selection' && !options?.length) r.error([...here, 'options'], 'a selection input needs options: the values to pick from');
    if (item['default'] !== undefined) input.default = String(item['default']);
    return [input];
  });
}

/** Problems as lines a person reads: `file:line: field: message`. */
export function formatProblems(problems: readonly ContentProblem[]): string {
  return problems.map((p) => `${p.path}${p.line ? `:${p.line}` : ''}: ${p.message}`).join('\n');
}
