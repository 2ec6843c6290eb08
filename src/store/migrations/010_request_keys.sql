-- Schema v10: the request key a start carried (MCP `_meta` "dev.baton/request-key"; `baton mcp` adds one to every start
-- it forwards) and the execution it started, written in the transaction that creates the execution. A start sent again
-- with the same key (its answer was lost when the owner died) starts no second run: it is answered as the first was.
-- The first step's token of a keyed start follows `request-key:<key>` (step_tokens.follows, v7), so that answer is
-- found again the way a replayed token's is. A key goes with its execution when runs are pruned.
CREATE TABLE request_keys (
  request_key TEXT PRIMARY KEY,
  execution_id TEXT NOT NULL REFERENCES executions(execution_id) ON DELETE CASCADE,
  created_at TEXT NOT NULL
);
CREATE INDEX idx_request_keys_execution ON request_keys(execution_id);
