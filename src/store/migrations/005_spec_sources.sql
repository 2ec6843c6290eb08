-- Schema v5: spec workflows (dynamic-spec-workflows.md). A spec workflow is an execution (kind 'spec') whose phases
-- are its steps; this table keeps what it was started on, so that an edit of tasks.md, a reload or a restart does not
-- change it: the source text as read, the parse, and the templates its phases are rendered through. Evidence lives in
-- each phase step's metadata, write-backs and refused submissions in the events timeline.
CREATE TABLE spec_sources (
  execution_id TEXT PRIMARY KEY REFERENCES executions(execution_id) ON DELETE CASCADE,
  source_path TEXT NOT NULL,
  absolute_path TEXT NOT NULL,
  parser TEXT NOT NULL,
  source_text TEXT NOT NULL,
  source_hash TEXT NOT NULL,
  parsed TEXT NOT NULL,
  phase_template TEXT NOT NULL,
  task_template TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX idx_spec_sources_path ON spec_sources(source_path);
