// Rule: `baton status` (and `baton pipeline list`) say why a failed run failed: its error cut to one line in the text,
// whole in --json, for a pipeline whose step failed (read from the file) and a run the lifecycle tools failed (read
// through the live owner); a failed step says why beside it, also while its run goes on. An error that says what to do
// next ("… not found on PATH. Install …") keeps that step, and a note says where the whole reason is.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ensureBuilt, pipelineSetup, runCli, startMcp, tempSetup, type CliSession } from '../fixtures/mcp/cliHarness.js';

type Listed = { executions: Array<{ execution_id: string; status: string; error?: string }> };

const FAILING = `name: failing
agents:
  - { id: a, runner: command, command: AGENT }
workflow:
  - { id: one, type: agent, agentId: a }
`;

const sessions: CliSession[] = [];
const dirs: string[] = [];
before(() => ensureBuilt());
after(async () => {
  for (const s of sessions) await s.client.close().catch(() => undefined);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('a pipeline whose step failed: status names the step and its error, --json has it whole', async () => {
  // The agent's command fails with a long stderr: the text keeps one line of it.
  const crash = ['node', '-e', `console.error('disk full ' + 'x'.repeat(200)); process.exit(3)`];
  const w = pipelineSetup('baton-failed-pipe-', FAILING.replace('AGENT', JSON.stringify(crash)), 'unused');
  dirs.push(w.dir);
  const run = await runCli(['pipeline', 'run', 'p', '--input', 'go', '--db', w.db, '--workspace', w.workspace], { BATON_LOG_LEVEL: 'error' });
  assert.equal(run.code, 1, run.stderr);
  const text = await runCli(['status', '--all', '--db', w.db]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^ {2}✗ why it failed: step one: command exited with code 3: stderr: disk full x+…$/m);
  const line = text.stdout.split('\n').find((l) => l.includes('why it failed'))!;
  assert.ok(line.length <= 120, line);
  const json = JSON.parse((await runCli(['status', '--all', '--json', '--db', w.db])).stdout) as Listed;
  assert.equal(json.executions[0]!.status, 'failed');
  assert.equal(json.executions[0]!.error, `step one: command exited with code 3: stderr: disk full ${'x'.repeat(200)}`);
  // baton pipeline list says it as well, beside the run's status.
  const runs = await runCli(['pipeline', 'list', '--db', w.db, '--workspace', w.workspace]);
  assert.match(runs.stdout, /^ {2}\S+ {2}failing {2}failed \(step one: command exited with code 3: stderr: disk full x+…\) {2}0 tokens /m);
  const listed = JSON.parse((await runCli(['pipeline', 'list', '--json', '--db', w.db, '--workspace', w.workspace])).stdout) as { runs: Array<{ error?: string }> };
  assert.equal(listed.runs[0]!.error, json.executions[0]!.error);
});

test('a pipeline whose agent CLI is missing: the one-line reason keeps how to install it and points at --json', async () => {
  const file = 'name: missing\nagents:\n  - { id: a, runner: claude, modelConfig: { model: sonnet } }\nworkflow:\n  - { id: one, type: agent, agentId: a }\n';
  const w = pipelineSetup('baton-failed-missing-', file, 'unused');
  dirs.push(w.dir);
  const bin = join(w.dir, 'empty-bin');
  mkdirSync(bin);
  const run = await runCli(['pipeline', 'run', 'p', '--input', 'go', '--db', w.db, '--workspace', w.workspace], { PATH: bin, BATON_LOG_LEVEL: 'error' });
  assert.equal(run.code, 1, run.stderr);
  const install = 'Install Claude Code from npm: `npm install -g @anthropic-ai/claude-code`';
  const text = await runCli(['status', '--all', '--db', w.db]);
  assert.ok(text.stdout.includes(`  ✗ why it failed: step one: claude: "claude" was not found on PATH. ${install}\n`), text.stdout);
  assert.match(text.stdout, /\n\n\(A reason cut short here is whole in baton status --json --db \S+\.\)\n$/);
  const runs = await runCli(['pipeline', 'list', '--db', w.db, '--workspace', w.workspace]);
  assert.ok(runs.stdout.includes(`  failed (step one: claude: "claude" was not found on PATH. ${install})  0 tokens`), runs.stdout);
  assert.match(runs.stdout, /^\(A reason cut short here is whole in baton pipeline list --json --db \S+\.\)$/m);
});

test('a run the lifecycle tools moved to failed: status through the live owner shows the error it was given', async () => {
  const setup = tempSetup('baton-failed-lifecycle-');
  dirs.push(setup.dir);
  const session = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--tools', 'lifecycle']);
  sessions.push(session);
  const tool = async (name: string, args: Record<string, unknown>) =>
    (await session.client.callTool({ name, arguments: args })).structuredContent as { id: string };
  const { id } = await tool('start_execution', { workflowName: 'bug-fix' });
  await tool('transition_workflow_state', { executionId: id, newState: 'running' });
  // A step that failed while the run goes on says why beside it.
  const step = await tool('start_step', { executionId: id, stepName: 'analyze' });
  await session.client.callTool({ name: 'complete_step', arguments: { stepId: step.id, error: 'cannot reproduce. Tried twice.' } });
  const going = await runCli(['status', '--db', setup.db]);
  assert.match(going.stdout, /^ {2}✗ analyze \(failed, unassigned\): cannot reproduce$/m);
  const steps = (JSON.parse((await runCli(['status', '--json', '--db', setup.db])).stdout) as { executions: Array<{ steps: unknown[] }> }).executions[0]!.steps;
  assert.deepEqual(steps, [{ step_name: 'analyze', status: 'failed', agent_name: 'unassigned', error: 'cannot reproduce. Tried twice.' }]);
  await tool('transition_workflow_state', { executionId: id, newState: 'failed', error: 'the build server is down' });
  const text = await runCli(['status', '--all', '--db', setup.db]);
  assert.match(text.stdout, new RegExp(`^${id} {2}bug-fix {2}failed .*\n(.*\n)* {2}✗ why it failed: the build server is down$`, 'm'));
  const json = JSON.parse((await runCli(['status', '--all', '--json', '--db', setup.db])).stdout) as Listed;
  assert.equal(json.executions.find((e) => e.execution_id === id)?.error, 'the build server is down');
});
