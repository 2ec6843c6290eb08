// Rule: each agent step of a pipeline run reaches Baton's MCP server with a token of its own that works while the
// step runs and stops working once the step ends, and a run's tokens all end when the run ends, pauses or is aborted.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { System } from '../../src/core/pipelines/types.js';
import { silentLog } from '../../src/core/ports.js';
import { becomeOwner, type Owner } from '../../src/host/owner.js';
import { ROOT } from '../fixtures/mcp/cliHarness.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'pipelines', 'tokenAgent.mjs');

function system(env: Record<string, string>, ids: string[]): System {
  return {
    name: 'tokens', description: '',
    agents: ids.map((id) => ({ id, role: 'custom', runner: 'command', command: [process.execPath, AGENT], env })),
    workflow: ids.map((id) => ({ id: `step-${id}`, type: 'agent', agentId: id, outputVariable: id })),
  };
}

/** The HTTP status Baton's MCP endpoint answers an MCP initialize with `token`. */
async function status(url: string, token: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  await res.body?.cancel();
  return res.status;
}

describe('run tokens of pipeline steps', () => {
  let work: string;
  let owner: Owner;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'baton-step-tokens-'));
    owner = await becomeOwner({ dbPath: join(work, 'baton.db'), toolGroups: ['broker'], version: 't', workspace: work, log: silentLog });
  });
  after(async () => {
    await owner?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('a step\'s token works during the step and is refused once it ended; none is left when the run ends', async () => {
    const tokensFile = join(work, 'tokens-1');
    const pipelines = owner.opened.baton.pipelines;
    const runId = await pipelines.start(system({ TOKENS_FILE: tokensFile }, ['first', 'second', 'third']), { input: 'go', cwd: work });
    const outcome = await pipelines.drive(runId);
    assert.equal(outcome.status, 'completed', outcome.error ?? '');
    const vars = outcome.variables as Record<string, string>;
    assert.deepEqual(JSON.parse(vars.first!), { own: 200, earlier: [] });
    assert.deepEqual(JSON.parse(vars.second!), { own: 200, earlier: [401] }, 'the first step\'s token ended with it');
    assert.deepEqual(JSON.parse(vars.third!), { own: 200, earlier: [401, 401] });
    const tokens = readFileSync(tokensFile, 'utf8').trim().split('\n');
    assert.equal(new Set(tokens).size, 3, 'one token per step');
    for (const t of tokens) assert.equal(await status(owner.endpoint.url, t), 401);
    assert.equal(pipelines.liveTokens(runId), 0);
    assert.equal(await status(owner.endpoint.url, owner.endpoint.token), 200, 'the owner\'s own token still works');
  });

  it('aborting a run revokes the token of the step that was running', async () => {
    const tokensFile = join(work, 'tokens-2');
    const pipelines = owner.opened.baton.pipelines;
    const runId = await pipelines.start(system({ TOKENS_FILE: tokensFile, HANG_AGENT: 'stuck' }, ['stuck']), { input: 'go', cwd: work });
    const driving = pipelines.drive(runId);
    const deadline = Date.now() + 20_000;
    while (!existsSync(tokensFile)) {
      assert.ok(Date.now() < deadline, 'the agent started');
      await new Promise((r) => setTimeout(r, 50));
    }
    const [token] = readFileSync(tokensFile, 'utf8').trim().split('\n');
    assert.equal(await status(owner.endpoint.url, token!), 200, 'the running step\'s token works');
    assert.equal(pipelines.liveTokens(runId), 1);
    pipelines.abort(runId);
    assert.equal(await status(owner.endpoint.url, token!), 401, 'refused at once on abort');
    const outcome = await driving;
    assert.equal(outcome.status, 'aborted');
    assert.equal(pipelines.liveTokens(runId), 0);
  });

  it('a budget pausing the run mid-step revokes that step\'s token', async () => {
    const tokensFile = join(work, 'tokens-3');
    const pipelines = owner.opened.baton.pipelines;
    const runId = await pipelines.start(system({ TOKENS_FILE: tokensFile, SPEND_AGENT: 'spender' }, ['spender']), { input: 'go', cwd: work, budget: { tokens: 100 } });
    const outcome = await pipelines.drive(runId);
    assert.equal(outcome.status, 'paused', outcome.error ?? '');
    const [token] = readFileSync(tokensFile, 'utf8').trim().split('\n');
    assert.equal(await status(owner.endpoint.url, token!), 401);
    assert.equal(pipelines.liveTokens(runId), 0);
  });
});
