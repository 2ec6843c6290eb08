-- Baton schema v2: the lifecycle, logging, query and content tools of specs/lifecycle-tools.md
-- on the same tables as the broker (one executions table, one state machine).

-- Executions: when the run (not the row) started, its deadline, its error and its output.
ALTER TABLE executions ADD COLUMN created_at TEXT;
ALTER TABLE executions ADD COLUMN run_started_at TEXT;
ALTER TABLE executions ADD COLUMN deadline_ms INTEGER;
ALTER TABLE executions ADD COLUMN error TEXT;
ALTER TABLE executions ADD COLUMN output TEXT;
UPDATE executions SET created_at = started_at;
UPDATE executions SET run_started_at = started_at WHERE status != 'pending';
CREATE INDEX idx_executions_deadline ON executions(status, deadline_ms);
CREATE INDEX idx_executions_template ON executions(template_name);

-- Steps started by start_step: the phase they belong to and why they failed.
ALTER TABLE steps ADD COLUMN phase_name TEXT;
ALTER TABLE steps ADD COLUMN error TEXT;

-- Projects: git detection, free-form metadata, last use.
ALTER TABLE projects ADD COLUMN is_git_repo INTEGER NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN metadata TEXT;
ALTER TABLE projects ADD COLUMN last_used_at TEXT;
UPDATE projects SET last_used_at = updated_at;

-- Findings: global scope and metadata; severity may also be 'info'.
ALTER TABLE findings ADD COLUMN is_global INTEGER NOT NULL DEFAULT 0;
ALTER TABLE findings ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
UPDATE findings SET is_global = 1 WHERE scope = 'global';
CREATE INDEX idx_findings_project ON findings(project_id, is_global);
CREATE INDEX idx_findings_severity ON findings(severity);

-- Full-text index over findings (FTS4: sql.js has no FTS5), kept in step by triggers in the
-- writing transaction, so journal replay rebuilds it exactly.
CREATE VIRTUAL TABLE findings_fts USING fts4(content="findings", title, description, tags, category, tokenize=unicode61);
CREATE TRIGGER findings_fts_ai AFTER INSERT ON findings BEGIN
  INSERT INTO findings_fts(docid, title, description, tags, category) VALUES (new.id, new.title, new.description, new.tags, new.category);
END;
CREATE TRIGGER findings_fts_bd BEFORE DELETE ON findings BEGIN
  DELETE FROM findings_fts WHERE docid = old.id;
END;
CREATE TRIGGER findings_fts_bu BEFORE UPDATE ON findings BEGIN
  DELETE FROM findings_fts WHERE docid = old.id;
END;
CREATE TRIGGER findings_fts_au AFTER UPDATE ON findings BEGIN
  INSERT INTO findings_fts(docid, title, description, tags, category) VALUES (new.id, new.title, new.description, new.tags, new.category);
END;
INSERT INTO findings_fts(findings_fts) VALUES ('rebuild');

-- Artifacts are immutable: their content can never change (is_final may still be set on close).
CREATE TRIGGER artifacts_immutable BEFORE UPDATE OF content, content_encoding, content_size_bytes, title, artifact_type ON artifacts BEGIN
  SELECT RAISE(ABORT, 'artifacts are immutable');
END;

-- Execution logs, idempotent on (execution, layer, layer id).
CREATE TABLE execution_logs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  execution_id TEXT NOT NULL,
  layer TEXT NOT NULL,
  layer_id TEXT NOT NULL,
  log_level TEXT NOT NULL,
  message TEXT NOT NULL,
  context TEXT,
  contract_input TEXT,
  contract_output TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (execution_id, layer, layer_id)
);
-- Logs are read per execution in insertion order.
CREATE INDEX idx_execution_logs_execution ON execution_logs(execution_id, id);
