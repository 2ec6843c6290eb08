-- Schema v7: a step token records the token whose use handed it out (`follows`). A call whose answer never reached
-- its agent (a dropped connection, a killed process, a client timeout) can then be answered again: the agent calls
-- again with the token it used and gets what that call handed out, with the same token (a new one once it has
-- expired), as long as nobody has used or refreshed that token since. Older tokens have no follows; their replays
-- are refused as before.
ALTER TABLE step_tokens ADD COLUMN follows TEXT;
