-- Schema v11: a step token handed out on a `baton mcp` process's own stdio connection records that process
-- (`holder_pid`): the connection lives exactly as long as the process. Once it is gone, another owner knows the agent
-- holding the step went away with it and hands the step to the next agent that asks, at once, rather than once its
-- token has expired and the stall threshold passed. Tokens handed out over HTTP sessions (the owner tracks those
-- itself) and older tokens have none.
ALTER TABLE step_tokens ADD COLUMN holder_pid INTEGER;
