// Rule: Claude Code as a person runs it (its defaults: MCP tools deferred behind ToolSearch), with the config "Copy
// MCP Config for Claude Code" hands out pasted into the project's .mcp.json, offers its model Baton's
// workflow_next_step with its schema from the first request on, so the model calls it at once (no ToolSearch turn
// first, no call that fails for want of a loaded schema) — whether the CLI's `baton mcp` owns the database or forwards
// to the owner (`baton serve`) and answers tools/list from the build's catalog.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureAgentClis } from '../../scripts/agentClis.mjs';
import { mcpConfigText } from '../../src/vscode/mcpConfig.js';
import { CLI, ensureBuilt, waitFor } from '../fixtures/mcp/cliHarness.js';
import { runJsonLines } from '../helpers/processes.js';
import { startScriptedModel, toolResultsOf, type ScriptedModel } from '../fixtures/runners/scriptedModel.js';

const TOOL = 'mcp__baton__workflow_next_step';
let claude = '';
let work = '';
let model: ScriptedModel;

/** Runs `claude -p` in `project` with a scratch home; its stream-json lines. */
function runClaude(project: string, home: string): Promise<Array<Record<string, any>>> {
  const env: Record<string, string | undefined> = {
    ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'), XDG_STATE_HOME: join(home, '.local', 'state'), PWD: project,
    ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'test-key', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1',
    // Claude sends its first request after about 2 s whether its MCP servers are up or not; a loaded test machine
    // may start Baton later than that. The wait changes when the first request goes, not which tools are deferred.
    CLAUDE_CODE_MCP_STARTUP_WAIT_MS: '20000',
  };
  delete env.ENABLE_TOOL_SEARCH; // Claude's default: tool search on
  const args = ['-p', 'Use Baton to fix: the cache serves pages in the wrong language.', '--output-format', 'stream-json',
    '--verbose', '--model', 'claude-sonnet-4-5', '--allowedTools', TOOL];
  return runJsonLines(claude, args, { cwd: project, env }, 60_000);
}

describe("Claude Code's tool search leaves Baton's workflow_next_step loaded", { timeout: 120_000 }, () => {
  before(async () => {
    ensureBuilt();
    claude = (await ensureAgentClis()).claude;
    work = mkdtempSync(join(tmpdir(), 'baton-claude-tool-search-'));
    model = await startScriptedModel({
      tool: 'workflow_next_step', args: { template_name: 'bug-fix', task_description: 'the cache serves pages in the wrong language' },
      answer: 'the first step is analyze-root-cause',
    });
  });
  after(async () => {
    await model?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const cases = [
    { name: "the CLI's baton mcp owns the database", owner: false },
    { name: 'baton mcp forwards to baton serve', owner: true },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const project = join(work, c.owner ? 'forwarded' : 'owned');
      const home = join(project, '..', `${c.owner ? 'forwarded' : 'owned'}-home`);
      mkdirSync(project, { recursive: true });
      mkdirSync(home, { recursive: true });
      writeFileSync(join(project, '.mcp.json'), mcpConfigText('claude', { cliPath: CLI, workspace: project }));
      let serve: ChildProcess | undefined;
      try {
        if (c.owner) {
          serve = spawn(process.execPath, [CLI, 'serve', '--workspace', project], { stdio: 'ignore', env: { ...process.env, BATON_LOG_LEVEL: 'error' } });
          await waitFor(() => existsSync(join(project, '.baton', 'server.json')), 20_000, 'baton serve');
        }
        const from = model.requests.length;
        const lines = await runClaude(project, home);
        const init = lines.find((l) => l.type === 'system' && l.subtype === 'init');
        assert.deepEqual(init?.mcp_servers?.map((s: any) => [s.name, s.status]), [['baton', 'connected']]);
        const requests = model.requests.slice(from).filter((r) => r.api === 'anthropic');
        const offered = (requests[0]?.body as any)?.tools?.find((t: any) => t.name === TOOL);
        assert.ok(offered, `the first request offers ${TOOL}: ${requests[0]?.offered.join(', ')}`);
        assert.ok(offered.input_schema?.properties?.template_name, 'with its schema');
        assert.notEqual(offered.defer_loading, true, 'not deferred');
        assert.deepEqual(requests.map((r) => ('call' in r.decision ? r.decision.call : 'text')), [TOOL, 'text'], 'no ToolSearch turn');
        const results = toolResultsOf(requests.at(-1)!).join('\n');
        assert.match(results, /analyze-root-cause/, results);
        const result = lines.find((l) => l.type === 'result');
        assert.equal(result?.is_error, false);
        assert.equal(result?.result, 'the first step is analyze-root-cause');
        assert.ok(existsSync(join(project, '.baton', 'baton.db')));
        if (c.owner) {
          // The owner did the work: the forwarding process answered from the catalog and sent the call on.
          const discovery = JSON.parse(readFileSync(join(project, '.baton', 'server.json'), 'utf8')) as { pid: number };
          assert.equal(discovery.pid, serve!.pid);
        }
      } finally {
        if (serve && serve.exitCode === null) {
          const exited = once(serve, 'exit');
          serve.kill('SIGTERM');
          await exited;
        }
      }
    });
  }
});
