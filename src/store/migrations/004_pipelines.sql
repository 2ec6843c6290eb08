-- Schema v4: shared memory of multi-agent pipelines (specs/multi-agent-pipelines.md, "Memory MCP Server Design").
-- An entry belongs to a run (scope_key = the execution id) or is global (scope_key = ''); a key is unique per scope.
CREATE TABLE memory_entries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  entry_id TEXT NOT NULL UNIQUE,
  scope_key TEXT NOT NULL,
  execution_id TEXT,
  agent_name TEXT,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  category TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  size_bytes INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (scope_key, key)
);
CREATE INDEX idx_memory_scope_category ON memory_entries(scope_key, category);

-- FTS4 (sql.js has no FTS5), kept in step by triggers in the writing transaction so journal replay rebuilds it.
CREATE VIRTUAL TABLE memory_fts USING fts4(content="memory_entries", key, value, category, tokenize=unicode61);
CREATE TRIGGER memory_fts_ai AFTER INSERT ON memory_entries BEGIN
  INSERT INTO memory_fts(docid, key, value, category) VALUES (new.id, new.key, new.value, new.category);
END;
CREATE TRIGGER memory_fts_bd BEFORE DELETE ON memory_entries BEGIN
  DELETE FROM memory_fts WHERE docid = old.id;
END;
CREATE TRIGGER memory_fts_bu BEFORE UPDATE ON memory_entries BEGIN
  DELETE FROM memory_fts WHERE docid = old.id;
END;
CREATE TRIGGER memory_fts_au AFTER UPDATE ON memory_entries BEGIN
  INSERT INTO memory_fts(docid, key, value, category) VALUES (new.id, new.key, new.value, new.category);
END;
