// Rule: the configs "Copy MCP Config for Gemini CLI" and "… for OpenCode" hand out, pasted where their hints say (the
// project's .gemini/settings.json; the project's opencode.json, beside the person's own provider), connect the real
// CLI from npm to Baton: its model (the scripted one) is offered workflow_next_step, calls it, and reads the first
// step of the workflow it started.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureAgentClis, type AgentCliPaths } from '../../scripts/agentClis.mjs';
import { mcpConfigHint, mcpConfigText } from '../../src/vscode/mcpConfig.js';
import { CLI, ensureBuilt } from '../fixtures/mcp/cliHarness.js';
import { startScriptedModel, toolResultsOf, type ScriptedModel } from '../fixtures/runners/scriptedModel.js';

let clis: AgentCliPaths;
let root = '';
let model: ScriptedModel;

/** A project and a home of its own for one CLI run; the copied config names the project as Baton's workspace. */
function scratch(name: string): { project: string; home: string; env: Record<string, string | undefined> } {
  const project = join(root, name, 'project');
  const home = join(root, name, 'home');
  for (const d of [project, join(home, '.config'), join(home, '.cache'), join(home, '.local', 'share'), join(home, '.local', 'state')]) {
    mkdirSync(d, { recursive: true });
  }
  const env = {
    ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'), XDG_STATE_HOME: join(home, '.local', 'state'), PWD: project,
  };
  return { project, home, env };
}

/** Runs `command args` in `cwd`; resolves with its exit code and output once it exits (killed after 90 s). */
function run(command: string, args: string[], cwd: string, env: Record<string, string | undefined>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => void (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** The model's requests since `since` that were offered Baton's tool, and what its tool result said. */
function afterRun(since: number): { offered: string[]; results: string[] } {
  const requests = model.requests.filter((r) => r.receivedAt >= since && r.api !== 'other');
  return { offered: requests.flatMap((r) => r.offered), results: requests.flatMap((r) => toolResultsOf(r)) };
}

describe('the copied MCP configs for Gemini CLI and OpenCode, with the real CLIs', { timeout: 4 * 60_000 }, () => {
  before(async () => {
    ensureBuilt();
    clis = await ensureAgentClis();
    root = mkdtempSync(join(tmpdir(), 'baton-copied-configs-'));
    model = await startScriptedModel({
      tool: 'workflow_next_step', args: { template_name: 'bug-fix', task_description: 'the cache serves pages in the wrong language' },
      answer: 'Baton handed out the first step',
    });
  });
  after(async () => {
    await model?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('Gemini CLI reads it from the project\'s .gemini/settings.json and calls Baton', async () => {
    const { project, home, env } = scratch('gemini');
    assert.match(mcpConfigHint('gemini'), /project's \.gemini\/settings\.json/);
    mkdirSync(join(project, '.gemini'), { recursive: true });
    writeFileSync(join(project, '.gemini', 'settings.json'), mcpConfigText('gemini', { cliPath: CLI, workspace: project }));
    // The person's own sign-in lives in their home settings (an API key here).
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    const since = Date.now();
    const { code, out } = await run(clis.gemini, ['-p', 'Start the bug-fix workflow with Baton.', '-o', 'stream-json', '-m', 'gemini-2.5-flash'], project, {
      ...env, GOOGLE_GEMINI_BASE_URL: model.url, GEMINI_API_KEY: 'test-key', GEMINI_CLI_TRUST_WORKSPACE: 'true',
    });
    assert.equal(code, 0, out);
    const seen = afterRun(since);
    assert.ok(seen.offered.some((n) => n.endsWith('workflow_next_step')), `offered: ${seen.offered.join(', ')}`);
    assert.ok(seen.results.some((t) => /analyze-root-cause/.test(t)), `the model read the first step: ${seen.results.join('\n').slice(0, 600)}`);
  });

  it('OpenCode reads it from the project\'s opencode.json, merged with the person\'s own provider, and calls Baton', async () => {
    const { project, env } = scratch('opencode');
    assert.match(mcpConfigHint('opencode'), /project's opencode\.json/);
    const copied = JSON.parse(mcpConfigText('opencode', { cliPath: CLI, workspace: project })) as Record<string, unknown>;
    const own = {
      provider: { p: { npm: '@ai-sdk/openai-compatible', options: { baseURL: `${model.url}/v1`, apiKey: 'test-key' }, models: { m: { tool_call: true } } } },
      model: 'p/m',
    };
    writeFileSync(join(project, 'opencode.json'), JSON.stringify({ ...own, ...copied }, null, 2));
    const since = Date.now();
    const { code, out } = await run(clis.opencode, ['run', '--format', 'json', 'Start the bug-fix workflow with Baton.'], project, {
      ...env, OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    });
    assert.equal(code, 0, out);
    const seen = afterRun(since);
    assert.ok(seen.offered.some((n) => n.endsWith('workflow_next_step')), `offered: ${seen.offered.join(', ')}`);
    assert.ok(seen.results.some((t) => /analyze-root-cause/.test(t)), `the model read the first step: ${seen.results.join('\n').slice(0, 600)}`);
  });
});
