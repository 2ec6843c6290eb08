-- Schema v12: an index on executions(started_at), the order every run listing walks (newest first). Without it each
-- listing scanned and sorted the whole table, every column of every row: the editor's tree reads the newest 200 runs
-- on each refresh while agents work, and that sort of a few thousand runs cost 15-25 ms of the owner's loop where the
-- index walk costs under 2. The listing of unfinished runs walks it too, sorting nothing.
CREATE INDEX idx_executions_started ON executions(started_at);
