-- Baton schema v1: one schema for every kind of run (see DESIGN.md "Domain model").
-- Times are ISO-8601 strings; JSON columns hold JSON text.

CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE projects (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  path TEXT NOT NULL UNIQUE,
  tech_stack TEXT NOT NULL DEFAULT '[]',
  architecture_pattern TEXT,
  active_task_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE agents (
  name TEXT PRIMARY KEY,
  description TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL,
  source TEXT NOT NULL,
  path TEXT NOT NULL,
  hash TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE rules (
  name TEXT PRIMARY KEY,
  description TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  always_apply INTEGER NOT NULL DEFAULT 0,
  globs TEXT NOT NULL DEFAULT '[]',
  source TEXT NOT NULL,
  path TEXT NOT NULL,
  hash TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE workflow_templates (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  estimated_duration_minutes INTEGER,
  definition TEXT NOT NULL,
  source TEXT NOT NULL,
  path TEXT NOT NULL,
  hash TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  updated_at TEXT NOT NULL
);

CREATE TABLE agent_tasks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id TEXT NOT NULL UNIQUE,
  agent_name TEXT NOT NULL,
  project_id INTEGER,
  task_description TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE executions (
  execution_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL DEFAULT 'template',
  template_id INTEGER,
  template_name TEXT,
  task_id TEXT,
  project_id INTEGER,
  status TEXT NOT NULL,
  current_step TEXT,
  progress INTEGER NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  completed_at TEXT,
  duration_ms INTEGER,
  synthesis_output TEXT,
  timeout_ms INTEGER,
  metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX idx_executions_status ON executions(status);
CREATE INDEX idx_executions_task ON executions(task_id);

CREATE TABLE steps (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  execution_id TEXT NOT NULL REFERENCES executions(execution_id),
  step_name TEXT NOT NULL,
  agent_name TEXT NOT NULL,
  position INTEGER NOT NULL,
  dependencies TEXT NOT NULL DEFAULT '[]',
  status TEXT NOT NULL,
  contract TEXT,
  output TEXT,
  outcome_summary TEXT,
  token_nonce TEXT,
  claimed_by TEXT,
  attempt INTEGER NOT NULL DEFAULT 0,
  feedback TEXT,
  started_at TEXT,
  completed_at TEXT,
  duration_ms INTEGER,
  metadata TEXT NOT NULL DEFAULT '{}',
  UNIQUE (execution_id, step_name)
);
CREATE INDEX idx_steps_execution ON steps(execution_id);

CREATE TABLE artifacts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  artifact_id TEXT NOT NULL UNIQUE,
  execution_id TEXT NOT NULL REFERENCES executions(execution_id),
  step_name TEXT,
  agent_name TEXT,
  artifact_type TEXT NOT NULL,
  title TEXT,
  content TEXT NOT NULL,
  content_encoding TEXT NOT NULL DEFAULT 'utf8',
  mime_type TEXT,
  description TEXT,
  is_final INTEGER NOT NULL DEFAULT 0,
  metadata TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  content_size_bytes INTEGER NOT NULL
);
CREATE INDEX idx_artifacts_execution ON artifacts(execution_id);
CREATE INDEX idx_artifacts_final ON artifacts(is_final);
CREATE INDEX idx_artifacts_type ON artifacts(artifact_type);

CREATE TABLE findings (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  finding_id TEXT NOT NULL UNIQUE,
  execution_id TEXT,
  step_name TEXT,
  project_id INTEGER,
  scope TEXT NOT NULL DEFAULT 'project',
  severity TEXT NOT NULL,
  category TEXT NOT NULL,
  title TEXT,
  description TEXT NOT NULL,
  location TEXT,
  recommendation TEXT,
  impact TEXT,
  tags TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL
);
CREATE INDEX idx_findings_execution ON findings(execution_id);

CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL UNIQUE,
  execution_id TEXT,
  event_type TEXT NOT NULL,
  event_data TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL
);
CREATE INDEX idx_events_execution ON events(execution_id);

CREATE TABLE call_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  correlation_id TEXT NOT NULL UNIQUE,
  call_type TEXT NOT NULL,
  tool_or_resource_name TEXT NOT NULL,
  request_full TEXT NOT NULL,
  response_full TEXT,
  request_size_bytes INTEGER,
  response_size_bytes INTEGER,
  duration_ms INTEGER,
  success INTEGER,
  error_message TEXT,
  error_category TEXT,
  created_at TEXT NOT NULL,
  project_id INTEGER,
  agent_name TEXT,
  ide_type TEXT,
  parent_call_id TEXT
);

CREATE TABLE rate_buckets (
  scope TEXT NOT NULL,
  scope_key TEXT NOT NULL,
  tokens REAL NOT NULL,
  last_refill INTEGER NOT NULL,
  steady_rps REAL NOT NULL,
  burst_tokens INTEGER NOT NULL,
  PRIMARY KEY (scope, scope_key)
);

-- Every step token ever issued: single use is enforced by moving a nonce out of 'active'
-- in the same transaction that completes the step.
CREATE TABLE step_tokens (
  nonce TEXT PRIMARY KEY,
  execution_id TEXT NOT NULL,
  step_name TEXT NOT NULL,
  state TEXT NOT NULL,
  issued_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  closed_at TEXT
);
CREATE INDEX idx_step_tokens_step ON step_tokens(execution_id, step_name);
