// `${{ name }}` interpolation (../shared/specs/agent-worker.md, "Variable Interpolation") and the resolved context
// configuration of a workflow instance (the spec's CONTEXT_DEFAULTS). One pass: a value that itself holds `${{ }}`
// (a setup command's output, say) is inserted as is, never expanded again.
import { BatonError } from '../errors.js';
import { VARIABLE_PATTERN } from './workflowFile.js';
import type { ContextConfig, WorkflowFile } from './types.js';

/** The spec's defaults of the file provider. */
export const CONTEXT_DEFAULTS = { dir: '.workflow/${{ instance }}/', channel: 'channel.md', document: 'notes.md' } as const;

/** The default instance name (the spec's `--instance` default). */
export const DEFAULT_INSTANCE = 'default';

/** A context configuration with the defaults filled in and the directory interpolated. */
export type ResolvedContext =
  | false
  | { provider: 'file'; dir: string; channel: string; document: string; documents: string[]; documentsDir?: string }
  | { provider: 'memory'; document: string; documents: string[] };

/** Throws unless `instance` can name an instance (and a directory). */
export function checkInstanceName(instance: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(instance)) {
    throw new BatonError('invalid_input', `instance name ${JSON.stringify(instance.slice(0, 70))} is not valid: use letters, digits, '.', '_' and '-' (at most 64), starting with a letter or digit, e.g. pr-123`);
  }
}

/** `text` with every `${{ name }}` replaced from `vars`; an unknown name is an error naming it and the known ones. */
export function interpolate(text: string, vars: Readonly<Record<string, string>>, where = 'text'): string {
  return text.replace(VARIABLE_PATTERN, (_all, raw: string) => {
    const name = raw.trim();
    const value = vars[name];
    if (value !== undefined) return value;
    if (name.startsWith('env.')) throw new BatonError('invalid_input', `${where}: environment variable ${name.slice(4)} is not set (used as \${{ ${name} }}); set it before starting the team`);
    const known = Object.keys(vars).filter((k) => !k.startsWith('env.'));
    throw new BatonError('invalid_input', `${where}: unknown variable \${{ ${name} }}; known: ${[...known, 'env.NAME'].join(', ')}`);
  });
}

/** The reserved variables of an instance, plus `env.*` and the setup's variables. */
export function workflowVariables(opts: {
  workflow: Pick<WorkflowFile, 'name'> & { name: string };
  instance: string;
  context: ResolvedContext;
  env?: Readonly<Record<string, string | undefined>>;
  setup?: Readonly<Record<string, string>>;
}): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) vars[`env.${k}`] = v;
  Object.assign(vars, opts.setup ?? {});
  vars['workflow.name'] = opts.workflow.name;
  vars['workflow.instance'] = opts.instance;
  vars['instance'] = opts.instance;
  if (opts.context && opts.context.provider === 'file') {
    vars['context.channel'] = joinDir(opts.context.dir, opts.context.channel);
    vars['context.document'] = joinDir(opts.context.dir, opts.context.document);
  } else {
    vars['context.channel'] = '';
    vars['context.document'] = '';
  }
  return vars;
}

/** The context of an instance: defaults filled in, `dir` interpolated with the instance and workflow names. */
export function resolveContext(config: ContextConfig | null | undefined, workflowName: string, instance: string): ResolvedContext {
  checkInstanceName(instance);
  if (config === false) return false;
  if (config && config.provider === 'memory') return { provider: 'memory', document: CONTEXT_DEFAULTS.document, documents: [] };
  const c = config?.config ?? {};
  const base = { 'workflow.name': workflowName, 'workflow.instance': instance, instance };
  const documents = Array.isArray(c.documents) ? c.documents : [];
  return {
    provider: 'file',
    dir: interpolate(c.dir ?? CONTEXT_DEFAULTS.dir, base, 'context.config.dir'),
    channel: c.channel ?? CONTEXT_DEFAULTS.channel,
    document: c.document ?? CONTEXT_DEFAULTS.document,
    documents,
    ...(typeof c.documents === 'string' ? { documentsDir: c.documents } : {}),
  };
}

function joinDir(dir: string, file: string): string {
  return dir.endsWith('/') || dir.endsWith('\\') ? `${dir}${file}` : `${dir}/${file}`;
}
