// Loads agents, rules and workflow templates from content directories; later directories win by name.
import type { ContentProblem } from '../api.js';
import { errorMessage } from '../errors.js';
import type { Crypto, FileEntry, FileSystem } from '../ports.js';
import type { AgentDefinition, ContentSource, RuleDefinition, WorkflowTemplate } from '../types.js';
import { baseName, NAME_PATTERN } from './fieldReader.js';
import { parseAgentFile, parseRuleFile } from './markdownFile.js';
import { hasFrontmatter, parseMarkdownWorkflowFile, parseWorkflowFile } from './workflowFile.js';

/** Where a loaded item came from, and the SHA-256 of its file (its ETag). */
export interface ContentOrigin {
  source: ContentSource;
  /** Absolute path of the file. */
  path: string;
  hash: string;
}

/** A loaded agent persona. */
export type LoadedAgent = AgentDefinition & ContentOrigin;
/** A loaded rule. */
export type LoadedRule = RuleDefinition & ContentOrigin;
/** A loaded workflow template. */
export type LoadedWorkflow = WorkflowTemplate & ContentOrigin;

/** Everything loaded, each list sorted by name, plus every problem found. */
export interface LoadedContent {
  agents: LoadedAgent[];
  rules: LoadedRule[];
  workflows: LoadedWorkflow[];
  problems: ContentProblem[];
  /** The files left out for their problems, by `kind:name` (the name each meant to have): the first problem of each. */
  leftOut: Map<string, ContentProblem>;
}

/**
 * What to add to "no agent X" when a file meant to define it was left out: `; PATH defines it but is left out until
 * it is fixed (line N: problem)`, or '' when none was.
 */
export function leftOutNote(leftOut: ReadonlyMap<string, ContentProblem> | undefined, kind: ContentKind, name: string): string {
  const p = leftOut?.get(`${kind}:${name}`);
  return p ? `; ${p.path} defines it but is left out until it is fixed (${p.line ? `line ${p.line}: ` : ''}${p.message})` : '';
}

/** The kinds of content, in the order they are reported. */
export type ContentKind = 'agents' | 'rules' | 'workflows';

const PATTERNS: Record<ContentKind, RegExp> = {
  agents: /^agents\/[^/]+\.md$/,
  rules: /^rules\/[^/]+\.mdc?$/, // Cursor's rules are .mdc: the same Markdown with frontmatter
  workflows: /^workflows\/[^/]+\.(?:ya?ml|md)$/, // .md: YAML frontmatter, as the seed writes its workflows
};

/**
 * Files beside the items that are not items: a name starting with '_' is shared text the others point to (the seed's
 * `agents/_shared_context.md`), and a README says what the folder holds. Neither is loaded, nor reported.
 */
const NOT_ITEMS = /(?:^|\/)(?:_[^/]*|readme\.mdc?)$/i;

/**
 * A content file's parse that had no problem, as the build keeps it for the bundled content (dist/content-cache.json):
 * parsing YAML and frontmatter is most of what loading costs at start-up, and a file of the same name and text parses
 * to the same item. Keyed by `parseKey`.
 */
export interface CachedParse {
  item: AgentDefinition | RuleDefinition | WorkflowTemplate;
  agentLines?: Array<[string, number | null]>;
}

/** Cached parses by `parseKey`. */
export type ContentParseCache = ReadonlyMap<string, CachedParse>;

/** A parse's key: its kind, its file's name (a file without `name` is named by it) and the SHA-256 of its text. */
export function parseKey(kind: ContentKind, relativePath: string, hash: string): string {
  return `${kind}\n${baseName(relativePath)}\n${hash}`;
}

interface Parsed {
  item: (AgentDefinition | RuleDefinition | WorkflowTemplate) | undefined;
  problems: ContentProblem[];
  agentLines?: Map<string, number | null>;
  /** A workflows/ file that is a registry of workflows, not one (see ParsedWorkflow.registry). */
  registry?: true;
}

/**
 * Loads `dirs` in increasing precedence: the first is the bundled content, the rest are
 * workspace folders (`.baton`) whose items replace bundled ones of the same name. Each dir holds
 * `agents/*.md`, `rules/*.md|mdc` and `workflows/*.yaml|yml|md`. Invalid files are reported in
 * `problems` and skipped; this never throws. A file whose parse `cache` holds is not parsed again.
 */
export async function loadContent(
  fs: FileSystem, dirs: readonly string[], crypto: Pick<Crypto, 'sha256'>, cache?: ContentParseCache,
): Promise<LoadedContent> {
  const acc: Accumulator = {
    problems: [],
    maps: { agents: new Map(), rules: new Map(), workflows: new Map() },
    agentLines: new Map(),
    leftOut: new Map(),
  };
  for (const [d, dir] of dirs.entries()) await loadDir(fs, crypto, dir, d === 0 ? 'bundled' : 'workspace', acc, cache);

  const { maps, problems } = acc;
  const workflows = sortByName([...maps.workflows.values()]) as LoadedWorkflow[];
  for (const wf of workflows) {
    for (const step of wf.steps) {
      if (maps.agents.has(step.agent)) continue;
      const line = acc.agentLines.get(wf.path)?.get(step.name) ?? null;
      const where = leftOutNote(acc.leftOut, 'agents', step.agent) || ' in any agents/ directory';
      problems.push({ path: wf.path, line, message: `step '${step.name}': agent '${step.agent}' is not defined${where}, so the step has no persona` });
    }
  }
  problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : (a.line ?? 0) - (b.line ?? 0)));
  return {
    agents: sortByName([...maps.agents.values()]) as LoadedAgent[],
    rules: sortByName([...maps.rules.values()]) as LoadedRule[],
    workflows,
    problems,
    leftOut: acc.leftOut,
  };
}

interface Accumulator {
  problems: ContentProblem[];
  /** Items by kind and name; a later directory's item replaces an earlier one's. */
  maps: Record<ContentKind, Map<string, LoadedAgent | LoadedRule | LoadedWorkflow>>;
  /** Per workflow file, the line of each step's agent field. */
  agentLines: Map<string, Map<string, number | null>>;
  leftOut: Map<string, ContentProblem>;
}

async function loadDir(
  fs: FileSystem, crypto: Pick<Crypto, 'sha256'>, dir: string, source: ContentSource, acc: Accumulator, cache?: ContentParseCache,
): Promise<void> {
  let entries: FileEntry[];
  try {
    entries = await fs.list(dir);
  } catch (ex) {
    acc.problems.push({ path: dir, line: null, message: `cannot list the content directory: ${errorMessage(ex)}` });
    return;
  }
  const sorted = [...entries].sort((a, b) => (a.relativePath < b.relativePath ? -1 : a.relativePath > b.relativePath ? 1 : 0));
  const inThisDir = new Map<string, string>();
  for (const entry of sorted) {
    const kind = (Object.keys(PATTERNS) as ContentKind[]).find((k) => PATTERNS[k].test(entry.relativePath));
    if (!kind || NOT_ITEMS.test(entry.relativePath)) continue;
    const parsed = await loadFile(fs, crypto, kind, entry, cache);
    acc.problems.push(...parsed.problems);
    if (!parsed.item) {
      if (parsed.intended !== undefined && parsed.problems[0]) acc.leftOut.set(`${kind}:${parsed.intended}`, parsed.problems[0]);
      // An invalid file meant to replace an item (a workspace's own bug-fix): say that the one before it stays in use.
      const kept = parsed.intended === undefined ? undefined : acc.maps[kind].get(parsed.intended);
      if (kept) acc.problems.push({ path: entry.absolutePath, line: null, message: `until this file is valid, ${kind.slice(0, -1)} '${kept.name}' is still the one from ${kept.path}` });
      continue;
    }
    const key = `${kind}:${parsed.item.name}`;
    const clash = inThisDir.get(key);
    if (clash !== undefined) {
      acc.problems.push({ path: entry.absolutePath, line: null, message: `${kind.slice(0, -1)} '${parsed.item.name}' is already defined by ${clash} in the same directory; this file is ignored` });
      continue;
    }
    inThisDir.set(key, entry.absolutePath);
    acc.maps[kind].set(parsed.item.name, { ...parsed.item, source, path: entry.absolutePath, hash: parsed.hash } as LoadedAgent | LoadedRule | LoadedWorkflow);
    if (parsed.agentLines) acc.agentLines.set(entry.absolutePath, parsed.agentLines);
  }
}

async function loadFile(
  fs: FileSystem, crypto: Pick<Crypto, 'sha256'>, kind: ContentKind, entry: FileEntry, cache?: ContentParseCache,
): Promise<Parsed & { hash: string; intended?: string }> {
  let text: string;
  try {
    text = await fs.readText(entry.absolutePath);
  } catch (ex) {
    return { item: undefined, hash: '', problems: [{ path: entry.absolutePath, line: null, message: `cannot read the file: ${errorMessage(ex)}` }] };
  }
  // A Markdown file with no frontmatter beside the workflows (a README) is no workflow, and nothing to report.
  if (kind === 'workflows' && entry.relativePath.endsWith('.md') && !hasFrontmatter(text)) return { item: undefined, hash: '', problems: [] };
  const hash = crypto.sha256(text);
  const cached = cache?.get(parseKey(kind, entry.relativePath, hash));
  // A copy: what is loaded is the caller's to keep, and the cache serves the next load (a content change re-syncs).
  if (cached) return { item: structuredClone(cached.item), problems: [], ...(cached.agentLines ? { agentLines: new Map(cached.agentLines) } : {}), hash };
  const parsed = parseContentFile(kind, text, entry);
  // Nor is the seed's workflows/index.yaml, a list of the workflows for discovery.
  if (parsed.registry) return { item: undefined, hash: '', problems: [] };
  if (parsed.item) return { ...parsed, hash };
  // The name an invalid file meant to have: its own `name:` line when that holds a name (not `[a, b]` or `42`: then
  // the file name is the one it would go by), else its file name.
  const named = /^name:[ \t]*["']?([^"'\n#]*?)["']?[ \t]*(?:#.*)?$/m.exec(text)?.[1];
  const intended = named && NAME_PATTERN.test(named) ? named : fileItemName(kind, entry.relativePath);
  return { ...parsed, hash, intended };
}

/** One content file parsed, its encoding problem (if any) among its problems. */
function parseContentFile(kind: ContentKind, text: string, entry: FileEntry): Parsed {
  return withEncodingProblem(parseFile(kind, text, entry), text, entry.absolutePath);
}

/**
 * The parses of the content files in `dir` that have no problem, for the cache the build writes beside the bundle
 * (see CachedParse); a file with any problem is parsed at every load, so that its problems are reported.
 */
export async function cacheableParses(fs: FileSystem, dir: string, crypto: Pick<Crypto, 'sha256'>): Promise<Array<[string, CachedParse]>> {
  const out: Array<[string, CachedParse]> = [];
  for (const entry of await fs.list(dir)) {
    const kind = (Object.keys(PATTERNS) as ContentKind[]).find((k) => PATTERNS[k].test(entry.relativePath));
    if (!kind || NOT_ITEMS.test(entry.relativePath)) continue;
    const text = await fs.readText(entry.absolutePath);
    const parsed = parseContentFile(kind, text, entry);
    if (!parsed.item || parsed.problems.length > 0 || parsed.registry) continue;
    out.push([parseKey(kind, entry.relativePath, crypto.sha256(text)), { item: parsed.item, ...(parsed.agentLines ? { agentLines: [...parsed.agentLines] } : {}) }]);
  }
  return out;
}

/**
 * A file that is not UTF-8 reads with U+FFFD where its other bytes were (an editor saving as Latin-1 or UTF-16, say):
 * it still loads, but its first such line is a problem, since what the agents see is not what the author wrote.
 */
function encodingProblem(text: string, path: string): ContentProblem | undefined {
  const at = text.indexOf('\uFFFD');
  if (at < 0) return undefined;
  const line = text.slice(0, at).split('\n').length;
  return { path, line, message: 'holds U+FFFD, the mark of bytes that are not UTF-8 (or a literal U+FFFD): agents get that mark instead of what was written there; save the file as UTF-8' };
}

/** `parsed` with the encoding problem of its `text`, if it has one, added to its problems. */
export function withEncodingProblem<P extends { problems: ContentProblem[] }>(parsed: P, text: string, path: string): P {
  const problem = encodingProblem(text, path);
  return problem ? { ...parsed, problems: [...parsed.problems, problem] } : parsed;
}

/** The name a file's item goes by without a `name:`: its file name (a Copilot NAME.instructions.md rule: NAME). */
function fileItemName(kind: ContentKind, relativePath: string): string {
  return kind === 'rules' ? baseName(relativePath).replace(/\.instructions$/i, '') : baseName(relativePath);
}

function parseFile(kind: ContentKind, text: string, entry: FileEntry): Parsed {
  const fallback = fileItemName(kind, entry.relativePath);
  switch (kind) {
    case 'agents':
      return parseAgentFile(text, entry.absolutePath, fallback);
    case 'rules':
      return parseRuleFile(text, entry.absolutePath, fallback);
    case 'workflows': {
      const parse = entry.relativePath.endsWith('.md') ? parseMarkdownWorkflowFile : parseWorkflowFile;
      const { template, problems, agentLines, registry } = parse(text, entry.absolutePath, fallback);
      return { item: template, problems, agentLines, ...(registry ? { registry } : {}) };
    }
  }
}

function sortByName<T extends { name: string }>(items: T[]): T[] {
  return items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
