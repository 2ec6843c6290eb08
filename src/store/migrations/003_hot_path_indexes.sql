-- Schema v3: indexes for the broker's hot path (see bench/mcp.bench.ts).
-- A step's artifacts are found by (execution, step): before, the lookup walked every artifact of the
-- execution. The new index starts with execution_id, so it also serves every query the dropped one did.
DROP INDEX idx_artifacts_execution;
CREATE INDEX idx_artifacts_execution_step ON artifacts(execution_id, step_name);
-- UNIQUE (execution_id, step_name) already indexes steps by execution; a second index only costs writes.
DROP INDEX idx_steps_execution;
