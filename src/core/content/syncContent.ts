// Writes loaded content into the database: one transaction, and only when something changed.
import type { Clock, SqlValue, Store } from '../ports.js';
import type { WorkflowTemplate } from '../types.js';
import type { ContentKind, LoadedContent, LoadedWorkflow } from './loadContent.js';

interface Write {
  sql: string;
  params: SqlValue[];
}

type Columns = Record<string, SqlValue>;

/**
 * Brings the `agents`, `rules` and `workflow_templates` tables in line with `loaded`: upserts new
 * or changed items, deletes agents and rules that are gone, and deactivates templates that are
 * gone (executions keep their template id; a template that comes back is reactivated). Writes
 * nothing when nothing changed; `changed` lists only the kinds that did, so callers can send
 * `list_changed` only then.
 */
export async function syncContent(store: Store, clock: Clock, loaded: LoadedContent): Promise<{ changed: ContentKind[] }> {
  const now = new Date(clock.now()).toISOString();
  const plans: Record<ContentKind, Write[]> = {
    agents: planTable(store, 'agents', now, loaded.agents.map((a) => ({
      name: a.name, description: a.description, content: a.content, source: a.source, path: a.path, hash: a.hash,
    }))),
    rules: planTable(store, 'rules', now, loaded.rules.map((r) => ({
      name: r.name, description: r.description, content: r.content, tags: JSON.stringify(r.tags),
      always_apply: r.always_apply ? 1 : 0, globs: JSON.stringify(r.globs), source: r.source, path: r.path, hash: r.hash,
    }))),
    workflows: planTable(store, 'workflow_templates', now, loaded.workflows.map(templateColumns)),
  };
  const changed = (['agents', 'rules', 'workflows'] as const).filter((k) => plans[k].length > 0);
  if (changed.length === 0) return { changed: [] };
  await store.transaction(() => {
    for (const kind of changed) for (const w of plans[kind]) store.run(w.sql, w.params);
  });
  return { changed };
}

function templateColumns(w: LoadedWorkflow): Columns {
  const definition: WorkflowTemplate = {
    name: w.name, description: w.description, type: w.type, tags: w.tags,
    estimated_duration_minutes: w.estimated_duration_minutes, steps: w.steps,
    ...(w.complexity ? { complexity: w.complexity } : {}),
    ...(w.content ? { content: w.content } : {}),
    ...(w.dynamic_phases ? { dynamic_phases: true, dynamic_config: w.dynamic_config } : {}),
  };
  return {
    name: w.name, description: w.description, type: w.type, tags: JSON.stringify(w.tags),
    estimated_duration_minutes: w.estimated_duration_minutes, definition: JSON.stringify(definition),
    source: w.source, path: w.path, hash: w.hash, active: 1,
  };
}

/** The writes that make `table` hold exactly `rows` (templates are deactivated rather than deleted). */
function planTable(store: Store, table: 'agents' | 'rules' | 'workflow_templates', now: string, rows: Columns[]): Write[] {
  const keep = table === 'workflow_templates';
  const existing = new Map(store.all<Columns>(`SELECT * FROM ${table}`).map((r) => [r['name'] as string, r]));
  const writes: Write[] = [];
  for (const row of rows) {
    const old = existing.get(row['name'] as string);
    // Comparing every column (not just the hash) also picks up a changed path or a parser upgrade.
    if (old && Object.keys(row).every((c) => old[c] === row[c])) continue;
    const cols = [...Object.keys(row), 'updated_at'];
    const updates = cols.filter((c) => c !== 'name').map((c) => `${c} = excluded.${c}`).join(', ');
    writes.push({
      sql: `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')}) ON CONFLICT(name) DO UPDATE SET ${updates}`,
      params: [...Object.values(row), now],
    });
  }
  const wanted = new Set(rows.map((r) => r['name'] as string));
  for (const [name, old] of existing) {
    if (wanted.has(name)) continue;
    if (!keep) writes.push({ sql: `DELETE FROM ${table} WHERE name = ?`, params: [name] });
    else if (old['active'] !== 0) writes.push({ sql: `UPDATE ${table} SET active = 0, updated_at = ? WHERE name = ?`, params: [now, name] });
  }
  return writes;
}
