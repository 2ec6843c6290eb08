// SQL access for executions, steps, artifacts, tokens and events; the broker's only way to the store.
import type { ArtifactRecord, ExecutionSummary } from '../api.js';
import type { Store } from '../ports.js';
import { utf8Length } from '../utf8.js';
import { assertTransition } from '../stateMachine.js';
import { UndoWatch } from '../undoWatch.js';
import type { ExecutionKind, ExecutionStatus, FindingInput, StepContract, StepDefinition, StepStatus } from '../types.js';

/** An execution row. */
export interface ExecutionRow {
  execution_id: string;
  kind: ExecutionKind;
  template_id: number | null;
  template_name: string | null;
  task_id: string | null;
  project_id: number | null;
  status: ExecutionStatus;
  current_step: string | null;
  progress: number;
  started_at: string;
  updated_at: string;
  completed_at: string | null;
  duration_ms: number | null;
  synthesis_output: string | null;
  /** Why a failed run failed (a pipeline, the lifecycle tools, a team, the broker's dead end); null otherwise. */
  error?: string | null;
  metadata: Record<string, unknown>;
}

/** A step row with its definition fields decoded. */
export interface StepRow {
  id: number;
  execution_id: string;
  step_name: string;
  agent_name: string;
  position: number;
  dependencies: string[];
  status: StepStatus;
  contract: StepContract | null;
  output: unknown;
  outcome_summary: string | null;
  token_nonce: string | null;
  claimed_by: string | null;
  attempt: number;
  feedback: string | null;
  started_at: string | null;
  completed_at: string | null;
  duration_ms: number | null;
  metadata: { definition?: StepDefinition } & Record<string, unknown>;
}

/** What the ready set needs of a step: its state plus the template fields that never change. */
export interface StepState {
  step_name: string;
  status: StepStatus;
  agent_name: string;
  dependencies: string[];
  path_patterns: string[];
  tags: string[];
}

/** An artifact's id, step, type and title. */
export type ArtifactLabel = Pick<ArtifactRecord, 'artifact_id' | 'step_name' | 'type' | 'title'>;

/** What the inline step context shows of an artifact: its labels and the head of its content. */
export type ArtifactHead = ArtifactLabel & Pick<ArtifactRecord, 'content' | 'content_size_bytes'>;

/** The immutable part of a step's state, cached per execution. */
type StepShape = Omit<StepState, 'status' | 'step_name' | 'agent_name'> & { position: number };

/** A step's state from its row's fields and its cached shape (built field by field: see stepStates). */
function stepState(stepName: string, status: StepStatus, agentName: string, s: StepShape): StepState {
  return { step_name: stepName, status, agent_name: agentName, dependencies: s.dependencies, path_patterns: s.path_patterns, tags: s.tags };
}

/** A ledger entry for an issued token. */
export interface TokenRow {
  nonce: string;
  execution_id: string;
  step_name: string;
  state: 'active' | 'consumed' | 'superseded' | 'released';
  issued_at: string;
  expires_at: string;
  closed_at: string | null;
  /** The token whose use handed this one out (migration 007), or null. */
  follows: string | null;
  /** The process whose own stdio connection it was handed out on (migration 011), or null. */
  holder_pid: number | null;
}

type Raw = Record<string, unknown>;

/** What `insertExecution` writes. */
export interface NewExecution {
  execution_id: string; kind: ExecutionKind; template_id: number | null; template_name: string | null;
  task_id: string | null; project_id: number | null; status: ExecutionStatus; now: string; metadata: unknown;
}

/** What `insertStep` writes. */
export interface NewStep {
  execution_id: string;
  def: StepDefinition;
  position: number;
  status: StepStatus;
}

const json = (v: unknown): string => JSON.stringify(v ?? null);

/** Facts about rows that never change once written, kept per cache (the oldest forgotten first). */
const FACTS_KEPT = 1024;

/** `cache`'s value for `key`, read on a miss and kept; a read that finds nothing is not kept (the row may come later). */
function readThrough<T>(cache: Map<string, T>, key: string, read: () => T | undefined): T | undefined {
  let value = cache.get(key);
  if (value === undefined) {
    value = read();
    if (value === undefined) return undefined;
    if (cache.size >= FACTS_KEPT) cache.delete(cache.keys().next().value!);
    cache.set(key, value);
  }
  return value;
}

/**
 * The head of artifact row `id`'s content as SQLite's `substr(content, 1, askedChars)` gave it back (`head`), or, where
 * a NUL in the content stopped it, the same head cut from the whole content. SQLite's text functions stop at a NUL,
 * while a read of the column gives the whole text: a head shorter than asked (fewer UTF-16 units, so fewer characters)
 * that is smaller than the content's `sizeBytes` (UTF-8) did not reach the content's end.
 */
export function headPastNul(store: Store, id: number, head: string, askedChars: number, sizeBytes: number): string {
  if (head.length >= askedChars || utf8Length(head) >= sizeBytes) return head;
  return headOf(String(store.get<{ content: string }>('SELECT content FROM artifacts WHERE id = ?', [id])?.content ?? ''), askedChars);
}

/**
 * The first `maxChars` characters of a well-formed `text` as SQLite's substr counts them (code points), so as
 * `artifactHeads` reads a stored text back: a surrogate pair is one character.
 */
export function headOf(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let i = 0;
  for (let n = 0; n < maxChars && i < text.length; n++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1;
  }
  return text.slice(0, i);
}

/** A JSON column's value, or `fallback` when it is empty or not JSON. */
export function parseJson<T>(v: unknown, fallback: T): T {
  if (typeof v !== 'string' || v === '') return fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
}

function toExecution(r: Raw): ExecutionRow {
  return { ...(r as unknown as ExecutionRow), metadata: parseJson(r.metadata, {}) };
}

/** Freezes `value` and everything in it: a stored text's value is shared by every step row that names it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Step definitions and contracts, stored once per distinct JSON text (schema v8, `step_texts`) and named by hash: they
 * are the same for every run of a template version. Values are read once and shared, frozen.
 */
export class StepTexts {
  /** Texts stored or read, by their JSON text: their ref. */
  private readonly refs = new Map<string, string>();
  private readonly values = new Map<string, unknown>();
  private readonly frozen = new WeakMap<object, { text: string; ref: string }>();
  /** Refs seen stored since the store last undid writes (`undo`): their lookup is skipped. */
  private readonly stored = new Set<string>();
  private readonly undo: UndoWatch;

  constructor(private readonly store: Store, private readonly sha256: (text: string) => string) {
    this.undo = new UndoWatch(store, () => this.stored.clear());
  }

  /** The ref of `value`, its text stored if new (inside a transaction). */
  ref(value: unknown): string {
    // A frozen value (a shared contract, a stored definition) cannot change: its text and ref are kept with it.
    const keep = value !== null && typeof value === 'object' && Object.isFrozen(value) ? value : null;
    const kept = keep ? this.frozen.get(keep) : undefined;
    const text = kept?.text ?? json(value);
    let ref = kept?.ref ?? this.refs.get(text);
    if (ref === undefined) {
      ref = this.sha256(text).slice(0, 32);
      if (this.refs.size >= TEXT_CACHE_LIMIT) this.refs.clear();
      this.refs.set(text, ref);
    }
    if (keep && !kept) this.frozen.set(keep, { text, ref });
    // A ref seen stored is not looked up again until the store undoes writes (the transaction that stored it may
    // be among them) or a prune deletes texts no step names (`forgetStored`).
    if (!this.seenStored(ref)) {
      if (!this.store.get('SELECT 1 AS found FROM step_texts WHERE hash = ?', [ref])) {
        this.store.run('INSERT INTO step_texts (hash, text) VALUES (?, ?)', [ref, text]);
      }
      if (this.stored.size >= TEXT_CACHE_LIMIT) this.stored.clear();
      this.stored.add(ref);
    }
    return ref;
  }

  /** Whether `ref` was seen stored since the store last undid writes; a store that does not count them is always asked. */
  private seenStored(ref: string): boolean {
    return this.undo.holds() && this.stored.has(ref);
  }

  /** Forgets which refs are stored: texts were deleted (a prune's texts that no step names any more). */
  forgetStored(): void {
    this.stored.clear();
  }

  /** The value a ref names (frozen: shared); undefined when no text has that ref. */
  value<T>(ref: string): T | undefined {
    if (this.values.has(ref)) return this.values.get(ref) as T;
    const row = this.store.get<{ text: string }>('SELECT text FROM step_texts WHERE hash = ?', [ref]);
    if (!row) return undefined;
    const value = deepFreeze(parseJson<unknown>(row.text, null));
    if (this.values.size >= TEXT_CACHE_LIMIT) this.values.clear();
    this.values.set(ref, value);
    return value as T;
  }
}

/** Distinct texts kept decoded: template versions' steps and their contracts, a few hundred at most in practice. */
const TEXT_CACHE_LIMIT = 1024;

/** Decodes an artifact row for resources. */
export function toArtifact(r: Raw): ArtifactRecord {
  return {
    id: r.id as number,
    artifact_id: r.artifact_id as string,
    execution_id: r.execution_id as string,
    step_name: (r.step_name as string | null) ?? null,
    agent_name: (r.agent_name as string | null) ?? null,
    type: r.artifact_type as string,
    title: (r.title as string | null) ?? null,
    content: r.content as string,
    description: (r.description as string | null) ?? null,
    is_final: r.is_final === 1,
    metadata: parseJson(r.metadata, {}),
    created_at: r.created_at as string,
    content_size_bytes: r.content_size_bytes as number,
  };
}

// Rows are sorted in JS: an ORDER BY makes SQLite copy every row, outputs, contracts and content included, into a sorter.
const byPosition = (a: { position: number }, b: { position: number }) => a.position - b.position;
const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;

/** Reads and writes of the broker's tables. Writes must run inside a store transaction. */
export class ExecutionRepo {
  /** Step definitions (and positions) are immutable once an execution exists, so their decoded form is cached. */
  private readonly shapes = new Map<string, Map<string, StepShape>>();

  /** An execution's kind and task never change: cached so the hot path need not read the whole row to learn them. */
  private readonly facts = new Map<string, { kind: ExecutionRow['kind']; task_id: string | null }>();

  /** A step's agent never changes once the step exists: cached by execution and step name (the rate limits' key). */
  private readonly agents = new Map<string, string>();

  private readonly texts: StepTexts;

  /** `sha256`: hex SHA-256, which names the stored definitions and contracts. */
  constructor(private readonly store: Store, sha256: (text: string) => string) {
    this.texts = new StepTexts(store, sha256);
  }

  /**
   * Rows read ahead (`speculate`), by read, with the store's `changes()` when they were read: each is taken once, by
   * the first read of the same rows while the store has taken no write since.
   */
  private ahead: { changes: number; rows: Map<string, unknown> } | null = null;
  /** Reads are being made ahead into this map (see `speculate`). */
  private filling: Map<string, unknown> | null = null;

  /**
   * Reads ahead what a call is expected to read next, while nothing else runs (the broker: what submitting the step it
   * just handed out reads). `fn` makes the reads through this repository and must not change what they return; the
   * rows it read replace any read ahead before. A store that does not count its writes is not read ahead.
   */
  speculate(fn: () => void): void {
    if (!this.store.changes) return;
    const rows = new Map<string, unknown>();
    this.ahead = null;
    this.filling = rows;
    try {
      fn();
    } finally {
      this.filling = null;
    }
    this.ahead = { changes: this.store.changes(), rows };
  }

  /** `read()`, or the rows read ahead under `key` while the store has taken no write since (once). */
  private fromAhead<T>(key: string, read: () => T): T {
    if (this.filling) {
      const value = read();
      this.filling.set(key, value);
      return value;
    }
    const ahead = this.ahead;
    if (ahead !== null && ahead.rows.has(key)) {
      // Taken once: the caller may change what it gets (a step's status in a list of states, say).
      const value = ahead.rows.get(key) as T;
      ahead.rows.delete(key);
      if (ahead.changes === this.store.changes!()) return value;
      this.ahead = null;
    }
    return read();
  }

  /** A step row decoded: its definition and contract from their refs (or inline, in rows older than schema v8). */
  private toStep(r: Raw): StepRow {
    const { definition_ref: definitionRef, contract_ref: contractRef, ...row } = r;
    const metadata = parseJson<StepRow['metadata']>(row.metadata, {});
    if (typeof definitionRef === 'string') metadata.definition = this.texts.value<StepDefinition>(definitionRef);
    return {
      ...(row as unknown as StepRow),
      dependencies: parseJson(row.dependencies, []),
      contract: typeof contractRef === 'string' ? this.texts.value<StepContract>(contractRef) ?? null : parseJson(row.contract, null),
      output: parseJson(row.output, null),
      metadata,
    };
  }

  /** The kind of an execution (`workflow`, `spec`, `pipeline`, ...), or undefined if there is no such execution. */
  executionKind(id: string): ExecutionRow['kind'] | undefined {
    return this.factsOf(id)?.kind;
  }

  /** The task an execution runs (null: none), or undefined if there is no such execution. */
  executionTask(id: string): string | null | undefined {
    return this.factsOf(id)?.task_id;
  }

  private factsOf(id: string): { kind: ExecutionRow['kind']; task_id: string | null } | undefined {
    return readThrough(this.facts, id, () => this.store.get<{ kind: ExecutionRow['kind']; task_id: string | null }>('SELECT kind, task_id FROM executions WHERE execution_id = ?', [id]));
  }

  /** The agent a step is for, or undefined if there is no such step. */
  stepAgent(executionId: string, stepName: string): string | undefined {
    return readThrough(this.agents, `${executionId}\n${stepName}`, () =>
      this.store.get<{ agent_name: string }>('SELECT agent_name FROM steps WHERE execution_id = ? AND step_name = ?', [executionId, stepName])?.agent_name);
  }

  /** Steps' states in template order, without decoding outputs or contracts (the broker's hot path). */
  stepStates(executionId: string): StepState[] {
    return this.fromAhead(`states\n${executionId}`, () => this.readStepStates(executionId));
  }

  private readStepStates(executionId: string): StepState[] {
    let shapes = this.shapes.get(executionId);
    if (!shapes) {
      shapes = new Map();
      for (const r of this.store.all<{ step_name: string; position: number; dependencies: string; metadata: string; definition_ref: string | null }>(
        'SELECT step_name, position, dependencies, metadata, definition_ref FROM steps WHERE execution_id = ?', [executionId],
      )) {
        const def = r.definition_ref ? this.texts.value<StepDefinition>(r.definition_ref) : parseJson<{ definition?: StepDefinition }>(r.metadata, {}).definition;
        shapes.set(r.step_name, { position: r.position, dependencies: parseJson(r.dependencies, []), path_patterns: def?.path_patterns ?? [], tags: def?.tags ?? [] });
      }
      this.cacheShapes(executionId, shapes);
    }
    // Ordered here by the cached position: an ORDER BY would cost SQLite a temp b-tree on every call.
    const known = shapes;
    const rows = this.store.all<{ step_name: string; status: StepStatus; agent_name: string }>(
      'SELECT step_name, status, agent_name FROM steps WHERE execution_id = ?', [executionId],
    );
    if (rows.some((r) => !known.has(r.step_name))) {
      // A step was added since the shapes were cached (start_step forgets them; this is the safety net).
      this.shapes.delete(executionId);
      return this.readStepStates(executionId);
    }
    // Built field by field: rest and spread copies took 2% of the engine's CPU here.
    const states = rows.map((r) => {
      const s = known.get(r.step_name)!;
      return { state: stepState(r.step_name, r.status, r.agent_name, s), position: s.position };
    });
    return states.sort(byPosition).map((s) => s.state);
  }

  /**
   * An execution's steps as listings show them (name, status, agent), in order, read without their shapes: a listing
   * of hundreds of runs (the editor's tree, refreshed as agents work) parsed each one's step definitions and pushed
   * the running workflows' shapes out of their cache, which every call of theirs then read and parsed again.
   */
  stepList(executionId: string, cancelledAt: string | null = null): ExecutionSummary['steps'] {
    const rows = this.store.all<{ step_name: string; status: StepStatus; agent_name: string; position: number; completed_at: string | null; error: string | null }>(
      'SELECT step_name, status, agent_name, position, completed_at, error FROM steps WHERE execution_id = ?', [executionId],
    );
    rows.sort(byPosition);
    return rows.map((r) => (stoppedByCancel(r, cancelledAt)
      ? { step_name: r.step_name, status: r.status, agent_name: r.agent_name, stopped: true as const }
      : { step_name: r.step_name, status: r.status, agent_name: r.agent_name, ...(r.status === 'failed' && r.error ? { error: r.error } : {}) }));
  }

  /** Keeps the step shapes of at most 256 executions, the oldest cached forgotten first. */
  private cacheShapes(executionId: string, shapes: Map<string, StepShape>): void {
    if (this.shapes.size >= 256) this.shapes.delete(this.shapes.keys().next().value!);
    this.shapes.set(executionId, shapes);
  }

  /** Forgets the cached step shapes of an execution (after steps were added to it, e.g. by `start_step`). */
  forgetShapes(executionId: string): void {
    this.shapes.delete(executionId);
  }

  /** Forgets everything cached about executions that were deleted (pruned). */
  forgetExecutions(executionIds: readonly string[]): void {
    const gone = new Set(executionIds);
    for (const id of gone) {
      this.shapes.delete(id);
      this.facts.delete(id);
    }
    for (const key of this.agents.keys()) if (gone.has(key.slice(0, key.indexOf('\n')))) this.agents.delete(key);
  }

  /** Forgets which step texts are stored (call in the transaction that deleted some). */
  forgetStoredTexts(): void {
    this.texts.forgetStored();
  }

  /** How many steps are in each status (counted here: GROUP BY would run a sorter, 5x the cost of the read). */
  statusCounts(executionId: string): Partial<Record<StepStatus, number>> {
    const out: Partial<Record<StepStatus, number>> = {};
    for (const { status } of this.store.all<{ status: StepStatus }>('SELECT status FROM steps WHERE execution_id = ?', [executionId])) {
      out[status] = (out[status] ?? 0) + 1;
    }
    return out;
  }

  /** Steps in the given statuses, fully decoded. */
  stepsWithStatus(executionId: string, statuses: StepStatus[]): StepRow[] {
    const marks = statuses.map(() => '?').join(',');
    return this.store
      .all<Raw>(`SELECT * FROM steps WHERE execution_id = ? AND status IN (${marks})`, [executionId, ...statuses])
      .map((r) => this.toStep(r))
      .sort(byPosition);
  }

  execution(id: string): ExecutionRow | undefined {
    return this.fromAhead(`execution\n${id}`, () => {
      const r = this.store.get<Raw>('SELECT * FROM executions WHERE execution_id = ?', [id]);
      return r && toExecution(r);
    });
  }

  executionByTask(taskId: string): ExecutionRow | undefined {
    const r = this.store.get<Raw>('SELECT * FROM executions WHERE task_id = ? ORDER BY started_at DESC LIMIT 1', [taskId]);
    return r && toExecution(r);
  }

  latestExecution(projectId: number): ExecutionRow | undefined {
    const r = this.store.get<Raw>(
      'SELECT * FROM executions WHERE project_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 1',
      [projectId],
    );
    return r && toExecution(r);
  }

  /** The newest `limit` executions, only unfinished ones with `activeOnly`, only those of `ids` when given. */
  executions(filter: { activeOnly?: boolean; limit: number; ids?: readonly string[] }): ExecutionRow[] {
    const terms = filter.activeOnly ? ["status NOT IN ('completed','failed')"] : [];
    if (filter.ids) terms.push(`execution_id IN (${filter.ids.map(() => '?').join(',')})`);
    const where = terms.length ? `WHERE ${terms.join(' AND ')}` : '';
    return this.store
      .all<Raw>(`SELECT * FROM executions ${where} ORDER BY started_at DESC, rowid DESC LIMIT ?`, [...(filter.ids ?? []), filter.limit])
      .map(toExecution);
  }

  executionsWithStatus(statuses: ExecutionStatus[]): ExecutionRow[] {
    const marks = statuses.map(() => '?').join(',');
    return this.store.all<Raw>(`SELECT * FROM executions WHERE status IN (${marks})`, statuses).map(toExecution);
  }

  steps(executionId: string): StepRow[] {
    return this.store.all<Raw>('SELECT * FROM steps WHERE execution_id = ?', [executionId]).map((r) => this.toStep(r)).sort(byPosition);
  }

  step(executionId: string, stepName: string): StepRow | undefined {
    return this.fromAhead(`step\n${executionId}\n${stepName}`, () => {
      const r = this.store.get<Raw>('SELECT * FROM steps WHERE execution_id = ? AND step_name = ?', [executionId, stepName]);
      return r && this.toStep(r);
    });
  }

  token(nonce: string): TokenRow | undefined {
    return this.fromAhead(`token\n${nonce}`, () => this.store.get<TokenRow>('SELECT * FROM step_tokens WHERE nonce = ?', [nonce]));
  }

  insertTask(t: { task_id: string; agent_name: string; project_id: number; description: string; now: string; metadata: unknown }): void {
    this.store.run(
      `INSERT INTO agent_tasks (task_id, agent_name, project_id, task_description, status, created_at, updated_at, metadata)
       VALUES (?, ?, ?, ?, 'active', ?, ?, ?)`,
      [t.task_id, t.agent_name, t.project_id, t.description, t.now, t.now, json(t.metadata)],
    );
  }

  setTaskStatus(taskId: string, status: string, now: string): void {
    this.store.run('UPDATE agent_tasks SET status = ?, updated_at = ? WHERE task_id = ?', [status, now, taskId]);
  }

  insertExecution(e: NewExecution): void {
    this.store.run(
      `INSERT INTO executions (execution_id, kind, template_id, template_name, task_id, project_id, status, progress,
         started_at, updated_at, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
      [e.execution_id, e.kind, e.template_id, e.template_name, e.task_id, e.project_id, e.status, e.now, e.now, json(e.metadata)],
    );
  }

  /**
   * Updates an execution; a status change must be allowed by the one state machine (`assertTransition`).
   * `from` is its status as the caller read it in this transaction, which saves reading it again.
   */
  updateExecution(id: string, fields: Partial<Omit<ExecutionRow, 'execution_id'>>, now: string, from?: ExecutionStatus): void {
    let unchanged: string | undefined;
    if (fields.status !== undefined) {
      const current = from ?? this.store.get<{ status: ExecutionStatus }>('SELECT status FROM executions WHERE execution_id = ?', [id])?.status;
      if (current) assertTransition(id, current, fields.status);
      if (current === fields.status) unchanged = 'status';
    }
    const sets: string[] = ['updated_at = ?'];
    const params: Array<string | number | null> = [now];
    for (const [k, v] of Object.entries(fields)) {
      if (k === unchanged) continue;
      sets.push(`${k} = ?`);
      params.push(k === 'metadata' ? json(v) : (v as string | number | null));
    }
    params.push(id);
    this.store.run(`UPDATE executions SET ${sets.join(', ')} WHERE execution_id = ?`, params);
  }

  /** Inserts a step of a new execution, and caches its shape (the first `stepStates` need not read and decode it back). */
  /**
   * The row `insertExecution(e)` writes, as `execution()` reads it back (the fields ExecutionRow names): for a
   * transaction that hands out work from rows it has not read back (Broker.createInTx).
   */
  insertedExecution(e: NewExecution): ExecutionRow {
    return {
      execution_id: e.execution_id, kind: e.kind, template_id: e.template_id, template_name: e.template_name, task_id: e.task_id,
      project_id: e.project_id, status: e.status, current_step: null, progress: 0, started_at: e.now, updated_at: e.now,
      completed_at: null, duration_ms: null, synthesis_output: null, metadata: parseJson(json(e.metadata), {}),
    };
  }

  /** The id SQLite gives the next step row (AUTOINCREMENT), read before rows are inserted and not read back. */
  nextStepId(): number {
    return (this.store.get<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'steps'")?.seq ?? 0) + 1;
  }

  /** The row `insertStep(s)` writes as the step with `id`, as `step()` reads it back (the fields StepRow names). */
  insertedStep(s: NewStep, id: number): StepRow {
    return {
      id, execution_id: s.execution_id, step_name: s.def.name, agent_name: s.def.agent, position: s.position,
      dependencies: [...s.def.dependencies], status: s.status, contract: null, output: null, outcome_summary: null,
      token_nonce: null, claimed_by: null, attempt: 0, feedback: null, started_at: null, completed_at: null,
      duration_ms: null, metadata: { definition: this.texts.value<StepDefinition>(this.texts.ref(s.def)) },
    };
  }

  /**
   * The states `stepStates` reads back for steps this transaction just inserted (in position order), from the shapes
   * `insertStep` cached for them; undefined if those are gone.
   */
  insertedStates(steps: NewStep[]): StepState[] | undefined {
    const shapes = steps.length ? this.shapes.get(steps[0]!.execution_id) : undefined;
    const states: StepState[] = [];
    for (const s of steps) {
      const shape = shapes?.get(s.def.name);
      if (!shape) return undefined;
      states.push(stepState(s.def.name, s.status, s.def.agent, shape));
    }
    return states;
  }

  insertStep(s: NewStep): void {
    this.store.run(
      `INSERT INTO steps (execution_id, step_name, agent_name, position, dependencies, status, metadata, definition_ref)
       VALUES (?, ?, ?, ?, ?, ?, '{}', ?)`,
      [s.execution_id, s.def.name, s.def.agent, s.position, json(s.def.dependencies), s.status, this.texts.ref(s.def)],
    );
    let shapes = this.shapes.get(s.execution_id);
    if (!shapes) {
      shapes = new Map();
      this.cacheShapes(s.execution_id, shapes);
    }
    // Copies, as a read would give: the definition may be a cached template's.
    shapes.set(s.def.name, { position: s.position, dependencies: [...s.def.dependencies], path_patterns: [...(s.def.path_patterns ?? [])], tags: [...(s.def.tags ?? [])] });
  }

  updateStep(executionId: string, stepName: string, fields: Partial<Omit<StepRow, 'id' | 'execution_id' | 'step_name'>>): void {
    const sets: string[] = [];
    const params: Array<string | number | null> = [];
    for (const [k, v] of Object.entries(fields)) {
      if (k === 'contract') {
        // Named by its stored text's ref; the inline column of older rows is emptied.
        sets.push('contract = NULL', 'contract_ref = ?');
        params.push(v ? this.texts.ref(v) : null);
        continue;
      }
      sets.push(`${k} = ?`);
      const encoded = k === 'output' || k === 'metadata' || k === 'dependencies' ? json(v) : v;
      params.push(encoded as string | number | null);
    }
    params.push(executionId, stepName);
    this.store.run(`UPDATE steps SET ${sets.join(', ')} WHERE execution_id = ? AND step_name = ?`, params);
  }

  insertToken(t: Omit<TokenRow, 'closed_at' | 'state'>): void {
    // holder_pid (schema v11) only when there is one: null is its default, and a token handed out over HTTP (most)
    // keeps the statement it had.
    if (t.holder_pid === null) {
      this.store.run(
        `INSERT INTO step_tokens (nonce, execution_id, step_name, state, issued_at, expires_at, follows) VALUES (?, ?, ?, 'active', ?, ?, ?)`,
        [t.nonce, t.execution_id, t.step_name, t.issued_at, t.expires_at, t.follows],
      );
      return;
    }
    this.store.run(
      `INSERT INTO step_tokens (nonce, execution_id, step_name, state, issued_at, expires_at, follows, holder_pid) VALUES (?, ?, ?, 'active', ?, ?, ?, ?)`,
      [t.nonce, t.execution_id, t.step_name, t.issued_at, t.expires_at, t.follows, t.holder_pid],
    );
  }

  /** The token that the use of `nonce` handed out in its execution, if any (the latest, when it was handed out again). */
  followingToken(executionId: string, nonce: string): TokenRow | undefined {
    return this.store.get<TokenRow>('SELECT * FROM step_tokens WHERE execution_id = ? AND follows = ? ORDER BY rowid DESC LIMIT 1', [executionId, nonce]);
  }

  /**
   * Closes a token; returns false if it was no longer active (lost a race). A deferred close (Store.deferWrites) has
   * changed nothing yet and returns true: its caller read the token active in the same transaction.
   */
  closeToken(nonce: string, state: 'consumed' | 'superseded' | 'released', now: string): boolean {
    return this.store.run(
      `UPDATE step_tokens SET state = ?, closed_at = ? WHERE nonce = ? AND state = 'active'`,
      [state, now, nonce],
    ) !== 0;
  }

  insertArtifact(a: {
    artifact_id: string; execution_id: string; step_name: string | null; agent_name: string | null; type: string;
    title: string | null; content: string; description: string | null; is_final: boolean; metadata: unknown; now: string;
  }): void {
    this.store.run(
      `INSERT INTO artifacts (artifact_id, execution_id, step_name, agent_name, artifact_type, title, content, description,
         is_final, metadata, created_at, content_size_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [a.artifact_id, a.execution_id, a.step_name, a.agent_name, a.type, a.title, a.content, a.description,
        a.is_final ? 1 : 0, json(a.metadata ?? {}), a.now, utf8Length(a.content)],
    );
  }

  /**
   * The inline view of some steps' artifacts, oldest first: content cut to `maxChars` characters in SQL
   * (`content_size_bytes` stays the full size). Sorted here: an ORDER BY id costs SQLite about 10 µs more.
   * Cut as `headOf` cuts a text.
   */
  artifactHeads(executionId: string, stepNames: string[], maxChars: number): ArtifactHead[] {
    if (stepNames.length === 0) return [];
    return this.fromAhead(`heads\n${executionId}\n${maxChars}\n${stepNames.join('\n')}`, () => this.readArtifactHeads(executionId, stepNames, maxChars));
  }

  private readArtifactHeads(executionId: string, stepNames: string[], maxChars: number): ArtifactHead[] {
    const marks = stepNames.map(() => '?').join(',');
    return this.store
      .all<{ id: number; artifact_id: string; step_name: string | null; artifact_type: string; title: string | null; content: string; content_size_bytes: number }>(
        `SELECT id, artifact_id, step_name, artifact_type, title, substr(content, 1, ?) AS content, content_size_bytes
         FROM artifacts WHERE execution_id = ? AND step_name IN (${marks})`,
        [maxChars, executionId, ...stepNames],
      )
      .sort(byId)
      .map((r) => ({
        artifact_id: r.artifact_id, step_name: r.step_name, type: r.artifact_type, title: r.title, content_size_bytes: r.content_size_bytes,
        content: headPastNul(this.store, r.id, r.content, maxChars, r.content_size_bytes),
      }));
  }

  artifactById(artifactId: string): ArtifactRecord | undefined {
    const r = this.store.get<Raw>('SELECT * FROM artifacts WHERE artifact_id = ?', [artifactId]);
    return r && toArtifact(r);
  }

  finalizeArtifacts(executionId: string): void {
    this.store.run('UPDATE artifacts SET is_final = 1 WHERE execution_id = ?', [executionId]);
  }

  artifactsOf(executionId: string, stepNames?: string[]): ArtifactRecord[] {
    if (stepNames && stepNames.length === 0) return [];
    const filter = stepNames ? ` AND step_name IN (${stepNames.map(() => '?').join(',')})` : '';
    return this.store
      .all<Raw>(`SELECT * FROM artifacts WHERE execution_id = ?${filter}`, [executionId, ...(stepNames ?? [])])
      .map(toArtifact)
      .sort(byId);
  }

  /** What names a step's artifacts (no content): the synthesis lists them. */
  artifactLabels(executionId: string): ArtifactLabel[] {
    return this.store
      .all<{ id: number; artifact_id: string; step_name: string | null; artifact_type: string; title: string | null }>(
        'SELECT id, artifact_id, step_name, artifact_type, title FROM artifacts WHERE execution_id = ?', [executionId],
      )
      .sort(byId)
      .map((r) => ({ artifact_id: r.artifact_id, step_name: r.step_name, type: r.artifact_type, title: r.title }));
  }

  insertFinding(f: FindingInput & { finding_id: string; execution_id: string; step_name: string; project_id: number | null; now: string }): void {
    this.store.run(
      `INSERT INTO findings (finding_id, execution_id, step_name, project_id, scope, severity, category, description, location,
         recommendation, impact, created_at) VALUES (?, ?, ?, ?, 'project', ?, ?, ?, ?, ?, ?, ?)`,
      [f.finding_id, f.execution_id, f.step_name, f.project_id, f.severity, f.category, f.description, f.location ?? null,
        f.recommendation, f.impact ?? null, f.now],
    );
  }

  insertEvent(e: { event_id: string; execution_id: string | null; event_type: string; data: unknown; now: string }): void {
    this.store.run(
      'INSERT INTO events (event_id, execution_id, event_type, event_data, created_at) VALUES (?, ?, ?, ?, ?)',
      [e.event_id, e.execution_id, e.event_type, json(e.data), e.now],
    );
  }

  lastEventAt(executionId: string): string | undefined {
    return this.store.get<{ t: string | null }>('SELECT MAX(created_at) AS t FROM events WHERE execution_id = ?', [executionId])?.t ?? undefined;
  }
}

/**
 * Whether a step was stopped by its run's cancel (`cancelledAt`: when a cancel ended the run, else null): a cancel fails
 * the steps under way as it ends the run, at that moment, so a failed step that ended then was not failed by an agent.
 */
export function stoppedByCancel(step: { status: StepStatus; completed_at: string | null }, cancelledAt: string | null): boolean {
  return cancelledAt !== null && step.status === 'failed' && step.completed_at === cancelledAt;
}
