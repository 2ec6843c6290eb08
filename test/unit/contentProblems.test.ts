// Rule: the Problems panel shows the problems of the workspace's own Baton files (never the bundled ones), each at its
// line: an error where Baton leaves the file out (a workflow, pipeline or blueprint that does not parse, a workflow
// meant to replace a bundled one, which stays in use meanwhile), a warning where the file is used with a problem (a
// step whose agent is not defined); a team workflow file anywhere gets its own; valid files have none. Read with the
// engine's and the commands' loaders from real files.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { teamFileProblems, workspaceProblems } from '../../src/vscode/contentProblems.js';

function workspace(): { folder: string; dir: string } {
  const folder = mkdtempSync(join(tmpdir(), 'baton-problems-'));
  const dir = join(folder, '.baton');
  for (const sub of ['workflows', 'agents', 'pipelines', 'blueprints']) mkdirSync(join(dir, sub), { recursive: true });
  return { folder, dir };
}

test('workspace problems by file, with lines, left-out files as errors and bundled content kept out', async () => {
  const { folder, dir } = workspace();
  const broken = join(dir, 'workflows', 'broken.yaml');
  writeFileSync(broken, 'name: broken\ndescription: Broken\nsteps:\n  - name: a\n    agent: debugger\n   description: bad indent\n');
  const override = join(dir, 'workflows', 'bug-fix.yaml');
  writeFileSync(override, 'name: bug-fix\ndescription: Ours\nsteps: []\n');
  const stranger = join(dir, 'workflows', 'stranger.yaml');
  writeFileSync(stranger, 'name: stranger\ndescription: Uses an agent nobody defined\ntype: sequential\nsteps:\n  - name: only\n    agent: nobody-here\n    description: do it\n');
  writeFileSync(join(dir, 'agents', 'helper.md'), '---\nname: helper\ndescription: Helps\n---\n# Helper\n\n**Role**: helps\n');
  const pipeline = join(dir, 'pipelines', 'relay.yaml');
  writeFileSync(pipeline, 'name: relay\nagents:\n  - { id: a, runner: clade }\nworkflow:\n  - { type: agent, agentId: a }\n');
  writeFileSync(join(dir, 'pipelines', 'fine.yaml'), 'name: fine\nagents:\n  - { id: a, role: researcher, modelConfig: { model: claude-haiku } }\nworkflow:\n  - { type: agent, agentId: a, outputVariable: x }\n');
  const blueprint = join(dir, 'blueprints', 'mine.yaml');
  writeFileSync(blueprint, 'id: mine\n: not yaml\n');

  const byFile = await workspaceProblems(folder);

  assert.deepEqual([...byFile.keys()].sort(), [broken, override, stranger, pipeline, blueprint].sort(), 'only the workspace files with problems');
  const b = byFile.get(broken)!;
  assert.ok(b.length > 0 && b.every((p) => p.leftOut), JSON.stringify(b));
  assert.ok(b.some((p) => p.line !== null && p.line >= 5 && p.line <= 6), `a line at the bad indent: ${JSON.stringify(b)}`);
  const o = byFile.get(override)!;
  assert.ok(o.every((p) => p.leftOut), JSON.stringify(o));
  assert.ok(o.some((p) => /still the one from .*bug-fix\.yaml/.test(p.message)), JSON.stringify(o));
  const s = byFile.get(stranger)!;
  assert.deepEqual(s.map((p) => [p.line, p.leftOut]), [[6, false]]);
  assert.match(s[0]!.message, /agent 'nobody-here' is not defined/);
  const pl = byFile.get(pipeline)!;
  assert.ok(pl.some((p) => p.line === 3 && p.leftOut && /clade/.test(p.message)), JSON.stringify(pl));
  assert.ok(byFile.get(blueprint)!.every((p) => p.leftOut), JSON.stringify(byFile.get(blueprint)));
});

test('no .baton folder: no problems (its absence is not one)', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'baton-problems-'));
  assert.equal((await workspaceProblems(folder)).size, 0);
});

test('a team workflow file gets its problems; a YAML file that is no team file gets none', () => {
  const { folder } = workspace();
  const team = join(folder, 'crew.yaml');
  writeFileSync(team, 'name: crew\nagents:\n  reviewer:\n    backend: nope\nkickoff: "@reviewer go"\n');
  const problems = teamFileProblems(team)!;
  assert.ok(problems.some((p) => p.line === 4 && p.leftOut && /backend/.test(p.message)), JSON.stringify(problems));
  writeFileSync(team, 'name: crew\nagents:\n  reviewer: { backend: claude, model: claude-sonnet-4-5, system_prompt: You review. }\nkickof: "@reviewer go"\n');
  const ignored = teamFileProblems(team)!;
  assert.ok(ignored.some((p) => !p.leftOut && /kickof/.test(p.message)), `a misspelt field is a warning: ${JSON.stringify(ignored)}`);
  const other = join(folder, 'docker-compose.yaml');
  writeFileSync(other, 'services:\n  web: { image: nginx }\n');
  assert.equal(teamFileProblems(other), undefined);
});
