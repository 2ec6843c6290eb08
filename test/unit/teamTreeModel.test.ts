// Rule: the tree's Agent Teams group lists team runs (`workflow@instance · status`, who works now, click opens the
// panel) folding onto their agents and states; it is absent without team runs; team runs (kind 'worker') never show
// under a template or "Other executions"; team files are told apart from pipelines and other YAML, and a team file
// that is not valid keeps its problems (file:line) for the command to show.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ExecutionSummary } from '../../src/core/api.js';
import type { TeamRunSummary } from '../../src/core/worker/teamRuns.js';
import { bundledContentDir } from '../../src/host/openBaton.js';
import { looksLikeTeam, teamFiles } from '../../src/vscode/teams/teamFiles.js';
import { agentStateIcon, teamAgentNodes, teamRunNodes, teamsGroupNode } from '../../src/vscode/views/teamTreeModel.js';
import { executionNodes, rootNodes } from '../../src/vscode/views/treeModel.js';

function run(over: Partial<TeamRunSummary> = {}): TeamRunSummary {
  return {
    runId: 'r1', instance: 'pr-1', workflow: 'review', status: 'running', source: '/w/review.yaml', contextDir: '/w/.workflow/pr-1',
    startedAt: '2026-01-01T00:00:00.000Z', messages: 3,
    agents: [{ agent: 'reviewer', backend: 'command', model: 'scripted', state: 'idle', readCursor: null }, { agent: 'coder', backend: 'claude', model: '', state: 'running', readCursor: null }],
    ...over,
  };
}

describe('the Agent Teams group', () => {
  it('is absent without team runs and counts running ones', () => {
    assert.equal(teamsGroupNode([]), null);
    const g = teamsGroupNode([run(), run({ runId: 'r2', status: 'completed' })])!;
    assert.deepEqual([g.id, g.label, g.description, g.ref], ['group:teams', 'Agent Teams', '2 runs · 1 running', { kind: 'group', group: 'teams' }]);
  });

  it('lists runs with who works and opens the panel; a finished run gets a new id and says how much was said', () => {
    const [live, done] = teamRunNodes([run(), run({ runId: 'r2', status: 'completed', agents: [] })]);
    assert.deepEqual([live!.id, live!.label, live!.description, live!.contextValue, live!.collapsible], ['team:r1', 'review@pr-1 · running', 'working: coder', 'team:running', 'expanded']);
    assert.deepEqual(live!.command, { id: 'baton.showExecution', title: 'Show Team' });
    assert.deepEqual(live!.ref, { kind: 'execution', execution_id: 'r1', workflow: 'review', status: 'running' });
    assert.deepEqual([done!.id, done!.description, done!.collapsible], ['team:r2:done', '3 messages · review', 'collapsed']);
  });

  it('says "cancelled" for a run stopped before its agents were done, without the error icon of a failed one', () => {
    const [stopped, failed] = teamRunNodes([run({ status: 'failed', cancelled: true, agents: [] }), run({ runId: 'r2', status: 'failed', agents: [] })]);
    assert.deepEqual([stopped!.label, stopped!.icon.id], ['review@pr-1 · cancelled', 'circle-slash']);
    assert.deepEqual([failed!.label, failed!.icon.id], ['review@pr-1 · failed', 'error']);
  });

  it('folds a run onto its agents with their states', () => {
    const nodes = teamAgentNodes(run());
    assert.deepEqual(nodes.map((n) => [n.id, n.label, n.description, n.icon.id]), [
      ['team:r1:agent:reviewer', 'reviewer · idle', 'command · scripted', 'circle-large-outline'],
      ['team:r1:agent:coder', 'coder · working', 'claude', 'sync~spin'],
    ]);
    assert.deepEqual([agentStateIcon('failed').id, agentStateIcon('stopped').id], ['error', 'debug-stop']);
  });

  it('keeps team runs out of the template groups and "Other executions"', () => {
    const worker = { execution_id: 'w1', kind: 'worker', workflow: 'review', status: 'running', progress: 0, started_at: '2026-01-01T00:00:00Z', updated_at: '', task_id: null, current_step: null } as unknown as ExecutionSummary;
    const roots = rootNodes([{ name: 'review', description: '', steps: 0 } as never], [worker]);
    assert.ok(!roots.some((n) => n.id === 'group:other'), JSON.stringify(roots.map((n) => n.id)));
    assert.deepEqual(executionNodes([worker], { kind: 'template', template: 'review' }, new Set(['review'])), []);
    assert.deepEqual(executionNodes([worker], { kind: 'group', group: 'other' }, new Set()), []);
  });
});

describe('team workflow files', () => {
  it('tells team files from pipelines and other YAML; an invalid team file keeps its problems with lines', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-team-files-'));
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const paths = [
      write('team.yaml', 'name: review\nagents:\n  reviewer: { backend: command, command: [node, a.js], system_prompt: hi }\nkickoff: "@reviewer go"\n'),
      write('bad.yaml', 'agents:\n  reviewer:\n    backend: nope\nkickoff: "@reviewer go"\n'),
      write('pipeline.yaml', 'name: p\nagents:\n  - { id: a, runner: command }\nworkflow:\n  - { id: s, type: agent, agentId: a }\n'),
      write('compose.yml', 'services:\n  web: { image: x }\n'),
      write('broken.yaml', 'agents:\n  a: [\nkickoff: x\n'),
    ];
    const found = teamFiles([...paths, join(dir, 'missing.yaml')]);
    assert.deepEqual(found.map((f) => [f.name, f.workflow !== undefined]), [['bad', false], ['broken', false], ['review', true]]);
    const bad = found.find((f) => f.name === 'bad')!;
    assert.equal(bad.problems[0]!.line, 3);
    assert.match(bad.problems[0]!.message, /backend/);
    assert.equal(looksLikeTeam('just: text\n'), false);
  });

  it('the bundled examples are valid team workflows', () => {
    const dir = join(bundledContentDir(), 'teams');
    const found = teamFiles(['review.yaml', 'code-review.yaml'].map((f) => join(dir, f)));
    assert.equal(found.length, 2);
    for (const f of found) assert.ok(f.workflow, `${f.path}: ${JSON.stringify(f.problems)}`);
  });
});
