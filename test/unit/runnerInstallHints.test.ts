// Rule: when an agent's CLI is missing, the one-line reason a listing shows (`baton status`, `baton list`, the editor's
// tree) keeps the command that installs it, for every CLI runner: each runner's install text opens its next step with
// a verb of action, as shortReason keeps. The real runners, on a PATH where no CLI is found.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { claudeCli } from '../../src/host/runners/claudeCli.js';
import { CliRunner } from '../../src/host/runners/cliRunner.js';
import { codexCli } from '../../src/host/runners/codexCli.js';
import { cursorAgentCli } from '../../src/host/runners/cursorAgentCli.js';
import { geminiCli } from '../../src/host/runners/geminiCli.js';
import { opencodeCli } from '../../src/host/runners/opencodeCli.js';
import { shortReason } from '../../src/shared/labels.js';

test('a missing CLI: the short reason of every runner keeps its install command', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-install-hints-'));
  try {
    for (const def of [claudeCli, codexCli, geminiCli, opencodeCli, cursorAgentCli]) {
      const run = new CliRunner(def, { env: { PATH: dir } }).run({ agent: 'a', prompt: 'p', cwd: dir });
      const reason = await run.result.then(() => assert.fail(`${def.kind} ran`), (ex: Error) => ex.message);
      assert.match(reason, new RegExp(`^${def.kind}: "${def.command}" was not found on PATH\\. `), reason);
      const command = /`[^`]+`/.exec(def.install)?.[0];
      assert.ok(command, `${def.kind}'s install text names a command`);
      const short = shortReason(reason);
      assert.ok(short.endsWith(command), `${def.kind}: ${short}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
