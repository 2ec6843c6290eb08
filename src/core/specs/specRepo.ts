// SQL access for spec workflows: the snapshot each one was started on (spec_sources). Phases are rows of `steps`.
import type { Store } from '../ports.js';
import type { ParsedSpec } from '../specTypes.js';

/** What a spec execution was started on, as stored. */
export interface SpecSnapshot {
  execution_id: string;
  /** Workspace-relative, `/` separators. */
  source_path: string;
  absolute_path: string;
  parser: string;
  /** The file's text when the workflow started (BOM and line endings kept). */
  source_text: string;
  source_hash: string;
  parsed: ParsedSpec;
  phase_template: string;
  task_template: string;
  created_at: string;
}

type Raw = Omit<SpecSnapshot, 'parsed'> & { parsed: string };

/** Reads and writes of `spec_sources`; writes run inside a store transaction. */
export class SpecRepo {
  /** Parsed snapshots by execution: immutable once written, so kept decoded (bounded). */
  private readonly cache = new Map<string, SpecSnapshot>();

  constructor(private readonly store: Store) {}

  /** Stores the snapshot of a new spec execution. */
  insert(s: SpecSnapshot): void {
    this.store.run(
      `INSERT INTO spec_sources (execution_id, source_path, absolute_path, parser, source_text, source_hash, parsed,
         phase_template, task_template, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [s.execution_id, s.source_path, s.absolute_path, s.parser, s.source_text, s.source_hash, JSON.stringify(s.parsed),
        s.phase_template, s.task_template, s.created_at],
    );
  }

  /** The snapshot of a spec execution; undefined for any other execution. */
  get(executionId: string): SpecSnapshot | undefined {
    const hit = this.cache.get(executionId);
    if (hit) return hit;
    const r = this.store.get<Raw>('SELECT * FROM spec_sources WHERE execution_id = ?', [executionId]);
    if (!r) return undefined;
    const snap: SpecSnapshot = { ...r, parsed: JSON.parse(r.parsed) as ParsedSpec };
    if (this.cache.size >= 64) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(executionId, snap);
    return snap;
  }

  /** Forgets the decoded snapshot (the row stays: history is kept). */
  forget(executionId: string): void {
    this.cache.delete(executionId);
  }

  /** Executions started on a source path, newest first. */
  executionsOf(sourcePath: string): string[] {
    return this.store
      .all<{ execution_id: string }>('SELECT execution_id FROM spec_sources WHERE source_path = ? ORDER BY created_at DESC, rowid DESC', [sourcePath])
      .map((r) => r.execution_id);
  }
}
