// Rule: the real agent CLIs from npm (claude, codex, gemini, opencode), pointed at a scripted model on 127.0.0.1, reach
// Baton's MCP server through their runner with a run token, call Baton's tools, and a later step sees what an earlier
// one stored; each run reports its answer, tool calls and tokens, and leaves nothing in the project or a scratch folder.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AgentRunEvent, AgentRunResult, RunScope } from '../../src/core/pipelines/runner.js';
import { silentLog } from '../../src/core/ports.js';
import type { CliRunnerOptions } from '../../src/host/runners/cliRunner.js';
import { createAgentRunner, type SpawnedRunnerKind } from '../../src/host/runners/createRunner.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer, type OwnerServer } from '../../src/host/ownerServer.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { assertToolGroups } from '../../src/mcp/toolGroups.js';
import { ensureAgentClis, type AgentCliPaths } from '../../scripts/agentClis.mjs';
import { startScriptedModel, type ModelScript, type ScriptedModel } from '../fixtures/runners/scriptedModel.js';

type RealKind = Extract<SpawnedRunnerKind, 'claude' | 'codex' | 'gemini' | 'opencode'>;

let clis: AgentCliPaths;
let work: string;
let project: string;
let scratchParent: string;
let opened: OpenedBaton;
let owner: OwnerServer;
let model: ScriptedModel;

/** How each CLI is pointed at the scripted model: only the model is replaced, everything else is the real CLI. */
function options(kind: RealKind): CliRunnerOptions & { model: string } {
  const base = { executable: clis[kind], scratchParent };
  switch (kind) {
    case 'claude':
      return { ...base, model: 'claude-sonnet-4-5', env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'test-key' } };
    case 'codex':
      return {
        ...base, model: 'gpt-5', env: { SCRIPTED_API_KEY: 'test-key' },
        config: { model_provider: 'scripted', 'model_providers.scripted': { name: 'scripted', base_url: `${model.url}/v1`, env_key: 'SCRIPTED_API_KEY', wire_api: 'responses' } },
      };
    case 'gemini':
      return {
        ...base, model: 'gemini-2.5-flash', env: { GOOGLE_GEMINI_BASE_URL: model.url, GEMINI_API_KEY: 'test-key' },
        config: { security: { auth: { selectedType: 'gemini-api-key' } } },
      };
    case 'opencode':
      return {
        ...base, model: 'scripted/m', env: { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_DEFAULT_PLUGINS: '1' },
        config: { provider: { scripted: { npm: '@ai-sdk/openai-compatible', options: { baseURL: `${model.url}/v1`, apiKey: 'test-key' }, models: { m: { tool_call: true } } } } },
      };
  }
}

/** One agent step: a run token for its scope, the real CLI, the scripted model's turn (`script`, else the model's
 * current scripts); the token is revoked after. */
async function step(kind: RealKind, scope: RunScope, script: ModelScript | null, prompt: string) {
  if (script) model.setScript(script);
  const firstRequest = model.requests.length;
  const grant = owner.issueRunToken(scope);
  const { model: modelName, ...runnerOptions } = options(kind);
  try {
    const run = createAgentRunner(kind, runnerOptions).run({
      agent: scope.agent, model: modelName, prompt, systemPrompt: `You are the ${scope.agent}.`, cwd: project,
      mcp: { url: owner.url, token: grant.token }, timeoutMs: 120_000,
    });
    const events: AgentRunEvent[] = [];
    for await (const e of run) events.push(e);
    const result: AgentRunResult = await run.result;
    return { events, result, requests: model.requests.slice(firstRequest) };
  } finally {
    grant.revoke();
  }
}

const results = (events: AgentRunEvent[]) => events.filter((e): e is Extract<AgentRunEvent, { type: 'tool_result' }> => e.type === 'tool_result');
const calls = (events: AgentRunEvent[]) => events.filter((e): e is Extract<AgentRunEvent, { type: 'tool_call' }> => e.type === 'tool_call');

function assertCompleted(kind: string, result: AgentRunResult, answer: string): void {
  assert.equal(result.status, 'completed', `${kind}: ${result.error ?? ''}\n${result.stderr}`);
  assert.equal(result.text, answer);
  assert.equal(result.malformedLines, 0);
  assert.ok(result.usage.input > 0 && result.usage.output > 0, `${kind} usage ${JSON.stringify(result.usage)}`);
}

describe('real agent CLIs against a scripted model, through Baton\'s MCP server', { timeout: 600_000 }, () => {
  before(async () => {
    clis = await ensureAgentClis();
    work = mkdtempSync(join(tmpdir(), 'baton-agent-clis-'));
    project = join(work, 'project');
    scratchParent = join(work, 'scratch');
    mkdirSync(project);
    mkdirSync(scratchParent);
    opened = await openBaton({ dbPath: join(work, 'baton.db'), workspace: project, rateLimits: false, log: silentLog });
    owner = await startOwnerServer({
      baton: opened.baton,
      createServer: (scope) => createMcpServer(opened.baton, { toolGroups: assertToolGroups(scope?.toolGroups ?? ['broker']), version: 'test', log: silentLog, scope }),
      log: silentLog,
    });
    model = await startScriptedModel({ answer: 'unused' }, { saveTo: join(work, 'model-requests.jsonl') });
  });
  after(async () => {
    await model?.close();
    await owner?.close();
    await opened?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('claude → codex → gemini: each step sees what the steps before it stored', async () => {
    const execution = await opened.baton.lifecycle.startExecution({ workflowName: 'bug-fix', projectPath: project });
    const runId = execution.id;
    const groups = ['lifecycle'];

    // One server plays all three agents, each picked by its system prompt ("You are the scout." …), as it would
    // for a pipeline whose steps the engine starts.
    model.setScript([
      { when: 'You are the scout.', script: {
        calls: [{ tool: 'store_finding', args: { executionId: runId, severity: 'info', category: 'scout', title: 'cache', description: 'SCOUT-7F3A: the cache key omits the locale' } }],
        answer: 'scout stored its finding',
      } },
      { when: 'You are the planner.', script: {
        calls: [
          { tool: 'query_findings', args: { executionId: runId, searchText: 'SCOUT-7F3A' } },
          { tool: 'store_finding', args: { executionId: runId, severity: 'info', category: 'plan', title: 'plan', description: 'PLAN-2B9C: add the locale to the cache key' } },
        ],
        answer: 'planner stored its plan',
      } },
      // gemini hands the model only a tool's text content (no structured content), which for query_findings is a
      // count: the third step's searches find the planner's plan (1 of 1) and nothing that was never stored (0 of 0).
      { when: 'You are the validator.', script: {
        calls: [
          { tool: 'query_findings', args: { executionId: runId, searchText: 'PLAN-2B9C' } },
          { tool: 'query_findings', args: { executionId: runId, searchText: 'NEVER-STORED' } },
        ],
        answer: 'validator found the plan',
      } },
    ]);

    const scout = await step('claude', { runId, agent: 'scout', toolGroups: groups }, null, 'Investigate the cache bug and store what you find.');
    assertCompleted('claude', scout.result, 'scout stored its finding');
    assert.deepEqual(calls(scout.events).map((c) => [c.name, c.server]), [['store_finding', 'baton']]);
    assert.equal(results(scout.events)[0]!.isError, false, results(scout.events)[0]!.output);
    assert.ok(scout.result.costUsd !== null && scout.result.costUsd > 0, 'claude reports its cost');

    const planner = await step('codex', { runId, agent: 'planner', toolGroups: groups }, null, 'Read the scout\'s findings and store a plan.');
    assertCompleted('codex', planner.result, 'planner stored its plan');
    assert.deepEqual(calls(planner.events).map((c) => c.name), ['query_findings', 'store_finding']);
    assert.match(results(planner.events)[0]!.output, /1 finding|SCOUT-7F3A/, 'codex got the scout\'s finding back');
    assert.ok(planner.requests.some((r) => JSON.stringify(r.body).includes('SCOUT-7F3A: the cache key omits the locale')), 'the model was shown what the scout stored');

    const validator = await step('gemini', { runId, agent: 'validator', toolGroups: groups }, null, 'Validate the plan against the findings.');
    assertCompleted('gemini', validator.result, 'validator found the plan');
    assert.deepEqual(calls(validator.events).map((c) => [c.name, c.server]), [['query_findings', 'baton'], ['query_findings', 'baton']]);
    assert.deepEqual(results(validator.events).map((r) => r.output), ['1 of 1 finding(s).', '0 of 0 finding(s).']);
    assert.ok(validator.requests.at(-1)!.body && JSON.stringify(validator.requests.at(-1)!.body).includes('1 of 1 finding(s).'), 'the model was shown the result');

    const stored = opened.baton.lifecycle.queryFindings({ executionId: runId });
    assert.deepEqual(stored.findings.map((f) => f.category).sort(), ['plan', 'scout']);
    assert.deepEqual(readdirSync(project).filter((f) => f !== '.baton'), [], 'nothing written to the project');
    assert.deepEqual(readdirSync(scratchParent), [], 'every scratch folder removed');
  });

  it('opencode calls a Baton tool through a remote MCP entry', async () => {
    const run = await step('opencode', { runId: 'r-opencode', agent: 'explorer', toolGroups: ['content'] }, {
      calls: [{ tool: 'list_projects' }], answer: 'opencode listed the projects',
    }, 'List the projects.');
    assertCompleted('opencode', run.result, 'opencode listed the projects');
    assert.deepEqual(calls(run.events).map((c) => [c.name, c.server]), [['list_projects', 'baton']]);
    assert.match(results(run.events)[0]!.output, /project/);
    assert.deepEqual(readdirSync(scratchParent), []);
  });

  it('a run token the owner no longer honours leaves the CLI without Baton\'s tools, and the run says so', async () => {
    const grant = owner.issueRunToken({ runId: 'r-x', agent: 'x', toolGroups: ['content'] });
    grant.revoke();
    model.setScript({ calls: [{ tool: 'list_projects' }], answer: 'no tools' });
    const { model: modelName, ...runnerOptions } = options('claude');
    const run = createAgentRunner('claude', runnerOptions).run({
      agent: 'x', model: modelName, prompt: 'List the projects.', cwd: project, mcp: { url: owner.url, token: grant.token }, timeoutMs: 120_000,
    });
    const events: AgentRunEvent[] = [];
    for await (const e of run) events.push(e);
    const errors = events.filter((e) => e.type === 'error').map((e) => (e as { message: string }).message);
    assert.ok(errors.some((m) => /could not connect to Baton's MCP server "baton"/.test(m)), errors.join('; '));
    assert.equal(calls(events).length, 0);
  });
});
