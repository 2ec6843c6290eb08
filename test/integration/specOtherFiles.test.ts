// Rule: `baton spec start` on a spec's other files (Kiro's requirements.md and design.md, written as Kiro writes them)
// refuses them with the file, the line and the way on: the tasks.md beside them, which then starts.
import assert from 'node:assert/strict';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { ensureBuilt, runCli, tempSetup } from '../fixtures/mcp/cliHarness.js';

const fixture = join(__dirname, '..', 'fixtures', 'specs', 'kiro-trail');

before(() => ensureBuilt());

describe('baton spec start on a Kiro spec folder', () => {
  it('refuses requirements.md and design.md naming the tasks.md beside them, and starts on that', async () => {
    const setup = tempSetup('baton-spec-other-');
    try {
      cpSync(fixture, join(setup.workspace, '.kiro', 'specs', 'player-trail'), { recursive: true });
      for (const name of ['requirements.md', 'design.md']) {
        const r = await runCli(['spec', 'start', `.kiro/specs/player-trail/${name}`, '--db', setup.db], {}, setup.workspace);
        assert.equal(r.code, 1, r.stdout);
        assert.match(r.stderr, new RegExp(`^baton: \\.kiro/specs/player-trail/${name.replace('.', '\\.')} is not the spec's task list: start on the tasks\\.md ` +
          `beside it, "\\.kiro/specs/player-trail/tasks\\.md"\\. Could not parse \\.kiro/specs/player-trail/${name.replace('.', '\\.')}, line 1: `));
      }
      const ok = await runCli(['spec', 'start', '.kiro/specs/player-trail/tasks.md', '--db', setup.db, '--json'], {}, setup.workspace);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(JSON.parse(ok.stdout).total_phases, 4);
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });
});
