// Parses and validates team workflow files (../shared/specs/agent-worker.md, "Workflow File Format"): name, context,
// agents, setup and kickoff, with `${{ }}` variables checked against the spec's reserved names and the setup's `as`
// names. Problems name the file, line and field, through the same YAML reader as the pipeline system files.
import type { ContentProblem } from '../api.js';
import { describe, isMapping, type FieldPath } from '../content/fieldReader.js';
import { workflowTemplateHint } from '../content/workflowFile.js';
import type { RunnerKind } from '../pipelines/runner.js';
import { isPlaceholder, load, runnerForModel, toolsIgnored, type Parsed, type Reader } from '../pipelines/systemFile.js';
import type { AgentDefinition, ContextConfig, SetupTask, WorkflowFile } from './types.js';

/** The runners a team agent can use (`backend:`, or implied by `model: backend/model`). */
export const TEAM_BACKENDS: readonly RunnerKind[] = ['claude', 'codex', 'gemini', 'opencode', 'cursor-agent', 'command'];

/** The `model:` prefixes (provider or runner) and the backend each implies. */
export const MODEL_PREFIXES: Readonly<Record<string, RunnerKind>> = {
  anthropic: 'claude', claude: 'claude', openai: 'codex', codex: 'codex', google: 'gemini', gemini: 'gemini',
  opencode: 'opencode', cursor: 'cursor-agent', 'cursor-agent': 'cursor-agent',
};

/** The spec's reserved variables (besides `env.NAME`); `instance` is the short form the default context dir uses. */
export const RESERVED_VARIABLES = ['workflow.name', 'workflow.instance', 'instance', 'context.channel', 'context.document'] as const;

/** `${{ name }}` with optional spaces (the name is group 1, untrimmed); bounded, so that matching stays linear. */
export const VARIABLE_PATTERN = /\$\{\{([^}\n]{0,120})\}\}/g;

const AGENT_NAME = /^[a-zA-Z][a-zA-Z0-9_-]*$/;
const SETUP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names that are senders of their own, so an agent cannot take them. */
const NOT_AGENT_NAMES = ['system', 'user', 'all'];
const FIELDS = ['name', 'context', 'agents', 'setup', 'kickoff'];
const AGENT_FIELDS = ['model', 'backend', 'system_prompt', 'tools', 'command'];
const CONTEXT_CONFIG_FIELDS = ['dir', 'channel', 'document', 'documents'];

/** How a parse reads the files a workflow names (system prompts); absent → prompts are always inline. */
export interface WorkflowParseOptions {
  /** The text of a file (absolute or relative to the process), or undefined when it does not exist. */
  readFile?: (path: string) => string | undefined;
}

/** Parses a workflow file; `fallbackName` (the file name without extension) names a workflow without `name`. */
export function parseWorkflowFile(raw: string, path: string, fallbackName: string, options: WorkflowParseOptions = {}): Parsed<WorkflowFile> {
  const loaded = load(raw, path);
  if ('problems' in loaded) return { value: undefined, problems: loaded.problems };
  const { root, r } = loaded;
  if (!isMapping(root)) {
    r.error([], `expected a mapping with agents (and optionally name, context, setup, kickoff), got ${describe(root)}`);
    return { value: undefined, problems: r.problems };
  }
  const template = workflowTemplateHint(root, fallbackName, 'team workflow');
  if (template) {
    r.error([], `${template} (a team workflow has agents as a mapping of names, and a kickoff that @mentions them)`);
    return { value: undefined, problems: r.problems };
  }
  if (Array.isArray(root['workflow']) || root['agentTemplates'] !== undefined || root['workflowTemplate'] !== undefined) {
    const blueprint = root['workflow'] === undefined;
    // A blueprint's own id, as `pipeline run` names it: the command is then one to copy.
    const id = typeof root['id'] === 'string' ? root['id'] : fallbackName;
    const fix = blueprint
      ? `make a pipeline of it with baton blueprint new NAME --from ${id}`
      : 'run it with baton pipeline run FILE --input TEXT';
    r.error([], `this is a ${blueprint ? 'blueprint (agentTemplates, workflowTemplate)' : 'pipeline (workflow steps)'}, not a team `
      + `workflow; ${fix} `
      + '(a team workflow has agents as a mapping of names, and a kickoff that @mentions them)');
    return { value: undefined, problems: r.problems };
  }
  r.unknown(root, [], FIELDS);
  const name = r.str(root, [], 'name', 'a workflow name') ?? fallbackName;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) r.error(['name'], `'${name}' is not a valid name (letters, digits, '.', '_' and '-')`);
  const context = readContext(r, root);
  const agents = readAgents(r, root['agents'], path, options);
  const setup = readSetup(r, root['setup']);
  const kickoff = root['kickoff'] === undefined || root['kickoff'] === null ? undefined : r.str(root, [], 'kickoff', 'the kickoff message (text with @mentions)');
  const declared = setup.flatMap((t) => (t.as ? [t.as] : []));
  if (kickoff !== undefined) checkVariables(r, ['kickoff'], kickoff, declared);
  if (context && context.provider === 'file' && context.config?.dir) checkVariables(r, ['context', 'config', 'dir'], context.config.dir, []);
  if (hasErrors(r.problems)) return { value: undefined, problems: r.problems };
  const file: WorkflowFile = { name, agents };
  if (context !== undefined) file.context = context;
  if (setup.length) file.setup = setup;
  if (kickoff !== undefined) file.kickoff = kickoff;
  return { value: file, problems: r.problems };
}

/** Whether problems hold an error (warnings end with "(ignored)"). */
function hasErrors(problems: readonly ContentProblem[]): boolean {
  return problems.some((p) => !p.message.endsWith('(ignored)'));
}

function readContext(r: Reader, root: Record<string, unknown>): ContextConfig | undefined {
  const raw = root['context'];
  const at: FieldPath = ['context'];
  if (raw === undefined || raw === null) return undefined;
  if (raw === false) return false;
  if (!isMapping(raw)) {
    r.error(at, `must be empty (the file provider with defaults), false (no context), or a mapping such as { provider: file } or { provider: memory }; got ${describe(raw)}`);
    return undefined;
  }
  r.unknown(raw, at, ['provider', 'config']);
  const provider = r.oneOf(raw, at, 'provider', ['file', 'memory'] as const, true);
  if (provider === 'memory') {
    if (raw['config'] !== undefined) r.warn([...at, 'config'], 'the memory provider takes no config');
    return { provider: 'memory' };
  }
  if (provider !== 'file') return undefined;
  const config = raw['config'];
  if (config === undefined || config === null) return { provider: 'file' };
  if (!isMapping(config)) {
    r.error([...at, 'config'], `must be a mapping with dir, channel, document and documents, got ${describe(config)}`);
    return undefined;
  }
  const here: FieldPath = [...at, 'config'];
  r.unknown(config, here, CONTEXT_CONFIG_FIELDS);
  const out: NonNullable<Extract<ContextConfig, { provider: 'file' }>['config']> = {};
  const dir = r.str(config, here, 'dir', 'a directory (relative to where the team runs)');
  if (dir) out.dir = dir;
  for (const key of ['channel', 'document'] as const) {
    const v = r.str(config, here, key, 'a file name inside the context directory, such as notes.md');
    if (v !== undefined && !insideContext(v)) r.error([...here, key], `'${v}' must be a relative path inside the context directory (no '..', not absolute)`);
    else if (v !== undefined) out[key] = v;
  }
  const docs = config['documents'];
  if (typeof docs === 'string' && docs.trim()) out.documents = docs;
  else if (docs !== undefined && docs !== null) {
    const list = r.strings(config, here, 'documents');
    list?.forEach((d, i) => {
      if (!insideContext(d)) r.error([...here, 'documents', i], `'${d}' must be a relative path inside the context directory (no '..', not absolute)`);
    });
    if (list) out.documents = list;
  }
  if (out.channel && out.channel === (out.document ?? 'notes.md')) r.error([...here, 'channel'], `the channel and the entry-point document must be different files (both are '${out.channel}')`);
  return { provider: 'file', config: out };
}

function insideContext(p: string): boolean {
  return !(p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p) || p.split(/[\\/]/).includes('..'));
}

function readAgents(r: Reader, raw: unknown, path: string, options: WorkflowParseOptions): Record<string, AgentDefinition> {
  const at: FieldPath = ['agents'];
  if (!isMapping(raw) || Object.keys(raw).length === 0) {
    const got = isMapping(raw) ? 'an empty mapping (no agent)' : describe(raw);
    r.error(at, `must be a mapping of agent names to definitions (model, system_prompt), with at least one agent, such as "coder: { model: claude }"; got ${got}`);
    return {};
  }
  const out: Record<string, AgentDefinition> = {};
  for (const [name, item] of Object.entries(raw)) {
    const here: FieldPath = [...at, name];
    if (!AGENT_NAME.test(name)) r.error(here, `'${name}' is not a valid agent name: a letter, then letters, digits, '_' or '-' (so that @${name} mentions it)`);
    else if (NOT_AGENT_NAMES.includes(name)) r.error(here, `'${name}' is reserved for messages from ${name === 'system' ? 'Baton' : 'people'}; name the agent otherwise`);
    if (isPlaceholder(item)) {
      r.error(here, `is '${String(item).trim()}', a placeholder from an example; write the agent in its place, such as { model: anthropic/claude-sonnet-4-5, system_prompt: prompts/${name}.md }`);
      continue;
    }
    if (!isMapping(item)) {
      r.error(here, `expected a mapping with model and system_prompt, got ${describe(item)}`);
      continue;
    }
    const agent = readAgent(r, item, here, path, options);
    if (agent) out[name] = agent;
  }
  return out;
}

function readAgent(r: Reader, item: Record<string, unknown>, at: FieldPath, path: string, options: WorkflowParseOptions): AgentDefinition | undefined {
  r.unknown(item, at, AGENT_FIELDS);
  const explicit = item['backend'] === undefined || item['backend'] === null ? undefined : r.oneOf(item, at, 'backend', TEAM_BACKENDS);
  if (item['backend'] !== undefined && item['backend'] !== null && !explicit) return undefined;
  const rawModel = r.str(item, at, 'model', 'a model such as anthropic/claude-sonnet-4-5', explicit !== 'command');
  const resolved = resolveBackend(r, at, explicit, rawModel);
  const prompt = readPrompt(r, item, at, path, options);
  const tools = r.strings(item, at, 'tools');
  const command = r.strings(item, at, 'command');
  if (resolved?.backend === 'command' && (command ? command.length === 0 : !Array.isArray(item['command']))) {
    r.error([...at, 'command'], "the command backend needs command: an argument list such as ['node', 'agent.js'] (no shell string)");
  } else if (command && resolved && resolved.backend !== 'command') {
    r.warn([...at, 'command'], `only the command backend runs a command; this agent uses ${resolved.backend}`);
  }
  if (tools && resolved && resolved.backend !== 'claude') r.warn([...at, 'tools'], toolsIgnored(resolved.backend, "Baton's context tools", 'backend'));
  if (!resolved || prompt === undefined) return undefined;
  const agent: AgentDefinition = { backend: resolved.backend, model: resolved.model, system_prompt: prompt };
  if (tools && resolved.backend === 'claude') agent.tools = tools;
  if (command && resolved.backend === 'command') agent.command = command;
  return agent;
}

/** The backend and the model in the backend's naming, from `backend:` and/or `model: backend/model`. */
function resolveBackend(r: Reader, at: FieldPath, explicit: RunnerKind | undefined, model: string | undefined): { backend: RunnerKind; model: string } | undefined {
  if (explicit) return { backend: explicit, model: model ?? '' };
  if (model === undefined) return undefined;
  const slash = model.indexOf('/');
  if (slash > 0) {
    const prefix = model.slice(0, slash).toLowerCase();
    const backend = MODEL_PREFIXES[prefix];
    if (backend) return { backend, model: model.slice(slash + 1) };
    r.error([...at, 'model'], `unknown provider '${prefix}' in '${model}'; use one of ${Object.keys(MODEL_PREFIXES).join(', ')} before the '/', or set backend: to one of ${TEAM_BACKENDS.join(', ')}`);
    return undefined;
  }
  const backend = runnerForModel(model);
  if (backend) return { backend, model };
  r.error([...at, 'model'], `cannot tell the backend of model '${model}'; write it as backend/model (e.g. anthropic/claude-sonnet-4-5) or set backend: to one of ${TEAM_BACKENDS.join(', ')}`);
  return undefined;
}

/** A system prompt that is a single word ending in .md/.txt/.markdown/.prompt is a file path, else inline text. */
export function isPromptPath(value: string): boolean {
  return !/\s/.test(value.trim()) && /\.(md|txt|markdown|prompt)$/i.test(value.trim());
}

function readPrompt(r: Reader, item: Record<string, unknown>, at: FieldPath, path: string, options: WorkflowParseOptions): string | undefined {
  const value = r.str(item, at, 'system_prompt', 'inline text, or a path (relative to the workflow file) to a file holding it', true);
  if (value === undefined || !options.readFile) return value;
  if (!isPromptPath(value)) {
    // One line that names a file that is there (`my prompt.md`, `prompts/reviewer`) is that file, not its name as the
    // prompt; any other text is the prompt itself.
    const line = value.trim();
    const file = line && !line.includes('\n') ? options.readFile(resolveRelative(path, line)) : undefined;
    return file ?? value;
  }
  const target = resolveRelative(path, value.trim());
  const text = options.readFile(target);
  if (text === undefined) {
    r.error([...at, 'system_prompt'], `file ${value.trim()} not found (looked for ${target}, relative to the workflow file); create it, or write the prompt inline with 'system_prompt: |'`);
    return undefined;
  }
  return text;
}

/** `rel` resolved against the folder of `file` (`/`-separated; absolute `rel` is kept). */
export function resolveRelative(file: string, rel: string): string {
  if (rel.startsWith('/') || /^[A-Za-z]:[\\/]/.test(rel)) return rel;
  const cut = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  const parts = [...(cut >= 0 ? file.slice(0, cut) : '.').split(/[\\/]/), ...rel.split(/[\\/]/)];
  const out: string[] = [];
  for (const p of parts) {
    if (p === '.' && out.length) continue;
    if (p === '..' && out.length && out.at(-1) !== '..' && out.at(-1) !== '.' && out.at(-1) !== '') out.pop();
    else out.push(p);
  }
  return out.join('/');
}

function readSetup(r: Reader, raw: unknown): SetupTask[] {
  const at: FieldPath = ['setup'];
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    r.error(at, `must be a list of tasks such as [{ shell: 'gh pr diff', as: diff }], got ${describe(raw)}`);
    return [];
  }
  const declared: string[] = [];
  return raw.flatMap((item, i): SetupTask[] => {
    const here: FieldPath = [...at, i];
    if (!isMapping(item)) {
      r.error(here, `expected a mapping with shell (and optionally as), got ${describe(item)}`);
      return [];
    }
    r.unknown(item, here, ['shell', 'as']);
    const shell = r.str(item, here, 'shell', 'a shell command', true);
    const as = r.str(item, here, 'as', 'a variable name');
    if (shell !== undefined) checkVariables(r, [...here, 'shell'], shell, declared);
    if (as !== undefined && (!SETUP_NAME.test(as) || ['env', 'workflow', 'context', 'instance'].includes(as))) {
      r.error([...here, 'as'], `'${as}' is not a valid variable name (letters, digits and '_'; not env, workflow, context or instance)`);
    } else if (as !== undefined && declared.includes(as)) {
      r.error([...here, 'as'], `variable '${as}' is already set by an earlier setup task; give this one another name`);
    } else if (as !== undefined) declared.push(as);
    if (shell === undefined) return [];
    return [as !== undefined ? { shell, as } : { shell }];
  });
}

/** Records an error for every `${{ name }}` in `text` that is neither reserved nor in `declared`. */
function checkVariables(r: Reader, at: FieldPath, text: string, declared: readonly string[]): void {
  for (const name of variablesIn(text)) {
    if (!isKnownVariable(name, declared)) {
      r.error(at, `unknown variable \${{ ${name} }}; known: ${[...declared, ...RESERVED_VARIABLES, 'env.NAME'].join(', ')}${declared.length ? '' : ' (set variables with setup: [{ shell, as }])'}`);
    }
  }
}

/** The variable names `${{ … }}` uses in `text`, in order. */
export function variablesIn(text: string): string[] {
  return [...text.matchAll(VARIABLE_PATTERN)].map((m) => m[1]!.trim());
}

function isKnownVariable(name: string, declared: readonly string[]): boolean {
  return declared.includes(name) || (RESERVED_VARIABLES as readonly string[]).includes(name) || /^env\.[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}
