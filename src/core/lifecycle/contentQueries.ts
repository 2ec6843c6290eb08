// The content provider tools: workflows, agent personas and rules with progressive detail, field filtering, content
// modes, ETags (the file's SHA-256) and redaction; projects discovered from paths.
import { minimatch } from 'minimatch';
import { getAgent, getTemplate, listAgents, listRules, listTemplates, type StoredAgent, type StoredRule, type StoredTemplate } from '../content/contentRepo.js';
import { BatonError, echo } from '../errors.js';
import type { CorePorts } from '../ports.js';
import { redactWithPolicy } from '../safety/redact.js';
import type { Projects } from './projects.js';
import type {
  Complexity, ContentMode, ContentOptions, ContentResponse, DetailLevel, NotModified, Project, RelevantRulesInput, SearchWorkflowsInput,
} from '../lifecycleTypes.js';

/** Complexity of a workflow by its step count. */
export function complexityOf(steps: number): Complexity {
  return steps <= 3 ? 'simple' : steps <= 6 ? 'moderate' : 'high';
}

/** A workflow's complexity: as its file says, else by its step count. */
function workflowComplexity(t: StoredTemplate): Complexity {
  return t.complexity ?? complexityOf(t.steps.length);
}

/** An ETag as clients send it (`"abc"`, `W/"abc"`) reduced to the hash. */
function etag(value: string): string {
  return value.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
}

/** Read-only queries over synced content and projects. */
export class ContentQueries {
  constructor(
    private readonly ports: CorePorts,
    private readonly projects: Projects,
    private readonly workspaceProject: () => number,
    /** Why content of this kind and name is missing, when a file meant to define it was left out ('' otherwise). */
    private readonly leftOut: (kind: 'agents' | 'workflows', name: string) => string = () => '',
  ) {}

  /** Workflows matching every given filter (any of `tags`, all of `keywords`, `complexity`), a page of them. */
  searchWorkflows(q: SearchWorkflowsInput): { workflows: ContentResponse[]; total: number; page: number; limit: number } {
    const keywords = (q.keywords ?? []).map((k) => k.toLowerCase());
    const matches = listTemplates(this.ports.store).filter((t) => {
      if (q.tags?.length && !q.tags.some((tag) => t.tags.includes(tag))) return false;
      if (q.complexity && workflowComplexity(t) !== q.complexity) return false;
      const hay = [t.name, t.description, ...t.tags, ...t.steps.flatMap((s) => [s.name, s.description]), t.content ?? ''].join('\n').toLowerCase();
      return keywords.every((k) => hay.includes(k));
    });
    const page = q.page ?? 1;
    const limit = q.limit ?? 50;
    const slice = matches.slice((page - 1) * limit, page * limit);
    const level = q.detailLevel ?? 'summary';
    return { workflows: slice.map((t) => pick(this.workflowBase(t, level), undefined)), total: matches.length, page, limit };
  }

  /** One workflow; `{ notModified }` when `ifNoneMatch` is its `fileHash`. */
  async getWorkflow(name: string, o: ContentOptions): Promise<ContentResponse | NotModified> {
    const t = getTemplate(this.ports.store, name);
    if (!t) throw new BatonError('template_not_found', `No workflow ${echo(name)}${this.leftOut('workflows', name)}. Workflows: ${listTemplates(this.ports.store).map((w) => w.name).join(', ') || '(none)'}.`);
    return this.respond(t, o, () => this.workflowBase(t, o.detailLevel ?? 'summary'), () => workflowMarkdown(t));
  }

  /** One agent persona; `{ notModified }` when `ifNoneMatch` is its `fileHash`. */
  async getAgentPersona(name: string, o: ContentOptions): Promise<ContentResponse | NotModified> {
    const a = getAgent(this.ports.store, name);
    if (!a) throw new BatonError('not_found', `No agent ${echo(name)}${this.leftOut('agents', name)}. Agents: ${listAgents(this.ports.store).map((x) => x.name).join(', ') || '(none)'}.`);
    return this.respond(a, o, () => agentBase(a, o.detailLevel ?? 'summary'), () => `# ${a.name}\n\n> ${a.description}\n\n${a.content}\n`);
  }

  /** Rules by tags (any), file types (matched against each rule's globs) and `alwaysApply`; a page of them. */
  async getRelevantRules(q: RelevantRulesInput): Promise<{ rules: ContentResponse[]; total: number; page: number; limit: number; listHash?: string } | NotModified> {
    const matches = listRules(this.ports.store).filter((r) => {
      if (q.alwaysApply !== undefined && r.always_apply !== q.alwaysApply) return false;
      if (q.tags?.length && !q.tags.some((t) => r.tags.includes(t))) return false;
      if (q.fileTypes?.length && !q.fileTypes.some((f) => matchesFileType(f, r.globs))) return false;
      return true;
    });
    const listHash = this.ports.crypto.sha256(matches.map((r) => `${r.name}:${r.hash}`).join('\n'));
    if (q.ifNoneMatch !== undefined && etag(q.ifNoneMatch) === listHash) return { notModified: true, listHash, contentHash: listHash };
    const page = q.page ?? 1;
    const limit = q.limit ?? 50;
    const rules: ContentResponse[] = [];
    for (const r of matches.slice((page - 1) * limit, page * limit)) {
      rules.push((await this.respond(r, { ...q, ifNoneMatch: undefined }, () => ruleBase(r, q.detailLevel ?? 'summary'), () => ruleMarkdown(r))) as ContentResponse);
    }
    return { rules, total: matches.length, page, limit, ...(q.includeHash === false ? {} : { listHash }) };
  }

  /** A page of projects, most recently used first. */
  listProjects(page = 1, limit = 50): { projects: Project[]; total: number; page: number; limit: number } {
    return this.projects.list(page, limit);
  }

  /** The project at `path` (discovered and registered if new), or the workspace project. */
  async projectContext(path?: string): Promise<Project> {
    if (path === undefined) return this.projects.byId(this.workspaceProject())!;
    return this.projects.discover(path);
  }

  private async respond(item: StoredOrigin, o: ContentOptions, base: () => ContentResponse, markdown: () => string): Promise<ContentResponse | NotModified> {
    if (o.ifNoneMatch !== undefined && etag(o.ifNoneMatch) === item.hash) return { notModified: true, fileHash: item.hash, contentHash: item.hash };
    const out = base();
    if ((o.detailLevel ?? 'summary') === 'full') {
      const mode = o.contentMode ?? 'normalized';
      if (mode === 'normalized' || mode === 'mixed') out.content = normalized(item);
      if (mode === 'raw' || mode === 'mixed') out.raw = await this.ports.fs.readText(item.path).catch(() => (item as { content?: string }).content ?? '');
      if (mode === 'synthesized') out.synthesized = markdown();
      out.contentMode = mode;
    }
    // The spec's ETag is fileHash; contentHash, the name Baton answered with first, stays as an alias.
    if (o.includeHash !== false) {
      out.fileHash = item.hash;
      out.contentHash = item.hash;
    }
    return redactWithPolicy(pick(out, o.fields), o.redactPolicy ?? 'none') as ContentResponse;
  }

  private workflowBase(t: StoredTemplate, level: DetailLevel): ContentResponse {
    const out: ContentResponse = { kind: 'workflow', name: t.name };
    if (level === 'name') return out;
    Object.assign(out, {
      description: t.description, type: t.type, tags: t.tags, complexity: workflowComplexity(t), stepsCount: t.steps.length,
      estimatedDurationMinutes: t.estimated_duration_minutes, source: t.source, updatedAt: t.updated_at,
    });
    return out;
  }
}

type StoredOrigin = StoredTemplate | StoredAgent | StoredRule;

function agentBase(a: StoredAgent, level: DetailLevel): ContentResponse {
  const out: ContentResponse = { kind: 'agent', name: a.name };
  if (level !== 'name') Object.assign(out, { description: a.description, source: a.source, updatedAt: a.updated_at });
  return out;
}

function ruleBase(r: StoredRule, level: DetailLevel): ContentResponse {
  const out: ContentResponse = { kind: 'rule', name: r.name };
  if (level !== 'name') Object.assign(out, { description: r.description, tags: r.tags, alwaysApply: r.always_apply, globs: r.globs, source: r.source, updatedAt: r.updated_at });
  return out;
}

/** The parsed item without storage bookkeeping. */
function normalized(item: StoredOrigin): Record<string, unknown> {
  const { source: _s, path: _p, hash: _h, updated_at: _u, ...rest } = item as StoredOrigin & Record<string, unknown>;
  delete rest.id;
  delete rest.active;
  return rest;
}

/** Keeps `fields` (plus kind and name) when given. */
function pick(out: ContentResponse, fields: string[] | undefined): ContentResponse {
  if (!fields?.length) return out;
  const keep = new Set(['kind', 'name', ...fields]);
  return Object.fromEntries(Object.entries(out).filter(([k]) => keep.has(k))) as ContentResponse;
}

/** Whether a file type (`ts`, `.ts`, `*.ts`, `src/a.ts`) falls under any of a rule's globs. */
export function matchesFileType(fileType: string, globs: readonly string[]): boolean {
  const t = fileType.trim();
  const isPath = t.includes('/') || (/[^*.]\.[^.]+$/.test(t) && !t.startsWith('*'));
  const sample = isPath ? t : `file.${t.replace(/^\*?\.?/, '')}`;
  const base = sample.split('/').pop()!;
  return globs.some((g) => minimatch(sample, g, { dot: true, matchBase: true }) || minimatch(base, g.split('/').pop()!, { dot: true }));
}

function workflowMarkdown(t: StoredTemplate): string {
  const lines = [`# ${t.name}`, '', t.description, '', `**Type**: ${t.type} · **Complexity**: ${complexityOf(t.steps.length)} · **Tags**: ${t.tags.join(', ') || '—'}`, '', '## Steps', ''];
  t.steps.forEach((s, i) => {
    const deps = s.dependencies.length ? ` Depends on: ${s.dependencies.join(', ')}.` : '';
    lines.push(`${i + 1}. **${s.name}** (${s.agent}) — ${s.description}${deps}${s.human_gate ? ' *Needs approval.*' : ''}`);
  });
  return `${lines.join('\n')}\n`;
}

function ruleMarkdown(r: StoredRule): string {
  const scope = r.always_apply ? 'always' : r.globs.length ? r.globs.join(', ') : 'on request';
  return `# ${r.name}\n\n> ${r.description}\n\n**Applies to**: ${scope} · **Tags**: ${r.tags.join(', ') || '—'}\n\n${r.content}\n`;
}
