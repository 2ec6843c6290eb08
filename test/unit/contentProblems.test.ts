// Rule: the Problems panel shows the problems of the workspace's own content files (never the bundled ones), each at
// its line: an error where Baton leaves the file out (a workflow that does not parse, one meant to replace a bundled
// workflow, which stays in use meanwhile), a warning where the file loads with a problem (a step whose agent is not
// defined); valid files have none. Read with the engine's loader from real files.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadContent } from '../../src/core/content/loadContent.js';
import { bundledContentDir } from '../../src/host/openBaton.js';
import { nodeCrypto, nodeFileSystem } from '../../src/host/nodePorts.js';
import { workspaceContentProblems } from '../../src/vscode/contentProblems.js';

test('workspace content problems by file, with lines, left-out files as errors and bundled content kept out', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'baton-problems-')), '.baton');
  mkdirSync(join(dir, 'workflows'), { recursive: true });
  mkdirSync(join(dir, 'agents'), { recursive: true });
  const broken = join(dir, 'workflows', 'broken.yaml');
  writeFileSync(broken, 'name: broken\ndescription: Broken\nsteps:\n  - name: a\n    agent: debugger\n   description: bad indent\n');
  const override = join(dir, 'workflows', 'bug-fix.yaml');
  writeFileSync(override, 'name: bug-fix\ndescription: Ours\nsteps: []\n');
  const stranger = join(dir, 'workflows', 'stranger.yaml');
  writeFileSync(stranger, 'name: stranger\ndescription: Uses an agent nobody defined\ntype: sequential\nsteps:\n  - name: only\n    agent: nobody-here\n    description: do it\n');
  writeFileSync(join(dir, 'agents', 'helper.md'), '---\nname: helper\ndescription: Helps\n---\n# Helper\n\n**Role**: helps\n');

  const loaded = await loadContent(nodeFileSystem, [bundledContentDir(), dir], nodeCrypto);
  const byFile = workspaceContentProblems(loaded, dir);

  assert.deepEqual([...byFile.keys()].sort(), [broken, override, stranger].sort(), 'only the workspace files with problems');
  const b = byFile.get(broken)!;
  assert.ok(b.length > 0 && b.every((p) => p.leftOut), JSON.stringify(b));
  assert.ok(b.some((p) => p.line !== null && p.line >= 5 && p.line <= 6), `a line at the bad indent: ${JSON.stringify(b)}`);
  const o = byFile.get(override)!;
  assert.ok(o.every((p) => p.leftOut), JSON.stringify(o));
  assert.ok(o.some((p) => /still the one from .*bug-fix\.yaml/.test(p.message)), JSON.stringify(o));
  const s = byFile.get(stranger)!;
  assert.deepEqual(s.map((p) => [p.line, p.leftOut]), [[6, false]]);
  assert.match(s[0]!.message, /agent 'nobody-here' is not defined/);
});

test('no workspace content folder: no problems (its absence is not one)', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'baton-problems-')), '.baton');
  const loaded = await loadContent(nodeFileSystem, [bundledContentDir(), dir], nodeCrypto);
  assert.equal(workspaceContentProblems(loaded, dir).size, 0);
});
