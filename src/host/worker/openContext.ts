// Host-side entry points of a team's context: a workflow file read from disk (with its prompt files), and the
// ContextProvider of an instance (file or memory, by the workflow's `context`), paths resolved against `cwd`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, extname, isAbsolute, join, resolve, sep } from 'node:path';
import type { ContentProblem } from '../../core/api.js';
import { withEncodingProblem } from '../../core/content/loadContent.js';
import { BatonError } from '../../core/errors.js';
import type { Clock } from '../../core/ports.js';
import { formatProblems, type Parsed } from '../../core/pipelines/systemFile.js';
import { MemoryContextProvider } from '../../core/worker/memoryContextProvider.js';
import type { ContextProvider, WorkflowFile } from '../../core/worker/types.js';
import { parseWorkflowFile } from '../../core/worker/workflowFile.js';
import { resolveContext, type ResolvedContext } from '../../core/worker/workflowVariables.js';
import { bundledContentDir } from '../openBaton.js';
import { FileContextProvider } from './fileContextProvider.js';

/** Parses the workflow file at `path` (prompt files read relative to it); problems are returned, not thrown. */
export function readWorkflowFile(path: string): Parsed<WorkflowFile> {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (ex) {
    const code = (ex as NodeJS.ErrnoException).code;
    const why = code === 'EISDIR'
      ? 'it is a folder; pass the team\'s .yaml file in it'
      : code === 'ENOENT' ? 'there is no such file; check the path' : code ?? (ex as Error).message;
    return { value: undefined, problems: [{ path, line: null, message: `cannot read the workflow file (${why})` }] };
  }
  const readFile = (p: string) => {
    try {
      return readFileSync(p, 'utf8');
    } catch {
      return undefined;
    }
  };
  return withEncodingProblem(parseWorkflowFile(raw, path, basename(path, extname(path)), { readFile }), raw, path);
}

/** The workflow file at `path`, or a BatonError listing every problem as `file:line: field: message`. */
export function loadWorkflowFile(path: string): WorkflowFile {
  return checkWorkflowFile(path).file;
}

/**
 * The workflow file at `path` with what its parse ignored (an unknown field such as a misspelt `kickof:`, a file
 * that is not UTF-8), or a BatonError listing every problem as `file:line: field: message`.
 */
export function checkWorkflowFile(path: string): { file: WorkflowFile; warnings: ContentProblem[] } {
  if (!existsSync(path)) throw new BatonError('not_found', `workflow file ${path} not found; check the path (it is resolved against the current folder)${examples()}`);
  const parsed = readWorkflowFile(path);
  if (!parsed.value) throw new BatonError('content_invalid', `${path} is not a valid team workflow:\n${formatProblems(parsed.problems)}`);
  return { file: parsed.value, warnings: parsed.problems };
}

/** ", or run one of the examples in /…/content/teams/ (a.yaml, b.yaml)": the team examples shipped with Baton. */
function examples(): string {
  const dir = join(bundledContentDir(), 'teams');
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
  } catch {
    return '';
  }
  return files.length ? `, or run one of the examples in ${dir}${sep} (${files.join(', ')})` : '';
}

/**
 * Opens the provider of an instance from its resolved configuration: the file provider under the context directory
 * (relative to `cwd`), or the memory provider. `agents` is held, not copied: an agent that joins later (baton new
 * --context) becomes a valid @mention by being pushed onto it. `context: false` still needs a channel for the kickoff
 * and @mentions to wake agents: it is kept in memory only, and no files are written. `dir` is null in memory.
 */
export async function createTeamContext(context: ResolvedContext, agents: string[], cwd: string, clock?: Clock): Promise<{ provider: ContextProvider; dir: string | null }> {
  if (context === false || context.provider === 'memory') {
    const provider = new MemoryContextProvider({ agents, clock, ...(context ? { document: context.document, documents: context.documents } : {}) });
    return { provider, dir: null };
  }
  const dir = contextDir(context, cwd);
  const provider = await FileContextProvider.open({
    agents, dir, channel: context.channel, document: context.document, documents: context.documents, clock,
    ...(context.documentsDir ? { documentsDir: context.documentsDir } : {}),
  });
  return { provider, dir };
}

/** The folder of a file context: its `dir`, against `cwd` unless absolute. */
export function contextDir(context: { dir: string }, cwd: string): string {
  return isAbsolute(context.dir) ? context.dir : resolve(cwd, context.dir);
}

/** The resolved context of an instance of `workflow` (false when the workflow has `context: false`). */
export function instanceContext(workflow: WorkflowFile, instance: string): ResolvedContext {
  return resolveContext(workflow.context, workflow.name ?? 'workflow', instance);
}

/** The context of an instance of `workflow` and its provider (undefined when the workflow has `context: false`). */
export async function openContextProvider(workflow: WorkflowFile, opts: { instance: string; cwd: string; clock?: Clock }): Promise<{ context: ResolvedContext; provider: ContextProvider | undefined }> {
  const context = instanceContext(workflow, opts.instance);
  if (context === false) return { context, provider: undefined };
  const { provider, dir } = await createTeamContext(context, Object.keys(workflow.agents), opts.cwd, opts.clock);
  return { context: dir !== null && context.provider === 'file' ? { ...context, dir } : context, provider };
}
