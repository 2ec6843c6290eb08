// Rule: a pipeline run the way a person starts one (`baton pipeline run FILE --input … --json`) drives the real agent
// CLIs from npm (claude → codex → gemini → opencode), each pointed at a scripted model on 127.0.0.1 through its
// environment and the system's `cliConfig`; each step's CLI reaches Baton's MCP server with its step's run token and
// calls memory_store / memory_search / memory_list, a later step's search hands the model what an earlier step
// stored, the run completes with tokens and cost rolled up per step and agent, and nothing is left in the project,
// the home folder or the temporary folder.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AgentRunEvent } from '../../src/core/pipelines/runner.js';
import type { RunUsage } from '../../src/core/pipelines/pipelineRuns.js';
import { pipelineHost } from '../../src/core/pipelines/host.js';
import { silentLog } from '../../src/core/ports.js';
import { createAgentRunner } from '../../src/host/runners/createRunner.js';
import { openBaton, type OpenedBaton } from '../../src/host/openBaton.js';
import { startOwnerServer, type OwnerServer } from '../../src/host/ownerServer.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { assertToolGroups } from '../../src/mcp/toolGroups.js';
import { ensureAgentClis, type AgentCliPaths } from '../../scripts/agentClis.mjs';
import { CLI, ensureBuilt } from '../fixtures/mcp/cliHarness.js';
import { startScriptedModel, toolResultsOf, type SavedRequest, type ScriptedModel } from '../fixtures/runners/scriptedModel.js';

let clis: AgentCliPaths;
let work: string;
let model: ScriptedModel;

/** The system a person would write: claude finds its endpoint in the environment Baton runs in; codex, gemini and
 * opencode get theirs from the agent's `env` and `cliConfig`. Each agent's system prompt names it for the model. */
function systemYaml(url: string): string {
  return `name: memory-relay
description: Four CLIs hand a finding on through Baton's memory.
agents:
  - id: scout
    role: researcher
    runner: claude
    modelConfig: { model: claude-sonnet-4-5 }
    systemPromptOverride: You are the scout.
  - id: planner
    role: planner
    runner: codex
    modelConfig: { model: gpt-5 }
    systemPromptOverride: You are the planner.
    env: { SCRIPTED_API_KEY: test-key }
    cliConfig:
      model_provider: scripted
      model_providers.scripted: { name: scripted, base_url: "${url}/v1", env_key: SCRIPTED_API_KEY, wire_api: responses }
    price: { input: 1.25, output: 10 }
  - id: validator
    role: validator
    runner: gemini
    modelConfig: { model: gemini-2.5-flash }
    systemPromptOverride: You are the validator.
    env: { GOOGLE_GEMINI_BASE_URL: "${url}", GEMINI_API_KEY: test-key }
    cliConfig: { security: { auth: { selectedType: gemini-api-key } } }
    price: { input: 0.3, output: 2.5 }
  - id: archivist
    role: custom
    runner: opencode
    modelConfig: { model: scripted/m }
    systemPromptOverride: You are the archivist.
    env: { OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_DEFAULT_PLUGINS: "1" }
    cliConfig:
      provider: { scripted: { npm: "@ai-sdk/openai-compatible", options: { baseURL: "${url}/v1", apiKey: test-key }, models: { m: { tool_call: true } } } }
    price: { input: 1, output: 1 }
workflow:
  - { id: scout, type: agent, agentId: scout, inputTemplate: "Investigate: {{system.input}}", outputVariable: scouted }
  - { id: plan, type: agent, agentId: planner, inputTemplate: "Plan a fix; the scout said: {{scouted}}", outputVariable: plan }
  - { id: validate, type: agent, agentId: validator, inputTemplate: "Validate: {{plan}}", outputVariable: verdict }
  - { id: archive, type: agent, agentId: archivist, inputTemplate: "List what the run stored." }
`;
}

const SCOUT_VALUE = 'Finding zebracache: the cache key omits the locale';
const PLAN_VALUE = 'Plan quokkafix: add the locale to the cache key';

/** One scripted model plays every agent, picked by the agent's system prompt. */
function scriptAgents(): void {
  model.setScript([
    { when: 'You are the scout.', script: { calls: [{ tool: 'memory_store', args: { key: 'cache-bug', value: SCOUT_VALUE, category: 'findings' } }], answer: 'scout stored its finding' } },
    { when: 'You are the planner.', script: {
      calls: [
        { tool: 'memory_search', args: { query: 'zebracache' } },
        { tool: 'memory_store', args: { key: 'plan', value: PLAN_VALUE, category: 'plans' } },
      ],
      answer: 'planner stored its plan',
    } },
    { when: 'You are the validator.', script: { calls: [{ tool: 'memory_search', args: { query: 'quokkafix' } }], answer: 'validator found the plan' } },
    { when: 'You are the archivist.', script: { calls: [{ tool: 'memory_list', args: { category: 'plans' } }], answer: 'archivist listed the plans' } },
  ]);
}

/** Runs `baton pipeline run` as a child process; its JSON lines, exit code and standard error. */
function pipelineRun(args: string[], env: Record<string, string>): Promise<{ code: number | null; lines: Array<Record<string, any>>; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'pipeline', 'run', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    const t0 = Date.now();
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (process.env.BATON_TEST_TIMING) process.stderr.write(`${Date.now() - t0} ms: ${d.toString().slice(0, 120)}\n`);
    });
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      try {
        resolve({ code, lines: out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>), stderr });
      } catch (ex) {
        reject(new Error(`not JSON lines: ${String(ex)}\n${out}\n${stderr}`));
      }
    });
  });
}

/** The requests one agent's CLI made (its system prompt names it). */
const requestsOf = (agent: string): SavedRequest[] => model.requests.filter((r) => r.api !== 'other' && JSON.stringify(r.body).includes(`You are the ${agent}.`));
const calledTools = (requests: SavedRequest[]) => requests.map((r) => r.decision).filter((d): d is { call: string } => 'call' in d).map((d) => d.call);

describe('real agent CLIs in a pipeline run, against a scripted model, through Baton\'s MCP server', { timeout: 600_000 }, () => {
  before(async () => {
    ensureBuilt();
    clis = await ensureAgentClis();
    work = mkdtempSync(join(tmpdir(), 'baton-agent-clis-'));
    model = await startScriptedModel({ answer: 'unused' }, { saveTo: join(work, 'model-requests.jsonl') });
  });
  after(async () => {
    await model?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('claude → codex → gemini → opencode: each step stores or searches memory, the next step\'s search shows the model what the earlier one stored', async () => {
    const project = join(work, 'project');
    const home = join(work, 'home');
    const temp = join(work, 'tmp');
    const db = join(work, 'state', 'baton.db');
    for (const dir of [join(project, '.baton', 'pipelines'), home, temp]) mkdirSync(dir, { recursive: true });
    const file = join(project, '.baton', 'pipelines', 'relay.yaml');
    writeFileSync(file, systemYaml(model.url));
    scriptAgents();
    const started = Date.now();
    const run = await pipelineRun([file, '--input', 'the cache serves pages in the wrong language', '--json', '--db', db, '--workspace', project], {
      // The way a person runs it: the CLIs on PATH, claude's endpoint exported in the shell.
      PATH: `${dirname(clis.claude)}:${process.env.PATH ?? ''}`, HOME: home, TMPDIR: temp,
      ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'test-key', BATON_LOG_LEVEL: 'error',
    });
    const lines = run.lines;
    const summary = lines.find((l) => l.type === 'summary');
    assert.equal(run.code, 0, `${run.stderr}\n${JSON.stringify(lines.filter((l) => l.type !== 'step_output'), null, 1)}`);
    assert.equal(summary?.status, 'completed');
    assert.deepEqual(lines.filter((l) => l.type === 'step_completed').map((l) => [l.step, l.output]), [
      ['scout', 'scout stored its finding'], ['plan', 'planner stored its plan'], ['validate', 'validator found the plan'], ['archive', 'archivist listed the plans'],
    ]);
    assert.deepEqual(lines.filter((l) => l.type === 'step_started').map((l) => l.agent), ['scout', 'planner', 'validator', 'archivist']);
    assert.equal(lines.find((l) => l.type === 'run_finished')?.status, 'completed');

    // Each CLI called Baton's memory tools under its own naming of Baton's server, as the model asked.
    assert.deepEqual(calledTools(requestsOf('scout')), ['mcp__baton__memory_store']);
    assert.deepEqual(calledTools(requestsOf('planner')), ['mcp__baton__memory_search', 'mcp__baton__memory_store']);
    assert.deepEqual(calledTools(requestsOf('validator')), ['mcp_baton_memory_search']);
    assert.deepEqual(calledTools(requestsOf('archivist')), ['baton_memory_list']);
    // What the tools answered reached each model (tool results, not the memory context in the system prompt).
    const results = (agent: string) => requestsOf(agent).flatMap(toolResultsOf).join('\n');
    assert.match(results('scout'), /cache-bug/);
    assert.ok(results('planner').includes(SCOUT_VALUE), `codex handed the model the scout's finding: ${results('planner')}`);
    assert.ok(results('validator').includes(PLAN_VALUE), `gemini handed the model the planner's plan: ${results('validator')}`);
    assert.ok(results('archivist').includes(PLAN_VALUE), `opencode handed the model the plan: ${results('archivist')}`);

    // Tokens and cost rolled up per step, per agent and for the run: claude reports its cost; codex and gemini report
    // none and opencode $0 (it has no price for the model), so the agents' prices apply.
    const usage = summary!.usage as RunUsage;
    for (const step of ['scout', 'plan', 'validate', 'archive']) {
      const s = usage.bySteps[step]!;
      assert.ok(s.tokens > 0 && s.costUsd !== null && s.costUsd > 0, `${step}: ${JSON.stringify(s)}`);
    }
    assert.deepEqual(Object.keys(usage.byAgent).sort(), ['archivist', 'planner', 'scout', 'validator']);
    const steps = Object.values(usage.bySteps);
    assert.equal(usage.total.tokens, steps.reduce((a, s) => a + s.tokens, 0));
    assert.ok(Math.abs(usage.total.costUsd - steps.reduce((a, s) => a + (s.costUsd ?? 0), 0)) < 1e-9);

    // Baton's server did the work, for the run and agent each token was issued to.
    const opened: OpenedBaton = await openBaton({ dbPath: db, workspace: project, rateLimits: false, log: silentLog });
    try {
      const calls = opened.baton.recentCalls(200).filter((c) => String(c.tool_or_resource_name).startsWith('memory_')).reverse();
      assert.deepEqual(calls.map((c) => [c.agent_name, c.tool_or_resource_name, c.success]), [
        ['scout', 'memory_store', 1], ['planner', 'memory_search', 1], ['planner', 'memory_store', 1], ['validator', 'memory_search', 1], ['archivist', 'memory_list', 1],
      ]);
      const memory = pipelineHost(opened.baton)!.memory;
      const stored = memory.list({ runId: summary!.runId as string, agent: null }, undefined, 'run').entries;
      assert.deepEqual(stored.filter((e) => !e.key.startsWith('step:')).map((e) => [e.key, e.agent, e.value]).sort(), [
        ['cache-bug', 'scout', SCOUT_VALUE], ['plan', 'planner', PLAN_VALUE],
      ]);
    } finally {
      await opened.close();
    }
    assert.deepEqual(readdirSync(project), ['.baton'], 'nothing written to the project');
    assert.deepEqual(readdirSync(join(project, '.baton')), ['pipelines']);
    assert.deepEqual(readdirSync(home), [], 'nothing written to the home folder');
    assert.deepEqual(readdirSync(temp), [], 'every scratch folder removed');
    const first = (agent: string) => requestsOf(agent)[0]!.receivedAt - started;
    process.stderr.write(`agentClis: four real CLIs ran in ${Date.now() - started} ms; first model requests at ${['scout', 'planner', 'validator', 'archivist'].map((a) => `${a} ${first(a)} ms`).join(', ')}\n`);
  });

  it('a run token the owner no longer honours leaves the CLI without Baton\'s tools, and the run says so', async () => {
    const project = mkdtempSync(join(work, 'revoked-'));
    const opened = await openBaton({ dbPath: join(project, 'baton.db'), workspace: project, rateLimits: false, log: silentLog });
    let owner: OwnerServer | undefined;
    try {
      owner = await startOwnerServer({
        baton: opened.baton,
        createServer: (scope) => createMcpServer(opened.baton, { toolGroups: assertToolGroups(scope?.toolGroups ?? ['broker']), version: 'test', log: silentLog, scope }),
        log: silentLog,
      });
      const grant = owner.issueRunToken({ runId: 'r-x', agent: 'x', toolGroups: ['content'] });
      grant.revoke();
      model.setScript({ calls: [{ tool: 'list_projects' }], answer: 'no tools' });
      const run = createAgentRunner('claude', { executable: clis.claude, env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'test-key' }, scratchParent: project }).run({
        agent: 'x', model: 'claude-sonnet-4-5', prompt: 'List the projects.', cwd: project, mcp: { url: owner.url, token: grant.token }, timeoutMs: 120_000,
      });
      const events: AgentRunEvent[] = [];
      for await (const e of run) events.push(e);
      const errors = events.filter((e) => e.type === 'error').map((e) => (e as { message: string }).message);
      assert.ok(errors.some((m) => /could not connect to Baton's MCP server "baton"/.test(m)), errors.join('; '));
      assert.equal(events.filter((e) => e.type === 'tool_call').length, 0);
    } finally {
      await owner?.close();
      await opened.close();
    }
  });
});
