-- Schema v9: the agent processes a run has spawned and not yet seen end (a pipeline step's agent, a team's turn). A
-- row is written once the agent is spawned and deleted once it ends, so a row left behind is an agent that the run's
-- process may have left running when it died (kill -9, a crash). A run taken up again stops it first, instead of a
-- second agent working on the same step beside it. `identity` proves that a live pid is still that process (Linux:
-- boot id and start time); NULL where nothing can, and then the process is never signalled.
CREATE TABLE agent_processes (
  execution_id TEXT NOT NULL REFERENCES executions(execution_id) ON DELETE CASCADE,
  slot TEXT NOT NULL,
  agent TEXT NOT NULL,
  runner TEXT NOT NULL,
  pid INTEGER NOT NULL,
  pgid INTEGER NOT NULL,
  identity TEXT,
  command TEXT NOT NULL,
  owner_pid INTEGER NOT NULL,
  owner_identity TEXT,
  started_at TEXT NOT NULL,
  PRIMARY KEY (execution_id, slot, pid)
);
