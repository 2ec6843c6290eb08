// Rule: every refusal of a command line names the command that was typed and what to type instead; a refused
// command leaves no database behind; --json prints the failure as one {"error": {...}} object on stdout.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { ensureBuilt, runCli, tempSetup } from '../fixtures/mcp/cliHarness.js';

describe('baton refusals of a command line', () => {
  before(() => ensureBuilt());

  it('start refuses a bad --max-invocations with its own usage, not run\'s', async () => {
    const r = await runCli(['start', 'team.yaml', '--max-invocations', 'x']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^baton: --max-invocations must be a whole number ≥ 1 \(got "x"\)\n\nUsage: baton start FILE/);
  });
});
