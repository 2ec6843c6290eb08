// Logging and query tools: idempotent execution logs, immutable artifacts (text or base64 binary), findings with
// project/global scope and ranked full-text search, execution history and details.
import { utf8Length } from '../utf8.js';
import { headPastNul } from '../broker/executionRepo.js';
import { fittingPrefix } from '../broker/stepResult.js';
import { BatonError, echo, errorMessage } from '../errors.js';
import type { SqlValue } from '../ports.js';
import { bm25, toFtsQuery } from './ftsQuery.js';
import type { Lifecycle, LifecycleDeps } from './lifecycle.js';
import { base64Size, decodeBase64, normalizeBase64 } from '../base64.js';
import type {
  ContractCheck, DetailsPage, ExecutionDetails, ExecutionDetailsInput, ExecutionHistoryInput, ExecutionLog, Finding, FindingsPage, LifecycleArtifact,
  LogExecutionInput, LogLayer, QueryFindingsInput, StoreArtifactInput, StoreFindingInput, WorkflowExecution,
} from '../lifecycleTypes.js';
import { DETAILS_LIST_BUDGET_BYTES, DETAILS_LIST_MAX, fitting, jsonBytes, newestPage, pageAsks, pageOf, type PageAsk } from './detailsPages.js';
import { toArtifactView, toExecutionView, toFindingView, toLogView } from './views.js';

type Raw = Record<string, unknown>;

/** Contract names per log layer: `<Layer>Input` / `<Layer>Output`. */
const LAYER_CONTRACTS: Record<LogLayer, string> = { orchestrator: 'Orchestrator', workflow: 'Workflow', step: 'Step', agent_task: 'AgentTask' };

const MIME: Record<string, string> = { text: 'text/plain', markdown: 'text/markdown', json: 'application/json', binary: 'application/octet-stream' };

const ARTIFACT_SELECT = 'SELECT a.*, s.id AS step_id FROM artifacts a LEFT JOIN steps s ON s.execution_id = a.execution_id AND s.step_name = a.step_name';
const FINDING_SELECT = 'SELECT f.*, s.id AS step_id FROM findings f LEFT JOIN steps s ON s.execution_id = f.execution_id AND s.step_name = f.step_name';

/**
 * Bytes of JSON the artifacts of one get_execution_details answer take at most: the metadata of those listed, then
 * their contents, inlined newest first. Everything past it is left to workflow-artifacts://, read one artifact at a
 * time: three 9 MB artifacts made a 28 MB answer that held the owner process for up to seconds, that the SDK's stdio
 * client refuses (over its 10 MB message limit), and that an agent's client would forward whole to its model; and the
 * metadata of 5,000 artifacts alone made 1 MB. 256 KB keeps a run's usual reports and diffs (tens of KB) whole and is
 * read, serialized and sent in milliseconds.
 */
export const DETAILS_ARTIFACTS_BUDGET_BYTES = 256 * 1024;

/**
 * The ids of a page of an execution's rows of `table`, newest first (parameters: execution id, limit, offset). Read
 * from the execution's index alone: sorting the rows themselves would read every row of a long run for one page.
 */
const PAGE_IDS = (table: 'artifacts' | 'findings') => `SELECT id FROM ${table} WHERE execution_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`;

/** Contents of at most this size (content_size_bytes) are read with the artifacts' metadata, not one query each. */
const SMALL_CONTENT_BYTES = 4096;

/** Decoded logs kept in memory across executions (least recently read dropped first). */
const LOG_CACHE_LIMIT = 50_000;

/** Logs, artifacts, findings and queries over executions. */
export class Records {
  private readonly logCache = new Map<string, { lastId: number; logs: ExecutionLog[] }>();

  constructor(private readonly deps: LifecycleDeps, private readonly lifecycle: Lifecycle) {}

  private get store() {
    return this.deps.ports.store;
  }

  private iso(): string {
    return new Date(this.deps.ports.clock.now()).toISOString();
  }

  /** Resolves an optional step id to its step name, checking it belongs to the execution. */
  private stepName(executionId: string, stepId: string | undefined): { name: string; agent: string } | null {
    if (stepId === undefined) return null;
    const s = /^\d+$/.test(stepId) ? this.store.get<{ step_name: string; agent_name: string; execution_id: string }>('SELECT step_name, agent_name, execution_id FROM steps WHERE id = ?', [Number(stepId)]) : undefined;
    if (!s || s.execution_id !== executionId) {
      throw new BatonError('step_not_found', `No step ${echo(stepId)} in execution ${executionId}; step ids are listed by get_execution_details.`);
    }
    return { name: s.step_name, agent: s.agent_name };
  }

  /**
   * Logs once per (executionId, layer, layerId): a repeat returns the stored entry (`duplicate: true`) and writes
   * nothing. Contracts are validated against `<Layer>Input` / `<Layer>Output` schemas when given.
   */
  async log(input: LogExecutionInput): Promise<{ log: ExecutionLog; duplicate: boolean; contracts: ContractCheck[] }> {
    const executionId = String(this.lifecycle.row(input.executionId).execution_id);
    const find = () => this.store.get<Raw>('SELECT * FROM execution_logs WHERE execution_id = ? AND layer = ? AND layer_id = ?', [executionId, input.layer, input.layerId]);
    const existing = find();
    if (existing) return { log: toLogView(existing), duplicate: true, contracts: [] };
    const contracts: ContractCheck[] = [];
    const base = LAYER_CONTRACTS[input.layer];
    if (input.contractInput !== undefined) contracts.push(await this.deps.contracts.check(`${base}Input`, input.contractInput, 'contractInput'));
    if (input.contractOutput !== undefined) contracts.push(await this.deps.contracts.check(`${base}Output`, input.contractOutput, 'contractOutput'));
    const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
    const inserted = await this.store.transaction(() => this.store.run(
      `INSERT INTO execution_logs (execution_id, layer, layer_id, log_level, message, context, contract_input, contract_output, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (execution_id, layer, layer_id) DO NOTHING`,
      [executionId, input.layer, input.layerId, input.logLevel, input.message, json(input.context), json(input.contractInput), json(input.contractOutput), this.iso()],
    ));
    return { log: toLogView(find()!), duplicate: inserted === 0, contracts };
  }

  /** Stores an immutable artifact; binary content must be base64 and is kept so, with its decoded size. */
  async storeArtifact(input: StoreArtifactInput): Promise<LifecycleArtifact> {
    const executionId = String(this.lifecycle.row(input.executionId).execution_id);
    const step = this.stepName(executionId, input.stepId);
    let content = input.content;
    let size: number;
    let encoding = 'utf8';
    if (input.contentType === 'binary') {
      const b64 = normalizeBase64(content);
      if (b64 === undefined) throw new BatonError('invalid_input', 'content must be standard base64 (A-Z a-z 0-9 + /, padded with =) when contentType is "binary".');
      content = b64;
      size = base64Size(b64);
      encoding = 'base64';
    } else {
      if (input.contentType === 'json') {
        try {
          JSON.parse(content);
        } catch (ex) {
          throw new BatonError('invalid_input', `content is not valid JSON (${ex instanceof Error ? ex.message : String(ex)}); send JSON text, or use contentType "text".`);
        }
      }
      size = utf8Length(content);
    }
    const id = this.deps.ports.ids.orderedUuid();
    const mime = typeof input.metadata?.mimeType === 'string' ? input.metadata.mimeType : MIME[input.contentType] ?? null;
    await this.store.transaction(() => {
      this.store.run(
        `INSERT INTO artifacts (artifact_id, execution_id, step_name, agent_name, artifact_type, title, content, content_encoding, mime_type,
           description, is_final, metadata, created_at, content_size_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, ?, ?)`,
        [id, executionId, step?.name ?? null, step?.agent ?? null, input.contentType, input.name, content, encoding, mime,
          JSON.stringify(input.metadata ?? {}), this.iso(), size],
      );
      this.deps.event(executionId, 'artifact_stored', { artifact_id: id, name: input.name, content_type: input.contentType, size_bytes: size });
    });
    this.deps.emit([{ type: 'artifact', execution_id: executionId, artifact_id: id, is_final: false }]);
    return this.artifact(id);
  }

  /** An artifact by id. */
  artifact(artifactId: string): LifecycleArtifact {
    const r = this.store.get<Raw>(`${ARTIFACT_SELECT} WHERE a.artifact_id = ?`, [artifactId]);
    if (!r) throw new BatonError('not_found', `No artifact ${echo(artifactId)}; list an execution's artifacts with get_execution_details({ includeArtifacts: true }).`);
    return toArtifactView(r);
  }

  /** An artifact's bytes: base64 decoded for binary, UTF-8 encoded for text. */
  artifactBytes(artifactId: string): Uint8Array {
    const a = this.artifact(artifactId);
    return a.encoding === 'base64' ? decodeBase64(a.content) : new TextEncoder().encode(a.content);
  }

  /** Stores a finding, scoped to a project (the execution's, by default) or global; it is indexed for search at once. */
  async storeFinding(input: StoreFindingInput): Promise<Finding> {
    const exec = this.lifecycle.row(input.executionId);
    const executionId = String(exec.execution_id);
    const step = this.stepName(executionId, input.stepId);
    const projectId = input.projectId ?? (exec.project_id as number | null) ?? null;
    const id = this.deps.ports.ids.uuid();
    const global = input.isGlobal === true;
    await this.store.transaction(() => {
      this.store.run(
        `INSERT INTO findings (finding_id, execution_id, step_name, project_id, scope, severity, category, title, description, location,
           tags, created_at, is_global, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, executionId, step?.name ?? null, projectId, global ? 'global' : 'project', input.severity, input.category, input.title,
          input.description, input.location === undefined ? null : JSON.stringify(input.location), JSON.stringify(input.tags ?? []),
          this.iso(), global ? 1 : 0, JSON.stringify(input.metadata ?? {})],
      );
      this.deps.event(executionId, 'finding_stored', { finding_id: id, severity: input.severity, category: input.category, title: input.title });
    });
    return toFindingView(this.store.get<Raw>(`${FINDING_SELECT} WHERE f.finding_id = ?`, [id])!);
  }

  /**
   * Findings by filters; with `projectId`, that project's findings plus global ones. With `searchText`, full-text
   * matches (FTS4) ranked by BM25, best first; otherwise newest first.
   */
  queryFindings(q: QueryFindingsInput): FindingsPage {
    const where: string[] = [];
    const params: SqlValue[] = [];
    if (q.executionId !== undefined) { where.push('f.execution_id = ?'); params.push(q.executionId); }
    if (q.projectId !== undefined) { where.push('(f.project_id = ? OR f.is_global = 1)'); params.push(q.projectId); }
    const severities = q.severity === undefined ? [] : Array.isArray(q.severity) ? q.severity : [q.severity];
    if (severities.length) { where.push(`f.severity IN (${severities.map(() => '?').join(',')})`); params.push(...severities); }
    if (q.category !== undefined) { where.push('f.category = ? COLLATE NOCASE'); params.push(q.category); }
    if (q.tags?.length) {
      where.push(`EXISTS (SELECT 1 FROM json_each(f.tags) WHERE value IN (${q.tags.map(() => '?').join(',')}))`);
      params.push(...q.tags);
    }
    if (q.isGlobal !== undefined) { where.push('f.is_global = ?'); params.push(q.isGlobal ? 1 : 0); }
    const limit = q.limit ?? 50;
    const offset = q.offset ?? 0;
    const search = q.searchText?.trim();
    if (!search) {
      const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
      const total = this.store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM findings f ${clause}`, params)!.n;
      const rows = this.store.all<Raw>(`${FINDING_SELECT} ${clause} ORDER BY f.id DESC LIMIT ? OFFSET ?`, [...params, limit, offset]);
      return { findings: rows.map(toFindingView), total, limit, offset };
    }
    const fts = toFtsQuery(search);
    let hits: Array<{ id: number; mi: Uint8Array }>;
    // CROSS JOIN keeps the full-text index as the outer loop: driven from findings, SQLite would run the MATCH once per row.
    try {
      hits = this.store.all<{ id: number; mi: Uint8Array }>(
        `SELECT f.id AS id, matchinfo(findings_fts, 'pcnalx') AS mi FROM findings_fts CROSS JOIN findings f ON f.id = findings_fts.docid
         WHERE findings_fts MATCH ?${where.length ? ` AND ${where.join(' AND ')}` : ''}`,
        [fts, ...params],
      );
    } catch (ex) {
      throw new BatonError('invalid_input', `searchText ${echo(search)} is not a valid search (${errorMessage(ex)}); use terms, AND / OR / NOT, "phrases" and prefix*.`);
    }
    const ranked = hits.map((h) => ({ id: h.id, score: bm25(h.mi) })).sort((a, b) => b.score - a.score || b.id - a.id);
    const page = ranked.slice(offset, offset + limit);
    const scores = new Map(page.map((h) => [h.id, h.score]));
    const rows = page.length ? this.store.all<Raw>(`${FINDING_SELECT} WHERE f.id IN (${page.map(() => '?').join(',')})`, page.map((h) => h.id)) : [];
    const findings = rows
      .map((r) => ({ ...toFindingView(r), score: Math.round(scores.get(Number(r.id))! * 1000) / 1000 }))
      .sort((a, b) => b.score - a.score);
    return { findings, total: ranked.length, limit, offset, ftsQuery: fts };
  }

  /**
   * An execution's logs, oldest first. Logs are append-only and never change, so decoded logs are kept per
   * execution (a bounded number of them) and only rows past the last one seen are read again.
   */
  private logsOf(executionId: string): readonly ExecutionLog[] {
    const cached = this.logCache.get(executionId);
    // Only the columns the view needs: every value read out of sql.js costs about a microsecond.
    const fresh = this.store.all<Raw>(
      `SELECT id, layer, layer_id, log_level, message, context, contract_input, contract_output, created_at FROM execution_logs
       WHERE execution_id = ? AND id > ? ORDER BY id`,
      [executionId, cached?.lastId ?? 0],
    ).map((r) => toLogView(r, executionId));
    const logs = cached ? (fresh.length ? [...cached.logs, ...fresh] : cached.logs) : fresh;
    this.logCache.delete(executionId);
    this.logCache.set(executionId, { lastId: fresh.length ? Number(fresh.at(-1)!.id) : cached?.lastId ?? 0, logs });
    let total = 0;
    for (const entry of this.logCache.values()) total += entry.logs.length;
    for (const [key, entry] of this.logCache) {
      if (total <= LOG_CACHE_LIMIT || key === executionId) break;
      total -= entry.logs.length;
      this.logCache.delete(key);
    }
    return logs;
  }

  /** Executions by workflow, project and state, newest first. */
  history(q: ExecutionHistoryInput): { executions: WorkflowExecution[]; total: number; limit: number; offset: number } {
    const where: string[] = [];
    const params: SqlValue[] = [];
    if (q.workflowName !== undefined) { where.push('template_name = ?'); params.push(q.workflowName); }
    if (q.projectId !== undefined) { where.push('project_id = ?'); params.push(q.projectId); }
    if (q.state !== undefined) { where.push('status = ?'); params.push(q.state); }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const limit = q.limit ?? 50;
    const offset = q.offset ?? 0;
    const total = this.store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM executions ${clause}`, params)!.n;
    const rows = this.store.all<Raw>(`SELECT * FROM executions ${clause} ORDER BY COALESCE(created_at, started_at) DESC, rowid DESC LIMIT ? OFFSET ?`, [...params, limit, offset]);
    return { executions: rows.map((r) => toExecutionView(r)), total, limit, offset };
  }

  /**
   * A page of an execution's artifacts (the newest `ask.limit` after `ask.offset`, in the order they were stored),
   * within `budgetBytes` of JSON: first the metadata of as many as fit, newest first, then their contents inlined
   * newest first while the rest lasts (artifacts are immutable: a revision is a newer artifact, so the newest matter
   * most). A content cut or left out is marked `truncated: true` with the `uri` that reads it whole; a cut keeps whole
   * characters (never half a surrogate pair) and whole base64 quanta (4 characters, 3 bytes).
   */
  private budgetedArtifacts(executionId: string, ask: PageAsk, budgetBytes: number): { artifacts: LifecycleArtifact[]; page: DetailsPage } {
    const total = this.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM artifacts WHERE execution_id = ?', [executionId])!.n;
    // Metadata and small contents first (one query for a page of many small artifacts); of a larger content, only as
    // much as may fit is read out of the database, newest first: a JSON string takes a byte per character at least,
    // so `left + 1` characters tell whether the rest fits.
    const candidates = this.store.all<Raw>(
      `SELECT a.id, a.artifact_id, a.execution_id, a.step_name, a.artifact_type, a.title, a.mime_type, a.content_encoding,
         a.content_size_bytes, a.is_final, a.metadata, a.created_at, a.content = '' AS empty,
         CASE WHEN a.content_size_bytes <= ? THEN a.content END AS small, s.id AS step_id
       FROM artifacts a LEFT JOIN steps s ON s.execution_id = a.execution_id AND s.step_name = a.step_name
       WHERE a.id IN (${PAGE_IDS('artifacts')}) ORDER BY a.id DESC`,
      [SMALL_CONTENT_BYTES, executionId, ask.limit, ask.offset],
    );
    const uriOf = (artifactId: string) => `workflow-artifacts://${executionId}#${artifactId}`;
    // Each artifact's metadata is charged as if cut (with truncated and uri), so the final answer can only be smaller.
    const shells = candidates.map((r) => {
      const view = toArtifactView({ ...r, content: '' });
      return { view, bytes: jsonBytes({ ...view, truncated: true, uri: uriOf(view.id) }) };
    });
    const fit = fitting(shells, budgetBytes, (s) => s.bytes);
    const n = fit.count;
    const rows = candidates.slice(0, n);
    let left = Math.max(0, budgetBytes - fit.bytes);
    const views = rows.map((r) => {
      // SQLite counts characters as code points: `read` holds all of the content or more than `left` can take.
      let read = '';
      if (typeof r.small === 'string') read = r.small;
      else if (left > 0 && r.empty !== 1) {
        read = String(this.store.get<{ c: string }>('SELECT substr(content, 1, ?) AS c FROM artifacts WHERE id = ?', [left + 1, Number(r.id)])!.c);
        read = headPastNul(this.store, Number(r.id), read, left + 1, Number(r.content_size_bytes));
      }
      let [length, used] = fittingPrefix(read, left);
      // base64 is ASCII (a character is a byte); a cut ends on a whole quantum of 4 characters.
      if (r.content_encoding === 'base64' && length < read.length) used = length -= length % 4;
      const view = toArtifactView({ ...r, content: read.slice(0, length) });
      const whole = r.empty === 1 || (read !== '' && length === read.length);
      // After a cut, the few bytes left would make stubs of older artifacts: they are left out.
      left = whole ? left - used : 0;
      return whole ? view : { ...view, truncated: true as const, uri: uriOf(view.id) };
    });
    return { artifacts: views.reverse(), page: pageOf(total, ask, n) };
  }

  /** A page of an execution's findings, like budgetedArtifacts' but without contents. */
  private findingsPage(executionId: string, ask: PageAsk): { findings: Finding[]; page: DetailsPage } {
    const total = this.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM findings WHERE execution_id = ?', [executionId])!.n;
    const candidates = this.store.all<Raw>(`${FINDING_SELECT} WHERE f.id IN (${PAGE_IDS('findings')}) ORDER BY f.id DESC`, [executionId, ask.limit, ask.offset])
      .map(toFindingView);
    const n = fitting(candidates, DETAILS_LIST_BUDGET_BYTES, jsonBytes).count;
    return { findings: candidates.slice(0, n).reverse(), page: pageOf(total, ask, n) };
  }

  /**
   * One execution with (by flags) its steps, logs, artifacts and findings: of each, one page (detailsPages.ts), and
   * in `pages` how many there are in all and the offset of the rest.
   */
  details(q: ExecutionDetailsInput): ExecutionDetails {
    const r = this.lifecycle.row(q.executionId);
    const id = String(r.execution_id);
    const included = { steps: q.includeSteps ?? true, logs: q.includeLogs === true, artifacts: q.includeArtifacts === true, findings: q.includeFindings === true };
    const ask = pageAsks(q, included);
    const out: ExecutionDetails = { execution: toExecutionView(r, true), pages: {} };
    if (included.steps) {
      const all = this.lifecycle.steps(id);
      ({ items: out.steps, page: out.pages.steps } = newestPage(all, ask.steps, DETAILS_LIST_BUDGET_BYTES));
      // Ready steps are what an agent acts on next: found among all the steps, not only the page's.
      const byId = new Map(all.map((s) => [s.id, s.state]));
      out.readyStepIds = all
        .filter((s) => (s.state === 'pending' || s.state === 'ready') && s.dependsOn.every((d) => byId.get(d) === 'completed' || byId.get(d) === 'skipped'))
        .slice(0, DETAILS_LIST_MAX)
        .map((s) => s.id);
    }
    if (included.logs) ({ items: out.logs, page: out.pages.logs } = newestPage(this.logsOf(id), ask.logs, DETAILS_LIST_BUDGET_BYTES));
    if (included.artifacts) ({ artifacts: out.artifacts, page: out.pages.artifacts } = this.budgetedArtifacts(id, ask.artifacts, DETAILS_ARTIFACTS_BUDGET_BYTES));
    if (included.findings) ({ findings: out.findings, page: out.pages.findings } = this.findingsPage(id, ask.findings));
    return out;
  }
}
