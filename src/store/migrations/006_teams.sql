-- Schema v6: agent teams (agent-worker.md). A team run is an execution of kind 'worker' (template_name = the
-- workflow's name); these tables keep its instance, its agents and every channel entry, so that the tree, the panel
-- and workflow-status:// show a team run like any other. The channel file stays the team's own record; an entry is
-- keyed by its timestamp (strictly increasing within a channel), so recording one twice is harmless.
CREATE TABLE team_runs (
  execution_id TEXT PRIMARY KEY REFERENCES executions(execution_id) ON DELETE CASCADE,
  instance TEXT NOT NULL,
  workflow TEXT NOT NULL,
  source TEXT,
  context_dir TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX idx_team_runs_instance ON team_runs(instance);

CREATE TABLE team_agents (
  execution_id TEXT NOT NULL REFERENCES executions(execution_id) ON DELETE CASCADE,
  agent TEXT NOT NULL,
  backend TEXT NOT NULL,
  model TEXT NOT NULL DEFAULT '',
  state TEXT NOT NULL DEFAULT 'idle',
  read_cursor TEXT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (execution_id, agent)
);

CREATE TABLE team_messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  execution_id TEXT NOT NULL REFERENCES executions(execution_id) ON DELETE CASCADE,
  ts TEXT NOT NULL,
  sender TEXT NOT NULL,
  message TEXT NOT NULL,
  mentions TEXT NOT NULL DEFAULT '[]',
  recorded_at TEXT NOT NULL,
  UNIQUE (execution_id, ts)
);
