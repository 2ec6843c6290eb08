// Rule: README's Claude Code entry (`node dist/cli.js mcp`, no flags) run by the real Claude Code in a subfolder of a
// project that has its `.baton/` joins the project's database, making none in the subfolder; the same entry with a
// --db Baton cannot use still connects, and the model's call of workflow_next_step reads why Baton could not start
// and what to fix (Claude Code shows the person none of a server's stderr). A scripted model on 127.0.0.1 stands in
// for Anthropic's.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureAgentClis } from '../../scripts/agentClis.mjs';
import { CLI, ensureBuilt } from '../fixtures/mcp/cliHarness.js';
import { runJsonLines } from '../helpers/processes.js';
import { startScriptedModel, toolResultsOf, type ScriptedModel } from '../fixtures/runners/scriptedModel.js';

const TOOL = 'mcp__baton__workflow_next_step';
let claude = '';
let codex = '';
let work = '';
let model: ScriptedModel;

/** Runs `claude -p` in `cwd` with a scratch home and Baton as `node dist/cli.js mcp ARGS`; its stream-json lines. */
function runClaude(cwd: string, home: string, args: string[]): Promise<Array<Record<string, any>>> {
  const env: Record<string, string | undefined> = {
    ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'), XDG_STATE_HOME: join(home, '.local', 'state'), PWD: cwd,
    ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'test-key', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_MCP_STARTUP_WAIT_MS: '20000',
  };
  const config = JSON.stringify({ mcpServers: { baton: { type: 'stdio', command: process.execPath, args: [CLI, 'mcp', ...args] } } });
  const argv = ['-p', 'Use Baton to fix: the cache serves pages in the wrong language.', '--output-format', 'stream-json',
    '--verbose', '--model', 'claude-sonnet-4-5', '--mcp-config', config, '--strict-mcp-config', '--allowedTools', TOOL];
  return runJsonLines(claude, argv, { cwd, env }, 60_000);
}

/**
 * Runs `codex exec` in `cwd` with a scratch CODEX_HOME whose config.toml is README's entry (`node dist/cli.js mcp ARGS`,
 * `required = true`), approving Baton's tools for the headless run; its JSON lines.
 */
function runCodex(cwd: string, home: string, args: string[]): Promise<Array<Record<string, any>>> {
  const codexHome = join(home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(join(codexHome, 'config.toml'), [
    'model = "m"',
    'model_provider = "p"',
    `model_providers.p = { name = "p", base_url = "${model.url}/v1", env_key = "P_API_KEY", wire_api = "responses" }`,
    '[mcp_servers.baton]',
    `command = ${JSON.stringify(process.execPath)}`,
    `args = ${JSON.stringify([CLI, 'mcp', ...args])}`,
    'required = true',
    'default_tools_approval_mode = "approve"',
    '',
  ].join('\n'));
  const env = { ...process.env, HOME: home, CODEX_HOME: codexHome, P_API_KEY: 'x' };
  return runJsonLines(codex, ['exec', '--json', '--skip-git-repo-check', '--ephemeral', 'Use Baton to fix the cache.'], { cwd, env }, 90_000);
}

/** What the model got back from its call of Baton's tool in the run that began at request `from`. */
function toolResultSince(from: number, api = 'anthropic'): string {
  const requests = model.requests.slice(from).filter((r) => r.api === api);
  return toolResultsOf(requests.at(-1)!).join('\n');
}

describe('Claude Code and Codex with the README entry, from a subfolder and with a --db Baton cannot use', { timeout: 180_000 }, () => {
  before(async () => {
    ensureBuilt();
    ({ claude, codex } = await ensureAgentClis());
    work = mkdtempSync(join(tmpdir(), 'baton-claude-start-'));
    model = await startScriptedModel({
      tool: 'workflow_next_step', args: { template_name: 'bug-fix', task_description: 'the cache serves pages in the wrong language' },
      answer: 'done',
    });
  });
  after(async () => {
    await model?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("started in src/, Baton uses the project's .baton/ above it", async () => {
    const project = join(work, 'project');
    const src = join(project, 'src');
    mkdirSync(join(project, '.baton'), { recursive: true });
    mkdirSync(src, { recursive: true });
    const home = join(work, 'home-sub');
    mkdirSync(home);
    const from = model.requests.length;
    const lines = await runClaude(src, home, []);
    const init = lines.find((l) => l.type === 'system' && l.subtype === 'init');
    assert.deepEqual(init?.mcp_servers?.map((s: any) => [s.name, s.status]), [['baton', 'connected']]);
    assert.match(toolResultSince(from), /analyze-root-cause/);
    assert.ok(existsSync(join(project, '.baton', 'baton.db')), "the project's database");
    assert.equal(existsSync(join(src, '.baton')), false, 'none in src/');
  });

  it('with a --db under a file, the model reads why Baton could not start and the fix', async () => {
    const cwd = join(work, 'broken');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'notes'), 'a file');
    const home = join(work, 'home-broken');
    mkdirSync(home);
    const from = model.requests.length;
    const lines = await runClaude(cwd, home, ['--db', join(cwd, 'notes', 'baton.db')]);
    const init = lines.find((l) => l.type === 'system' && l.subtype === 'init');
    assert.deepEqual(init?.mcp_servers?.map((s: any) => [s.name, s.status]), [['baton', 'connected']]);
    const result = toolResultSince(from);
    assert.match(result, /Baton's MCP server could not start: cannot mkdir \S+notes: a part of the path is a file, not a folder/, result);
    assert.match(result, /restart the Baton MCP server/);
  });

  it("codex in src/: the project's database; with a --db under a file: the model reads why", async () => {
    const project = join(work, 'codex-project');
    const src = join(project, 'src');
    mkdirSync(join(project, '.baton'), { recursive: true });
    mkdirSync(src, { recursive: true });
    let from = model.requests.length;
    const lines = await runCodex(src, join(work, 'codex-home-sub'), []);
    const call = lines.find((l) => l.type === 'item.completed' && l.item?.type === 'mcp_tool_call');
    assert.equal(call?.item?.status, 'completed', JSON.stringify(call));
    assert.match(toolResultSince(from, 'responses'), /analyze-root-cause/);
    assert.ok(existsSync(join(project, '.baton', 'baton.db')), "the project's database");
    assert.equal(existsSync(join(src, '.baton')), false, 'none in src/');

    const broken = join(work, 'codex-broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'notes'), 'a file');
    from = model.requests.length;
    await runCodex(broken, join(work, 'codex-home-broken'), ['--db', join(broken, 'notes', 'baton.db')]);
    const result = toolResultSince(from, 'responses');
    assert.match(result, /Baton's MCP server could not start: cannot mkdir \S+notes: a part of the path is a file, not a folder/, result);
  });
});
