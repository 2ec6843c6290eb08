// Rule: a runner starts its CLI with an argument array (the prompt never passes through a shell), gives it Baton's MCP
// server through that CLI's own mechanism inside a scratch HOME that is removed afterwards — on success, failure and
// abort alike — kills the whole process group (grandchildren included) on abort or timeout, and names the npm package
// to install when the CLI is missing, or the PATH to put it on (which a pipeline agent's env may set).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import type { AgentRunEvent, AgentRunRequest, AgentRunResult } from '../../src/core/pipelines/runner.js';
import type { CliRunnerOptions } from '../../src/host/runners/cliRunner.js';
import { createAgentRunner, type SpawnedRunnerKind } from '../../src/host/runners/createRunner.js';
import { isPidAlive } from '../../src/store/lock.js';

const FIXTURES = join(__dirname, '..', 'fixtures', 'runners');
const FAKE = join(FIXTURES, 'fakeCli.mjs');
const TRANSCRIPTS = join(FIXTURES, 'transcripts');
const MCP = { url: 'http://127.0.0.1:9/mcp', token: 'tok-0123456789abcdef' };
const PROMPT = 'Review $(touch /tmp/baton-pwned) `id`; rm -rf ~ && echo "quoted" \'single\' | cat > out\nsecond line';

interface Recorded {
  argv: string[];
  cwd: string;
  stdin: string;
  env: { [k: string]: string };
  scratch: string;
  files: { [path: string]: string };
}

let work: string;
let scratchParent: string;
let project: string;
let counter = 0;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'baton-runners-'));
  scratchParent = join(work, 'scratch');
  project = join(work, 'project');
  mkdirSync(scratchParent);
  mkdirSync(project);
});
after(() => rmSync(work, { recursive: true, force: true }));

/** Runs `kind` with the fake CLI as its executable; returns the events, the result and what the fake recorded. */
async function runFake(kind: SpawnedRunnerKind, env: Record<string, string>, request: Partial<AgentRunRequest> = {}, options: CliRunnerOptions = {}) {
  const record = join(work, `record-${++counter}.json`);
  const runner = createAgentRunner(kind, { executable: FAKE, scratchParent, killGraceMs: 300, ...options, env: { FAKE_RECORD: record, ...env, ...options.env } });
  const run = runner.run({ agent: 'scout', prompt: PROMPT, cwd: project, mcp: MCP, ...request });
  const events: AgentRunEvent[] = [];
  for await (const e of run) events.push(e);
  const result = await run.result;
  const recorded = existsSync(record) ? (JSON.parse(readFileSync(record, 'utf8')) as Recorded) : null;
  return { events, result, recorded };
}

async function gone(pids: number[], withinMs = 3000): Promise<boolean> {
  const end = Date.now() + withinMs;
  while (Date.now() < end) {
    if (pids.every((p) => !isPidAlive(p))) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

describe('each CLI gets Baton\'s MCP server its own way, in a scratch HOME', () => {
  it('claude: --mcp-config file with the bearer header, --strict-mcp-config, Baton\'s tools allowed, the prompt on stdin', async () => {
    const { result, recorded } = await runFake('claude', { FAKE_TRANSCRIPT: join(TRANSCRIPTS, 'claude.jsonl') }, { systemPrompt: 'Be brief.', model: 'sonnet', allowedTools: ['Read'] });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(result.text, 'DONE-ANSWER');
    const r = recorded!;
    assert.equal(r.stdin, PROMPT);
    assert.ok(!r.argv.includes(PROMPT), 'the prompt is not an argument');
    const configPath = r.argv[r.argv.indexOf('--mcp-config') + 1]!;
    assert.ok(configPath.startsWith(r.scratch), 'the MCP config lives in the scratch folder');
    const mcp = JSON.parse(r.files[configPath.slice(r.scratch.length + 1)]!) as { mcpServers: Record<string, unknown> };
    assert.deepEqual(mcp.mcpServers.baton, { type: 'http', url: MCP.url, headers: { Authorization: `Bearer ${MCP.token}` } });
    assert.ok(r.argv.includes('--strict-mcp-config'));
    assert.equal(r.argv[r.argv.indexOf('--allowedTools') + 1], 'Read,mcp__baton');
    assert.equal(r.argv[r.argv.indexOf('--model') + 1], 'sonnet');
    assert.deepEqual(r.argv.slice(0, 3), ['-p', '--output-format', 'stream-json']);
    const promptFile = r.argv[r.argv.indexOf('--append-system-prompt-file') + 1]!;
    assert.equal(r.files[promptFile.slice(r.scratch.length + 1)], 'Be brief.');
  });

  it('codex: an mcp_servers override whose token travels in the environment, never in argv', async () => {
    const { result, recorded } = await runFake('codex', { FAKE_TRANSCRIPT: join(TRANSCRIPTS, 'codex.jsonl') }, { systemPrompt: 'Be "brief".' }, {
      config: { model_provider: 'p', 'model_providers.p': { name: 'p', base_url: 'http://127.0.0.1:9/v1', wire_api: 'responses' } },
    });
    assert.equal(result.status, 'completed', result.error ?? '');
    const r = recorded!;
    assert.equal(r.stdin, PROMPT);
    assert.deepEqual(r.argv.slice(0, 5), ['exec', '--json', '--skip-git-repo-check', '--ignore-user-config', '--ephemeral']);
    assert.equal(r.argv.at(-1), '-');
    assert.ok(r.argv.includes(`mcp_servers.baton={url = "${MCP.url}", bearer_token_env_var = "BATON_MCP_TOKEN", default_tools_approval_mode = "approve", required = true}`), r.argv.join(' '));
    assert.ok(r.argv.includes('model_providers.p={name = "p", base_url = "http://127.0.0.1:9/v1", wire_api = "responses"}'));
    assert.ok(r.argv.includes('developer_instructions="Be \\"brief\\"."'));
    assert.ok(!r.argv.some((a) => a.includes(MCP.token)), 'the token is not an argument (ps would show it)');
    assert.equal(r.env.BATON_MCP_TOKEN, MCP.token);
  });

  it('gemini: the scratch HOME\'s ~/.gemini/settings.json with a trusted httpUrl entry; the system prompt as GEMINI.md', async () => {
    const { result, recorded } = await runFake('gemini', { FAKE_TRANSCRIPT: join(TRANSCRIPTS, 'gemini.jsonl') }, { systemPrompt: 'Be brief.', model: 'gemini-2.5-flash' }, {
      config: { security: { auth: { selectedType: 'gemini-api-key' } } },
    });
    assert.equal(result.status, 'completed', result.error ?? '');
    const r = recorded!;
    assert.equal(r.env.HOME, join(r.scratch, 'home'));
    const settings = JSON.parse(r.files['home/.gemini/settings.json']!) as Record<string, any>;
    assert.deepEqual(settings.mcpServers.baton, { httpUrl: MCP.url, headers: { Authorization: `Bearer ${MCP.token}` }, trust: true });
    assert.equal(settings.security.auth.selectedType, 'gemini-api-key');
    assert.equal(r.files['home/.gemini/GEMINI.md'], 'Be brief.');
    assert.deepEqual(r.argv, ['-o', 'stream-json', '-m', 'gemini-2.5-flash']);
    assert.equal(r.stdin, PROMPT);
  });

  it('opencode: one OPENCODE_CONFIG file with a remote MCP entry, the model and the instructions', async () => {
    const { result, recorded } = await runFake('opencode', { FAKE_TRANSCRIPT: join(TRANSCRIPTS, 'opencode.jsonl') }, { systemPrompt: 'Be brief.', model: 'p/m' });
    assert.equal(result.status, 'completed', result.error ?? '');
    const r = recorded!;
    assert.ok(r.env.OPENCODE_CONFIG!.startsWith(r.scratch));
    const config = JSON.parse(r.files[r.env.OPENCODE_CONFIG!.slice(r.scratch.length + 1)]!) as Record<string, any>;
    assert.deepEqual(config.mcp.baton, { type: 'remote', url: MCP.url, headers: { Authorization: `Bearer ${MCP.token}` }, enabled: true });
    assert.equal(config.model, 'p/m');
    assert.equal(r.files[config.instructions[0].slice(r.scratch.length + 1)], 'Be brief.');
    assert.deepEqual(r.argv, ['run', '--format', 'json']);
    assert.equal(r.stdin, PROMPT);
    assert.deepEqual([result.costUsd, result.costSource], [0, 'cli'], 'opencode bills $0 for a model it has no price for');
    const priced = await runFake('opencode', { FAKE_TRANSCRIPT: join(TRANSCRIPTS, 'opencode.jsonl') }, { price: { input: 1, output: 2 } });
    assert.equal(priced.result.costSource, 'price', 'then the agent\'s price says more');
    assert.ok(priced.result.costUsd! > 0);
  });

  it('cursor-agent: the scratch HOME\'s ~/.cursor/mcp.json, never the project\'s .cursor/', async () => {
    const { result, recorded } = await runFake('cursor-agent', { FAKE_TRANSCRIPT: join(TRANSCRIPTS, 'cursor-agent.jsonl') }, { systemPrompt: 'Be brief.' });
    assert.equal(result.status, 'completed', result.error ?? '');
    const r = recorded!;
    const mcp = JSON.parse(r.files['home/.cursor/mcp.json']!) as Record<string, any>;
    assert.deepEqual(mcp.mcpServers.baton, { url: MCP.url, headers: { Authorization: `Bearer ${MCP.token}` } });
    assert.equal(r.argv.at(-1), `Be brief.\n\n${PROMPT}`, 'the prompt is one argument, passed as is');
    assert.equal(r.argv[r.argv.indexOf('--workspace') + 1], project);
    assert.ok(!existsSync(join(project, '.cursor')));
  });

  it('command: the prompt on stdin, Baton\'s MCP server and the agent in the environment', async () => {
    const { result, recorded } = await runFake('command', { FAKE_TRANSCRIPT: join(TRANSCRIPTS, 'command.txt') }, { model: 'm1' }, { args: ['--flag', 'a b'] });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(result.text, 'DONE-ANSWER');
    assert.equal(result.costUsd, 0.003);
    assert.equal(result.costSource, 'cli');
    const r = recorded!;
    assert.deepEqual(r.argv, ['--flag', 'a b']);
    assert.equal(r.stdin, PROMPT);
    assert.equal(r.env.BATON_MCP_URL, MCP.url);
    assert.equal(r.env.BATON_MCP_TOKEN, MCP.token);
    assert.equal(r.env.BATON_AGENT, 'scout');
    assert.equal(r.env.BATON_MODEL, 'm1');
  });

  it('points HOME, the XDG folders and TMPDIR into the scratch folder, which request.env cannot move, and runs in the project (cwd and PWD)', async () => {
    const { recorded } = await runFake('claude', { FAKE_TRANSCRIPT: join(TRANSCRIPTS, 'claude.jsonl') }, { env: { HOME: homedir(), XDG_CONFIG_HOME: '/etc', PWD: '/' } });
    const r = recorded!;
    assert.equal(r.env.PWD, project, 'PWD names the project too (opencode takes its folder from it, not from the process\'s folder)');
    for (const key of ['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'TMPDIR']) {
      assert.ok(r.env[key]!.startsWith(`${r.scratch}/`), `${key}=${r.env[key]}`);
    }
    assert.equal(r.cwd, project);
    assert.ok(!existsSync('/tmp/baton-pwned'), 'nothing in the prompt ran');
  });

  it('leaves out the parent\'s variables that would lead the CLI back to the user\'s own configuration', async () => {
    process.env.CLAUDE_CONFIG_DIR = join(homedir(), '.claude');
    process.env.CODEX_HOME = join(homedir(), '.codex');
    try {
      const { recorded } = await runFake('codex', { FAKE_TRANSCRIPT: join(TRANSCRIPTS, 'codex.jsonl') });
      assert.equal(recorded!.env.CLAUDE_CONFIG_DIR, undefined);
      assert.equal(recorded!.env.CODEX_HOME, undefined);
    } finally {
      delete process.env.CLAUDE_CONFIG_DIR;
      delete process.env.CODEX_HOME;
    }
  });
});

describe('scratch folders are removed', { timeout: 30_000 }, () => {
  it('after a run that succeeded, one that failed and one that was aborted; nothing is left in the project', async () => {
    await runFake('claude', { FAKE_TRANSCRIPT: join(TRANSCRIPTS, 'claude.jsonl') });
    const failed = await runFake('claude', { FAKE_TRANSCRIPT: join(TRANSCRIPTS, 'claude.jsonl'), FAKE_EXIT: '3' });
    assert.equal(failed.result.status, 'failed');
    assert.match(failed.result.error!, /claude exited with code 3/);
    const controller = new AbortController();
    const pids = join(work, 'pids-scratch.json');
    const run = createAgentRunner('gemini', { executable: FAKE, scratchParent, killGraceMs: 300, env: { FAKE_MODE: 'hang', FAKE_PIDS: pids, FAKE_LINE: '{"type":"message","role":"assistant","content":"hi"}' } })
      .run({ agent: 'a', prompt: 'p', cwd: project, mcp: MCP, signal: controller.signal });
    for await (const _ of run) {
      controller.abort();
    }
    assert.equal((await run.result).status, 'aborted');
    assert.deepEqual(readdirSync(scratchParent), [], 'every scratch folder is gone');
    assert.deepEqual(readdirSync(project), []);
  });
});

describe('abort and timeout kill the whole process group', { timeout: 30_000 }, () => {
  async function hang(kind: SpawnedRunnerKind, request: Partial<AgentRunRequest>, stubborn: boolean, abortAfterFirst?: AbortController) {
    const pidsFile = join(work, `pids-${++counter}.json`);
    const started = Date.now();
    const run = createAgentRunner(kind, {
      executable: FAKE, scratchParent, killGraceMs: 300,
      env: { FAKE_MODE: 'hang', FAKE_PIDS: pidsFile, FAKE_STUBBORN: stubborn ? '1' : '0', FAKE_LINE: '{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"working"}}' },
    }).run({ agent: 'a', prompt: 'p', cwd: project, ...request });
    const events: AgentRunEvent[] = [];
    for await (const e of run) {
      events.push(e);
      if (events.length === 1) abortAfterFirst?.abort();
    }
    const result: AgentRunResult = await run.result;
    // Killed before it got to write them (an already aborted signal): no pids.
    const pids = existsSync(pidsFile) ? (JSON.parse(readFileSync(pidsFile, 'utf8')) as number[]) : [];
    return { result, pids, events, ms: Date.now() - started };
  }

  it('abort: the CLI and the grandchild it started are both gone; the run is "aborted"', async () => {
    const controller = new AbortController();
    const { result, pids, events } = await hang('codex', { signal: controller.signal }, false, controller);
    assert.equal(pids.length, 2);
    assert.equal(result.status, 'aborted');
    assert.match(result.error!, /aborted; codex's process group was killed/);
    assert.equal(events.at(-1)!.type, 'done');
    assert.ok(await gone(pids), `still alive: ${pids.filter(isPidAlive).join(', ')}`);
  });

  it('timeout: a group that ignores SIGTERM is killed with SIGKILL after the grace period; the run is "timeout"', async () => {
    const { result, pids, ms } = await hang('codex', { timeoutMs: 700 }, true);
    assert.equal(pids.length, 2);
    assert.equal(result.status, 'timeout');
    assert.match(result.error!, /did not finish within 0\.7 s; its process group was killed/);
    assert.ok(ms >= 700, `${ms} ms`);
    assert.ok(await gone(pids), `still alive: ${pids.filter(isPidAlive).join(', ')}`);
  });

  // The fake hangs for good: a run the signal did not stop would end only at the test's timeout (a hang guard, not a
  // timed assertion: any time under it passes).
  it('an already aborted signal stops the run at once', { timeout: 60_000 }, async () => {
    const controller = new AbortController();
    controller.abort();
    const { result, pids } = await hang('claude', { signal: controller.signal }, false);
    assert.equal(result.status, 'aborted');
    assert.ok(await gone(pids));
  });

  it('a grandchild left running when the CLI exits is killed with the group', async () => {
    const pidsFile = join(work, 'pids-orphan.json');
    const run = createAgentRunner('command', { executable: FAKE, scratchParent, env: { FAKE_MODE: 'orphan', FAKE_PIDS: pidsFile, FAKE_LINE: 'bye' } })
      .run({ agent: 'a', prompt: 'p', cwd: project });
    const result = await run.result;
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.equal(result.text, 'bye');
    const pids = JSON.parse(readFileSync(pidsFile, 'utf8')) as number[];
    assert.ok(await gone(pids), `still alive: ${pids.filter(isPidAlive).join(', ')}`);
  });
});

describe('a missing CLI', () => {
  const PACKAGES: Array<[SpawnedRunnerKind, RegExp]> = [
    ['claude', /@anthropic-ai\/claude-code/], ['codex', /@openai\/codex/], ['gemini', /@google\/gemini-cli/], ['opencode', /opencode-ai/],
    ['cursor-agent', /cursor\.com\/install/],
  ];
  for (const [kind, pkg] of PACKAGES) {
    it(`${kind}: runner_unavailable naming what to install, from both the iteration and the result`, async () => {
      const run = createAgentRunner(kind, { scratchParent, env: { PATH: join(work, 'empty-bin') } }).run({ agent: 'a', prompt: 'p', cwd: project });
      await assert.rejects(async () => {
        for await (const _ of run) assert.fail('no events');
      }, (ex: unknown) => {
        assert.ok(BatonError.is(ex, 'runner_unavailable'));
        assert.match(ex.message, pkg);
        assert.match(ex.message, /not found on PATH/);
        // What a person can do without installing: no system file or team names an executable, so PATH it is.
        assert.match(ex.message, /on PATH \(a pipeline agent may set its own PATH in env\)\.$/);
        return true;
      });
      await assert.rejects(run.result, (ex: unknown) => BatonError.is(ex, 'runner_unavailable'));
    });
  }

  it('a path that is not an executable file is named', async () => {
    const run = createAgentRunner('command', { executable: join(work, 'nope.sh'), scratchParent }).run({ agent: 'a', prompt: 'p', cwd: project });
    await assert.rejects(run.result, (ex: unknown) => BatonError.is(ex, 'runner_unavailable') && (ex as Error).message.includes('nope.sh" was not found'));
    assert.deepEqual(readdirSync(scratchParent), [], 'no scratch folder was made');
  });

  it('a path that is there but cannot run says why: a file without execute permission, a folder', async () => {
    const script = join(project, 'agent.sh');
    writeFileSync(script, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    const plain = createAgentRunner('command', { executable: './agent.sh', scratchParent }).run({ agent: 'a', prompt: 'p', cwd: project });
    await assert.rejects(plain.result, (ex: unknown) => {
      assert.ok(BatonError.is(ex, 'runner_unavailable'));
      assert.ok(ex.message.startsWith(`command: "./agent.sh" is not executable (${script}): make it so with chmod +x, or name its interpreter first, as in [sh, ./agent.sh]. `), ex.message);
      return true;
    });
    const folder = createAgentRunner('command', { executable: project, scratchParent }).run({ agent: 'a', prompt: 'p', cwd: project });
    await assert.rejects(folder.result, (ex: unknown) => BatonError.is(ex, 'runner_unavailable') && (ex as Error).message.includes(`is a folder (${project}), not a program`));
    assert.deepEqual(readdirSync(scratchParent), [], 'no scratch folder was made');
  });

  it('the command runner without an executable, and an unknown kind, are refused', () => {
    assert.throws(() => createAgentRunner('command'), (ex: unknown) => BatonError.is(ex, 'invalid_input'));
    assert.throws(() => createAgentRunner('nope' as SpawnedRunnerKind), /unknown runner "nope"; use one of claude, codex/);
  });

  it('a working folder that does not exist is refused before anything starts', async () => {
    const run = createAgentRunner('command', { executable: FAKE, scratchParent }).run({ agent: 'a', prompt: 'p', cwd: join(work, 'missing') });
    await assert.rejects(run.result, (ex: unknown) => BatonError.is(ex, 'invalid_input') && /does not exist/.test((ex as Error).message));
  });
});
