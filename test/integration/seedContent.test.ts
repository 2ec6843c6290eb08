// Rule: a workspace that brings the seed's own content (midex's Markdown workflows with `phases`, its registry and its
// shared context, copied into .baton/) works unchanged over real stdio: the workflows are listed and replace the
// bundled ones of the same name, two agents work the parallel phases of one run at once, the synthesis waits for all
// of them, the lifecycle tools answer with the phases and the body as the file has them, and a step's output is
// checked by the seed's own contract (JSON Schema draft 2020-12).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, ensureBuilt } from '../fixtures/mcp/cliHarness.js';

const SEED = join(__dirname, '..', 'fixtures', 'content', 'seed');
const FILES = [
  'workflows/bug-fix.md', 'workflows/parallel-code-review.md', 'workflows/index.yaml', 'agents/_shared_context.md', 'agents/security-specialist.md',
  'contracts/StepOutput.schema.json',
];

interface Answer { status: string; execution_id?: string; new_step_token?: string; next_step_contract?: { step_name: string }; error?: { code: string; message: string } }

describe("the seed's own content in a workspace (real stdio, built dist/cli.js)", () => {
  let workspace: string;
  const clients: Client[] = [];
  let stderr = '';

  async function agent(name: string, tools = 'broker'): Promise<Client> {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--rate-limits', 'off', '--tools', tools], cwd: workspace, stderr: 'pipe' });
    transport.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
    const client = new Client({ name, version: '1' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const next = async (client: Client, args: Record<string, unknown>): Promise<Answer> =>
    (await client.callTool({ name: 'workflow_next_step', arguments: args })).structuredContent as unknown as Answer;
  const done = (step: string) => ({
    summary: `${step} done`, artifacts: [{ type: 'markdown', title: `${step} notes`, content: `# ${step}\n\nFindings.` }], references: [], confidence: 0.8,
  });

  before(() => {
    ensureBuilt();
    workspace = mkdtempSync(join(tmpdir(), 'baton-seed-'));
    for (const file of FILES) {
      mkdirSync(join(workspace, '.baton', file, '..'), { recursive: true });
      copyFileSync(join(SEED, file), join(workspace, '.baton', file));
    }
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    rmSync(workspace, { recursive: true, force: true });
  });

  it('lists the Markdown workflows, the seed\'s bug-fix in place of the bundled one, and warns of nothing it should not', async () => {
    const client = await agent('lister', 'all');
    const read = await client.readResource({ uri: 'available-workflows://all' });
    const { workflows } = JSON.parse(String((read.contents[0] as { text: string }).text)) as { workflows: Array<{ name: string; type: string; steps_count: number; description: string }> };
    const byName = new Map(workflows.map((w) => [w.name, w]));
    assert.deepEqual([byName.get('bug-fix')?.steps_count, byName.get('bug-fix')?.type], [3, 'sequential'], 'the workspace\'s bug-fix.md wins over the bundled bug-fix.yaml');
    assert.equal(byName.get('bug-fix')?.description, 'Systematic bug fixing workflow with diagnosis and verification');
    assert.deepEqual([byName.get('parallel-code-review')?.steps_count, byName.get('parallel-code-review')?.type], [6, 'hybrid']);
    assert.ok(!byName.has('index'), 'the registry is no workflow');
    assert.doesNotMatch(stderr, /index\.yaml|_shared_context/, 'neither the registry nor the shared context is reported');
    // The seed's personas that these files do not bring are named, once each, as steps without a persona.
    assert.match(stderr, /parallel-code-review\.md:\d+: step 'quality-review': agent 'reviewer' is not defined|parallel-code-review\.md:\d+: step 'maintainability-review': agent 'maintainer' is not defined/);
  });

  it('hands the five reviews to two agents at once and the synthesis only after all of them', async () => {
    const [a, b] = [await agent('agent-a'), await agent('agent-b')];
    let first = await next(a, { template_name: 'parallel-code-review', task_description: 'Review the login change' });
    assert.equal(first.status, 'ok', JSON.stringify(first));
    const executionId = first.execution_id!;
    // While a holds one review, b joins the run and gets another one: they are ready together.
    let second = await next(b, { task_id: executionId });
    assert.equal(second.status, 'ok', JSON.stringify(second));
    const order = [first.next_step_contract!.step_name, second.next_step_contract!.step_name];
    assert.notEqual(order[0], order[1]);
    for (let i = 0; i < 10; i++) {
      if (first.status === 'ok') {
        first = await next(a, { step_token: first.new_step_token, model_output_so_far: done(first.next_step_contract!.step_name) });
        if (first.status === 'ok') order.push(first.next_step_contract!.step_name);
      }
      if (second.status === 'ok') {
        second = await next(b, { step_token: second.new_step_token, model_output_so_far: done(second.next_step_contract!.step_name) });
        if (second.status === 'ok') order.push(second.next_step_contract!.step_name);
      }
      if (first.status !== 'ok' && second.status !== 'ok') break;
    }
    assert.ok(order.length >= 6, `${JSON.stringify(first).slice(0, 600)} ${JSON.stringify(second).slice(0, 600)}`);
    assert.deepEqual(order.slice(0, 5).sort(), ['architecture-review', 'maintainability-review', 'performance-review', 'quality-review', 'security-review']);
    assert.deepEqual(order.slice(5), ['review-synthesis'], `handed out: ${order.join(', ')}`);
    assert.ok([first.status, second.status].includes('task_closed'), `the run closed: ${first.status}, ${second.status}`);
  });

  it('the lifecycle and content tools answer with the phases, allowParallel, the body and the contract as the files have them', async () => {
    const client = await agent('lifecycle', 'all');
    const started = await client.callTool({ name: 'start_execution', arguments: { workflowName: 'parallel-code-review' } });
    const phases = (started.structuredContent as { phases?: Array<{ phase: string; dependsOn: string[]; allowParallel: boolean }> }).phases!;
    assert.deepEqual(phases.map((p) => [p.phase, p.dependsOn.length, p.allowParallel]), [
      ['quality-review', 0, true], ['security-review', 0, true], ['performance-review', 0, true], ['maintainability-review', 0, true],
      ['architecture-review', 0, true], ['review-synthesis', 5, false],
    ]);
    const executionId = (started.structuredContent as { id: string }).id;
    await client.callTool({ name: 'transition_workflow_state', arguments: { executionId, newState: 'running' } });
    const step = (await client.callTool({ name: 'start_step', arguments: { executionId, stepName: 'quality-review' } })).structuredContent as { id: string };
    const refused = await client.callTool({ name: 'complete_step', arguments: { stepId: step.id, output: { summary: 'ok', confidence: 0.9 } } });
    assert.equal(refused.isError, true);
    assert.match(JSON.stringify(refused.content), /does not match the StepOutput contract \([^)]*\.baton\/contracts\/StepOutput\.schema\.json\): \/confidence is not allowed/);
    const completed = await client.callTool({
      name: 'complete_step', arguments: { stepId: step.id, output: { summary: 'Reviewed', artifacts: [{ type: 'report', content: '# Review' }], findings: ['naming'] } },
    });
    assert.deepEqual((completed.structuredContent as { contract: unknown }).contract, { schema: 'StepOutput', validated: true }, JSON.stringify(completed.content));
    const got = await client.callTool({ name: 'get_workflow', arguments: { workflowName: 'bug-fix', detailLevel: 'full' } });
    assert.ok(got.structuredContent, JSON.stringify(got).slice(0, 800));
    const wf = got.structuredContent as { complexity: string; content: { content: string; steps: unknown[] } };
    assert.equal(wf.complexity, 'moderate');
    assert.match(wf.content.content, /^# Bug Fix Workflow/);
    assert.equal(wf.content.steps.length, 3);
  });
});
