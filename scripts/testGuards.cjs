// Loaded into every test file's process by scripts/test.mjs (`--require`). A test that signals pid 0 signals its own
// process group, which under `npm test` holds the test runner, npm and CI: one such SIGKILL ended a whole CI run with
// exit 137 and no word of which test sent it (a pid read from a file not yet written, as Number('') = 0). -1 is every
// process the user may signal. process.kill throws for both here, so the test that does it fails, named.
'use strict';
const kill = process.kill;
process.kill = function guardedKill(pid, signal) {
  if (Number(pid) === 0 || Number(pid) === -1) {
    const whom = Number(pid) === 0 ? "this process's own group (the test runner's, and CI's)" : 'every process';
    throw new Error(`process.kill(${pid}) would signal ${whom}; the tests signal their children by pid (scripts/testGuards.cjs)`);
  }
  return kill.call(process, pid, signal);
};
