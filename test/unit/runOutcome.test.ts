// Rule: a failed run's error names how it ended and what its stderr says went wrong: the line that says so even when
// a stack and the runtime's banner follow it, and the last lines.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ZERO_USAGE } from '../../src/core/pipelines/runner.js';
import { settleRun } from '../../src/core/pipelines/runOutcome.js';
import type { StreamOutcome } from '../../src/core/pipelines/streams/streamParser.js';

const NOTHING: StreamOutcome = {
  text: '', usage: ZERO_USAGE, costUsd: null, failure: null, finished: true, sessionId: null, toolCalls: 0, malformedLines: 0,
};
const ended = (stderr: string) => settleRun('command', NOTHING, { ended: 'exited', exitCode: 1, signal: null, stderr, durationMs: 10 });

test("Node's missing module: the error line, not only the stack's end and the version banner", () => {
  const stderr = [
    'node:internal/modules/cjs/loader:1228', '  throw err;', '  ^', '',
    "Error: Cannot find module '/work/team/coder.js'",
    '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
    '    at Module._load (node:internal/modules/cjs/loader:1051:27)', '    at node:internal/main/run_main_module:28:49 {',
    "  code: 'MODULE_NOT_FOUND',", '  requireStack: []', '}', '', 'Node.js v20.20.2', '',
  ].join('\n');
  const r = ended(stderr);
  assert.equal(r.status, 'failed');
  assert.equal(r.error, "command exited with code 1: stderr: Error: Cannot find module '/work/team/coder.js' | … | requireStack: [] | } | Node.js v20.20.2");
});

test('a short stderr is its last lines, as before; a Python traceback ends with its error', () => {
  assert.equal(ended('boom\n').error, 'command exited with code 1: stderr: boom');
  const py = 'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\n    import nope\nModuleNotFoundError: No module named \'nope\'\n';
  assert.equal(ended(py).error, "command exited with code 1: stderr: File \"a.py\", line 1, in <module> | import nope | ModuleNotFoundError: No module named 'nope'");
});
