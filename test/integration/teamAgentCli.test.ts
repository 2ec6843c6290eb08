// Rule: a review team of real claude CLIs (from npm, pointed at a scripted model on 127.0.0.1) runs through `baton run`: the reviewer @mentions the coder through channel_send, the coder edits the document and answers, the reviewer approves, and `baton run` exits (every agent idle) printing the final document.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { ensureAgentClis, type AgentCliPaths } from '../../scripts/agentClis.mjs';
import { ensureBuilt, runCli } from '../fixtures/mcp/cliHarness.js';
import { startScriptedModel, type ScriptedModel } from '../fixtures/runners/scriptedModel.js';

let clis: AgentCliPaths;
let model: ScriptedModel;

before(async () => {
  ensureBuilt();
  clis = await ensureAgentClis();
  model = await startScriptedModel({ answer: 'unused' });
});
after(async () => {
  await model?.close();
});

const TEAM = `name: review
agents:
  reviewer:
    model: anthropic/claude-sonnet-4-5
    system_prompt: You review code for quality and issues.
  coder:
    model: anthropic/claude-sonnet-4-5
    system_prompt: You fix the code the reviewer asks you to fix.
setup:
  - shell: printf 'function add(a, b) { return a + b + 1 }'
    as: diff
kickoff: |
  PR diff:
  \${{ diff }}

  @reviewer please review these changes, and ask the coder to fix what you find.
`;

test('claude reviewer and coder: mention through channel_send, document edited, run exits with the final document', { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-team-claude-'));
  const workspace = join(dir, 'ws');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'review.yaml'), TEAM);
  // Each agent is recognised by its prompt; the coder first (its own conversation later holds the reviewer's words).
  model.setScript([
    { when: 'You are @coder', script: {
      calls: [
        { tool: 'document_write', args: { content: '# Review Notes\n\n## Decisions\n- add() no longer adds 1 (fixed by coder)\n' } },
        { tool: 'channel_send', args: { message: '@reviewer fixed: add() returns a + b now, see the notes' } },
      ],
      answer: 'coder: fixed and reported',
    } },
    { when: 'add() returns a + b now', script: {
      calls: [{ tool: 'channel_send', args: { message: 'Approved: the fix is correct. Done.' } }],
      answer: 'reviewer: approved',
    } },
    { when: 'You are @reviewer', script: {
      calls: [{ tool: 'channel_send', args: { message: '@coder add() adds 1 too many; please fix it' } }],
      answer: 'reviewer: asked the coder',
    } },
  ]);
  const env = {
    PATH: `${dirname(clis.claude)}:${process.env.PATH}`, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'test-key', BATON_LOG_LEVEL: 'error',
  };
  const first = model.requests.length;
  const r = await runCli(['run', 'review.yaml', '--instance', 'pr-7', '--json', '--db', join(dir, 'state', 'baton.db'), '--workspace', workspace], env, workspace, 240_000);
  assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}`);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
  const said = lines.filter((l) => l.type === 'channel').map((l) => `${l.entry.from}: ${l.entry.message.split('\n')[0]}`);
  assert.deepEqual(said, [
    'system: PR diff:',
    'reviewer: @coder add() adds 1 too many; please fix it',
    'coder: @reviewer fixed: add() returns a + b now, see the notes',
    'reviewer: Approved: the fix is correct. Done.',
  ]);
  const result = lines.at(-1)!;
  assert.deepEqual([result.type, result.reason, result.invocations, result.failures], ['result', 'idle', 3, 0]);
  assert.equal(result.document, '# Review Notes\n\n## Decisions\n- add() no longer adds 1 (fixed by coder)\n');
  // The real CLI was offered Baton's context tools and the spec's guidance.
  const requests = model.requests.slice(first).filter((q) => q.api === 'anthropic');
  assert.ok(requests.some((q) => q.offered.includes('mcp__baton__channel_send') && q.offered.includes('mcp__baton__inbox_ack')));
  assert.ok(requests.some((q) => JSON.stringify(q.body).includes('## Workflow Participation')));
  assert.match(readFileSync(join(workspace, '.workflow', 'pr-7', 'notes.md'), 'utf8'), /fixed by coder/);
});
