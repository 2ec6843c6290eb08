// Rule: a CLI that is not installed is named with what the agent's own file can do about PATH, per file kind: a
// pipeline agent may set PATH in its `env`; a team file has no `env`, so its hint names the process whose PATH counts
// (and another backend), never `env`. Real `baton run` and `baton pipeline run` processes, on a PATH without claude.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { ensureBuilt, pipelineSetup, runCli, tempSetup } from '../fixtures/mcp/cliHarness.js';

before(() => ensureBuilt());

/** A PATH where no agent CLI is found. */
function emptyPath(dir: string): string {
  const bin = join(dir, 'empty-bin');
  mkdirSync(bin, { recursive: true });
  return bin;
}

test('a team agent whose CLI is missing: the hint names the team process\'s PATH and another backend, not env', async () => {
  const t = tempSetup('baton-hint-team-');
  writeFileSync(join(t.workspace, 'team.yaml'), 'agents:\n  c: { backend: claude, model: sonnet, system_prompt: x }\nkickoff: "@c go"\n');
  const r = await runCli(['run', 'team.yaml', '--json', '--db', t.db, '--workspace', t.workspace], { PATH: emptyPath(t.dir), BATON_LOG_LEVEL: 'error' }, t.workspace);
  assert.equal(r.code, 1, r.stderr);
  const finished = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; error?: string }).find((e) => e.type === 'agent_finished');
  const error = finished?.error ?? '';
  assert.match(error, /^claude: "claude" was not found on PATH\. Install Claude Code from npm: .* or put the folder that holds it on PATH \(a team file has no env: its agents get the PATH of the Baton process that runs the team \(baton run or start, or the editor or baton serve when one owns the database\), so restart that one with it on PATH, or set this agent's backend: to a CLI you have\)\.$/);
  assert.doesNotMatch(error, /pipeline|may set its own PATH/);
});

test('a pipeline agent whose CLI is missing: the hint says its env may set PATH', async () => {
  const t = pipelineSetup('baton-hint-pipeline-', 'name: p\nagents:\n  - { id: a, runner: claude, modelConfig: { model: sonnet } }\nworkflow:\n  - { id: s, type: agent, agentId: a }\n', '');
  const r = await runCli(['pipeline', 'run', 'p', '--input', 'go', '--json', '--db', t.db, '--workspace', t.workspace], { PATH: emptyPath(t.dir), BATON_LOG_LEVEL: 'error' }, t.workspace);
  assert.notEqual(r.code, 0);
  assert.match(r.stdout + r.stderr, /claude: \\?"claude\\?" was not found on PATH\. Install Claude Code from npm: [^\n]* or put the folder that holds it on PATH \(a pipeline agent may set its own PATH in env\)\./);
  assert.doesNotMatch(r.stdout + r.stderr, /team file/);
});
