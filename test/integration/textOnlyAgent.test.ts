// Rule: an agent whose client forwards only the text of each tool result (never structuredContent) finishes the bundled
// bug-fix workflow over real stdio from the text alone — token, ids, status and next call, rate-limit retries, the gate
// wait and the person's `baton approve` included — and the approval hint names the database whenever `baton approve`
// run in the workspace folder would not find it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, ensureBuilt } from '../fixtures/mcp/cliHarness.js';

const NEXT_CALL = 'Next call: workflow_next_step ';

/** `baton mcp ARGS` started in `cwd`, with an SDK client that the agent below reads only the text of. */
async function startMcpIn(cwd: string, args: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', ...args], cwd, stderr: 'pipe' });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'text-only-agent', version: '1' });
  await client.connect(transport);
  return client;
}

/** Runs `dist/cli.js ARGS` in `cwd`. */
function runCliIn(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [CLI, ...args], { cwd, timeout: 30_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Splits a shell command line into words (plain words and '…' single-quoted parts). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!));
}

/** A model that sees only text: every fact it acts on is parsed out of the result's text content. */
class TextOnlyAgent {
  readonly log: Array<{ status: string; step?: string; waited: boolean; limited: boolean }> = [];

  constructor(private readonly client: Client) {}

  /** Calls the tool and returns only the text of its result. */
  async call(args: Record<string, unknown>): Promise<string> {
    const res = await this.client.callTool({ name: 'workflow_next_step', arguments: args }, undefined, { timeout: 60_000 });
    const text = (res.content as Array<{ type: string; text?: string }>).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    assert.ok(text.length > 0, 'every result has a text');
    return text;
  }

  /** Drives the workflow from its first call to task_closed; `onGate` gets the awaiting_approval text while the agent waits. */
  async run(first: Record<string, unknown>, onGate: (text: string) => Promise<void>): Promise<string> {
    let args = first;
    for (let turn = 0; turn < 40; turn++) {
      const waited = args.step_token !== undefined && args.model_output_so_far === undefined;
      let text = await this.call(args);
      const status = /^status: (\w+)/m.exec(text)?.[1];
      assert.ok(status, `a status line in:\n${text}`);
      const limited = /^Error rate_limited:/m.test(text);
      this.log.push({ status, step: /^# Step "([^"]+)"/.exec(text)?.[1], waited, limited });
      if (limited) {
        const retry = Number(/^retry_after_ms: (\d+)$/m.exec(text)?.[1]);
        assert.ok(retry > 0, `retry_after_ms in the text:\n${text}`);
        await new Promise((r) => setTimeout(r, retry + 20));
        continue; // the same call again
      }
      assert.notEqual(status, 'error', text);
      if (status === 'task_closed') return text;
      const call = nextCall(text);
      if (status === 'awaiting_approval') {
        // Wait for the decision with the call the text gives, while the person decides.
        const waiting = this.call(call);
        await onGate(text);
        text = await waiting;
        this.log.push({ status: /^status: (\w+)/m.exec(text)![1]!, waited: true, limited: /^Error rate_limited:/m.test(text) });
        if (/^status: task_closed/m.test(text)) return text;
        args = nextCall(text);
        continue;
      }
      assert.equal(status, 'ok', text);
      assert.match(text, /^## Task\n/m);
      assert.match(text, /^## Required output\n/m);
      const step = /^# Step "([^"]+)"/.exec(text)![1]!;
      args = {
        ...call,
        model_output_so_far: {
          summary: `Did ${step}.`,
          artifacts: [{ type: 'markdown', title: `${step} notes`, content: `# ${step}\n\nThe session cookie parser now handles expiry.` }],
          references: ['src/session.ts'],
          confidence: 0.9,
        },
      };
    }
    throw new Error(`no task_closed after 40 calls: ${JSON.stringify(this.log)}`);
  }
}

/** The arguments on the text's "Next call:" line. */
function nextCall(text: string): Record<string, unknown> {
  const line = text.split('\n').find((l) => l.startsWith(NEXT_CALL));
  assert.ok(line, `a "${NEXT_CALL}" line in:\n${text}`);
  return JSON.parse(line.slice(NEXT_CALL.length)) as Record<string, unknown>;
}

/** The approve command in an awaiting_approval text, as words. */
function approveCommand(text: string): string[] {
  const cmd = /`(baton approve [^`]+)`/.exec(text)?.[1];
  assert.ok(cmd, `an approve command in:\n${text}`);
  return shellWords(cmd);
}

describe('a client that forwards only the text of results (real stdio, built dist/cli.js)', () => {
  const dirs: string[] = [];
  const clients: Client[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'baton-text-'));
    dirs.push(d);
    return d;
  };
  before(() => ensureBuilt());
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('finishes bug-fix from the text alone, with default rate limits, the gate wait and `baton approve` in the workspace', async () => {
    const workspace = tempDir();
    const client = await startMcpIn(workspace);
    clients.push(client);
    const agent = new TextOnlyAgent(client);
    let executionId = '';
    const closed = await agent.run({ template_name: 'bug-fix', task_description: 'Login fails with 500 once the session cookie expires' }, async (text) => {
      executionId = /execution_id: ([0-9a-f-]{36})/.exec(text)![1]!;
      const words = approveCommand(text);
      // The server runs on the workspace's own database: the plain command, run in the workspace folder.
      assert.deepEqual(words, ['baton', 'approve', executionId]);
      await new Promise((r) => setTimeout(r, 300));
      const approved = await runCliIn(workspace, words.slice(1));
      assert.equal(approved.code, 0, approved.stderr);
      assert.match(approved.stdout, /Approved review-code of /);
    });
    assert.match(closed, /^# Workflow Synthesis: bug-fix$/m);
    assert.ok(closed.includes(`execution_id: ${executionId}`));
    const steps = agent.log.filter((l) => l.status === 'ok' && l.step).map((l) => l.step);
    assert.deepEqual([...new Set(steps)], ['analyze-root-cause', 'implement-fix', 'write-tests', 'review-code']);
    assert.deepEqual(agent.log.filter((l) => l.waited && l.limited), [], 'waiting on the gate is never rate-limited');
  });

  it('names the database with --db when the server runs on another one, and that exact command approves from any folder', async () => {
    const dir = tempDir();
    const workspace = join(dir, 'ws');
    const db = join(dir, 'state', 'team.db');
    mkdirSync(workspace);
    const client = await startMcpIn(tempDir(), ['--db', db, '--workspace', workspace, '--rate-limits', 'off']);
    clients.push(client);
    const agent = new TextOnlyAgent(client);
    const closed = await agent.run({ template_name: 'bug-fix' }, async (text) => {
      const words = approveCommand(text);
      assert.deepEqual(words.slice(0, 4), ['baton', 'approve', '--db', db]);
      const approved = await runCliIn(tempDir(), words.slice(1));
      assert.equal(approved.code, 0, approved.stderr);
    });
    assert.match(closed, /^status: task_closed/m);
  });
});
