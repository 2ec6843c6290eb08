-- Schema v13: the scratch folder of a recorded agent process (its HOME, XDG folders and TMPDIR: the CLI's sessions,
-- caches and config files with the run's token). The runner removes it when the run ends; when the Baton process that
-- ran it died (kill -9, a crash), the run taken up again (pipeline resume, a team's next owner, baton stop) removes it
-- once the agent is stopped or gone. NULL: none recorded (a row from v12, or a runner without one).
ALTER TABLE agent_processes ADD COLUMN scratch TEXT;
