// Rule: the tree tells a spec template (phases from a tasks.md) from a workflow of fixed steps, as the Start Workflow
// picker does: while it has no run it reads "phases from a tasks.md", not "1 step", and its outline ends on a row that
// says the phases come from the tasks.md and starts one from it (Start Spec Workflow from tasks.md...).
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowTemplate } from '../../src/core/types.js';
import { BatonConnection } from '../../src/vscode/ownership.js';
import { SharedRunListing } from '../../src/vscode/sharedRunListing.js';
import { WorkflowsTreeProvider } from '../../src/vscode/views/workflowsTreeProvider.js';

function template(name: string, steps: string[], dynamic: boolean): WorkflowTemplate {
  return {
    name, description: name, type: 'sequential', tags: [], estimated_duration_minutes: null, ...(dynamic ? { dynamic_phases: true } : {}),
    steps: steps.map((s) => ({
      name: s, agent: 'architect', dependencies: [], human_gate: false, description: s, allowed_actions: [], required_output_format: '', path_patterns: [], tags: [],
    })),
  } as WorkflowTemplate;
}

const templates = [template('bug-fix', ['analyze', 'fix'], false), template('spec_execution_v1', ['phase-0'], true)];

/** `reads`: how often the tree asked for every template (one answer from another process's owner: 20 KB bundled). */
function tree(reads = { templates: 0 }, listed = templates): WorkflowsTreeProvider {
  const connection = Object.assign(Object.create(BatonConnection.prototype) as BatonConnection, {
    state: 'ready',
    onEvent: () => ({ dispose: () => undefined }),
    onDidChange: () => ({ dispose: () => undefined }),
    listExecutions: async () => [],
    availableWorkflows: async () => ({
      workflows: listed.map((t) => ({ name: t.name, description: t.description, type: t.type, steps_count: t.steps.length, estimated_duration_minutes: null, tags: [] })),
    }),
    templates: async () => {
      reads.templates++;
      return listed;
    },
  });
  return new WorkflowsTreeProvider(connection, new SharedRunListing(connection));
}

describe('a spec template in the tree', () => {
  it('reads "phases from a tasks.md" while it has no run; a template of fixed steps still counts them', async () => {
    const roots = await tree().getChildren();
    const described = Object.fromEntries(roots.filter((n) => n.ref.kind === 'template').map((n) => [n.label, n.description]));
    assert.deepEqual(described, { 'bug-fix': '2 steps', spec_execution_v1: 'phases from a tasks.md' });
  });

  it('opens onto its Phase 0 step, then a row that starts a spec workflow from a tasks.md', async () => {
    const t = tree();
    const spec = (await t.getChildren()).find((n) => n.label === 'spec_execution_v1')!;
    const rows = await t.getChildren(spec);
    assert.deepEqual(rows.map((n) => n.label), ['1. phase-0', 'then one phase per phase of its tasks.md']);
    assert.equal(rows[1]!.command?.id, 'baton.startSpecWorkflow');
    assert.equal(rows[1]!.contextValue, 'message', 'no step menu on it');
    const fixed = (await t.getChildren()).find((n) => n.label === 'bug-fix')!;
    assert.deepEqual((await t.getChildren(fixed)).map((n) => n.label), ['1. analyze', '2. fix']);
  });

  it('reads the templates again only when the workflows listed change, not on every refresh', async () => {
    const reads = { templates: 0 };
    const listed = [...templates];
    const t = tree(reads, listed);
    await t.getChildren();
    await t.getChildren();
    assert.equal(reads.templates, 1, 'the same listing: read once');
    listed.push(template('spec_other', ['phase-0'], true));
    const described = Object.fromEntries((await t.getChildren()).filter((n) => n.ref.kind === 'template').map((n) => [n.label, n.description]));
    assert.equal(reads.templates, 2, 'a new workflow: read again');
    assert.equal(described['spec_other'], 'phases from a tasks.md');
  });
});
