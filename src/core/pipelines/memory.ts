// Shared memory of pipeline runs: what agents store for the agents after them (memory_store / memory_retrieve /
// memory_search / memory_list). Entries belong to a run, or to the global scope every run can read.
import { BatonError, echo, errorMessage } from '../errors.js';
import { bm25, toFtsQuery } from '../lifecycle/ftsQuery.js';
import type { CorePorts } from '../ports.js';
import { utf8Length } from '../utf8.js';

/** The spec's categories. */
export const MEMORY_CATEGORIES = ['findings', 'plans', 'code', 'notes', 'custom'] as const;
/** One category. */
export type MemoryCategory = (typeof MEMORY_CATEGORIES)[number];

/** Size limits; a store past one fails with an error saying which and by how much. */
export const MEMORY_LIMITS = {
  keyChars: 200,
  valueBytes: 64 * 1024,
  metadataBytes: 8 * 1024,
  entriesPerScope: 10_000,
  maxResults: 100,
  /** Characters of memory context injected into an agent's system prompt. */
  contextChars: 12_000,
} as const;

/** Who is asking: the run and agent of the session (from its RunScope), or a person naming a run. */
export interface MemoryScope {
  runId: string;
  agent: string | null;
}

/** One memory entry (the spec's MemoryEntry; `executionId` null for a global entry). */
export interface MemoryEntry {
  id: string;
  executionId: string | null;
  scope: 'run' | 'global';
  agent: string | null;
  key: string;
  value: string;
  category: MemoryCategory;
  metadata: Record<string, unknown>;
  sizeBytes: number;
  createdAt: string;
  updatedAt: string;
  /** Search results only: BM25 relevance (higher is better). */
  score?: number;
}

/** What memory_store takes. */
export interface MemoryStoreInput {
  key: string;
  value: string;
  category?: string;
  metadata?: Record<string, unknown>;
  /** Store in the global scope (read by every run) instead of the run's. */
  global?: boolean;
}

/** Which entries a read sees: the run's, the global ones, or both (run first). */
export type MemoryReach = 'run' | 'global' | 'all';

/** What memory_search takes (the spec's MemorySearchOptions). */
export interface MemorySearchInput {
  query?: string;
  category?: string;
  limit?: number;
  scope?: MemoryReach;
}

type Raw = Record<string, string | number | null>;
const WEIGHTS = [3, 1, 0.5];
/** Matches ranked per search: the newest this many (a term in more entries than this ranks only the newest). */
export const RANK_WINDOW = 1000;
const COLUMNS = 'id, entry_id, scope_key, execution_id, agent_name, key, value, category, metadata, size_bytes, created_at, updated_at';

/** The memory of pipeline runs over the store. */
export class Memory {
  constructor(private readonly ports: Pick<CorePorts, 'store' | 'clock' | 'ids'>) {}

  /** Stores (or replaces) an entry; returns it. */
  async store(scope: MemoryScope, input: MemoryStoreInput): Promise<MemoryEntry> {
    const key = input.key.trim();
    const category = checkCategory(input.category ?? 'notes');
    if (!key) throw new BatonError('invalid_input', 'key must not be empty; use a short name such as "scout-findings".');
    // Characters as the tool's schema counts them (code points: an emoji is one, not two UTF-16 units).
    const chars = [...key].length;
    if (chars > MEMORY_LIMITS.keyChars) throw new BatonError('invalid_input', `key is ${chars} characters; the limit is ${MEMORY_LIMITS.keyChars}. Use a shorter key and put the detail in value.`);
    const size = utf8Length(input.value);
    if (size > MEMORY_LIMITS.valueBytes) {
      throw new BatonError('invalid_input', `value is ${size} bytes; the limit is ${MEMORY_LIMITS.valueBytes} (64 KB). Store a summary, or split it over several keys (e.g. "${key}-1", "${key}-2").`);
    }
    const metadata = JSON.stringify(input.metadata ?? {});
    if (utf8Length(metadata) > MEMORY_LIMITS.metadataBytes) throw new BatonError('invalid_input', `metadata is ${utf8Length(metadata)} bytes of JSON; the limit is ${MEMORY_LIMITS.metadataBytes}.`);
    const scopeKey = input.global ? '' : scope.runId;
    const iso = new Date(this.ports.clock.now()).toISOString();
    const id = this.ports.ids.orderedUuid();
    const { store } = this.ports;
    // The entry as this call left it, read in its own transaction: read after it, another writer's value could show.
    const row = await store.transaction(() => {
      this.storeInTx(scopeKey, scope, { key, value: input.value, category, metadata, size, id, iso });
      return store.get<Raw>(`SELECT ${COLUMNS} FROM memory_entries WHERE scope_key = ? AND key = ?`, [scopeKey, key])!;
    });
    return toEntry(row);
  }

  /** The store's writes (inside a transaction the caller holds); the engine stores step outputs with its step record. */
  storeInTx(scopeKey: string, scope: MemoryScope, e: { key: string; value: string; category: MemoryCategory; metadata: string; size: number; id: string; iso: string }): void {
    const { store } = this.ports;
    const exists = store.get('SELECT 1 FROM memory_entries WHERE scope_key = ? AND key = ?', [scopeKey, e.key]);
    if (!exists) {
      const n = store.get<{ n: number }>('SELECT COUNT(*) AS n FROM memory_entries WHERE scope_key = ?', [scopeKey])!.n;
      if (n >= MEMORY_LIMITS.entriesPerScope) {
        throw new BatonError('invalid_input', `${scopeKey ? 'This run' : 'The global scope'} already holds ${n} memory entries (the limit); replace an existing key instead of adding one.`);
      }
    }
    store.run(
      `INSERT INTO memory_entries (entry_id, scope_key, execution_id, agent_name, key, value, category, metadata, size_bytes, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope_key, key) DO UPDATE SET value = excluded.value, category = excluded.category, metadata = excluded.metadata,
         size_bytes = excluded.size_bytes, agent_name = excluded.agent_name, execution_id = excluded.execution_id, updated_at = excluded.updated_at`,
      [e.id, scopeKey, scope.runId, scope.agent, e.key, e.value, e.category, e.metadata, e.size, e.iso, e.iso],
    );
  }

  /**
   * The entry under `key`: the run's first, then the global one (unless `reach` limits it); `not_found` names some
   * keys. Keys are read as `store` writes them, without spaces around (`" notes "` is `"notes"`).
   */
  retrieve(scope: MemoryScope, wanted: string, reach: MemoryReach = 'all'): MemoryEntry {
    const key = wanted.trim();
    const keys = scopeKeys(scope, reach);
    for (const k of keys) {
      const r = this.ports.store.get<Raw>(`SELECT ${COLUMNS} FROM memory_entries WHERE scope_key = ? AND key = ?`, [k, key]);
      if (r) return toEntry(r);
    }
    const some = this.ports.store.all<{ key: string }>(
      `SELECT key FROM memory_entries WHERE scope_key IN (${keys.map(() => '?').join(',')}) ORDER BY id DESC LIMIT 20`, keys,
    ).map((r) => r.key);
    throw new BatonError('not_found', `No memory entry ${echo(key)}${reach === 'global' ? ' in the global scope' : ''}. ${some.length ? `Keys: ${some.join(', ')}.` : 'Nothing is stored yet.'} Use memory_search to find entries by content.`);
  }

  /** Entries matching a full-text query (FTS4, BM25-ranked) and/or a category, best first. */
  search(scope: MemoryScope, q: MemorySearchInput): { entries: MemoryEntry[]; total: number } {
    const limit = Math.min(Math.max(1, Math.floor(q.limit ?? 10)), MEMORY_LIMITS.maxResults);
    const keys = scopeKeys(scope, q.scope ?? 'all');
    const where = [`m.scope_key IN (${keys.map(() => '?').join(',')})`];
    const params: Array<string | number> = [...keys];
    if (q.category !== undefined) {
      where.push('m.category = ?');
      params.push(checkCategory(q.category));
    }
    const text = q.query?.trim();
    const { store } = this.ports;
    if (!text) {
      const rows = store.all<Raw>(`SELECT ${COLUMNS.split(', ').map((c) => `m.${c}`).join(', ')} FROM memory_entries m WHERE ${where.join(' AND ')} ORDER BY m.id DESC LIMIT ?`, [...params, limit]);
      const total = store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM memory_entries m WHERE ${where.join(' AND ')}`, params)!.n;
      return { entries: rows.map(toEntry), total };
    }
    const fts = toFtsQuery(text, 'query').replace(/\b(title|description|tags):/g, '');
    let hits: Array<{ id: number; mi: Uint8Array }>;
    let total: number;
    const filter = `WHERE memory_fts MATCH ? AND ${where.join(' AND ')}`;
    try {
      // The full-text index drives the join (CROSS JOIN) in its own docid order, newest first, so a term in
      // thousands of entries ranks the newest RANK_WINDOW of them instead of computing matchinfo for all.
      hits = store.all<{ id: number; mi: Uint8Array }>(
        `SELECT m.id AS id, matchinfo(memory_fts, 'pcnalx') AS mi FROM memory_fts CROSS JOIN memory_entries m ON m.id = memory_fts.docid
         ${filter} ORDER BY memory_fts.docid DESC LIMIT ?`,
        [fts, ...params, RANK_WINDOW],
      );
      total = hits.length < RANK_WINDOW ? hits.length
        : store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM memory_fts CROSS JOIN memory_entries m ON m.id = memory_fts.docid ${filter}`, [fts, ...params])!.n;
    } catch (ex) {
      throw new BatonError('invalid_input', `query ${echo(text)} is not a valid search (${errorMessage(ex)}); use terms, AND / OR / NOT, "phrases" and prefix*.`);
    }
    const ranked = hits.map((h) => ({ id: h.id, score: bm25(h.mi, 1.2, 0.75, WEIGHTS) })).sort((a, b) => b.score - a.score || b.id - a.id).slice(0, limit);
    if (!ranked.length) return { entries: [], total: 0 };
    const scores = new Map(ranked.map((h) => [h.id, h.score]));
    const rows = store.all<Raw>(`SELECT ${COLUMNS} FROM memory_entries WHERE id IN (${ranked.map(() => '?').join(',')})`, ranked.map((h) => h.id));
    const entries = rows.map((r) => ({ ...toEntry(r), score: Math.round(scores.get(Number(r.id))! * 1000) / 1000 })).sort((a, b) => b.score - a.score);
    return { entries, total };
  }

  /** Every entry (of a category), newest first, up to `limit`. */
  list(scope: MemoryScope, category?: string, reach: MemoryReach = 'all', limit: number = MEMORY_LIMITS.maxResults): { entries: MemoryEntry[]; total: number } {
    return this.search(scope, { category, scope: reach, limit });
  }

  /**
   * The memory context of an agent's system prompt, as the spec shows it: the run's entries (newest first, within
   * MEMORY_LIMITS.contextChars), then how to store findings.
   */
  contextFor(runId: string, agent: string): string {
    const rows = this.ports.store.all<{ key: string; value: string; agent_name: string | null; category: string }>(
      'SELECT key, value, agent_name, category FROM memory_entries WHERE scope_key = ? ORDER BY id DESC LIMIT 200', [runId],
    );
    const parts: string[] = [];
    let budget: number = MEMORY_LIMITS.contextChars;
    for (const r of rows) {
      const head = `### ${r.key} (${r.category}${r.agent_name ? `, from ${r.agent_name}` : ''})\n`;
      const room = budget - head.length;
      if (room < 80) break;
      const value = r.value.length > room ? `${r.value.slice(0, room - 40)}\n… (cut; memory_retrieve "${r.key}" for all)` : r.value;
      parts.push(head + value);
      budget -= head.length + value.length + 2;
    }
    const context = parts.length ? `## Context from Previous Agents\n\n${parts.join('\n\n')}\n\n` : '';
    return `${context}## Your Task\n\nYou are agent "${agent}" of a Baton pipeline. Store your findings using the memory_store tool with category "findings" (and plans, code or notes as fits); read what earlier agents stored with memory_search and memory_retrieve.`;
  }
}

function scopeKeys(scope: MemoryScope, reach: MemoryReach): string[] {
  if (reach === 'run') return [scope.runId];
  if (reach === 'global') return [''];
  return [scope.runId, ''];
}

function checkCategory(c: string): MemoryCategory {
  if ((MEMORY_CATEGORIES as readonly string[]).includes(c)) return c as MemoryCategory;
  throw new BatonError('invalid_input', `category "${c}" is not one of ${MEMORY_CATEGORIES.join(', ')}.`);
}

function toEntry(r: Raw): MemoryEntry {
  let metadata: Record<string, unknown> = {};
  try {
    metadata = JSON.parse(String(r.metadata ?? '{}')) as Record<string, unknown>;
  } catch {
    // stored by this class as JSON; an unreadable value is shown as empty
  }
  return {
    id: String(r.entry_id), executionId: r.scope_key === '' ? null : String(r.execution_id), scope: r.scope_key === '' ? 'global' : 'run',
    agent: (r.agent_name as string | null) ?? null, key: String(r.key), value: String(r.value), category: r.category as MemoryCategory,
    metadata, sizeBytes: Number(r.size_bytes), createdAt: String(r.created_at), updatedAt: String(r.updated_at),
  };
}
